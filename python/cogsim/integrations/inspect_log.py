"""A cogsim run directory as an inspect log (``cogsim export DIR --format inspect --out run.eval``),
written with inspect's own log recorder, so ``inspect view`` and ``inspect log dump`` read it.

One sample per stored episode (id ``ENV:AGENT:seed=SEED``): its turns as messages (the frames as
image content: the stored PNG or JPEG bytes the model was sent, with their MIME type; each answer as
the assistant's message naming its agent and seat), its score (the episode's total reward, with the
episode record as the metrics read it), token usage and timings from the stored turns. The run's config is the eval's metadata; the results hold the mean reward and
the family metrics by cogsim's metric code. An episode stopped by a backend fault, or that failed,
is an errored sample with the stored error; one still running (an interrupted run) says so.

The run directory is untrusted (docs/security.md). Samples are built and written one at a time (a
``.eval`` log streams them into its zip; inspect holds a ``.json`` log whole, so it has a lower
cap); each sample holds at most MAX_SAMPLE_BYTES of text and frames and the whole log at most
MAX_EVAL_EXPORT_BYTES (MAX_JSON_EXPORT_BYTES): past either the export ends in one line. A frame is
read once, only at the place the store names (``images/xx/<sha256>.png`` or ``.jpg``), never through a link
(``store/frames.py``), and is held once however often a sample shows it (inspect stores it as one
attachment). The log is written to a temporary file beside ``--out`` and renamed over it, so a
link there is replaced, not written through.
"""

from __future__ import annotations

import base64
import time
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, Optional, cast

from inspect_ai._util._async import run_coroutine  # what inspect's write_eval_log runs its writer with
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalPlan,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    condense_sample,
)
from inspect_ai.log._recorders import create_recorder_for_format  # the writer behind write_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.scorer import SampleScore, Score, mean, stderr

import cogsim
from cogsim._files import atomic_path
from cogsim._untrusted import size_text
from cogsim.agents.base import parse_agent_spec
from cogsim.integrations.episode import metric_values
from cogsim.store.export import checked_output
from cogsim.store.frames import media_type, read_stored_frame
from cogsim.store.sqlite import Store, StoreError, open_store

SCORER = "episode_reward"
MAX_IMAGE_BYTES = 64 << 20  # a stored frame larger than this is not read (a run directory is untrusted)
MAX_SAMPLE_BYTES = 256 << 20  # text and distinct frames of one sample: what is held while it is written
MAX_EVAL_EXPORT_BYTES = 4 << 30  # text and frames of all samples of a .eval log (streamed to disk)
MAX_JSON_EXPORT_BYTES = 256 << 20  # of a .json log, which inspect holds in memory whole
FRAME_CACHE_BYTES = 64 << 20  # frames kept after their sample is written, for the next samples that show them
JSONL_ADVICE = "export the run with --format jsonl, which writes turns one at a time and names frames by path"


def inspect_model_name(agent: str) -> str:
    """How inspect names the agent's model: openai/M, vllm/M, cogsim/<scripted policy>."""
    kind, name = parse_agent_spec(agent)
    return f"cogsim/{name}" if kind == "scripted" else f"{kind}/{name}"


def export_inspect(run_dir: str | Path, path: str | Path) -> int:
    """Write the run at ``run_dir`` as an inspect log at ``path`` (.eval or .json); returns the sample count."""
    run_dir = Path(run_dir)
    target = checked_output(run_dir, path)
    log_format: Literal["eval", "json"] = "json" if target.suffix.lower() == ".json" else "eval"
    with open_store(run_dir) as store, atomic_path(target) as temporary:
        return run_coroutine(_write_log(store, run_dir, log_format, str(temporary)))


async def _write_log(store: Store, run_dir: Path, log_format: Literal["eval", "json"], location: str) -> int:
    config = store.config() or {}
    records = store.episodes(("done", "truncated", "error", "running"))
    spans = store.session_spans()
    spec = _eval_spec(config, records, spans, run_dir)
    recorder = create_recorder_for_format(log_format, str(Path(location).parent))
    # A fresh log: the eval recorder would otherwise read the (empty) file as an earlier log to append to.
    await recorder.log_init(spec, location, **({"clean": True} if log_format == "eval" else {}))
    await recorder.log_start(spec, EvalPlan())
    samples = _SampleWriter(store, run_dir, log_format)
    for record in records:
        sample = samples.build(record)
        await recorder.log_sample(spec, condense_sample(sample), write_through=True)
        samples.written(sample)
    await recorder.log_finish(
        spec,
        "error" if samples.errored else "success",
        EvalStats(
            started_at=_iso(spans[0][0]) if spans else "",
            completed_at=_iso(max(s[1] for s in spans)) if spans else "",
            model_usage=samples.usage,
        ),
        _results(samples.scored, len(records)),
        None,
        error=_run_error(samples.errored, len(records)),
    )
    return len(records)


