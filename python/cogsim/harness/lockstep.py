"""The lockstep episode loop.


Up to ``concurrency`` episodes are in flight. Each step gathers the active episodes, groups them
by the agent whose turn it is (``obs["player"]`` picks the seat in duels), makes ONE backend call
per agent for all of them (scripted agents answer from each env's hidden state), steps every env
with its answer, and commits the step's turns in one transaction. Finished episodes free their
env for the next pending one.

Resuming replays the stored turns of an unfinished episode into a fresh env with the same seed
(checking that the env shows the same prompts, and that a scripted agent gives the same answers,
which also restores its random stream), then continues live: the result is the same as an
uninterrupted run.

Backend faults. A turn whose model call failed (connection, timeout, HTTP error, context overflow,
unsupported input, malformed answer) is never given to the env: the episode stops where it is,
stays 'running' in the store with ``fault`` and ``error`` set, and nothing of it is scored. A fault
that says the server is unusable (connection, timeout, HTTP status, images to a text-only model)
also stops the run: no new episode starts, the active ones stay resumable. ``run --resume``
continues exactly these episodes: it replays their stored (real) turns into a fresh env with the
same seed and asks the model for the failed turn again. ``on_overflow="drop-oldest"`` instead
answers a context overflow by leaving out the oldest exchanges of the history, one more at a time,
and records how many per turn.

Release-file faults. An env that finds the installed release files its pictures are drawn from
missing, changed or damaged (``release_assets.ReleaseFilesError``, met when it first loads a file) is
the same kind of failure, the serving side's: the episode stops unscored and resumable with fault
``release_files`` and the error's one line (never a traceback), and the run stops, since every
episode drawing from those files would meet it. ``run --resume`` after ``cogsim assets add``
replays and continues exactly these episodes.
"""

from __future__ import annotations

import gc
import time
import traceback
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

import numpy as np

import cogsim
from cogsim._untrusted import content_reference
from cogsim.agents import is_scripted, make_agent
from cogsim.agents.base import RUN_STOPPING_FAULTS, Completion, Message, ScriptedAgent
from cogsim.agents.history import HistoryPolicy
from cogsim.agents.human import TurnContext
from cogsim.envs import spec as env_spec
from cogsim.envs.base import shared_frame_passes
from cogsim.harness.config import RunConfig, require_plugins
from cogsim.harness.slots import PendingSlots, Progress, Slot, with_states
from cogsim.release_assets import ReleaseFilesError
from cogsim.store.rows import EpisodeRow, TurnRow
from cogsim.store.sqlite import Store
from cogsim.store.values import image_ref


def _class_batches_frames(env_id: str) -> bool:
    """Whether the env class behind an id allows shared passes; a factory entry point says nothing, and
    an unknown id fails where its episodes start, as before."""
    try:
        return bool(getattr(env_spec(env_id).entry_point, "batches_frames", False))
    except (ValueError, ImportError):
        return False


RELEASE_FILES_FAULT = "release_files"  # the fault kind of damaged or missing release files (below)


class ReplayMismatch(RuntimeError, ValueError):
    """The env or a scripted agent did not reproduce a stored turn: the env is not deterministic, or the
    store holds turns cogsim did not write (a ValueError too: the CLI reports it as bad input)."""


_in_worker_process = False
_worker_cores = 0  # the cores a worker process has to itself (0: not a worker, all of the machine's)


def in_worker_process(cores: int = 0) -> None:
    """Tells the runner that this process is a worker cogsim started for a run (nothing else lives in
    it): after the first step it moves every object then alive (modules, envs, their pictures) out of
    the garbage collector's passes (``gc.freeze``), which otherwise traverse them again and again.
    ``cores``: the machine's cores divided among the run's workers (0: all of them). The frames are
    encoded over that many threads, and with one, in the runner's own thread: threads beside it would
    only take turns with it on that core, and hand each frame from one core's cache to another's."""
    global _in_worker_process, _worker_cores
    _in_worker_process = True
    _worker_cores = cores


def run_slots(
    out: str | Path, config: RunConfig, slots: Iterable[Slot], worker: int = 0, progress: Optional[Progress] = None
) -> None:
    """Play ``slots`` (a list, or ``PendingSlots`` made one at a time) in this process, lockstep,
    committing every step to the store at ``out``; those the store holds finished are skipped.
    The modules that register the slots' env ids must be imported already (see require_plugins)."""
    require_plugins(config)
    with Store(out, worker=worker) as store:
        store.begin_session()
        _LockstepRunner(store, config, progress).run(slots)


