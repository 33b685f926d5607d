"""The contract every cogsim benchmark env follows, so one model loop runs them all.

An episode is a conversation. Each observation is the next user turn; each action is the raw text
the model (or a scripted agent) answered. The env parses that text with the benchmark's own parser,
so scripted agents and models go through identical code.

Observation (a dict):
    "text":    str, the user message for this turn (the first one carries the task preamble)
    "images":  tuple of HxWx3 (RGB) or HxWx4 (RGBA, where a release's frames carry alpha) uint8 arrays
               shown with this turn (empty for text-only suites); a model gets them encoded as
               ``frame_format()`` says (PNG, or the JPEG settings of a release that sends JPEG)
    "options": tuple of option texts for multiple choice, in label order A, B, ... (else empty)
    "player":  int, whose turn it is (0 unless the env is a multi-agent protocol such as a duel)

step(action: str) -> (observation, reward, terminated, truncated, info) where info holds:
    "parse":   "ok" | "parse_failure" | "invalid" (parsed, but not a legal move)
    "parsed":  a JSON-able form of the parsed action, or None
    "episode": on the last step only, a JSON-able dict of per-episode outcomes for the metrics

Scripted agents live with the env because they need its hidden state: ``scripted_response(name,
rng)`` answers as the named policy would, in the benchmark's answer format. Every env knows
"oracle" and "random"; suites add their own strong agents to ``scripted_policies``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any, ClassVar, NamedTuple, Optional

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cogsim._untrusted import shown

MAX_SEED = 2**32 - 1  # every env's episode seeds are integers in [0, MAX_SEED]


class ResetNeeded(gym.error.ResetNeeded, RuntimeError):
    """step() with no episode running: before the first reset(), or after the last step."""


class InvalidSeed(gym.error.Error, ValueError):
    """reset(seed=...) with a seed that is not an integer in [0, MAX_SEED] (nor None)."""


def check_seed(seed: Any) -> int:
    """The seed as an int; InvalidSeed names what was given (a huge integer by its size, not its digits)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        kind = "" if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) else f"{type(seed).__name__} "
        raise InvalidSeed(f"seed must be an integer in [0, {MAX_SEED}] or None, got {kind}{shown(seed)}")
    return int(seed)


class FreeText(spaces.Text):
    """A gymnasium Text space that accepts any unicode string up to max_length (models write anything)."""

    def __init__(self, max_length: int = 1 << 20):
        super().__init__(max_length=max_length, min_length=0)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length


class ImageTuple(spaces.Space):
    """Any number of HxWx3 (RGB) or HxWx4 (RGBA) uint8 frames (sizes vary by suite and option)."""

    def __init__(self):
        super().__init__(shape=None, dtype=None)

    def contains(self, x: Any) -> bool:
        return isinstance(x, tuple) and all(
            isinstance(a, np.ndarray) and a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] in (3, 4) for a in x
        )


class QuickReply(NamedTuple):
    """An answer a person gives with one press in ``cogsim play``: the keyboard key (a KeyboardEvent
    key name such as "A" or "ArrowUp"; "" for none), the button's label and the reply text sent, in
    the benchmark's answer format (what its parser reads as that choice)."""

    key: str
    label: str
    reply: str


def option_replies(options, reply=lambda letter: letter) -> tuple[QuickReply, ...]:
    """Quick replies for lettered options: key and letter A, B, ..., the label "A) text", the reply
    ``reply(letter)``."""
    letters = [chr(ord("A") + i) for i in range(min(len(options), 26))]
    return tuple(QuickReply(letter, f"{letter}) {text}", reply(letter)) for letter, text in zip(letters, options))


def observation_space() -> spaces.Dict:
    return spaces.Dict(
        {
            "text": FreeText(),
            "images": ImageTuple(),
            "options": spaces.Sequence(FreeText(4096), stack=False),
            "player": spaces.Discrete(16),
        }
    )


def observation(text: str, images=(), options=(), player: int = 0) -> dict:
    return {"text": text, "images": tuple(images), "options": tuple(options), "player": int(player)}


