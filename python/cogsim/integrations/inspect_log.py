"""A cogsim run directory as an inspect log (``cogsim export DIR --format inspect --out run.eval``),
written with inspect's own log API, so ``inspect view`` and ``inspect log dump`` read it.

One sample per stored episode (id ``ENV:AGENT:seed=SEED``): its turns as messages (the frames as PNG
image content, each answer as the assistant's message naming its agent and seat), its score (the
episode's total reward, with the episode record as the metrics read it), token usage and timings
from the stored turns. The run's config is the eval's metadata; the results hold the mean reward and
the family metrics by cogsim's metric code. An episode stopped by a backend fault, or that failed,
is an errored sample with the stored error; one still running (an interrupted run) says so.

The run directory is untrusted: images are read only at the paths the store itself names
(``images/xx/<sha256>.png``), never through a symbolic link.
"""

from __future__ import annotations

import base64
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional, cast

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
    write_eval_log,
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
from inspect_ai.scorer import SampleScore, Score, mean, stderr

import cogsim
from cogsim._files import open_no_follow
from cogsim.agents.base import parse_agent_spec
from cogsim.integrations.episode import metric_values
from cogsim.store.export import checked_output
from cogsim.store.sqlite import Store, from_db_text, image_ref, open_store

SCORER = "episode_reward"
MAX_IMAGE_BYTES = 64 << 20  # a stored frame larger than this is not read (a run directory is untrusted)


def inspect_model_name(agent: str) -> str:
    """How inspect names the agent's model: openai/M, vllm/M, cogsim/<scripted policy>."""
    kind, name = parse_agent_spec(agent)
    return f"cogsim/{name}" if kind == "scripted" else f"{kind}/{name}"


def export_inspect(run_dir: str | Path, path: str | Path) -> int:
    """Write the run at ``run_dir`` as an inspect log at ``path`` (.eval or .json); returns the sample count."""
    run_dir = Path(run_dir)
    target = checked_output(run_dir, path)
    with open_store(run_dir) as store:
        config = store.config() or {}
        records = store.episodes(("done", "truncated", "error", "running"))
        systems = dict(store.query("SELECT id, system_prompt FROM episodes"))
        samples = [
            _sample(store, run_dir, record, from_db_text(systems.get(record["episode_id"]))) for record in records
        ]
        spans = store.session_spans()
    agents = list(dict.fromkeys(a for r in records for a in r["agents"])) or list(config.get("agents", []))
    env_ids = list(dict.fromkeys(r["env_id"] for r in records))
    log = EvalLog(
        status="error" if any(s.error for s in samples) else "success",
        eval=EvalSpec(
            created=_iso(spans[0][0] if spans else time.time()),
            task=f"cogsim/{env_ids[0].replace('/', '_').replace('-', '_')}" if len(env_ids) == 1 else "cogsim/run",
            task_args={"env_ids": env_ids},
            dataset=EvalDataset(name=", ".join(env_ids), samples=len(samples)),
            model=", ".join(inspect_model_name(a) for a in agents) or "none",
            config=EvalConfig(),
            metadata={"cogsim_run": config, "cogsim_version": cogsim.__version__, "exported_from": str(run_dir)},
        ),
        plan=EvalPlan(),
        results=_results(samples),
        stats=EvalStats(
            started_at=_iso(spans[0][0]) if spans else "",
            completed_at=_iso(max(s[1] for s in spans)) if spans else "",
            model_usage=_usage_total(samples),
        ),
        error=_run_error(samples),
        samples=samples,
    )
    write_eval_log(log, str(target))
    return len(samples)


def _sample(store: Store, run_dir: Path, record: dict, system_prompt: Optional[str]) -> EvalSample:
    turns = store.turns(record["episode_id"])
    seats = record["agents"]
    messages: list[ChatMessage] = [ChatMessageSystem(content=system_prompt)] if system_prompt else []
    usage: dict[str, ModelUsage] = {}
    for turn in turns:
        messages.append(_user_message(run_dir, turn.prompt, turn.images))
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
    finished = record["status"] in ("done", "truncated")
    latency = sum(t.latency_s for t in turns)
    return EvalSample(
        id=f"{record['env_id']}:{record['agent']}:seed={record['seed']}",
        epoch=1,
        input=turns[0].prompt if turns else f"cogsim {record['env_id']}, episode seed {record['seed']}",
        target="",
        messages=messages,
        output=ModelOutput.from_content(
            model=inspect_model_name(turns[-1].agent) if turns else "none", content=turns[-1].response if turns else ""
        ),
        scores={SCORER: _score(record)} if finished else None,
        metadata={"env_id": record["env_id"], "seed": record["seed"], "agents": seats, "status": record["status"]},
        model_usage=usage,
        total_time=latency,
        working_time=latency,
        error=None if finished else _episode_error(record),
    )


def _user_message(run_dir: Path, text: str, images: list) -> ChatMessageUser:
    parts: list[Any] = [ContentImage(image=url) for url in (_image_url(run_dir, ref) for ref in images) if url]
    missing = sum(1 for ref in images if not _image_url(run_dir, ref))
    if missing:
        parts.append(ContentText(text=f"[{missing} stored image(s) could not be read]"))
    return ChatMessageUser(content=[*parts, ContentText(text=text)] if parts else text)


def _image_url(run_dir: Path, ref: Any) -> Optional[str]:
    """The PNG data URL of a stored frame; None when the store names anything but one of its own
    image files, or the file is missing, a link or too large."""
    if not isinstance(ref, str):
        return None
    key = Path(ref).stem
    if ref != image_ref(key) or len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        return None
    try:
        fd = open_no_follow(run_dir / ref, os.O_RDONLY)
    except (OSError, ValueError):
        return None
    with os.fdopen(fd, "rb") as file:
        png = file.read(MAX_IMAGE_BYTES + 1)
    if len(png) > MAX_IMAGE_BYTES or not png.startswith(b"\x89PNG"):
        return None
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


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


def _results(samples: list[EvalSample]) -> EvalResults:
    scored = [SampleScore(score=s.scores[SCORER], sample_id=s.id) for s in samples if s.scores]
    metrics: dict[str, Any] = {}
    if scored:
        from inspect_ai.log import EvalMetric

        for name, compute in (("mean", mean()), ("stderr", stderr())):  # inspect's own metrics
            metrics[name] = EvalMetric(name=name, value=float(cast(Any, compute)(scored)))
        episodes = [e for s in scored for e in (s.score.metadata or {}).get("episodes", [])]
        for name, value in metric_values(episodes).items():
            metrics[name] = EvalMetric(name=name, group="cogsim_metrics", value=value)
    return EvalResults(
        total_samples=len(samples),
        completed_samples=len(scored),
        scores=[EvalScore(name=SCORER, scorer=SCORER, metrics=metrics)] if scored else [],
    )


def _usage_total(samples: list[EvalSample]) -> dict[str, ModelUsage]:
    total: dict[str, ModelUsage] = {}
    for sample in samples:
        for model, usage in sample.model_usage.items():
            total[model] = total.get(model, ModelUsage()) + usage
    return total


def _run_error(samples: list[EvalSample]) -> Optional[EvalError]:
    errored = [s for s in samples if s.error]
    if not errored:
        return None
    first = errored[0].error.message if errored[0].error else ""
    message = f"{len(errored)} of {len(samples)} episodes were not scored: {first}"
    return EvalError(message=message, traceback="", traceback_ansi="")


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat()