@dataclass
class ChunkResult:
    """What playing a chunk of slots away from the store produced, for the store's owner to write."""

    steps: list  # (started, turns, finished) per lockstep step, as Store.write_step takes them
    images: dict  # reference (images/ab/<sha256>.png or .jpg) -> the bytes of each frame the turns show
    backends: dict  # agent spec -> the backend's description
    stopped: Optional[str]  # a run-stopping backend fault, as in a local run


class StepRecorder:
    """The store as a worker away from it sees it: it serves the stored state of the chunk's
    episodes (for replay) and keeps what each step would write, in order."""

    def __init__(self, states: dict, stored_turns: dict):
        self.states, self.stored_turns = states, stored_turns
        self.result = ChunkResult([], {}, {}, None)

    def episode_states_in(self, task: int, agent: str, start: int, stop: int) -> dict:
        """As ``Store.episode_states_in``, from the states the chunk was sent with."""
        return {
            index: state
            for (stored_task, stored_agent, index), state in self.states.items()
            if stored_task == task and stored_agent == agent and start <= index < stop
        }

    def turns(self, episode_id: int) -> list:
        return self.stored_turns.get(episode_id, [])

    def put_image(self, sent) -> str:
        """The reference a frame (a ``SentFrame``) will have in the store; its bytes kept once."""
        ref = image_ref(sent.key, sent.suffix)
        if ref not in self.result.images:
            self.result.images[ref] = sent.data
        return ref

    def record_backend(self, spec: str, description: dict) -> None:
        self.result.backends[spec] = description

    def write_step(self, started, turns, finished) -> None:
        self.result.steps.append((list(started), list(turns), list(finished)))


def play_chunk(config: RunConfig, slots: list[Slot], states: dict, stored_turns: dict) -> ChunkResult:
    """Play ``slots`` without the store, as a remote worker does: ``states`` and ``stored_turns``
    hold what the store had of them ((task, agent, episode index) -> (episode id, status), and
    ``Store.turns`` by episode id)."""
    require_plugins(config)
    recorder = StepRecorder(states, stored_turns)
    runner = _LockstepRunner(recorder, config, None)
    runner.run(slots)
    recorder.result.stopped = runner.stopped
    return recorder.result


def deliver_chunk(store: Store, result: ChunkResult, progress: Optional[Progress] = None) -> None:
    """Write a chunk played elsewhere into the store, one transaction per step as a local run does.
    Delivering the same chunk twice stores it once (Store.write_step is idempotent)."""
    for ref, data in result.images.items():
        store.put_encoded(ref, data)
    for spec, description in result.backends.items():
        store.record_backend(spec, description)
    for started, turns, finished in result.steps:
        store.write_step(started, turns, finished)
        if progress:
            ended = sum(row.status != "running" for row in finished)
            progress(ended, len(turns), sum(t.parse == "parse_failure" for t in turns))


class _Episode:
    """One episode in flight: its env, per-seat conversations and random streams, its stored row."""

    def __init__(self, slot: Slot, env, row: EpisodeRow):
        self.slot = slot
        self.env = env
        self.row = row
        self.turn = 0
        self.conversations = defaultdict(list)  # player -> [(user Message, answer text)]
        self.rngs = [
            np.random.default_rng([slot.seed, seat, zlib.crc32(a.encode())]) for seat, a in enumerate(slot.seats)
        ]
        self.obs = None
        self.sent: tuple = ()  # the frames of obs as they are sent (SentFrames, encoding in the background)
        self.new = row.id is None
        self.finished = False
        self.dropped = defaultdict(int)  # player -> oldest exchanges left out of its prompts (on_overflow)

    @property
    def player(self) -> int:
        return self.obs.get("player", 0)

    def user_message(self) -> Message:
        return Message("user", self.obs["text"], self.sent)

    def prompt(self, history: HistoryPolicy) -> list[Message]:
        return history.messages(
            self.env.system_prompt, self.conversations[self.player], self.user_message(), self.dropped[self.player]
        )

    def can_drop(self, history: HistoryPolicy) -> bool:
        return self.dropped[self.player] < history.kept(len(self.conversations[self.player]))

    def context(self) -> TurnContext:
        """The turn as a person at a console is told of it (``human:NAME`` agents)."""
        slot = self.slot
        replies = self.env.quick_replies() if hasattr(self.env, "quick_replies") else ()
        return TurnContext(slot.env_id, slot.seed, slot.episode_index, self.turn, self.player, slot.seats, replies)


