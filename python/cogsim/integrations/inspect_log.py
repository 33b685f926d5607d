"""A cogsim run directory as an inspect log (``cogsim export DIR --format inspect --out run.eval``),
in inspect's own log format, so ``inspect view`` and ``inspect log dump`` read it.

One sample per stored episode (id ``ENV:AGENT:seed=SEED``): its turns as messages (the frames as
image content: the stored PNG or JPEG bytes the model was sent, with their MIME type; each answer as
the assistant's message naming its agent and seat), its score (the episode's total reward, with the
episode record as the metrics read it), token usage and timings from the stored turns. The run's
config is the eval's metadata; the results hold the mean reward and the family metrics by cogsim's
metric code. An episode stopped by a backend fault, or that failed, is an errored sample with the
stored error; one still running (an interrupted run) says so.

Frames: a sample holds each distinct frame it shows once (inspect's attachments: base64 of the
stored bytes), however often its turns show it; inspect's format has no place for a frame shared by
samples, so a frame shown in N samples is written N times (``images="inline"``, the default).
``images="none"`` writes a line naming the stored frame (``images/ab/<sha256>.png``) instead: the log
then holds text only (docs/guides/throughput.md gives the sizes of both).

Any size in bounded memory: a ``.eval`` log is a zip, written here member by member as inspect's
recorder lays it out (``_journal/start.json``, ``samples/<id>_epoch_1.json``, ``summaries.json``,
``header.json``) with inspect's own serialisation and compression, by ``eval_zip.ZipWriter``, whose
member index goes to a spool file (inspect's recorder keeps every sample's summary, and Python's zip
writer every member's record, in memory). The samples' summaries go to a spool file too; the header
keeps the scores as an array of numbers and the finished episodes' records column by column. inspect
holds a ``.json`` log whole, so it has a lower cap (MAX_JSON_EXPORT_BYTES).

The run directory is untrusted (docs/security.md). Each sample holds at most MAX_SAMPLE_BYTES of text
and frames and the whole log at most MAX_EVAL_EXPORT_BYTES (MAX_JSON_EXPORT_BYTES): past either the
export ends in one line. A frame is read once, only at the place the store names
(``images/xx/<sha256>.png`` or ``.jpg``), never through a link (``store/frames.py``). The log is
written to a temporary file beside ``--out`` and renamed over it when complete, so a link there is
replaced, not written through, and an export that fails leaves nothing behind.
"""

from __future__ import annotations

import base64
import tempfile
import time
from array import array
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, Optional, cast

import numpy as np
from inspect_ai._util._async import run_coroutine  # what inspect's write_eval_log runs its writer with
from inspect_ai._util.constants import LOG_SCHEMA_VERSION
from inspect_ai._util.json import to_json_safe  # how inspect's recorder serialises each member
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalPlan,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    condense_sample,
)
from inspect_ai.log._recorders import create_recorder_for_format  # the writer behind write_eval_log
from inspect_ai.log._recorders.eval import (  # the layout of a .eval log
    HEADER_JSON,
    JOURNAL_DIR,
    SAMPLES_DIR,
    START_JSON,
    SUMMARIES_JSON,
    LogStart,
)
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
from inspect_ai.scorer import Score

import cogsim
from cogsim._files import atomic_path
from cogsim._untrusted import size_text
from cogsim.agents.base import parse_agent_spec
from cogsim.integrations.episode import metric_values
from cogsim.integrations.eval_zip import ZipWriter
from cogsim.store.export import checked_output
from cogsim.store.frames import media_type, read_stored_frame
from cogsim.store.records import EpisodeRecords
from cogsim.store.sqlite import Store, StoreError, open_store

SCORER = "episode_reward"
MAX_IMAGE_BYTES = 64 << 20  # a stored frame larger than this is not read (a run directory is untrusted)
MAX_SAMPLE_BYTES = 256 << 20  # text and distinct frames of one sample: what is held while it is written
MAX_EVAL_EXPORT_BYTES = 256 << 30  # text and frames of all samples of a .eval log (streamed to disk)
MAX_JSON_EXPORT_BYTES = 256 << 20  # of a .json log, which inspect holds in memory whole
FRAME_CACHE_BYTES = 64 << 20  # frames kept after their sample is written, for the next samples that show them
JSONL_ADVICE = "export the run with --format jsonl, which writes turns one at a time and names frames by path"


