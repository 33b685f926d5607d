"""inspect_ai tasks for every cogsim env id: ``inspect eval cogsim/wilt_lite --model openai/gpt-4o-mini``.

The task of env id ``X`` is ``cogsim/`` + X with ``/`` and ``-`` written ``_`` (``cogsim/cube_closed_loop``);
inspect finds them through the ``inspect_ai`` entry point of this package. Task arguments (``-T``) are
the env's options plus cogsim run's settings: ``episodes`` (10), ``seed`` (0: episode i has seed
seed+i), ``history`` (as ``cogsim run --history``: full, last:K, window:K, current; default the
env's), ``max_images``, ``max_turns`` (1000); duels also ``opponent`` and ``seat``.

One sample per episode (id: its seed; duels: ``SEED-seat0``/``SEED-seat1``), so ``--limit``,
``--epochs``, ``--sample-id`` and ``inspect eval-retry`` work as usual. The solver plays the env
turn by turn: each prompt is the env's system prompt, the history the policy keeps and the current
observation (its frames as image content) and goes through ``generate()``; the reply goes to
``env.step``. The task's GenerateConfig is the env's decoding defaults, greedy unless they say
otherwise (cogsim's own backends are greedy by default too); ``--temperature``, ``--max-tokens``...
still win. A reply that is not the model's (the context was exceeded, the provider refused the
request) raises: the sample errs, as a backend fault in ``cogsim run`` stops its episode unscored.

The score is the episode's total reward; the metrics are its mean and the family's metrics
computed by cogsim's metric code (``cogsim.metrics``: the tables of ``cogsim report``).

Duels (``pairs/duel``): the model plays one seat, a scripted opponent the other: ``opponent`` names
it (default ``forgetful``: the paper duels models with each other and names no scripted opponent;
forgetful, optimal play with a six-flip memory, is cogsim's reference between random and optimal),
or a second model (``-T opponent=openai/gpt-4o``, or ``--model-role opponent=...``) for model
against model. ``seat`` is 0, 1 or ``both`` (default: every seed twice, once in each seat, as the
paper swaps the order to control for the first move).
"""

from __future__ import annotations

from typing import Any, Optional, Union

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
    model_roles,
)
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    mean,
    metric,
    score_reducer,
    scorer,
    stderr,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

import cogsim
from cogsim import families
from cogsim.agents.base import Message, sent_frame
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
from cogsim.integrations.inspect_models import SCRIPTED_TURN, ScriptedModel

STORE_KEY = "cogsim_episode"
OPPONENT_ROLE = "opponent"


class BackendFault(RuntimeError):
    """The model's output is not an answer (context exceeded, request refused): the sample errs."""


def task_name(env_id: str) -> str:
    """``wilt/lite`` -> ``wilt_lite``; inspect adds the package: ``cogsim/wilt_lite``."""
    return env_id.replace("/", "_").replace("-", "_")


# -- messages ------------------------------------------------------------------------------------
def chat_messages(conversation: list[Message]) -> list[ChatMessage]:
    """cogsim messages as inspect's: frames become image content (data URLs of the PNG or JPEG bytes the
    env's release sends) before the text."""
    chat: list[ChatMessage] = []
    for message in conversation:
        if message.role == "system":
            chat.append(ChatMessageSystem(content=message.text))
        elif message.role == "assistant":
            chat.append(ChatMessageAssistant(content=message.text))
        elif message.images:
            parts: list[Any] = [ContentImage(image=sent_frame(frame).data_url()) for frame in message.images]
            chat.append(ChatMessageUser(content=[*parts, ContentText(text=message.text)]))
        else:
            chat.append(ChatMessageUser(content=message.text))
    return chat


def not_an_answer(output: ModelOutput) -> Optional[str]:
    """Why an output holds no answer of the model's, or None when it does."""
    if output.stop_reason == "model_length":
        return f"the prompt exceeds the model's context ({output.completion or 'model_length'})"
    if output.stop_reason == "content_filter":
        return f"the provider refused the request ({output.completion or 'content_filter'})"
    if output.error:
        return f"the provider reported an error: {output.error}"
    if not output.choices:
        return "the provider returned no choices"
    return None


