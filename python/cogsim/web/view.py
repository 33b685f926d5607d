"""``cogsim view RUN [RUN ...]``: run directories in a browser, read-only, a page at a time.

    /                                    the runs (one run: its page)
    /runs/R/                             a run: its settings and episodes per env and agent
    /runs/R/episodes?env=&agent=&...     its episodes, filtered (suite, env, agent, outcome, seed, task), by id;
                                         with beside=R.ID, each row links to that episode and it side by side
    /runs/R/episodes/ID?from=K           an episode turn by turn: frames, the turn's text, the reply, its
                                         parse, reward, fault, latency and tokens; links to the episodes of
                                         the same env and seed in every run shown
    /runs/R/episodes/ID/turns/T          the prompt turn T sent, the history policy applied
    /runs/R/images/ab/<sha256>.png|jpg   a frame, by content key, through the store's checked reader
    /runs/R/report.html (and plots/)     the run's report as ``cogsim report`` wrote it, sandboxed
    /compare?a=R.ID&b=R.ID               two episodes side by side, turn by turn

Every store is opened read-only for one request (nothing is written, nothing held between requests);
each page reads one page of rows (``cogsim.store.browse``), so memory does not grow with the store.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

from cogsim.web.pages import shown_messages

EPISODES_PER_PAGE = 50
TURNS_PER_PAGE = 20
MESSAGES_PER_PAGE = 40
QUERY_TIME_LIMIT_S = 20.0  # any one statement of a page
SUMMARY_TTL_S = 30.0  # how long a whole-store summary (counts, filter choices) is reused
MAX_SUMMARIES = 256
MAX_FRAME_BYTES = 64 << 20  # a stored frame larger than this is not served (as the exports)
MAX_REPORT_BYTES = 64 << 20
PLOT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}\.png")
EPISODE_REF = re.compile(r"(\d{1,4})\.(\d{1,18})")
REPORT_CSP = (
    "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'none'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


class BadRequest(ValueError):
    """A request the viewer cannot answer (a malformed parameter, an unknown run or episode)."""

    def __init__(self, words: str, status: int = 400):
        super().__init__(words)
        self.status = status


class Runs:
    """The run directories named on the command line, by their index, and the summaries of each
    that scan the whole store (episode counts, the filters' choices), kept SUMMARY_TTL_S seconds: a
    page of a million-episode store reads one page of rows, and such a scan only now and then."""

    def __init__(self, paths: list):
        from cogsim.store.sqlite import DB_NAME

        self.summaries: dict = {}  # (run, what) -> (when, value)
        self.summaries_lock = threading.Lock()
        self.paths = [Path(p) for p in paths]
        for path in self.paths:
            if not (path / DB_NAME).is_file():
                raise ValueError(f"{path} holds no cogsim run (no {DB_NAME})")

    def index(self, value: Any) -> int:
        """The run a request names (its position on the command line); BadRequest for any other."""
        return _integer(value, "run", 0, len(self.paths) - 1)

    def path(self, index: int) -> Path:
        return self.paths[index]

    def open(self, index: int):
        from cogsim.store.sqlite import Store

        return Store(self.paths[index], readonly=True, query_time_limit_s=QUERY_TIME_LIMIT_S)

    def summary(self, index: int, what: tuple, read: Callable[[], Any]) -> Any:
        """``read()``, or its value of less than SUMMARY_TTL_S seconds ago."""
        now = time.monotonic()
        with self.summaries_lock:
            kept = self.summaries.get((index, what))
        if kept is not None and now - kept[0] < SUMMARY_TTL_S:
            return kept[1]
        value = read()
        with self.summaries_lock:
            if len(self.summaries) >= MAX_SUMMARIES:
                self.summaries.pop(min(self.summaries, key=lambda k: self.summaries[k][0]))
            self.summaries[(index, what)] = (now, value)
        return value


def _integer(value: Any, name: str, low: int, high: int) -> int:
    text = str(value)
    if not re.fullmatch(r"-?\d{1,19}", text) or not low <= int(text) <= high:
        raise BadRequest(f"{name} must be a whole number in [{low}, {high}], got {text[:40]!r}")
    return int(text)


def _optional_integer(request, name: str, low: int = 0, high: int = 2**63 - 1) -> Optional[int]:
    value = request.query_params.get(name, "")
    return None if value == "" else _integer(value, name, low, high)


def view_app(runs: Runs):
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Route

    from cogsim.store import browse
    from cogsim.store.frames import read_stored_frame
    from cogsim.store.values import StoreError
    from cogsim.web.server import FILE_CSP, Pages, static_route

    pages = Pages()

    def guarded(handler):
        """A page's handler whose bad request or unreadable store becomes one line on an error page."""

        def page(request):
            try:
                return handler(request)
            except BadRequest as error:
                return pages.render("message.html", error.status, title="cogsim view", words=str(error), back="/")
            except (StoreError, ValueError) as error:
                return pages.render("message.html", 422, title="cogsim view", words=str(error), back="/")

        return page

    def home(request):
        if len(runs.paths) == 1:
            return RedirectResponse("/runs/0/", 303)
        listed = []
        for index, path in enumerate(runs.paths):
            with runs.open(index) as store:
                agents = (store.config() or {}).get("agents")
                agents = [str(a) for a in agents] if isinstance(agents, list) else []
                listed.append(
                    (index, path, agents, runs.summary(index, ("count",), lambda: browse.count_episodes(store)))
                )
        return pages.render("runs.html", title="cogsim view", runs=listed)

    def run_page(request):
        index = runs.index(request.path_params["run"])
        path = runs.path(index)
        with runs.open(index) as store:
            config = store.config() or {}
            counts = runs.summary(index, ("counts",), lambda: browse.episode_summary(store))
        report = (path / "report.html").is_file()
        return pages.render(
            "run.html",
            title=f"{path.name} · cogsim view",
            run=index,
            path=path,
            config=config,
            counts=counts,
            report=report,
            config_text=json.dumps(config, indent=1, ensure_ascii=False)[:20000],
        )

    def episodes(request):
        index = runs.index(request.path_params["run"])
        q = request.query_params
        where = browse.EpisodeFilter(
            suite=q.get("suite") or None,
            env_id=q.get("env") or None,
            agent=q.get("agent") or None,
            outcome=_outcome(q.get("outcome") or None),
            seed=_optional_integer(request, "seed", 0, 2**32 - 1),
            task=_optional_integer(request, "task", 0, 2**31),
        )
        after, before = _optional_integer(request, "after"), _optional_integer(request, "before")
        beside = q.get("beside") or None  # an episode each row may be seen beside
        if beside is not None:
            named, _ = _episode_ref(beside, "beside")
            runs.index(named)
        with runs.open(index) as store:
            page = browse.episode_page(store, where, after=after, before=before, limit=EPISODES_PER_PAGE)
            total = runs.summary(index, ("count", where), lambda: browse.count_episodes(store, where))
            options = runs.summary(index, ("choices",), lambda: browse.filter_choices(store))
        return pages.render(
            "episodes.html",
            title=f"episodes · {runs.path(index).name}",
            run=index,
            path=runs.path(index),
            page=page,
            total=total,
            where=where,
            options=options,
            outcomes=browse.OUTCOMES,
            beside=beside,
        )

    def episode(request):
        index = runs.index(request.path_params["run"])
        episode_id = _integer(request.path_params["episode"], "episode", 0, 2**63 - 1)
        first = _optional_integer(request, "from") or 0
        with runs.open(index) as store:
            head = _head(store, episode_id)
            turns = browse.turn_page(store, episode_id, first, TURNS_PER_PAGE)
        return pages.render(
            "episode.html",
            title=f"episode {episode_id} · cogsim view",
            run=index,
            path=runs.path(index),
            head=head,
            turns=[_turn_view(index, t) for t in turns],
            first=first,
            per_page=TURNS_PER_PAGE,
            runs=range(len(runs.paths)),
            outcome_text=_json(head.outcome),
            loop_text=_json(head.loop),
            options_text=_json(head.options),
        )

    def turn(request):
        index = runs.index(request.path_params["run"])
        episode_id = _integer(request.path_params["episode"], "episode", 0, 2**63 - 1)
        number = _integer(request.path_params["turn"], "turn", 0, 2**31)
        with runs.open(index) as store:
            head = _head(store, episode_id)
            sent = browse.prompt_at(store, head, number, browse.run_max_images(store.config()))
        if sent is None:
            raise BadRequest(f"episode {episode_id} has no turn {number}", 404)
        messages = shown_messages(sent.messages, lambda ref: _frame_url(index, ref))
        last_page = max(0, (len(messages) - 1) // MESSAGES_PER_PAGE * MESSAGES_PER_PAGE)
        first = _optional_integer(request, "from")
        first = last_page if first is None else min(first, last_page)
        return pages.render(
            "turn.html",
            title=f"turn {number} of episode {episode_id} · cogsim view",
            run=index,
            path=runs.path(index),
            head=head,
            turn=_turn_view(index, sent.turn),
            policy=str(sent.policy),
            messages=messages[first : first + MESSAGES_PER_PAGE],
            first=first,
            total=len(messages),
            per_page=MESSAGES_PER_PAGE,
        )

    def compare(request):
        sides = [_episode_ref(request.query_params.get(side, ""), side) for side in ("a", "b")]
        first = _optional_integer(request, "from") or 0
        columns = []
        for named, episode_id in sides:
            index = runs.index(named)
            with runs.open(index) as store:
                head = _head(store, episode_id)
                turns = browse.turn_page(store, episode_id, first, TURNS_PER_PAGE)
            columns.append((index, head, [_turn_view(index, t) for t in turns]))
        rows = max(len(turns) for _, _, turns in columns)
        return pages.render(
            "compare.html",
            title="side by side · cogsim view",
            columns=columns,
            rows=rows,
            first=first,
            per_page=TURNS_PER_PAGE,
            a=request.query_params["a"],
            b=request.query_params["b"],
        )

    def image(request):
        index = runs.index(request.path_params["run"])
        ref = f"images/{request.path_params['folder']}/{request.path_params['name']}"
        try:
            data = read_stored_frame(runs.path(index), ref, MAX_FRAME_BYTES)
        except ValueError as error:
            return PlainTextResponse(f"cogsim: {error}\n", 404)
        kind = "image/png" if ref.endswith(".png") else "image/jpeg"
        headers = {"cache-control": "private, max-age=86400, immutable", "content-security-policy": FILE_CSP}
        return Response(data, media_type=kind, headers=headers)

    def report(request):
        from cogsim._files import refuse_links
        from cogsim._untrusted import read_file

        path = runs.path(runs.index(request.path_params["run"])) / "report.html"
        try:
            refuse_links(path)
            data = read_file(path, "the run's report", MAX_REPORT_BYTES)
        except (ValueError, OSError) as error:
            return pages.render(
                "message.html", 404, title="cogsim view", words=f"no report to show: {error}", back="./"
            )
        return Response(data, media_type="text/html; charset=utf-8", headers={"content-security-policy": REPORT_CSP})

    def plot(request):
        from cogsim._files import refuse_links
        from cogsim._untrusted import read_file

        name = request.path_params["name"]
        if PLOT_NAME.fullmatch(name) is None:
            return PlainTextResponse("no such plot\n", 404)
        folder = runs.path(runs.index(request.path_params["run"])) / "plots"
        try:
            refuse_links(folder, folder / name)
            data = read_file(folder / name, "a plot", MAX_FRAME_BYTES)
        except (ValueError, OSError) as error:
            return PlainTextResponse(f"cogsim: {error}\n", 404)
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            return PlainTextResponse("cogsim: the plot is not a PNG file\n", 404)
        return Response(data, media_type="image/png", headers={"content-security-policy": FILE_CSP})

    def _head(store, episode_id: int):
        head = browse.episode_head(store, episode_id)
        if head is None:
            raise BadRequest(f"the run has no episode {episode_id}", 404)
        return head

    routes = [
        Route("/", guarded(home)),
        Route("/runs/{run}/", guarded(run_page)),
        Route("/runs/{run}/episodes", guarded(episodes)),
        Route("/runs/{run}/episodes/{episode}", guarded(episode)),
        Route("/runs/{run}/episodes/{episode}/turns/{turn}", guarded(turn)),
        Route("/runs/{run}/images/{folder}/{name}", guarded(image)),
        Route("/runs/{run}/report.html", guarded(report)),
        Route("/runs/{run}/plots/{name}", guarded(plot)),
        Route("/compare", guarded(compare)),
        static_route(),
    ]
    return Starlette(routes=routes)


def _outcome(value: Optional[str]) -> Optional[str]:
    from cogsim.store.browse import OUTCOMES

    if value is not None and value not in OUTCOMES:
        raise BadRequest(f"outcome must be one of {', '.join(OUTCOMES)}, got {value[:40]!r}")
    return value


def _episode_ref(value: str, side: str) -> tuple[int, int]:
    match = EPISODE_REF.fullmatch(value)
    if match is None:
        raise BadRequest(f"{side} must name an episode as RUN.ID (e.g. 0.12), got {value[:40]!r}")
    return int(match.group(1)), int(match.group(2))


def _frame_url(run: int, ref: str) -> str:
    return f"/runs/{run}/{ref}"


def _json(value: Any) -> str:
    return "" if value is None else json.dumps(value, indent=1, ensure_ascii=False, default=str)[:100_000]


def _turn_view(run: int, turn) -> dict:
    """A stored turn as the pages show it (its frames by address, its parsed answer as JSON)."""
    return {
        "turn": turn,
        "frames": [_frame_url(run, ref) for ref in turn.images],
        "parsed": _json(turn.parsed),
    }


# -- the command --------------------------------------------------------------------------------------
def add_arguments(p: argparse.ArgumentParser) -> None:
    from cogsim.web.server import add_server_options

    p.add_argument("run_dirs", nargs="+", metavar="RUN", help="run directories to show (read-only)")
    add_server_options(p)
    p.set_defaults(handler=run_view)


def run_view(args: argparse.Namespace) -> int:
    from cogsim.web.server import Access, Served, announce, check_port, require_web

    require_web("view")
    runs = Runs(args.run_dirs)
    served = Served(view_app(runs), args.host, check_port(args.port), lambda port: Access.create(args.host, port))
    with served:
        announce(served, "view the runs in your browser", not args.no_browser)
        print("press Ctrl-C to stop", flush=True)
        try:
            while served.thread.is_alive():
                served.thread.join(0.5)
        except KeyboardInterrupt:
            pass
    return 0


__all__ = ["Runs", "add_arguments", "run_view", "view_app"]
