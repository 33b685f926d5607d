"""``cogsim play``: a person plays an env in a browser, as agent ``human:NAME`` of an ordinary run.

The run is ``cogsim run``'s (``cogsim.harness.run``, one episode in flight): the runner builds each
prompt with the env's history policy and asks the person's backend (``cogsim.agents.human``), which
hands it to the :class:`PlayDesk` here and waits; the page shows that prompt (the frames as the bytes
sent, the text, earlier messages the policy keeps), the env's one-press answers as buttons and keys
and a text box, and posts the reply back; the runner gives it to the env's parser and step and stores
the turn with the seconds the person took. Stopping (the page's Stop button, or Ctrl-C) ends the run
with every answered turn stored; the same command again continues where it stopped.

The person sees during play exactly what a model sees (nothing of an episode's outcome until every
episode is played). In duels the other seat is a scripted policy or a model, which the runner asks
as it always does.
"""

from __future__ import annotations

import argparse
import getpass
import re
import secrets
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from cogsim.agents.human import PlayStopped, Reply, TurnContext
from cogsim.web.pages import ShownMessage, shown_messages

WAIT_S = 10.0  # how long a page request waits for the next turn before it shows "waiting" and reloads
LINGER_S = 30.0  # after the run ends, how long the server waits for the page to show the summary


@dataclass
class AskedTurn:
    """A turn waiting for the person: the prompt as shown, its frames' bytes by name, its nonce (a
    reply names the turn it answers) and when it was asked, first shown and answered."""

    nonce: str
    messages: list
    context: TurnContext
    frames: dict
    asked_at: float
    shown_at: Optional[float] = None
    reply: Optional[str] = None
    replied_at: float = 0.0


class PlayDesk:
    """Between the runner's thread (``ask``, a ``cogsim.agents.human.Console``) and the server's:
    the turn waiting for the person, the state of the session and its end."""

    def __init__(self, out: Path, player: str):
        self.out, self.player = out, player
        self._changed = threading.Condition()
        self.state = "starting"  # starting | busy | turn | finished | stopped | failed
        self.current: Optional[AskedTurn] = None
        self.session = secrets.token_urlsafe(16)  # the stop form carries it
        self.answered = 0
        self.ending: list = []  # the finished page's lines, or the failure's message
        self.visited = False  # whether a page was ever asked for
        self.end_shown = threading.Event()

    # -- the runner's thread ---------------------------------------------------------------------------
    def ask(self, prompt: Sequence, context: TurnContext) -> Reply:
        from cogsim.agents.base import sent_frame

        frames: dict[str, tuple[bytes, str]] = {}

        def frame_url(image) -> str:
            sent = sent_frame(image)
            name = sent.key + sent.suffix
            frames[name] = (sent.data, sent.media_type)
            return f"/frames/{name}"

        turn = AskedTurn(
            secrets.token_urlsafe(16), shown_messages(prompt, frame_url), context, frames, time.monotonic()
        )
        with self._changed:
            if self.state == "stopped":
                raise PlayStopped()
            self.current, self.state = turn, "turn"
            self._changed.notify_all()
            while turn.reply is None and self.state == "turn":
                self._changed.wait(0.5)
            if turn.reply is None:
                raise PlayStopped()
            self.current, self.state = None, "busy"
            self.answered += 1
            self._changed.notify_all()
        return Reply(turn.reply, turn.replied_at - (turn.shown_at if turn.shown_at is not None else turn.asked_at))

    def end(self, state: str, lines: list) -> None:
        """The session is over: ``finished`` (every episode played), ``stopped`` or ``failed``."""
        with self._changed:
            self.state, self.ending, self.current = state, list(lines), None
            self._changed.notify_all()

    # -- the server's threads --------------------------------------------------------------------------
    def wait_ready(self, timeout: float) -> tuple[str, Optional[AskedTurn]]:
        """(state, the waiting turn) once a turn waits or the session is over, or after ``timeout``."""
        deadline = time.monotonic() + timeout
        self.visited = True
        with self._changed:
            while not self._ready() and time.monotonic() < deadline:
                self._changed.wait(min(0.5, max(0.0, deadline - time.monotonic())))
            if not self._ready():
                return "busy", None
            if self.current is not None and self.current.shown_at is None:
                self.current.shown_at = time.monotonic()  # the person's time starts at the first showing
            return self.state, self.current

    def _ready(self) -> bool:
        """Whether a turn waits for a reply or the session is over (a turn answered a moment ago, which
        the runner has not taken back yet, is not a turn to show again)."""
        if self.state == "turn":
            return self.current is not None and self.current.reply is None
        return self.state not in ("starting", "busy")

    def answer(self, nonce: str, text: str) -> bool:
        """Hands the reply to the turn ``nonce`` names; False if that turn is not the one waiting."""
        with self._changed:
            turn = self.current
            if turn is None or turn.reply is not None or not secrets.compare_digest(turn.nonce, nonce):
                return False
            turn.reply, turn.replied_at = text, time.monotonic()
            self._changed.notify_all()
            return True

    def stop(self, session: str) -> bool:
        with self._changed:
            if not secrets.compare_digest(session, self.session):
                return False
            if self.state in ("starting", "busy", "turn"):
                self.state = "stopped"
                self._changed.notify_all()
            return True

    def frame(self, name: str) -> Optional[tuple[bytes, str]]:
        with self._changed:
            return self.current.frames.get(name) if self.current is not None else None