# -- solver ----------------------------------------------------------------------------------------
@solver
def play_episode(spec: EpisodeSpec, opponent: Optional[str] = None, players: int = 1) -> Solver:
    """Plays one cogsim episode per sample; the sample's metadata names its seed and the model's seat."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        seed, seat = int(state.metadata["seed"]), int(state.metadata.get("seat", 0))
        model = get_model()
        rival = _opponent(opponent) if players > 1 else None
        seats = [_agent_name(model)] * 2 if rival is not None else [_agent_name(model)]
        if rival is not None:
            seats[1 - seat] = rival if isinstance(rival, str) else _agent_name(rival)
        episode = Episode(spec, seed, tuple(seats))
        transcript: list[ChatMessage] = []
        try:
            if isinstance(model.api, ScriptedModel):
                check_scripted(model.api.spec, episode.env)
            while not episode.finished:
                if episode.player == seat:
                    state = await _model_turn(state, generate, episode, transcript)
                elif isinstance(rival, str):
                    episode.step(episode.scripted_answer(rival))
                elif rival is not None:
                    episode.step(await _rival_turn(rival, episode))
                else:
                    raise RuntimeError(f"{spec.env_id}: player {episode.player} to move, but no one takes that seat")
                state.store.set(STORE_KEY, episode.record(" vs ".join(seats) if len(seats) > 1 else seats[0]))
        finally:
            episode.close()
        system = [ChatMessageSystem(content=episode.env.system_prompt)] if episode.env.system_prompt else []
        state.messages = system + transcript
        return state

    return solve


async def _model_turn(
    state: TaskState, generate: Generate, episode: Episode, transcript: list[ChatMessage]
) -> TaskState:
    prompt = chat_messages(episode.prompt())
    state.messages = prompt
    token = SCRIPTED_TURN.set(episode)
    try:
        state = await generate(state)
    finally:
        SCRIPTED_TURN.reset(token)
    fault = not_an_answer(state.output)
    if fault:
        raise BackendFault(
            f"{episode.spec.env_id} seed {episode.seed} turn {episode.turns}: {fault}; this is not the model's "
            "answer, so the episode stops unscored (retry with --retry-on-error or inspect eval-retry)"
        )
    transcript += [prompt[-1], state.output.message]
    episode.step(state.output.completion)
    return state


async def _rival_turn(rival: Model, episode: Episode) -> str:
    token = SCRIPTED_TURN.set(episode)
    try:
        output = await rival.generate(chat_messages(episode.prompt()), config=GenerateConfig(**episode.decoding))
    finally:
        SCRIPTED_TURN.reset(token)
    fault = not_an_answer(output)
    if fault:
        raise BackendFault(f"{episode.spec.env_id} seed {episode.seed} turn {episode.turns}, opponent {rival}: {fault}")
    return output.completion


def _opponent(opponent: Optional[str]) -> Union[str, Model, None]:
    """The duel's other seat: a scripted agent's name, or a model (by name, or the opponent role)."""
    roles = model_roles()
    if opponent is None and OPPONENT_ROLE in roles:
        return get_model(role=OPPONENT_ROLE)
    if opponent is not None and "/" in opponent:
        return get_model(opponent)
    return opponent


def _agent_name(model: Model) -> str:
    return model.api.spec if isinstance(model.api, ScriptedModel) else str(model)


# -- scorer, metrics, reducer ---------------------------------------------------------------------
@metric(name="cogsim_metrics")
def family_metrics() -> Metric:
    """The family's metrics over the scored episodes, by cogsim's metric code."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        episodes = [e for s in scores for e in (s.score.metadata or {}).get("episodes", [])]
        return metric_values(episodes) if episodes else {}

    return compute


