"""cogsim env ids as ``verifiers`` v1 tasksets (verifiers 0.4: ``import verifiers.v1 as vf``), for
evaluation (``vf-eval``) and RL training.

The verifiers CLI loads a taskset by the name of an installed module; cogsim's is ``cogsim_verifiers``
(shipped with cogsim), which exports the three pieces below, so no glue is needed::

    vf-eval cogsim-verifiers --env.taskset.env-id wilt/lite --env.taskset.episodes 20 \\
        -m MODEL --client.base-url http://localhost:8000/v1 --client.api-key-var OPENAI_API_KEY --no-push

- ``CogsimTaskset``: one task row per episode (``CogsimTaskData``: env id, seed, options, seat; the
  first prompt as ``cogsim run`` sends it, frames as OpenAI ``image_url`` parts: data URLs of the PNG
  or JPEG bytes the env's release sends).
- ``CogsimEnv``: the cogsim env drives the conversation as the task's user. Each reply goes to
  ``env.step`` through the benchmark's own parser; the next prompt is the one ``cogsim run`` would
  send (the env's system prompt, the history its policy keeps, ``history=`` as ``cogsim run
  --history``, and the new observation). Duels play against a scripted ``opponent`` (default
  forgetful), the model in ``seat``.
- ``CogsimHarness``: the model's seat, in process, with no runtime to provision: one chat completion
  per turn through verifiers' interception endpoint, on exactly the prompt cogsim built, with the
  env's decoding defaults (``env.metadata["cogsim.decoding"]``, greedy unless they say otherwise;
  ``--sampling.*`` wins).

The task's reward is the episode's total reward; its metrics are the env's per-episode outcomes
(``cogsim/correct``, ``cogsim/steps``, ...) and the family's metric tables for the episode, from
cogsim's metric code (``family_metrics`` gives them over a whole run). A failed model call is the
rollout's error, never a reward: the episode is left unscored, as ``cogsim run`` leaves it.
``load_environment(env_id, **options)`` builds the same env in Python.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

import verifiers.v1 as vf
from openai import AsyncOpenAI
from pydantic import Field
from verifiers.v1.dialects.chat import message_to_wire

from cogsim._untrusted import shown
from cogsim.agents.base import Message, openai_messages
from cogsim.integrations.episode import (
    DEFAULT_EPISODES,
    DEFAULT_MAX_TURNS,
    Episode,
    EpisodeSpec,
    check_scripted,
    checked_env,
    decoding_defaults,
    metric_values,
    reference_opponent,
)

TASKSET_ID = "cogsim-verifiers"  # the installed module cogsim_verifiers: what the verifiers CLI imports
RUNNER_FIELDS = frozenset({"seed", "task", "episode_index", "turns", "total_reward"})
FINISHED = ("done", "truncated")


class CogsimTaskData(vf.TaskData):
    """One episode: what decides its course besides the model's answers."""

    env_id: str
    seed: int
    options: dict[str, Any] = Field(default_factory=dict)
    history: Optional[str] = None
    max_images: Optional[int] = None
    max_turns: int = DEFAULT_MAX_TURNS
    opponent: Optional[str] = None
    seat: int = 0
    decoding: dict[str, Any] = Field(default_factory=dict)
    """The env's decoding defaults, sent with every request (the run's sampling wins)."""

    @property
    def spec(self) -> EpisodeSpec:
        return EpisodeSpec(self.env_id, dict(self.options), self.history, self.max_images, self.max_turns)

    @property
    def seats(self) -> tuple[str, ...]:
        if not self.opponent:
            return ("model",)
        return ("model", self.opponent) if self.seat == 0 else (self.opponent, "model")


class CogsimTask(vf.Task[CogsimTaskData, vf.State, vf.TaskConfig]):
    """Scores what ``CogsimEnv`` recorded on the trace (``trace.info["cogsim"]``, the episode's record)."""

    @property
    def key(self) -> str:
        data = self.data
        return f"{data.env_id}#{data.seed}#seat{data.seat}"

    @vf.reward
    async def episode_reward(self, trace: vf.Trace) -> float:
        return float(finished_record(trace)["total_reward"])

    @vf.metric
    async def cogsim(self, trace: vf.Trace) -> dict[str, float]:
        return episode_metrics(finished_record(trace))


class CogsimTasksetConfig(vf.TasksetConfig):
    """The taskset's knobs (``--env.taskset.*``): the env id, its options and ``cogsim run``'s settings."""

    env_id: str = "wilt/lite"
    episodes: int = DEFAULT_EPISODES
    seed: int = 0
    options: dict[str, Any] = Field(default_factory=dict)
    """The env's own options (an unknown one is an error naming the allowed ones)."""
    history: Optional[str] = None
    max_images: Optional[int] = None
    max_turns: int = DEFAULT_MAX_TURNS
    opponent: Optional[str] = None
    """A duel's scripted opponent (default: forgetful where the env knows it, else random)."""
    seat: int = 0