def play_app(desk: PlayDesk):
    """The play page's routes: the turn (or waiting, or the end), its frames, the reply and stop forms."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Route

    from cogsim.web.server import Pages, read_form, static_route

    pages = Pages()

    async def home(request):
        state, turn = await run_in_threadpool(desk.wait_ready, WAIT_S)
        if state == "turn" and turn is not None:
            return pages.render("play.html", title="cogsim play", desk=desk, turn=turn, labels=_labels(turn.context))
        if state in ("finished", "stopped", "failed"):
            desk.end_shown.set()
            return pages.render("play_end.html", title="cogsim play", desk=desk, state=state)
        return pages.render("play_wait.html", title="cogsim play", desk=desk)

    async def reply(request):
        try:
            form = await read_form(request)
        except ValueError as error:
            return PlainTextResponse(f"cogsim: the reply was not read: {error}\n", 400)
        text = form.get("reply", "").replace("\r\n", "\n")  # a browser sends a text box's lines with CRLF
        desk.answer(form.get("turn", ""), text)  # False for a turn answered already (a second press): ignored
        return RedirectResponse("/#current", 303)

    async def stop(request):
        try:
            form = await read_form(request)
        except ValueError as error:
            return PlainTextResponse(f"cogsim: the form was not read: {error}\n", 400)
        if not desk.stop(form.get("session", "")):
            return PlainTextResponse("cogsim: not this session's stop form\n", 403)
        return RedirectResponse("/", 303)

    def frame(request):
        found = desk.frame(request.path_params["name"])
        if found is None:
            return PlainTextResponse("no such frame in the turn shown\n", 404)
        data, media_type = found
        return Response(data, media_type=media_type, headers=_FRAME_HEADERS)

    routes = [
        Route("/", home),
        Route("/reply", reply, methods=["POST"]),
        Route("/stop", stop, methods=["POST"]),
        Route("/frames/{name}", frame),
        static_route(),
    ]
    return Starlette(routes=routes)


_FRAME_HEADERS = {"cache-control": "private, max-age=86400, immutable", "content-security-policy": "sandbox"}


def _labels(context: TurnContext) -> dict:
    """The turn's header in words."""
    seats = context.seats
    words = {
        "env": context.env_id,
        "seed": context.seed,
        "episode": context.episode_index + 1,
        "turn": context.turn + 1,
    }
    words["seat"] = ""
    if len(seats) > 1:
        others = [spec for i, spec in enumerate(seats) if i != context.player]
        words["seat"] = f"player {context.player + 1} of {len(seats)}, against {' and '.join(others)}"
    return words