def inspect_model_name(agent: str) -> str:
    """How inspect names the agent's model: openai/M, vllm/M, cogsim/<scripted policy>."""
    kind, name = parse_agent_spec(agent)
    return f"cogsim/{name}" if kind == "scripted" else f"{kind}/{name}"


IMAGE_CHOICES = ("inline", "none")


def export_inspect(run_dir: str | Path, path: str | Path, images: str = "inline") -> int:
    """Write the run at ``run_dir`` as an inspect log at ``path`` (.eval or .json); returns the sample
    count. ``images``: "inline" (each frame a sample shows, once per sample, as inspect's attachment)
    or "none" (a line naming the stored frame in place of each)."""
    if images not in IMAGE_CHOICES:
        raise ValueError(f"--images must be one of {', '.join(IMAGE_CHOICES)}, got {images!r}")
    run_dir = Path(run_dir)
    target = checked_output(run_dir, path)
    with open_store(run_dir) as store, atomic_path(target) as temporary:
        if target.suffix.lower() == ".json":
            return run_coroutine(_write_json_log(store, run_dir, str(temporary), images))
        with open(temporary, "wb") as file:
            return _write_eval_log(store, run_dir, file, images)


EXPORTED = ("done", "truncated", "error", "running")


def _write_eval_log(store: Store, run_dir: Path, file: BinaryIO, images: str) -> int:
    """The .eval log, streamed: each sample written to the zip as it is built, its summary to a spool
    that becomes summaries.json, and the header last (what inspect's recorder writes, in bounded memory)."""
    spans = store.session_spans()
    spec = _eval_spec(store, spans, run_dir)
    archive = ZipWriter(file)
    try:
        archive.write(
            f"{JOURNAL_DIR}/{START_JSON}",
            to_json_safe(LogStart(version=LOG_SCHEMA_VERSION, eval=spec, plan=EvalPlan()), indent=None),
        )
        samples = _SampleWriter(store, run_dir, "eval", images)
        with tempfile.TemporaryFile() as summaries:
            for record in store.iter_episodes(EXPORTED):
                sample = condense_sample(samples.build(record))
                archive.write(f"{SAMPLES_DIR}/{sample.id}_epoch_{sample.epoch}.json", to_json_safe(sample, indent=None))
                summaries.write((b"," if samples.count else b"[") + to_json_safe(sample.summary(), indent=None))
                samples.written(sample, record)
            summaries.write(b"]" if samples.count else b"[]")
            summaries.seek(0)
            with archive.open(SUMMARIES_JSON) as member:
                while chunk := summaries.read(1 << 20):
                    member.write(chunk)
        header = EvalLog(version=LOG_SCHEMA_VERSION, eval=spec, plan=EvalPlan(), **samples.outcome(spans))
        archive.write(HEADER_JSON, to_json_safe(header, indent=None))
        archive.close()
    except BaseException:
        archive.discard()
        raise
    return samples.count


async def _write_json_log(store: Store, run_dir: Path, location: str, images: str) -> int:
    """The .json log, by inspect's recorder (which holds a .json log whole: MAX_JSON_EXPORT_BYTES)."""
    spans = store.session_spans()
    spec = _eval_spec(store, spans, run_dir)
    recorder = create_recorder_for_format("json", str(Path(location).parent))
    await recorder.log_init(spec, location)
    await recorder.log_start(spec, EvalPlan())
    samples = _SampleWriter(store, run_dir, "json", images)
    for record in store.iter_episodes(EXPORTED):
        sample = samples.build(record)
        await recorder.log_sample(spec, condense_sample(sample), write_through=True)
        samples.written(sample, record)
    outcome = samples.outcome(spans)
    await recorder.log_finish(
        spec, outcome["status"], outcome["stats"], outcome["results"], None, error=outcome["error"]
    )
    return samples.count


def _eval_spec(store: Store, spans: list, run_dir: Path) -> EvalSpec:
    config = store.config() or {}
    agents: dict[str, None] = {}
    env_ids: dict[str, None] = {}
    count = 0
    for env_id, seats in store.episode_envs(EXPORTED):  # read one at a time
        env_ids.setdefault(env_id)
        for agent in seats:
            agents.setdefault(agent)
        count += 1
    agent_names = list(agents) or [str(a) for a in config.get("agents", []) if isinstance(a, str)]
    names = list(env_ids)
    return EvalSpec(
        created=_iso(spans[0][0] if spans else time.time()),
        task=f"cogsim/{names[0].replace('/', '_').replace('-', '_')}" if len(names) == 1 else "cogsim/run",
        task_args={"env_ids": names},
        dataset=EvalDataset(name=", ".join(names), samples=count),
        model=", ".join(inspect_model_name(a) for a in agent_names) or "none",
        config=EvalConfig(),
        metadata={"cogsim_run": config, "cogsim_version": cogsim.__version__, "exported_from": str(run_dir)},
    )