@scorer(metrics=[mean(), stderr(), family_metrics()])
def episode_reward() -> Scorer:
    """The episode's total reward, as ``cogsim run`` stores it; the metadata holds the episode record."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(STORE_KEY)
        if record is None:
            raise RuntimeError("the cogsim solver stored no episode: the task's solver must be play_episode")
        return Score(
            value=float(record["total_reward"]),
            answer=state.output.completion if state.output and state.output.choices else None,
            explanation=f"{record['status']} after {record['turns']} turns, total reward {record['total_reward']:g}",
            metadata={"episodes": [record]},
        )

    return score


@score_reducer(name="cogsim_episodes")
def episodes_mean() -> ScoreReducer:
    """Epochs of one sample: the mean reward, and every epoch's episode for the family metrics."""

    def reduce(scores: list[Score]) -> Score:
        values = [float(s.as_float()) for s in scores]
        episodes = [e for s in scores for e in (s.metadata or {}).get("episodes", [])]
        return Score(value=sum(values) / len(values), metadata={"episodes": episodes})

    return reduce


# -- tasks ------------------------------------------------------------------------------------------
def episode_task(
    env_id: str,
    episodes: int = DEFAULT_EPISODES,
    seed: int = 0,
    history: Optional[str] = None,
    max_images: Optional[int] = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    opponent: Optional[str] = None,
    seat: Union[int, str, None] = None,
    **options: Any,
) -> Task:
    """The inspect task of one env id (``-T`` arguments: see the module's docstring)."""
    label = f"cogsim/{task_name(env_id)}"
    spec = EpisodeSpec(env_id, dict(options), history, max_images, max_turns)
    probe = checked_env(env_id, episodes, seed, spec, label)
    try:
        seats = _model_seats(label, seat, probe.num_players)
        opponent = _check_opponent(label, opponent, probe)
        decoding = decoding_defaults(probe)
    finally:
        probe.close()
    samples = [
        Sample(
            id=episode_seed if probe.num_players == 1 else f"{episode_seed}-seat{model_seat}",
            input=f"cogsim {env_id}, episode seed {episode_seed}"
            + (f", the model in seat {model_seat}" if probe.num_players > 1 else ""),
            metadata={"env_id": env_id, "seed": episode_seed, "seat": model_seat},
        )
        for episode_seed in range(seed, seed + episodes)
        for model_seat in seats
    ]
    return Task(
        dataset=MemoryDataset(samples, name=env_id),
        solver=play_episode(spec, opponent, probe.num_players),
        scorer=episode_reward(),
        config=GenerateConfig(**decoding),
        epochs=Epochs(1, [episodes_mean()]),
        metadata={"cogsim": {"env_id": env_id, "options": options, "history": history, "version": cogsim.__version__}},
    )


def _model_seats(label: str, seat: Union[int, str, None], players: int) -> list[int]:
    if players <= 1:
        if seat not in (None, 0):
            raise ValueError(f"{label}: seat: the env has one player, got {seat!r}")
        return [0]
    if seat in (None, "both"):
        return list(range(players))
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"{label}: seat must be 'both' or a seat number from 0 to {players - 1}, got {seat!r}")
    return [seat]


def _check_opponent(label: str, opponent: Optional[str], probe) -> Optional[str]:
    if probe.num_players <= 1:
        if opponent is not None:
            raise ValueError(f"{label}: opponent: the env has one player, got {opponent!r}")
        return None
    if opponent is None:
        return reference_opponent(probe)
    if not isinstance(opponent, str) or not opponent:
        raise ValueError(f"{label}: opponent must be a scripted agent's name or a model, got {opponent!r}")
    if "/" in opponent:
        return opponent
    try:
        return check_scripted(opponent, probe)
    except ValueError as error:
        raise ValueError(f"{label}: opponent: {error}; or a model, e.g. openai/gpt-4o") from None


def register_tasks() -> list[str]:
    """Registers one inspect task per env id the families declare (built in, or added through the
    ``cogsim.families`` entry points) and returns their names."""
    return [_register(env_id) for env_id in families.declared_env_ids()]


def _register(env_id: str) -> str:
    name = task_name(env_id)

    def make_task(**task_args: Any) -> Task:  # every -T argument reaches episode_task, which checks them
        return episode_task(env_id, **task_args)

    make_task.__name__ = make_task.__qualname__ = name
    make_task.__doc__ = (
        f"cogsim {env_id}: one sample per episode (task arguments: the env's options, episodes, seed, history, ...)"
    )
    task(name=name)(make_task)
    return name