# -- the command --------------------------------------------------------------------------------------
def add_arguments(p: argparse.ArgumentParser) -> None:
    from cogsim.web.server import add_server_options

    p.add_argument("env_id", nargs="?", metavar="ENV_ID", help="the env to play (see `cogsim list`)")
    p.add_argument(
        "--preset",
        metavar="NAME",
        help="a paper's protocol instead of ENV_ID (paper:kidgym: beside the paper's Human row)",
    )
    p.add_argument("--out", required=True, help="the run directory (the same command again continues it)")
    p.add_argument("--name", help="the player's name: the run's agent is human:NAME (default: your login name)")
    p.add_argument("--episodes", type=int, default=1, help="episodes to play (per preset cell), default 1")
    p.add_argument("--seed", type=int, default=0, help="episode i gets seed SEED+i (default 0)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="env option (JSON value)")
    p.add_argument(
        "--opponent",
        metavar="AGENT",
        help="in a duel, the other seat: a scripted policy (oracle, random, ...) or openai:MODEL / vllm:MODEL",
    )
    p.add_argument("--seat", type=int, choices=(1, 2), default=1, help="in a duel, the person's seat (default 1)")
    p.add_argument(
        "--agent-option", action="append", default=[], metavar="KEY=VALUE", help="the opponent model's options"
    )
    p.add_argument("--history", help="full, last:K or current (default: the env's paper setting, as for a model)")
    p.add_argument("--max-images", type=int, help="at most this many images per prompt (the newest)")
    p.add_argument("--max-turns", type=int, default=1000, help="end an episode after this many turns")
    p.add_argument(
        "--import", action="append", default=[], dest="imports", metavar="MODULE", help="import a module first"
    )
    add_server_options(p)
    p.set_defaults(handler=run_play)


def default_name() -> str:
    """The login name as a player's name can carry it, else "player"."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = ""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", login).strip("-._")[:64]
    return name or "player"


def play_config(args: argparse.Namespace, player: str):
    """The run config of a play session: the person (and the opponent, in their seats), one episode in
    flight, the env or the preset's cells."""
    from cogsim.envs import list_envs, spec
    from cogsim.harness import RunConfig, Task, parse_option_values
    from cogsim.report.papers import preset_cells

    if args.env_id and args.preset:
        raise ValueError("give ENV_ID or --preset, not both")
    agents = [player] + ([args.opponent] if args.opponent else [])
    if args.seat == 2:
        agents.reverse()
    env_options = parse_option_values(args.env_option, "--env-option")
    if args.preset:
        cells = preset_cells(args.preset, agents)
        tasks = [
            Task(c.env_id, args.episodes, {**c.options, **env_options}, list(c.seats) if c.seats else None)
            for c in cells
        ]
    else:
        if args.env_id not in list_envs():
            raise ValueError(f"unknown env id {args.env_id!r}; `cogsim list` names them")
        players = getattr(spec(args.env_id).entry_point, "num_players", 1)
        if players > 1 and not args.opponent:
            raise ValueError(
                f"{args.env_id} seats {players} players: name the other with --opponent (oracle, random, a policy "
                "the env knows, or openai:MODEL / vllm:MODEL)"
            )
        if players == 1 and args.opponent:
            raise ValueError(f"{args.env_id} is played alone; --opponent is for duels")
        tasks = [Task(args.env_id, args.episodes, env_options)]
    return RunConfig(
        tasks=tasks,
        agents=agents,
        seed=args.seed,
        concurrency=1,
        workers=1,
        history=args.history,
        max_images=args.max_images,
        agent_options=parse_option_values(args.agent_option, "--agent-option"),
        max_turns=args.max_turns,
        imports=args.imports,
        preset=args.preset,
    )


def run_play(args: argparse.Namespace) -> int:
    from cogsim.agents.human import attach_console, check_name
    from cogsim.harness import import_plugins, run
    from cogsim.store.sqlite import DB_NAME
    from cogsim.web.server import Access, Served, announce, check_port, require_web

    require_web("play")
    player = "human:" + check_name(args.name if args.name is not None else default_name())
    out = Path(args.out)
    import_plugins(args.imports)
    config = play_config(args, player) if args.env_id or args.preset else None
    if config is None:
        if not (out / DB_NAME).exists():
            raise ValueError(f"{out} holds no run to continue: give ENV_ID (or --preset) to start one")
        player = _stored_player(out)
    desk = PlayDesk(out, player)
    served = Served(play_app(desk), args.host, check_port(args.port), lambda port: Access.create(args.host, port))
    with served, attach_console(desk):
        announce(served, "play in your browser", not args.no_browser)
        try:
            summary = run(config, out, resume=True)
        except (PlayStopped, KeyboardInterrupt) as stopped:
            desk.end("stopped", [f"{desk.answered} turns answered this session"])
            print(
                f"stopped; every answered turn is stored in {out}; the same command continues where you stopped",
                file=sys.stderr,
            )
            return 130 if isinstance(stopped, KeyboardInterrupt) else 0
        except Exception as error:
            desk.end("failed", [str(error)])
            raise
        desk.end("finished", _summary(out))
        if desk.visited:  # let the open page show the summary before the server goes
            desk.end_shown.wait(LINGER_S)
    print(
        f"{summary.finished}/{summary.episodes} episodes finished, {summary.turns} turns; store: {out} "
        f"(`cogsim view {out}` shows them turn by turn, `cogsim report {out}` the tables)"
    )
    return 0


def _stored_player(out: Path) -> str:
    """The person of the play run stored at ``out`` (its ``human:`` agent); ValueError if it has none."""
    from cogsim.store import open_store

    with open_store(out) as store:
        agents = (store.config() or {}).get("agents")
    people = [a for a in agents if isinstance(a, str) and a.startswith("human:")] if isinstance(agents, list) else []
    if not people:
        raise ValueError(
            f"{out} holds a run no person plays (no human:NAME agent); continue it with cogsim run --resume"
        )
    return people[0]


def _summary(out: Path) -> list:
    """The played episodes, for the finished page (at most a page of them)."""
    from cogsim.store import open_store
    from cogsim.store.browse import episode_page

    with open_store(out) as store:
        return episode_page(store, limit=200).episodes


__all__ = ["PlayDesk", "ShownMessage", "add_arguments", "play_app", "run_play"]