class _LockstepRunner:
    def __init__(self, store: "Store | StepRecorder", config: RunConfig, progress: Optional[Progress]):
        self.store = store
        self.config = config
        self.progress = progress or (lambda episodes, turns, failures: None)
        self.agents = {}
        self.free_envs = defaultdict(list)
        self.stopped: Optional[str] = None  # a run-stopping backend fault: no new episodes, no more steps
        self.starts_share_frames = all(_class_batches_frames(task.env_id) for task in config.tasks)
        self.frames = None  # the FrameEncoder, made when the first frame is shown
        self.drawn: list = []  # SentFrames whose encoding starts once the block that drew them ends

    def run(self, slots: Iterable[Slot]) -> None:
        """Play the unfinished ones of ``slots``, taken one at a time as episodes free their place
        (with their stored states, read a chunk at a time): memory bounded by the concurrency."""
        if isinstance(slots, PendingSlots):
            agents, pending = slots.agents, slots.with_states()
        else:
            slots = list(slots)  # a caller's list: bounded by the caller
            agents = list(dict.fromkeys(seat for slot in slots for seat in slot.seats))
            pending = with_states(slots, self.store.episode_states_in)
        next_slot = next(pending, None)
        active: list[_Episode] = []
        frozen = False
        try:
            self._start_model_backends(agents)
            while (next_slot is not None or active) and self.stopped is None:
                started, failed = [], []
                # Inside these blocks the runner reads only frames drawn before them (a step shows the
                # frames of the step before), so the frames drawn inside may be filled at their end.
                with shared_frame_passes(self.starts_share_frames):  # the new episodes' first frames
                    while next_slot is not None and len(active) < self.config.concurrency:
                        episode = self._start(*next_slot)
                        next_slot = next(pending, None)
                        if episode.new:
                            started.append(episode.row)
                        (failed if episode.finished else active).append(episode)
                self._encode_drawn()
                shared = all(e.env is None or e.env.batches_frames for e in active)
                with shared_frame_passes(shared):  # the frames the step's answers lead to
                    turns, finished = self._step(active)
                self._encode_drawn()
                self.store.write_step(started, turns, [e.row for e in failed + finished])
                if _in_worker_process and not frozen:
                    gc.freeze()
                    frozen = True
                for episode in finished:
                    if episode.row.status not in ("error", "running"):  # an env that raised may be in any state
                        self.free_envs[episode.slot.task].append(episode.env)
                    elif episode.env is not None:
                        episode.env.close()
                active = [e for e in active if not e.finished]
                failures = sum(t.parse == "parse_failure" for t in turns)
                ended = sum(e.row.status != "running" for e in failed + finished)
                self.progress(ended, len(turns), failures)
        finally:
            pending.close()  # a store connection of its own, if any
            if self.frames is not None:
                self.frames.close()
            for agent in self.agents.values():
                if hasattr(agent, "close"):
                    agent.close()
            for env in [e for pool in self.free_envs.values() for e in pool] + [e.env for e in active if e.env]:
                env.close()

    # -- starting and replaying ------------------------------------------------------------------------
    def _start_model_backends(self, agents: list[str]) -> None:
        """Model backends (of the agents of the episodes to play) start before any env: an engine that
        cannot start fails before an episode does, and an in-process engine's libraries load before the
        renderer's (Triton's LLVM loaded after Mesa llvmpipe's crashes the process; the other order works)."""
        for spec in agents:
            if not is_scripted(spec):
                self._agent(spec)

    def _agent(self, spec: str):
        if spec not in self.agents:
            options = dict(self.config.agent_options)
            if is_scripted(spec):
                self.agents[spec] = make_agent(spec)
            else:
                self.agents[spec] = make_agent(spec, **options)
                self.store.record_backend(spec, self.agents[spec].describe())
        return self.agents[spec]

    def _env(self, slot: Slot):
        pool = self.free_envs[slot.task]
        if pool:
            return pool.pop()
        env = cogsim.make(slot.env_id, **self.config.tasks[slot.task].options)
        env.final_frames = False  # the last observation is never shown to an agent: not drawn
        return env

    def _history(self, env) -> HistoryPolicy:
        return HistoryPolicy.parse(self.config.history or env.default_history, self.config.max_images)

    def _start(self, slot: Slot, state: Optional[tuple[int, str]]) -> _Episode:
        episode_id = state[0] if state is not None else None
        entry = env_spec(slot.env_id)
        row = EpisodeRow(
            slot.task,
            slot.env_id,
            slot.env_id.split("/")[0],
            slot.agent,
            slot.seats,
            slot.episode_index,
            slot.seed,
            {k: content_reference(v) for k, v in {**entry.defaults, **self.config.tasks[slot.task].options}.items()},
            None,
            self.config.history or "",
            id=episode_id,
        )
        row.loop = {"on_overflow": self.config.on_overflow}
        episode = _Episode(slot, None, row)
        try:
            episode.env = self._env(slot)
            obs, _ = episode.env.reset(seed=slot.seed)
            self._show(episode, obs, encode_now=episode_id is None)
        except ReleaseFilesError as error:
            self._release_files_fault(episode, error)
            return episode
        except Exception:
            self._fail(episode, f"env reset failed:\n{traceback.format_exc(limit=4)}")
            return episode
        env = episode.env
        row.suite = type(env).suite or row.suite  # entry points may be factories: ask the env itself
        row.system_prompt, row.history = env.system_prompt, str(self._history(env))
        decoding = _env_decoding(env)
        if decoding:
            row.loop["decoding"] = decoding
        _note_frames(env, row)
        if episode_id is not None:
            try:
                self._replay(episode, self.store.turns(episode_id))
            except ReleaseFilesError as error:
                self._release_files_fault(episode, error)
                return episode
            self.drawn.extend(episode.sent)  # the next turn shows (and stores) these
        return episode

    def _show(self, episode: _Episode, obs: dict, encode_now: bool = True) -> None:
        """Makes ``obs`` the episode's observation, its frames handed to the encoder: encoded from now
        on (at once, while the frames are still in the core's cache, unless a block of shared render
        passes has yet to fill them: then when it ends), or (``encode_now`` False: frames replayed on
        resume, whose turns are stored already) only when a model's prompt shows them again."""
        episode.obs = obs
        images = obs.get("images", ())
        if not len(images):
            episode.sent = ()
            return
        from cogsim.render import FrameEncoder, frames_pending  # the renderer's package only when frames are shown

        if self.frames is None:
            self.frames = FrameEncoder(threads=_worker_cores, inline=_worker_cores == 1)
        frame_format = episode.env.frame_format() if hasattr(episode.env, "frame_format") else {"format": "png"}
        episode.sent = self.frames.frames(images, frame_format, eager=False, after=episode.sent)
        if encode_now and not frames_pending():
            for frame in episode.sent:
                frame.start()
        elif encode_now:
            self.drawn.extend(episode.sent)

    def _encode_drawn(self) -> None:
        """Starts encoding the frames shown since the last call. Not before: inside a block of shared
        render passes a frame's pixels are filled only when the block ends."""
        drawn, self.drawn = self.drawn, []
        for frame in drawn:
            frame.start()

    def _replay(self, episode: _Episode, turns) -> None:
        for stored in turns:
            if episode.finished:
                raise ReplayMismatch(
                    f"{episode.slot.env_id} seed {episode.slot.seed} turn {stored.turn}: the store holds turns past "
                    "the episode's end"
                )
            if stored.prompt != episode.obs["text"]:
                raise ReplayMismatch(
                    f"{episode.slot.env_id} seed {episode.slot.seed} turn {stored.turn}: the env showed a different "
                    "prompt than the stored one; resume needs a deterministic env"
                )
            agent = self._agent(episode.slot.seats[episode.player])
            if isinstance(agent, ScriptedAgent):
                again = agent.respond(episode.env, episode.rngs[episode.player])
                if again != stored.response:
                    raise ReplayMismatch(
                        f"{episode.slot.env_id} seed {episode.slot.seed} turn {stored.turn}: scripted agent "
                        f"{agent.spec!r} answered differently on replay"
                    )
            episode.dropped[episode.player] = stored.history_dropped
            self._advance(episode, stored.response, live=False)
        if episode.finished:  # cannot happen with atomic steps; a stored final turn means a stored finish
            raise ReplayMismatch(f"episode {episode.row.id} ended during replay but is stored as running")

    # -- one lockstep step ------------------------------------------------------------------------------
    def _step(self, active: list[_Episode]) -> tuple[list[TurnRow], list[_Episode]]:
        by_agent = defaultdict(list)
        for episode in active:
            seat = episode.player
            if seat >= len(episode.slot.seats) or seat < 0:
                self._fail(
                    episode, f"observation names player {seat}, but the episode has {len(episode.slot.seats)} seats"
                )
                continue
            by_agent[episode.slot.seats[seat]].append(episode)
        turns = []
        for spec, episodes in by_agent.items():
            for episode, completion in zip(episodes, self._answers(spec, episodes)):
                turn = self._play(episode, spec, completion)
                if turn is not None:
                    turns.append(turn)
        return turns, [e for e in active if e.finished]

    def _answers(self, spec: str, episodes: list[_Episode]) -> list[Optional[Completion]]:
        agent = self._agent(spec)
        if not isinstance(agent, ScriptedAgent):
            completions = self._ask(agent, spec, episodes)
            if self.config.on_overflow == "drop-oldest":
                while True:  # answer overflows with one more old exchange left out, while any is left
                    retry = [
                        i
                        for i, (e, c) in enumerate(zip(episodes, completions))
                        if c.fault == "context_overflow" and e.can_drop(self._history(e.env))
                    ]
                    if not retry:
                        break
                    for i in retry:
                        episodes[i].dropped[episodes[i].player] += 1
                    for i, completion in zip(retry, self._ask(agent, spec, [episodes[i] for i in retry])):
                        completions[i] = completion
            return completions
        answers = []
        for episode in episodes:
            began = time.perf_counter()
            try:
                text = agent.respond(episode.env, episode.rngs[episode.player])
            except Exception:
                self._fail(episode, f"scripted agent {spec!r} failed:\n{traceback.format_exc(limit=4)}")
                answers.append(None)
                continue
            answers.append(Completion(text, latency_s=time.perf_counter() - began))
        return answers

    def _ask(self, agent, spec: str, episodes: list[_Episode]) -> list[Completion]:
        prompts = [e.prompt(self._history(e.env)) for e in episodes]
        decoding = [_env_decoding(e.env) for e in episodes]
        if getattr(agent, "wants_turns", False):  # a person: told which episode and seat, and the quick replies
            completions = agent.complete(prompts, decoding, turns=[e.context() for e in episodes])
        elif any(decoding):
            completions = agent.complete(prompts, decoding)
        else:
            completions = agent.complete(prompts)
        if len(completions) != len(prompts):
            raise RuntimeError(f"agent {spec!r} returned {len(completions)} answers for {len(prompts)} prompts")
        return completions

    def _fault(self, episode: _Episode, spec: str, completion: Completion) -> None:
        """The backend call of this turn failed: stop the episode unscored and resumable; stop the
        run when the fault says the server itself is unusable."""
        error = completion.error or "backend call failed"
        if completion.fault == "unsupported_input":
            suites = self._suites_with_images()
            error = (
                f"{spec} does not accept images ({error}); the run stopped. Suites of this run that send images: "
                f"{', '.join(suites) or '(none found)'}; run them with a vision model or in text modality."
            )
        elif completion.fault == "context_overflow":
            error = f"{error}; {self._overflow_advice(episode, error)}"
        episode.row.fault, episode.row.error = completion.fault, f"turn {episode.turn}: {error}"
        episode.finished = True
        if completion.fault in RUN_STOPPING_FAULTS and self.stopped is None:
            self.stopped = episode.row.error

    def _overflow_advice(self, episode: _Episode, error: str) -> str:
        """What fits the episode's prompt in the model's context, named as the options that do it."""
        history = self._history(episode.env)
        prompt = episode.prompt(history)
        images = sum(len(m.images) for m in prompt)
        earlier = sum(m.role == "assistant" for m in prompt)
        fixes = []
        if earlier > 0:
            fixes.append(f"--history last:K with K < {earlier} (the prompt carried {earlier} earlier turns)")
        if images > 1:
            fixes.append(f"--max-images N with N < {images} (it carried {images} images)")
        if "may be provided in one prompt" in error:  # vLLM's limit of images in a prompt
            fixes.append("a higher limit_mm_per_prompt (--agent-option, or the server's --limit-mm-per-prompt)")
        else:
            fixes.append("--agent-option max_model_len=N above the prompt's length, where the model allows it")
        return f"to fit it in, resume with {' or '.join(fixes)} (or --on-overflow drop-oldest)"

    def _suites_with_images(self) -> list[str]:
        found = []
        for task in self.config.tasks:
            try:
                env = cogsim.make(task.env_id, **task.options)
                obs, _ = env.reset(seed=self.config.seed)
                if len(obs.get("images", ())):
                    found.append(task.env_id)
                env.close()
            except Exception:  # noqa: BLE001 - only a hint for the message
                continue
        return found

    def _play(self, episode: _Episode, spec: str, completion: Optional[Completion]) -> Optional[TurnRow]:
        if completion is None:
            return None
        if completion.text is None:
            self._fault(episode, spec, completion)
            return None
        response = completion.text
        dropped = episode.dropped[episode.player]
        obs, sent, player, turn = episode.obs, episode.sent, episode.player, episode.turn
        system = episode.env.system_prompt  # the one this turn was sent (an env may change it as it steps)
        try:
            reward, info, terminated, truncated = self._advance(episode, response)
        except ReleaseFilesError as error:
            self._release_files_fault(episode, error)
            return None
        except Exception:
            self._fail(episode, f"env step failed:\n{traceback.format_exc(limit=4)}")
            return None
        return TurnRow(
            episode.row,
            turn,
            player,
            spec,
            obs["text"],
            [self.store.put_image(frame) for frame in sent],
            list(obs.get("options", ())),
            response,
            info.get("parsed"),
            str(info.get("parse", "ok")),
            reward,
            terminated,
            truncated or episode.row.status == "truncated",
            completion.latency_s,
            completion.prompt_tokens,
            completion.completion_tokens,
            completion.error,
            completion.attempts,
            completion.finish_reason,
            dropped,
            None if system == episode.row.system_prompt else system,
        )

    def _advance(self, episode: _Episode, response: str, live: bool = True) -> tuple[float, dict, bool, bool]:
        """Step the env with an answer; bookkeeping shared by live play and replay (``live`` False)."""
        user = episode.user_message()
        player = episode.player
        obs, reward, terminated, truncated, info = episode.env.step(response)
        reward = float(reward)
        past = episode.conversations[player]
        past.append((user, response))
        episode.conversations[player] = self._history(episode.env).retained(past)  # memory bounded by the policy
        episode.turn += 1
        row = episode.row
        row.num_turns = episode.turn
        row.total_reward += reward
        if terminated or truncated:
            row.status, row.outcome = "done", dict(info.get("episode") or {})
            episode.finished = True
        elif episode.turn >= self.config.max_turns:
            row.status, row.outcome = "truncated", {"runner_truncated": True}
            episode.finished = True
        if episode.finished:
            episode.obs, episode.sent = obs, ()  # the last observation is never shown to an agent
            _note_frames(episode.env, row)
        else:
            self._show(episode, obs, encode_now=live)
        return reward, info, bool(terminated), bool(truncated)

    def _release_files_fault(self, episode: _Episode, error: ReleaseFilesError) -> None:
        """The env met damaged or missing release files: stop the episode unscored and resumable,
        and the run (every episode drawing from them would meet them too)."""
        episode.row.status = "running"
        episode.row.fault, episode.row.error = (
            RELEASE_FILES_FAULT,
            f"turn {episode.turn}: {' '.join(str(error).split())}",
        )
        episode.finished = True
        if self.stopped is None:
            self.stopped = episode.row.error

    def _fail(self, episode: _Episode, error: str) -> None:
        episode.row.status, episode.row.error = "error", error
        episode.finished = True


def _note_frames(env, row: EpisodeRow) -> None:
    """Records in the episode's loop settings what drew its frames (look, render path and GL device) and
    how they were sent, once the env has drawn one (for the report; the episode's own record says the
    look and format the metrics and paper tables read)."""
    drawn_by = env.frames_drawn_by() if hasattr(env, "frames_drawn_by") else None
    if drawn_by is not None and row.loop is not None:
        sent = env.frame_format() if hasattr(env, "frame_format") else {"format": "png"}
        row.loop["frames"] = {**drawn_by, "sent": sent}


def _env_decoding(env) -> dict:
    """The env's decoding defaults (``env.metadata["cogsim.decoding"]``), e.g. {"max_tokens": 65536}."""
    decoding = (getattr(env, "metadata", None) or {}).get("cogsim.decoding")
    if decoding is None:
        return {}
    if not isinstance(decoding, dict):
        raise ValueError(
            f"{type(env).__name__}.metadata['cogsim.decoding'] must be a dict, got {type(decoding).__name__}"
        )
    return dict(decoding)