class _SampleWriter:
    """Builds the samples one at a time within the caps and keeps what the log's header needs, in
    bounded memory: the scores (an array of numbers), the token usage per model, the errors (a count
    and the first), and the finished episodes' records for the family metrics (column by column)."""

    def __init__(self, store: Store, run_dir: Path, log_format: str, images: str = "inline"):
        self.store = store
        self.frames = _Frames(run_dir)
        self.log_format = log_format
        self.images = images
        self.limit = MAX_JSON_EXPORT_BYTES if log_format == "json" else MAX_EVAL_EXPORT_BYTES
        self.total = 0
        self.held, self.shown = 0, set[str]()  # of the sample being built: bytes, and the frames it holds
        self.count = 0
        self.scores = array("d")  # of the scored samples
        self.errors, self.first_error = 0, ""
        self.usage: dict[str, ModelUsage] = {}
        self.finished = EpisodeRecords()  # the done episodes' records, as the metrics read them

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
            if turn.system_prompt is not None:  # this turn was sent its own (Cube Bench's reflection)
                self._hold(len(turn.system_prompt), episode_id)
                messages.append(ChatMessageSystem(content=turn.system_prompt))
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

    def written(self, sample: EvalSample, record: dict) -> None:
        """What the header needs of a sample just written; its frames leave memory past the cache."""
        self.count += 1
        if sample.scores:
            self.scores.append(float(record["total_reward"]))
        if record["status"] == "done":
            self.finished.append({k: v for k, v in record.items() if k != "episode_id"})
        if sample.error:
            self.first_error = self.first_error or sample.error.message
            self.errors += 1
        for model, usage in sample.model_usage.items():
            self.usage[model] = self.usage.get(model, ModelUsage()) + usage
        self.frames.trim()

    def outcome(self, spans: list) -> dict[str, Any]:
        """The log's status, stats, results and error, for its header."""
        return {
            "status": "error" if self.errors else "success",
            "stats": EvalStats(
                started_at=_iso(spans[0][0]) if spans else "",
                completed_at=_iso(max(s[1] for s in spans)) if spans else "",
                model_usage=self.usage,
            ),
            "results": _results(self.scores, self.finished, self.count),
            "error": _run_error(self.errors, self.first_error, self.count),
        }

    def _user_message(self, text: str, images: list, episode_id: int) -> ChatMessageUser:
        if self.images == "none":
            named = [ContentText(text=f"[image not exported: {ref}]") for ref in images]
            return ChatMessageUser(content=[*named, ContentText(text=text)] if named else text)
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


def _results(scores: array, finished: EpisodeRecords, total: int) -> EvalResults:
    """inspect's mean and stderr of the scores (as its ``mean()`` and ``stderr()`` compute them) and
    the family metrics of the finished episodes."""
    metrics: dict[str, Any] = {}
    failed: dict[str, str] = {}  # suites whose metric code failed on the stored records
    if scores:
        from inspect_ai.log import EvalMetric

        values = np.frombuffer(scores, dtype=np.float64)
        n = values.size
        metrics["mean"] = EvalMetric(name="mean", value=float(np.mean(values).item()))
        metrics["stderr"] = EvalMetric(
            name="stderr", value=float(np.std(values, ddof=1) / np.sqrt(n)) if n > 1 else 0.0
        )
        for name, value in metric_values(cast(list, finished), failed).items():
            metrics[name] = EvalMetric(name=name, group="cogsim_metrics", value=value)
    return EvalResults(
        total_samples=total,
        completed_samples=len(scores),
        scores=[EvalScore(name=SCORER, scorer=SCORER, metrics=metrics)] if scores else [],
        metadata={"cogsim_metrics_failed": failed} if failed else None,
    )


def _run_error(errors: int, first: str, total: int) -> Optional[EvalError]:
    if not errors:
        return None
    message = f"{errors} of {total} episodes were not scored: {first}"
    return EvalError(message=message, traceback="", traceback_ansi="")


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat()
