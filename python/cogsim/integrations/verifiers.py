"""cogsim env ids as ``verifiers`` environments: ``load_environment(env_id, **options)`` returns a
``vf.MultiTurnEnv`` that plays the cogsim env turn by turn, for evaluation (``vf-eval``) and RL
training (prime-rl, verifiers' trainer).

This module follows verifiers' convention for an installable environment (a module exposing
``load_environment``), so its eval command runs any env id::

    vf-eval cogsim.integrations.verifiers -a '{"env": "wilt/lite", "episodes": 20}' \\
        -m MODEL -b http://localhost:8000/v1 -k OPENAI_API_KEY

Each dataset row is one episode (``info``: env id, seed, the model's seat). A rollout resets the env
with the row's seed; every prompt is what ``cogsim run`` would send: the env's system prompt, the
history its policy keeps (``history=`` as ``cogsim run --history``) and the current observation,
frames as OpenAI ``image_url`` parts (PNG data URLs). The reply goes to ``env.step`` through the
benchmark's own parser. The rubric's reward is the episode's total reward; the env's per-episode
outcomes (``info["episode"]``: correct, steps, score, ...) are its metrics (``cogsim/<name>``),
plus ``cogsim/unscored`` = 1 for a rollout that a backend fault stopped (verifiers records the
error; the reward 0 there is not the model's). Decoding defaults: the env's
(``env.metadata["cogsim.decoding"]``), greedy unless they say otherwise; sampling arguments you
pass win. Duels play against a scripted ``opponent`` (default forgetful), the model in ``seat``.
"""

from __future__ import annotations

from typing import Any, Optional

import verifiers as vf
from datasets import Dataset
from verifiers.utils.message_utils import normalize_messages

from cogsim.agents.base import ImageURLCache, openai_messages
from cogsim.integrations.episode import (
    DEFAULT_EPISODES,
    DEFAULT_MAX_TURNS,
    Episode,
    EpisodeSpec,
    check_scripted,
    checked_env,
    decoding_defaults,
    reference_opponent,
)

RUNNER_FIELDS = frozenset({"seed", "task", "episode_index", "turns", "total_reward"})


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
) -> "CogsimEnv":
    """A verifiers MultiTurnEnv for ``env_id``: ``episodes`` rows with seeds seed, seed+1, ...;
    ``options`` are the env's (an unknown one is a ValueError naming the allowed ones). ``env``
    names the env id where ``env_id`` cannot: in ``vf-eval``'s ``-a`` arguments (verifiers passes
    its own ``env_id``, the module's name)."""
    env_id = env or env_id
    label = f"cogsim {env_id}"
    spec = EpisodeSpec(env_id, dict(options), history, max_images, max_turns)
    probe = checked_env(env_id, episodes, seed, spec, label)
    try:
        if probe.num_players > 1:
            if isinstance(seat, bool) or seat not in range(probe.num_players):
                raise ValueError(f"{label}: seat must be a seat number from 0 to {probe.num_players - 1}, got {seat!r}")
            opponent = opponent or reference_opponent(probe)
            check_scripted(opponent, probe)
        elif opponent is not None or seat != 0:
            raise ValueError(f"{label}: opponent and seat are for duels; the env has one player")
        decoding = decoding_defaults(probe)
    finally:
        probe.close()
    rows = [
        {
            "prompt": [{"role": "user", "content": f"cogsim {env_id}, episode seed {s}"}],
            "answer": "",
            "info": {"env_id": env_id, "seed": s, "seat": seat},
        }
        for s in range(seed, seed + episodes)
    ]
    return CogsimEnv(
        spec,
        opponent,
        seat,
        eval_dataset=lambda: Dataset.from_list(rows),
        rubric=EpisodeRubric(),
        sampling_args=decoding,
        # what verifiers' env server passes to load_environment again (as "env": it passes its own env_id)
        env_args={
            "env": env_id,
            "episodes": episodes,
            "seed": seed,
            "history": history,
            "max_images": max_images,
            "max_turns": max_turns,
            "opponent": opponent,
            "seat": seat,
            **options,
        },  # fmt: skip
    )