def _eval_spec(config: dict, records: list[dict], spans: list, run_dir: Path) -> EvalSpec:
    agents = list(dict.fromkeys(a for r in records for a in r["agents"])) or list(config.get("agents", []))
    env_ids = list(dict.fromkeys(r["env_id"] for r in records))
    return EvalSpec(
        created=_iso(spans[0][0] if spans else time.time()),
        task=f"cogsim/{env_ids[0].replace('/', '_').replace('-', '_')}" if len(env_ids) == 1 else "cogsim/run",
        task_args={"env_ids": env_ids},
        dataset=EvalDataset(name=", ".join(env_ids), samples=len(records)),
        model=", ".join(inspect_model_name(a) for a in agents) or "none",
        config=EvalConfig(),
        metadata={"cogsim_run": config, "cogsim_version": cogsim.__version__, "exported_from": str(run_dir)},
    )


class _SampleWriter:
    """Builds the samples one at a time within the caps and keeps what the log's header needs: the
    scores, the token usage and the errors."""

    def __init__(self, store: Store, run_dir: Path, log_format: str):
        self.store = store
        self.frames = _Frames(run_dir)
        self.log_format = log_format
        self.limit = MAX_JSON_EXPORT_BYTES if log_format == "json" else MAX_EVAL_EXPORT_BYTES
        self.total = 0
        self.held, self.shown = 0, set[str]()  # of the sample being built: bytes, and the frames it holds
        self.scored: list[SampleScore] = []
        self.errored: list[str] = []
        self.usage: dict[str, ModelUsage] = {}

    def build(self, record: dict) -> EvalSample:
        episode_id = record["episode_id"]
        system_prompt = self.store.system_prompt(episode_id)
        messages: list[ChatMessage] = [ChatMessageSystem(content=system_prompt)] if system_prompt else []
        usage: dict[str, ModelUsage] = {}
        self.held, self.shown = 0, set[str]()
        self._hold(len(system_prompt or ""), episode_id)
        first_prompt, last_turn, latency = None, None, 0.0
        for turn in self.store.iter_turns(episode_id):
            self._hold(len(turn.prompt) + len(turn.response), episode_id)
            messages.append(self._user_message(turn.prompt, turn.images, episode_id))
            model = inspect_model_name(turn.agent)
            messages.append(
                ChatMessageAssistant(
                    content=turn.response,
                    model=model,
                    metadata={"player": turn.player, "parse": turn.parse, "reward": turn.reward},
                )
            )
            if turn.prompt_tokens is not None or turn.completion_tokens is not None:
                inputs, outputs = turn.prompt_tokens or 0, turn.completion_tokens or 0
                usage[model] = usage.get(model, ModelUsage()) + ModelUsage(
                    input_tokens=inputs, output_tokens=outputs, total_tokens=inputs + outputs
                )
            first_prompt = turn.prompt if first_prompt is None else first_prompt
            last_turn, latency = turn, latency + turn.latency_s
        self._count(self.held)
        finished = record["status"] in ("done", "truncated")
        return EvalSample(
            id=f"{record['env_id']}:{record['agent']}:seed={record['seed']}",
            epoch=1,
            input=first_prompt if first_prompt is not None else f"cogsim {record['env_id']}, seed {record['seed']}",
            target="",
            messages=messages,
            output=ModelOutput.from_content(
                model=inspect_model_name(last_turn.agent) if last_turn else "none",
                content=last_turn.response if last_turn else "",
            ),
            scores={SCORER: _score(record)} if finished else None,
            metadata={"env_id": record["env_id"], "seed": record["seed"], "agents": record["agents"]}
            | {"status": record["status"]},
            model_usage=usage,
            total_time=latency,
            working_time=latency,
            error=None if finished else _episode_error(record),
        )

    def _hold(self, size: int, episode_id: int) -> None:
        """Count ``size`` more bytes into the sample being built; past MAX_SAMPLE_BYTES, one line."""
        self.held += size
        if self.held > MAX_SAMPLE_BYTES:
            raise StoreError(
                f"{self.store.path}: episode {episode_id} holds more than {size_text(MAX_SAMPLE_BYTES)} of text and "
                f"frames, more than cogsim puts in one sample of an inspect log; {JSONL_ADVICE}"
            )

    def _count(self, held: int) -> None:
        """Count a finished sample into the whole log; past the log's cap, one line."""
        self.total += held
        if self.total <= self.limit:
            return
        where = f"{self.store.path}: the run holds more than the {size_text(self.limit)} of text and frames"
        if self.log_format == "json":
            raise StoreError(
                f"{where} cogsim writes into a .json log (inspect holds a .json log in memory whole); write a .eval "
                f"log, which streams its samples (up to {size_text(MAX_EVAL_EXPORT_BYTES)}), or {JSONL_ADVICE}"
            )
        raise StoreError(f"{where} cogsim writes into the whole log of an inspect export; {JSONL_ADVICE}")

    def written(self, sample: EvalSample) -> None:
        """What the header needs of a sample just written; its frames leave memory past the cache."""
        if sample.scores:
            self.scored.append(SampleScore(score=sample.scores[SCORER], sample_id=sample.id))
        if sample.error:
            self.errored.append(sample.error.message)
        for model, usage in sample.model_usage.items():
            self.usage[model] = self.usage.get(model, ModelUsage()) + usage
        self.frames.trim()

    def _user_message(self, text: str, images: list, episode_id: int) -> ChatMessageUser:
        urls = []
        for ref in images:
            urls.append(self.frames.url(ref))
            if ref not in self.shown:  # a sample holds each frame once, however often it shows it
                self.shown.add(ref)
                self._hold(len(urls[-1] or ""), episode_id)
        parts: list[Any] = [ContentImage(image=url) for url in urls if url]
        missing = sum(1 for url in urls if not url)
        if missing:
            parts.append(ContentText(text=f"[{missing} stored image(s) could not be read]"))
        return ChatMessageUser(content=[*parts, ContentText(text=text)] if parts else text)