class TextEnv(gym.Env):
    """Base class for cogsim benchmark envs. Subclasses implement ``_reset`` and ``_step``.

    Class attributes a subclass sets:
        suite:              family name used by metrics and reports ("wilt", "cube", "pairs", ...)
        default_history:    the conversation policy the paper used: "full", "last:K" or "current"
        scripted_policies:  names accepted by ``scripted_response``
        num_players:        agents taking turns in one episode (2 for duels)
        batches_frames:     its frames may be drawn in passes shared with other envs (see below)

    Attribute a caller sets:
        final_frames:       whether the observation that ends an episode carries the final state's
                            frames (True by default, as Gymnasium's final observation). A caller that
                            never shows it sets False, and the env does not draw them.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # Gymnasium declares it this way
    suite: ClassVar[str] = ""
    default_history: ClassVar[str] = "full"
    scripted_policies: ClassVar[tuple[str, ...]] = ("oracle", "random")
    num_players: ClassVar[int] = 1
    # True for an env that only hands its frames on (into observations) and never reads their pixels
    # while it resets or steps: callers that step several envs together may then draw all their frames
    # in shared passes (render.frame_batch), which fills the arrays after the last env has stepped.
    batches_frames: ClassVar[bool] = False
    final_frames: bool = True
    # Options whose value names a file, by option name: "text" (a template, read as UTF-8 text) or "json".
    # A run records such a file's content instead of its path (cogsim.harness.config.record_file_options),
    # so a resume never opens a path read from a run directory.
    file_options: ClassVar[dict[str, str]] = {}
    # What draws its 2D frames ("gl" or "compositor", cogsim.render.RENDER_PATHS; None: automatic). Set by
    # the ``render_path`` option of ``cogsim.make``; both paths give the same pixels.
    render_path: Optional[str] = None
    _frames_renderer: Any = None  # the renderer that drew its frames, once it has drawn one

    def __init__(self, env_id: str = "", **options: Any):
        self.env_id = env_id
        self.options = dict(options)
        self.observation_space = observation_space()
        self.action_space = FreeText()
        self.system_prompt: Optional[str] = None

    # -- gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            seed = check_seed(seed)
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**31 - 1))
        self.episode_seed = int(seed)
        obs = self._reset(self.episode_seed, dict(options or {}))
        return obs, {"episode_seed": self.episode_seed}

    def step(self, action: str):
        if not hasattr(self, "episode_seed"):
            raise ResetNeeded(f"{self.env_id or type(self).__name__}: call reset() before step()")
        if not isinstance(action, str):
            raise TypeError(f"action must be the response text (str), got {type(action).__name__}")
        return self._step(action)

    # -- subclass hooks --------------------------------------------------------------------------
    def _reset(self, seed: int, options: dict) -> dict:
        raise NotImplementedError

    def _step(self, action: str):
        raise NotImplementedError

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        """The answer text the named scripted policy gives for the current observation."""
        raise NotImplementedError(f"{type(self).__name__} has no scripted policy {policy!r}")

    def quick_replies(self) -> tuple[QuickReply, ...]:
        """The answers a person can give with one press for the current observation (``cogsim play``
        shows them as buttons and keys beside the text box), each in the benchmark's answer format;
        none by default: the person types the reply as a model writes it."""
        return ()

    # -- frames ----------------------------------------------------------------------------------
    def set_render_path(self, path: Optional[str]) -> None:
        """Chooses what draws this env's 2D frames (see ``render_path``); ValueError for an unknown path."""
        from cogsim.render import check_render_path  # the renderer only for envs that draw

        self.render_path = check_render_path(path)
        self.options["render_path"] = path

    def renderer(self):
        """This thread's renderer for the env's render path (a GL context belongs to one thread)."""
        from cogsim.render import shared_renderer

        self._frames_renderer = shared_renderer(path=self.render_path)
        return self._frames_renderer

    def frames_drawn_by(self) -> Optional[dict]:
        """What drew the env's frames, or None before it has drawn any: {"look": the look's name (or
        None), "path": "gl" | "compositor" | "core" (the CPU), "gl_renderer": the GL device (None off
        the GL)}. An env that draws its frames without cogsim's renderer says so itself."""
        if self._frames_renderer is None:
            return None
        return {"look": getattr(self, "look", None), **self._frames_renderer.describe()}

    def shows_pictures(self) -> bool:
        """Whether this env's observations carry frames (its options decide: an image modality, images=True)."""
        return False

    def pictures_record(self) -> dict:
        """What every episode records of its pictures, in every env alike: {"look": the look that drew
        them, "frames": how they were sent (``frame_format()``), "release_assets": the release files they
        were drawn from, where the look reads any}; {"look": None} where it showed none."""
        if not self.shows_pictures():
            return {"look": None}
        record = {"look": getattr(self, "look", None), "frames": self.frame_format()}
        assets = getattr(self, "assets_used", None)
        if assets is not None:
            record["release_assets"] = dict(assets)
        return record

    def frame_format(self) -> dict:
        """How the env's frames are sent to a model: {"format": "png"} (the default: lossless) or the
        encoding the benchmark's release sends them in, e.g. {"format": "jpeg", "quality": 88, "optimize":
        True}; ``cogsim.render.encode_frames`` makes the bytes (``cogsim.render.frames``)."""
        return {"format": "png"}


def shared_frame_passes(allowed: bool) -> AbstractContextManager[None]:
    """A block in which envs that step together draw their frames in shared render passes
    (``render.frame_batch``: identical frames, less time), where every one of them allows it
    (``TextEnv.batches_frames``); otherwise a block that does nothing."""
    if not allowed:
        return nullcontext()
    from cogsim.render import frame_batch  # the renderer only for envs that draw

    return frame_batch()
