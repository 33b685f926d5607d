"""KidGym envs: ``kidgym/<task>`` with ``level=1..3``.

Each turn shows the current frame (memory tasks: the model loop keeps the whole image history, the
paper's policy), the goal and the executable high-level actions as shuffled lettered options. The
answer is decoded as the paper does (see ``cogsim.benchmarks.kidgym.parser``); when 'continue' is the only option
any answer counts as it, as in the release's evaluation loop. Every task has the release's step budget
(``max_steps`` of its registered tasks: CL 4/8/12, SE 2/3/4, SO 2/3/4, MA 3/5/7, MMA 4/6/8, MDE 2/3/4,
FI, PU 1/2/3, MFI 2/3/4, PL 1, CO 5, DMA 4/6/8, DE 1/2/3). Except for Counting, Decode (one choice),
Memory Decode (one choice after 'continue') and Decode Maze (one step of slack) that is the fewest
steps that solve the task, so any wasted or wrong step fails the episode. ``kidgym/decode`` is the
release's thirteenth family; the paper's tables use the other twelve (``kidgym.PAPER_TASKS``).

Each turn's text is the release's: the goal and the lettered actions, with no feedback on the last
answer (``feedback=True`` adds cogsim's one line on what the last answer did). ``prompt_template`` reads
the turn text from a file (e.g. the paper's published prompt) with the placeholders of
``kidgym.prompts.TEMPLATE_FIELDS``.

The game is the release's whatever draws it (``kidgym.game``): its scenes, its 100 maze layouts per
level (seed s plays layout s % 100 + 1, the one the release's (s+1)-th episode plays) and its full
action lists (``actions="executable"`` lists only the actions whose target the agent can reach).
``look="release"`` (the default) draws the release's frames (RGBA, 448 or 576 wide, 576 high) from the
user's copy of the release's images (``kidgym.release_files.assets_root``); ``look="cogsim"`` draws the
same scenes with cogsim's own sprites and panels (``kidgym.cogsim_scene``), needing no release files.

Reading: an answer that names no option spends a step without effect (``invalid_answer_costs_step``;
False re-asks for free). The release's interactive loop re-asks; how its model runs counted such
answers is not published.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

import numpy as np

from cogsim import release_assets
from cogsim.benchmarks import kidgym
from cogsim.benchmarks.kidgym import cogsim_scene, game, look, prompts, release_files
from cogsim.benchmarks.kidgym.look import Drawn
from cogsim.benchmarks.kidgym.parser import TAG_MODES, decode_answer
from cogsim.benchmarks.kidgym.tasks import GOAL_TEXTS, TASKS
from cogsim.envs import register
from cogsim.envs.base import QuickReply, TextEnv, observation, option_replies
from cogsim.envs.options import known

LOOKS = ("release", "cogsim")
CELL_SIZES = {"release": (64,), "cogsim": (32, 64, 96)}
# cogsim's own KidGym mechanics (procedural layouts and rules) were played until this version
EARLIER_MECHANICS_VERSION = "0.1.0"
_RELEASE_LOOKS: dict = {}  # one ReleaseLook (with its image caches) per folder of release files
EXAMPLE_SEED = 2_000_000_011  # the in-context example episode (shifted if it equals the episode's seed)


class KidGymEnv(TextEnv):
    """One KidGym task at one level. Options:

    task, level            which task (``cogsim.benchmarks.kidgym.TASKS``) and level 1..3
    prompt                 "zero_shot" | "cot" | "in_context"
    max_steps              step budget; 0 = the release's registered budget (the fewest steps that solve
                           the task, plus the release's slack for CO, DE, MDE and DMA)
    look                   "release" (the release's frames, from its image files) or "cogsim" (cogsim's own
                           drawings of the same scenes, needing no release files)
    actions                "release" (every action the release lists, reachable or not) or "executable"
                           (only those whose target the agent can reach)
    images                 render frames (False: text only, for fast simulation of scripted agents)
    cell_size              cogsim's look: 32, 64 (a 576 px frame) or 96; the release's look has 64 px tiles
    describe_backpack      state the backpack in words after the actions
    decoder                "paper" (exactly the paper's decoder) or "strict" (see ``kidgym.decode``)
    answer_tags            "release" (lowercase <answer> tags on one line, as the release reads them) or
                           "any_case" (tags in any case, across lines: cogsim's earlier reading)
    feedback               add a line on what the last answer did (cogsim's; the release gives none)
    goal_texts             "release" (the release's templates word for word) or "adapted" (Memory Decode
                           worded for cogsim's frames, which show the target in the hint bar)
    prompt_template        path of a text file for each turn's text (or its content as a run records it), with
                           plain placeholders ``{goal}``, ``{actions}``... (see ``kidgym.prompts.TEMPLATE_FIELDS``)
    invalid_answer_costs_step  an unparseable answer spends a step (True) or is simply re-asked (False)
    mechanics              "release", the only game (runs of cogsim's earlier mechanics are refused)
    """

    suite: ClassVar[str] = "kidgym"
    batches_frames: ClassVar[bool] = True
    default_history: ClassVar[str] = "current"
    scripted_policies: ClassVar[tuple[str, ...]] = ("oracle", "random")
    file_options: ClassVar[dict[str, str]] = {"prompt_template": "text"}

    def __init__(
        self,
        env_id: str = "",
        task: str = "classification",
        level: int = 1,
        prompt: str = "zero_shot",
        max_steps: int = 0,
        look: str = "release",
        actions: str = "release",
        images: bool = True,
        cell_size: Optional[int] = None,
        describe_backpack: bool = False,
        decoder: str = "paper",
        answer_tags: str = "release",
        feedback: bool = False,
        goal_texts: str = "release",
        prompt_template: Any = None,
        invalid_answer_costs_step: bool = True,
        mechanics: str = "release",
        **options: Any,
    ):
        _check_mechanics(mechanics, env_id or f"kidgym/{task}")
        known(options, env_id, ACCEPTED_OPTIONS)
        super().__init__(
            env_id,
            task=task,
            level=level,
            prompt=prompt,
            max_steps=max_steps,
            look=look,
            actions=actions,
            images=images,
            cell_size=cell_size,
            describe_backpack=describe_backpack,
            decoder=decoder,
            answer_tags=answer_tags,
            feedback=feedback,
            goal_texts=goal_texts,
            prompt_template=prompt_template,
            invalid_answer_costs_step=invalid_answer_costs_step,
            mechanics=mechanics,
        )
        self.task = kidgym.task(task)
        self.level = kidgym._check_level(level)
        self.prompt = prompts.check_variant(prompt)
        if decoder not in ("paper", "strict"):
            raise ValueError(f"decoder must be 'paper' or 'strict', got {decoder!r}")
        if answer_tags not in TAG_MODES:
            raise ValueError(f"answer_tags must be one of {', '.join(TAG_MODES)}, got {answer_tags!r}")
        if goal_texts not in GOAL_TEXTS:
            raise ValueError(f"goal_texts must be one of {', '.join(GOAL_TEXTS)}, got {goal_texts!r}")
        if look not in LOOKS:
            raise ValueError(f"look must be one of {', '.join(LOOKS)}, got {look!r}")
        fewest, most = kidgym.budget_range(self.task.name, self.level)
        if (
            isinstance(max_steps, bool)
            or not isinstance(max_steps, int)
            or not (max_steps == 0 or fewest <= max_steps <= most)
        ):
            raise ValueError(
                f"max_steps must be 0 (the release's budget) or an integer in [{fewest}, {most}] for {self.task.name} "
                f"level {self.level}, got {max_steps!r}"
            )
        cell_size = 64 if cell_size is None else cell_size
        if cell_size not in CELL_SIZES[look]:
            allowed = "64 (the release's tiles)" if look == "release" else "32, 64 or 96"
            raise ValueError(f"cell_size must be {allowed} with look={look!r}, got {cell_size!r}")
        self.answer_tags, self.feedback, self.goal_texts = answer_tags, bool(feedback), goal_texts
        self.template = prompts.load_template(prompt_template) if prompt_template is not None else None
        self.game = game.Game(self.task, self.level, max_steps, actions)
        self.look, self.actions, self.images, self.cell_size = look, actions, bool(images), cell_size
        self.drawing = _release_look() if look == "release" and self.images else None
        self._drawn: Optional[Drawn] = None  # the frame drawn last, for the next one's PNG
        # the release files the pictures come from, as episodes record them
        self.assets_used = release_assets.used(release_files.BENCHMARK) if self.drawing is not None else None
        self.max_steps = max_steps
        self.describe_backpack = bool(describe_backpack)
        self.strict = decoder == "strict"
        self.invalid_answer_costs_step = bool(invalid_answer_costs_step)
        self.system_prompt = prompts.system_prompt(self.prompt, self.task.memory)
        self.state = None

    # -- episode ------------------------------------------------------------------------------
    def scene(self) -> dict:
        """The current scene in the release's terms (``kidgym.scene``), JSON-able: what either look draws."""
        if self.state is None:
            raise ValueError("no episode yet; call reset() first")
        return self.game.scene(self.state)

    def _reset(self, seed: int, options: dict) -> dict:
        self.state = self.game.generate(seed)
        self.parse_failures = 0
        self.turn = 0
        self.example = self._worked_example(seed) if self.prompt == "in_context" else None
        return self._observe("")

    def _backpack_note(self, state) -> str:
        return f"Backpack: {game.backpack_text(state)}" if self.describe_backpack else ""

    def _frame(self, state) -> tuple:
        if not self.images or (state.done and not self.final_frames):
            self._drawn = None
            return ()
        scene = self.game.scene(state)
        if self.drawing is not None:
            self._drawn = self.drawing.frame_after(scene, self._drawn if self.turn else None)
            return (self._drawn.frame,)
        return (self.renderer().grid([cogsim_scene.grid_scene(scene, self.cell_size)])[0],)

    def _observe(self, feedback: str) -> dict:
        state = self.state
        frames = self._frame(state)
        if state.done:
            outcome = "You completed the goal." if state.success else "The task failed."
            return observation(f"{feedback}\nThe episode is over. {outcome}".strip(), frames, ())
        self.legal_actions = state.options()
        texts = self.game.texts(state)
        note = self._backpack_note(state)
        feedback = feedback if self.feedback else ""
        goal = self.game.goal(state, self.goal_texts)
        if self.template is not None:
            text = prompts.fill_template(self.template, goal, texts, note, feedback, state)
        else:
            text = prompts.turn_text(goal, texts, feedback, note)
        if self.example is not None and (self.turn == 0 or self.default_history == "current"):
            text = self.example.text() + "\n\n" + text
            frames = tuple(self.example.frames) + frames
        return observation(text, frames, texts)

    def _step(self, action: str):
        if self.state is None or self.state.done:
            raise ValueError("the episode is over (or was never started); call reset() first")
        texts = self.game.texts(self.state)
        index = decode_answer(action, texts, strict=self.strict, tags=self.answer_tags)
        if index is None and texts == ["continue"]:
            index = 0  # the release's evaluation takes any answer as 'continue' when it is the only option
        self.turn += 1
        if index is None:
            self.parse_failures += 1
            if self.invalid_answer_costs_step:
                self.state.waste_step()
            info = {"parse": "parse_failure", "parsed": None, "step_success": False}
            feedback = f"Your answer named none of the options {kidgym.letter_list(len(texts))}."
        else:
            self.state.apply(index)
            changed = bool(self.state.last_step_ok)  # the release's step_success
            letter = chr(ord("A") + index)
            info = {"parse": "ok", "parsed": {"option": letter, "action": texts[index]}, "step_success": changed}
            feedback = f"You chose {letter}: '{texts[index]}'." + ("" if changed else " It had no effect.")
        state = self.state
        terminated, truncated = bool(state.done and not state.truncated), bool(state.truncated)
        reward = 1.0 if state.done and state.success else 0.0
        if state.done:
            info["episode"] = self._episode_record()
        return self._observe(feedback), reward, terminated, truncated, info

    def _episode_record(self) -> dict:
        s = self.state
        return {
            "task": self.task.name,
            "code": self.task.code,
            "level": self.level,
            "success": bool(s.success),
            "steps": int(s.steps),
            "budget": int(s.budget),
            "parse_failures": int(self.parse_failures),
            "capabilities": list(self.task.capabilities),
            "prompt": self.prompt,
            "mechanics": "release",
            # the release's look resamples the release's images with the installed Pillow, as the release does
            "pillow": look.PILLOW if self.drawing is not None else None,
            "layout": int(s.layout) or None,
            **self.pictures_record(),
        }

    def frames_drawn_by(self) -> Optional[dict]:
        if not self.images:
            return None
        if self.drawing is not None:
            return {"look": "release", "path": "cpu", "gl_renderer": None}
        return super().frames_drawn_by()

    def shows_pictures(self) -> bool:
        return self.images

    # -- scripted agents ----------------------------------------------------------------------
    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        """The oracle plays a fewest-steps plan; from a state where none succeeds any more (after
        other agents' moves) it answers like the random agent."""
        if policy not in self.scripted_policies:
            raise ValueError(f"policy must be one of {', '.join(self.scripted_policies)}, got {policy!r}")
        if self.state is None or self.state.done:
            raise ValueError("the episode is over (or was never started); call reset() first")
        index = self.state.oracle_option() if policy == "oracle" else None
        if index is None:
            index = int(rng.integers(len(self.legal_actions)))
        letter = chr(ord("A") + index)
        text = self.game.texts(self.state)[index]
        why = (
            self._reason(self.state, index)
            if policy == "oracle" and self.prompt == "cot"
            else f"I pick {letter}: '{text}'."
        )
        return prompts.scripted_answer(self.prompt, letter, text, why)

    def quick_replies(self) -> tuple[QuickReply, ...]:
        """The options by their letters (the chain-of-thought prompt's answer tags around the letter)."""
        if self.state is None or self.state.done:
            return ()
        tagged = self.prompt == "cot"
        return option_replies(
            self.game.texts(self.state), lambda letter: f"<answer>{letter}</answer>" if tagged else letter
        )

    def _reason(self, state, index: int) -> str:
        return f"It is the next step of a shortest plan to the goal: '{self.game.texts(state)[index]}'."

    def _worked_example(self, seed: int) -> prompts.WorkedExample:
        example_seed = EXAMPLE_SEED + self.level if seed != EXAMPLE_SEED + self.level else EXAMPLE_SEED - 1
        state = self.game.generate(example_seed)
        example = prompts.WorkedExample(self.game.goal(state, self.goal_texts))
        frames = []
        while not state.done:
            texts = self.game.texts(state)
            index = state.oracle_option()
            if (
                index is None
            ):  # the release draws a few unsolvable Decode Maze episodes; the example needs a solvable one
                example_seed += 1
                state = self.game.generate(example_seed)
                example, frames = prompts.WorkedExample(self.game.goal(state, self.goal_texts)), []
                continue
            frames.append(self._frame(state))
            letter = chr(ord("A") + index)
            why = self._reason(state, index)
            example.steps.append((texts, letter, f"{why} So the action is {letter}: '{texts[index]}'."))
            state.apply(index)
        example.frames = [frame for group in frames for frame in group]
        return example


ACCEPTED_OPTIONS = tuple(
    name
    for name in KidGymEnv.__init__.__code__.co_varnames[1 : KidGymEnv.__init__.__code__.co_argcount]
    if name not in ("env_id", "task")
)


def _check_mechanics(mechanics: Any, env_id: str) -> None:
    """Only the release's game is played; cogsim's earlier mechanics are refused in one line that
    says where they went (a run that played them still reports and exports)."""
    if mechanics == "cogsim":
        raise ValueError(
            f"{env_id}: mechanics='cogsim', cogsim's earlier KidGym mechanics, are gone: they were played by "
            f"cogsim {EARLIER_MECHANICS_VERSION} and earlier (pip install cogsim=={EARLIER_MECHANICS_VERSION} "
            "plays them); a run made with them still reports and exports, and look='cogsim' now draws the "
            "release's game"
        )
    if mechanics != "release":
        raise ValueError(f"mechanics must be 'release' (the only game), got {mechanics!r}")


def _release_look() -> look.ReleaseLook:
    """The drawing of the release's pictures from the installed release files (shared by every env)."""
    root = release_files.assets_root()
    drawing = _RELEASE_LOOKS.get(root)
    if drawing is None:
        drawing = _RELEASE_LOOKS[root] = look.ReleaseLook(root, threads=1)
    return drawing


class KidGymMemoryEnv(KidGymEnv):
    """Memory tasks: the paper sends the whole history of images."""

    default_history: ClassVar[str] = "full"


for _spec in TASKS.values():
    register(
        _spec.env_id,
        KidGymMemoryEnv if _spec.memory else KidGymEnv,
        description=f"KidGym {_spec.title} ({_spec.code}; {', '.join(_spec.capabilities)}), levels 1-3",
        task=_spec.name,
        level=1,
    )


# The release's pictures where its image files are installed; elsewhere ``cogsim demo`` draws the same game
# in cogsim's look (``fallback``, at a small cell size). Classification and Maze at all three levels, so the
# report shows Execution and Planning scores.
DEMO_SUITES = [
    {
        "env_id": f"kidgym/{task}",
        "options": {"level": level},
        "fallback": {"look": "cogsim", "cell_size": 32},
        "episodes": 3,
        "agents": ["oracle", "random"],
    }
    for task, level in [("classification", 1), ("classification", 2), ("classification", 3), ("maze", 1), ("maze", 2)]
    + [("maze", 3), ("memory_decode", 2), ("counting", 2), ("puzzle", 2)]
]