class _Frames:
    """Data URLs of a run's stored frames. Each is read once: it stays in memory while the sample
    being built shows it, and afterwards among the newest FRAME_CACHE_BYTES of frames, for the next
    samples that show it. A frame that cannot be read (missing, a link, not a regular file, too
    large, not the PNG or JPEG its name says) has no URL."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self.cache: OrderedDict[str, Optional[str]] = OrderedDict()
        self.cached_bytes = 0

    def url(self, ref: str) -> Optional[str]:
        if ref in self.cache:
            self.cache.move_to_end(ref)
            return self.cache[ref]
        try:
            data = read_stored_frame(self.run_dir, ref, MAX_IMAGE_BYTES)
        except ValueError:
            url = None
        else:
            url = f"data:{media_type(ref)};base64," + base64.b64encode(data).decode("ascii")
            del data
        self.cache[ref] = url
        self.cached_bytes += len(url or "")
        return url

    def trim(self) -> None:
        while self.cached_bytes > FRAME_CACHE_BYTES and self.cache:
            _, url = self.cache.popitem(last=False)
            self.cached_bytes -= len(url or "")


def _score(record: dict) -> Score:
    episode = {k: v for k, v in record.items() if k != "episode_id"}
    return Score(
        value=float(record["total_reward"]),
        explanation=f"{record['status']} after {record['turns']} turns, total reward {record['total_reward']:g}",
        metadata={"episodes": [episode]},
    )


def _episode_error(record: dict) -> EvalError:
    if record.get("fault"):
        message = f"backend fault ({record['fault']}), not scored: {record.get('error', '')}"
    elif record["status"] == "error":
        message = f"the episode failed: {record.get('error', '')}"
    else:
        message = "the episode is unfinished (the run stopped); `cogsim run --resume` continues it"
    return EvalError(message=message, traceback=record.get("error") or "", traceback_ansi=record.get("error") or "")


def _results(scored: list[SampleScore], total: int) -> EvalResults:
    metrics: dict[str, Any] = {}
    failed: dict[str, str] = {}  # suites whose metric code failed on the stored records
    if scored:
        from inspect_ai.log import EvalMetric

        for name, compute in (("mean", mean()), ("stderr", stderr())):  # inspect's own metrics
            metrics[name] = EvalMetric(name=name, value=float(cast(Any, compute)(scored)))
        episodes = [e for s in scored for e in (s.score.metadata or {}).get("episodes", [])]
        for name, value in metric_values(episodes, failed).items():
            metrics[name] = EvalMetric(name=name, group="cogsim_metrics", value=value)
    return EvalResults(
        total_samples=total,
        completed_samples=len(scored),
        scores=[EvalScore(name=SCORER, scorer=SCORER, metrics=metrics)] if scored else [],
        metadata={"cogsim_metrics_failed": failed} if failed else None,
    )


def _run_error(errors: list[str], total: int) -> Optional[EvalError]:
    if not errors:
        return None
    message = f"{len(errors)} of {total} episodes were not scored: {errors[0]}"
    return EvalError(message=message, traceback="", traceback_ansi="")


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat()