class CogsimTaskset(vf.Taskset[CogsimTask, CogsimTasksetConfig]):
    """Episodes seed, seed + 1, ... of one cogsim env id; settings checked as ``cogsim run`` checks them."""

    def __init__(self, config: CogsimTasksetConfig) -> None:
        super().__init__(config)
        self.opponent, self.decoding = _checked(config)

    def load(self) -> Iterator[CogsimTask]:
        config = self.config
        for seed in range(config.seed, config.seed + config.episodes):
            row = {
                "env_id": config.env_id,
                "seed": seed,
                "options": dict(config.options),
                "history": config.history,
                "max_images": config.max_images,
                "max_turns": config.max_turns,
                "opponent": self.opponent,
                "seat": config.seat,
                "decoding": self.decoding,
            }
            data = CogsimTaskData(**row)
            episode = Episode(data.spec, seed, data.seats)
            try:
                play_opponent(episode, data)
                system, messages = split_system(episode.prompt())
            finally:
                episode.close()
            prompt = openai_messages(messages)
            data = CogsimTaskData(**row, name=f"{config.env_id} seed {seed}", system_prompt=system, prompt=prompt)
            yield CogsimTask(data, config.task)


class CogsimEnvConfig(vf.EnvConfig):
    """One seat, the model's (``--env.player.*``). It runs in this process: the harness needs no box."""

    player: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())


class CogsimEnv(vf.Env[CogsimEnvConfig]):
    """The cogsim env as the run's user: it answers each reply with the next prompt until the episode ends."""

    async def run(self, task: CogsimTask, agents: vf.Agents) -> None:
        data = task.data
        episode = Episode(data.spec, data.seed, data.seats)
        try:
            play_opponent(episode, data)
            async with agents.player.interaction(task) as interaction:
                # the task's prompt is the episode's first (unless the opponent ended it before the model's turn)
                segment = await interaction.turn() if not episode.finished else None
                while segment is not None and not segment.terminated:
                    episode.step(reply_text(segment))
                    play_opponent(episode, data)
                    if episode.finished:
                        break
                    system = [{"role": "system", "content": data.system_prompt}] if data.system_prompt else []
                    segment = await interaction.turn(system + openai_messages(split_system(episode.prompt())[1]))
                interaction.trace.info["cogsim"] = episode.record()
        finally:
            episode.close()


class CogsimHarnessConfig(vf.HarnessConfig):
    pass


class CogsimHarness(vf.Harness[CogsimHarnessConfig]):
    """A chat loop in this process: each turn is one request on the prompt the env built, nothing added."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, tool_interception_url=None):
        system, prompt = self.resolve_prompt(data)
        messages = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages.extend(message_to_wire(m) for m in prompt or [])
        return await self._chat(ctx, endpoint, secret, messages, data)

    async def resume(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, messages, tool_interception_url=None):
        """``messages`` is the whole prompt of the turn (``CogsimEnv`` applies the history policy)."""
        return await self._chat(ctx, endpoint, secret, [message_to_wire(m) for m in messages], data)

    @staticmethod
    async def _chat(ctx, endpoint: str, secret: str, messages: list, data) -> vf.ProgramResult:
        decoding = dict(getattr(data, "decoding", None) or {})
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
            await client.chat.completions.create(model=ctx.model, messages=messages, **decoding)
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


def load_environment(
    env_id: str = "wilt/lite",
    episodes: int = DEFAULT_EPISODES,
    seed: int = 0,
    history: Optional[str] = None,
    max_images: Optional[int] = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    opponent: Optional[str] = None,
    seat: int = 0,
    env: Optional[str] = None,
    **options: Any,
) -> CogsimEnv:
    """The verifiers env of ``env_id``: ``episodes`` tasks with seeds seed, seed+1, ...; ``options`` are
    the env's (an unknown one is a ValueError naming the allowed ones). ``env`` is another name for
    ``env_id``, as verifiers 0.3's ``vf-eval -a`` took it. Evaluate it with ``evaluate`` or run its
    tasks with ``env.run_episode`` inside ``env.serving()``."""
    taskset = CogsimTasksetConfig(
        id=TASKSET_ID,
        env_id=env or env_id,
        episodes=episodes,
        seed=seed,
        options=options,
        history=history,
        max_images=max_images,
        max_turns=max_turns,
        opponent=opponent,
        seat=seat,
    )
    return CogsimEnv(CogsimEnvConfig(taskset=taskset))


async def evaluate(env: CogsimEnv, model: str, client: vf.ClientConfig, **sampling: Any) -> list[vf.Episode]:
    """Every task of ``env`` once, against ``model`` behind ``client`` (an OpenAI-compatible endpoint)."""
    context = vf.ModelContext(model=model, client=client, sampling=vf.SamplingConfig(**sampling))
    async with env.serving():
        return [await env.run_episode(task, context) for task in env.taskset]


def finished_record(trace: vf.Trace) -> dict[str, Any]:
    """The episode record ``CogsimEnv`` left on the trace; an episode that did not finish has no score."""
    record = _record(trace, "the trace")
    if record is None or record.get("status") not in FINISHED:
        env_id = record.get("env_id", "the cogsim env") if record is not None else "the cogsim env"
        raise ValueError(
            f"{shown(env_id)}: the episode did not finish (a limit of the run ended it), so it has no reward"
        )
    return _checked_record(record, "the trace")


def episode_metrics(record: dict[str, Any]) -> dict[str, float]:
    """The episode's outcomes (``cogsim/<field>``) and its family's metric tables for this one episode
    (``cogsim/<table>: <column>``), both from cogsim's metric code."""
    metrics = {
        f"cogsim/{key}": float(value)
        for key, value in record.items()
        if key not in RUNNER_FIELDS and isinstance(value, (int, float)) and _fits_a_float(value)
    }
    for name, value in _family_values([record]).items():
        if not name.endswith(("95% low", "95% high")):
            metrics[f"cogsim/{name}"] = value
    return metrics