class CogsimEnv(vf.MultiTurnEnv):
    """A cogsim env as a verifiers multi-turn environment (see the module's docstring)."""

    def __init__(self, spec: EpisodeSpec, opponent: Optional[str], seat: int, **kwargs: Any):
        super().__init__(max_turns=-1, **kwargs)  # the cogsim episode ends itself (max_turns: spec)
        self.spec, self.opponent, self.seat = spec, opponent, seat
        self._episodes: dict[str, Episode] = {}  # by trajectory id; a state holds only JSON-able values

    async def setup_state(self, state: vf.State) -> vf.State:
        seats = ["model", self.opponent] if self.opponent else ["model"]
        if self.opponent and self.seat == 1:
            seats.reverse()
        episode = Episode(self.spec, int(state["info"]["seed"]), tuple(seats))
        self._episodes[state["trajectory_id"]] = episode
        state["cogsim_images"] = ImageURLCache()
        self._play_opponent(episode, state)
        state["prompt"] = self._prompt(episode, state)  # the episode's first prompt, in place of the row's label
        return state

    async def get_prompt_messages(self, state: vf.State) -> vf.Messages:
        episode = self._episodes[state["trajectory_id"]]
        if state["trajectory"]:
            episode.step(_reply_text(state["trajectory"][-1]["completion"]))
            self._play_opponent(episode, state)
        state["cogsim"] = episode.record()
        if episode.finished:
            state["final_env_response"] = normalize_messages([{"role": "user", "content": episode.obs["text"]}])
        return self._prompt(episode, state)

    async def render_completion(self, state: vf.State) -> None:
        """The whole episode after its first prompt: each answer, then the observation it led to."""
        completion: list = []
        for index, step in enumerate(state["trajectory"]):
            if index:
                completion.append(step["prompt"][-1])
            completion.extend(step["completion"])
        completion.extend(state.get("final_env_response") or [])
        state["completion"] = completion

    @staticmethod
    def _prompt(episode: Episode, state: vf.State) -> vf.Messages:
        return normalize_messages(openai_messages(episode.prompt(), state["cogsim_images"]))

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> vf.Messages:
        raise NotImplementedError("cogsim builds every prompt itself (get_prompt_messages)")

    def _play_opponent(self, episode: Episode, state: vf.State) -> None:
        while self.opponent and not episode.finished and episode.player != self.seat:
            episode.step(episode.scripted_answer(self.opponent))

    @vf.cleanup
    async def release_episode(self, state: vf.State) -> None:
        episode = self._episodes.pop(state["trajectory_id"], None)
        if episode is not None:
            episode.close()
        state.pop("cogsim_images", None)


class EpisodeRubric(vf.Rubric):
    """Reward: the episode's total reward. Metrics: the env's per-episode outcomes (numbers only)."""

    def __init__(self, **kwargs: Any):
        super().__init__(funcs=[episode_reward], weights=[1.0], **kwargs)

    async def score_rollout(self, state: vf.State) -> None:
        await super().score_rollout(state)
        state["metrics"].update(outcome_metrics(state))

    async def score_group(self, states: list[vf.State]) -> None:
        await super().score_group(states)
        for state in states:
            state["metrics"].update(outcome_metrics(state))


def episode_reward(state: vf.State) -> float:
    record = state.get("cogsim") or {}
    return float(record.get("total_reward", 0.0)) if record.get("status") in ("done", "truncated") else 0.0


def outcome_metrics(state: vf.State) -> dict[str, float]:
    record = state.get("cogsim") or {}
    finished = record.get("status") in ("done", "truncated")
    metrics = {"cogsim/unscored": 0.0 if finished else 1.0}
    if finished:
        for key, value in record.items():
            if key not in RUNNER_FIELDS and isinstance(value, (int, float)):
                metrics[f"cogsim/{key}"] = float(value)
    return metrics


def _reply_text(completion: Any) -> str:
    """The text of the assistant's message (string content or text parts)."""
    message = completion[-1] if completion else None
    content = getattr(message, "content", None) if not isinstance(message, dict) else message.get("content")
    if isinstance(content, list):
        return "".join(
            (part.get("text") if isinstance(part, dict) else getattr(part, "text", None)) or "" for part in content
        )
    return content or ""