def _fits_a_float(value: int | float) -> bool:
    return isinstance(value, float) or value.bit_length() <= 1000


def family_metrics(traces: Iterable[vf.Trace | dict]) -> dict[str, float]:
    """The family metrics of a run's finished episodes (traces, or their JSON from ``traces.jsonl``),
    as ``cogsim report`` computes them, intervals included. A malformed trace or record (a file may
    hold anything) is one ValueError naming it and what is wrong."""
    if isinstance(traces, (str, bytes, dict)) or not isinstance(traces, Iterable):
        raise ValueError(f"traces must be an iterable of traces, got {shown(traces)}")
    records = []
    for number, trace in enumerate(traces, 1):
        where = f"trace {number}"
        record = _record(trace, where)
        if record is not None and record.get("status") in FINISHED:
            records.append(_checked_record(record, where))
    return _family_values(records)


def _family_values(records: list[dict]) -> dict[str, float]:
    """metric_values, with a family's metric code failing on records (that lack its outcomes) one line."""
    failed: dict[str, str] = {}
    values = metric_values(records, failed)
    if failed:
        suite, error = min(failed.items())
        raise ValueError(f"the {suite} records lack what its metrics read ({error}); were they written by cogsim?")
    return values


# The fields of a finished episode's record that the metrics read besides its family's outcomes.
_RECORD_FIELDS = {
    "env_id": (str, "text"),
    "suite": (str, "text"),
    "status": (str, "text"),
    "agent": (str, "text"),
    "seed": (int, "an integer"),
    "total_reward": ((int, float), "a number"),
}


def _record(trace: Any, where: str) -> Optional[dict]:
    """The cogsim record on a trace (its ``info["cogsim"]``), None where it has none."""
    if isinstance(trace, dict):
        info = trace.get("info")
    elif isinstance(trace, vf.Trace):
        info = trace.info
    else:
        raise ValueError(f"{where} must be a verifiers trace or its JSON object, got {shown(trace)}")
    if info is None:
        return None
    if not isinstance(info, dict):
        raise ValueError(f"{where}: info must be an object, got {shown(info)}")
    record = info.get("cogsim")
    if record is not None and not isinstance(record, dict):
        raise ValueError(f"{where}: info['cogsim'] must be a cogsim episode record (an object), got {shown(record)}")
    return record


def _checked_record(record: dict, where: str) -> dict:
    for field, (kind, words) in _RECORD_FIELDS.items():
        value = record.get(field)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{where}: the cogsim record's {field} must be {words}, got {shown(value)}")
    return record


def play_opponent(episode: Episode, data: CogsimTaskData) -> None:
    while data.opponent and not episode.finished and episode.player != data.seat:
        episode.step(episode.scripted_answer(data.opponent))


def split_system(messages: list[Message]) -> tuple[Optional[str], list[Message]]:
    if messages and messages[0].role == "system":
        return messages[0].text, messages[1:]
    return None, messages


def reply_text(segment: vf.Segment) -> str:
    """The reply as the model sent it (``segment.last_reply`` is stripped; ``cogsim run`` passes it whole)."""
    for message in reversed(segment.messages):
        if isinstance(message, vf.AssistantMessage):
            content = message.content
            if isinstance(content, list):
                return "".join(getattr(part, "text", None) or "" for part in content)
            return content or ""
    return ""


def _checked(config: CogsimTasksetConfig) -> tuple[Optional[str], dict]:
    """The duel's opponent and the env's decoding defaults, after the settings are checked."""
    env_id, label = config.env_id, f"cogsim {config.env_id}"
    spec = EpisodeSpec(env_id, dict(config.options), config.history, config.max_images, config.max_turns)
    probe = checked_env(env_id, config.episodes, config.seed, spec, label)
    try:
        opponent, seat = config.opponent, config.seat
        if probe.num_players > 1:
            if isinstance(seat, bool) or seat not in range(probe.num_players):
                raise ValueError(f"{label}: seat must be a seat number from 0 to {probe.num_players - 1}, got {seat!r}")
            opponent = opponent or reference_opponent(probe)
            check_scripted(opponent, probe)
        elif opponent is not None or seat != 0:
            raise ValueError(f"{label}: opponent and seat are for duels; the env has one player")
        return opponent, decoding_defaults(probe)
    finally:
        probe.close()
