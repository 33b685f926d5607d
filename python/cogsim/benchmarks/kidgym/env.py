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

Mechanics and pictures are the release's by default (``mechanics="release"``, ``look="release"``;
``kidgym.game``, ``look``): its scenes, its 100 maze layouts per level (seed s plays
layout s % 100 + 1, the one the release's (s+1)-th episode plays), its full action lists and its
frames (RGBA, 448 or 576 wide, 576 high), drawn from the user's copy of the release's images
(``kidgym.release_files.assets_root``). ``look="cogsim"`` draws cogsim's own pictures of cogsim's own
scenes (``mechanics="cogsim"``: procedural layouts, executable actions only, a decoy key per maze and
the other readings in ``kidgym.tasks``). ``actions="executable"`` keeps the release's mechanics but
lists only the actions whose target the agent can reach.

Reading: an answer that names no option spends a step without effect (``invalid_answer_costs_step``;
False re-asks for free). The release's interactive loop re-asks; how its model runs counted such
answers is not published.
"""

from __future__ import annotations

import inspect
from functools import cache
from typing import Any, ClassVar, Optional

import numpy as np

from cogsim import release_assets
from cogsim.benchmarks import kidgym
from cogsim.benchmarks.kidgym import (
    cogsim_catalog,
    cogsim_marks,
    cogsim_scene,
    game,
    look,
    prompts,
    reasons,
    release_files,
)
from cogsim.benchmarks.kidgym.parser import TAG_MODES, decode_answer
from cogsim.benchmarks.kidgym.tasks import GOAL_TEXTS, TASKS, action_text, goal_text
from cogsim.envs import register
from cogsim.envs._options import known
from cogsim.envs.base import TextEnv, observation

_MAZES = {"maze", "decode_maze", "memory_maze"}
MECHANICS = ("release", "cogsim")
LOOKS = ("release", "cogsim")
_RELEASE_LOOKS: dict = {}  # one ReleaseLook (with its image caches) per folder of release files
EXAMPLE_SEED = 2_000_000_011  # the in-context example episode (shifted if it equals the episode's seed)


class KidGymEnv(TextEnv):
    """One KidGym task at one level. Options:

    task, level            which task (``cogsim.benchmarks.kidgym.TASKS``) and level 1..3
    prompt                 "zero_shot" | "cot" | "in_context"
    max_steps              step budget; 0 = the release's registered budget (the fewest steps that solve
                           the task, plus the release's slack for CO, DE, MDE and DMA)
    mechanics              "release" (the release's scenes, layouts and action lists) or "cogsim" (cogsim's
                           earlier generators and rules); default: the look's
    look                   "release" (the release's frames, from its image files) or "cogsim" (cogsim's own
                           drawings, of cogsim's mechanics)
    actions                "release" (every action the release lists, reachable or not) or "executable"
                           (only those whose target the agent can reach; cogsim's mechanics list only those)
    images                 render frames (False: text only, for fast simulation of scripted agents)
    cell_size              cogsim's look: 32, 64 (a 576 px frame) or 96; the release's look has 64 px tiles
    describe_backpack      state the backpack in words (default on for mazes with cogsim's look, whose
                           backpack strip cannot show key colours)
    decoder                "paper" (exactly the paper's decoder) or "strict" (see ``kidgym.decode``)
    answer_tags            "release" (lowercase <answer> tags on one line, as the release reads them) or
                           "any_case" (tags in any case, across lines: cogsim's earlier reading)
    feedback               add a line on what the last answer did (cogsim's; the release gives none)
    goal_texts             "release" (the release's templates word for word) or "adapted" (Memory Decode
                           worded for cogsim's frames, which show the target in the hint bar)
    prompt_template        path of a text file for each turn's text (or its content as a run records it), with
                           plain placeholders ``{goal}``, ``{actions}``... (see ``kidgym.prompts.TEMPLATE_FIELDS``)
    invalid_answer_costs_step  an unparseable answer spends a step (True) or is simply re-asked (False)
    selection_extra, decode_extra, memory_chests, maze_decoy_keys   cogsim's generator knobs
                           (``cogsim_catalog.CatalogOptions``; mechanics="cogsim" only)
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
        mechanics: Optional[str] = None,
        look: str = "release",
        actions: Optional[str] = None,
        images: bool = True,
        cell_size: Optional[int] = None,
        describe_backpack: Optional[bool] = None,
        decoder: str = "paper",
        answer_tags: str = "release",
        feedback: bool = False,
        goal_texts: str = "release",
        prompt_template: Any = None,
        invalid_answer_costs_step: bool = True,
        **generator_options: Any,
    ):
        known(generator_options, env_id, _accepted_options())
        super().__init__(
            env_id,
            task=task,
            level=level,
            prompt=prompt,
            max_steps=max_steps,
            mechanics=mechanics,
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
            **generator_options,
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
        self.answer_tags, self.feedback, self.goal_texts = answer_tags, bool(feedback), goal_texts
        self.template = prompts.load_template(prompt_template) if prompt_template is not None else None
        self.mechanics, self.look, self.actions = self._check_mechanics(mechanics, look, actions, bool(images))
        release = self.mechanics == "release"
        fewest, most = (1, 60) if release else kidgym.budget_range(self.task.name, self.level)
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
        if cell_size not in ((64,) if look == "release" else (32, 64, 96)):
            allowed = "64 (the release's tiles)" if look == "release" else "32, 64 or 96"
            raise ValueError(f"cell_size must be {allowed} with look={look!r}, got {cell_size!r}")
        if release and generator_options:
            raise ValueError(
                f"{', '.join(sorted(generator_options))}: cogsim's generator knobs need mechanics='cogsim'"
            )
        self.catalog_options = cogsim_catalog.CatalogOptions(**generator_options)
        self.play = game.ReleasePlay(self.task, self.level, max_steps, self.actions) if release else None
        self.drawing = _release_look() if release and images else None
        # the release files the pictures come from, as episodes record them
        self.assets_used = release_assets.used(release_files.BENCHMARK) if self.drawing is not None else None
        self.max_steps = max_steps
        self.images = bool(images)
        self.cell_size = cell_size
        backpack_note = self.task.name in _MAZES and not release
        self.describe_backpack = backpack_note if describe_backpack is None else bool(describe_backpack)
        self.strict = decoder == "strict"
        self.invalid_answer_costs_step = bool(invalid_answer_costs_step)
        self.system_prompt = prompts.system_prompt(self.prompt, self.task.memory)
        self.state = None

    @staticmethod
    def _check_mechanics(
        mechanics: Optional[str], look: str, actions: Optional[str], images: bool
    ) -> tuple[str, str, str]:
        """(mechanics, look, actions) with the defaults filled in: the look's mechanics, and the action
        lists of those mechanics (the release's full lists; cogsim's executable ones)."""
        if look not in LOOKS:
            raise ValueError(f"look must be one of {', '.join(LOOKS)}, got {look!r}")
        mechanics = look if mechanics is None else mechanics
        if mechanics not in MECHANICS:
            raise ValueError(f"mechanics must be one of {', '.join(MECHANICS)}, got {mechanics!r}")
        if images and mechanics != look:
            raise ValueError(
                f"look={look!r} draws only {look}'s scenes, not mechanics={mechanics!r} (images=False plays any mechanics)"
            )
        actions = ("release" if mechanics == "release" else "executable") if actions is None else actions
        if actions not in game.ACTIONS or (mechanics == "cogsim" and actions != "executable"):
            allowed = "'release' or 'executable'" if mechanics == "release" else "'executable' (cogsim's mechanics)"
            raise ValueError(f"actions must be {allowed}, got {actions!r}")
        return mechanics, look, actions

    # -- episode ------------------------------------------------------------------------------
    def _generate(self, seed: int):
        if self.play is not None:
            return self.play.generate(seed)
        return kidgym.generate(self.task.name, self.level, [seed], self.max_steps, self.catalog_options, threads=1)[0]

    def scene(self) -> dict:
        """The current scene in the release's terms (``kidgym.scene``), JSON-able."""
        if self.state is None:
            raise ValueError("no episode yet; call reset() first")
        if self.play is None:
            raise ValueError("scene() describes the release's scenes; this env plays mechanics='cogsim'")
        return self.play.scene(self.state)

    def _reset(self, seed: int, options: dict) -> dict:
        self.state = self._generate(seed)
        self.parse_failures = 0
        self.turn = 0
        self.example = self._worked_example(seed) if self.prompt == "in_context" else None
        return self._observe("")

    def _option_texts(self, state=None) -> list[str]:
        state = state or self.state
        if self.play is not None:
            return self.play.texts(state)
        return [action_text(self.task, state, a) for a in state.options()]

    def _goal(self, state) -> str:
        if self.play is not None:
            return self.play.goal(state, self.goal_texts)
        return goal_text(self.task, state, self.goal_texts)

    def _backpack_note(self, state) -> str:
        if not self.describe_backpack:
            return ""
        words = game.backpack_text(state) if self.play is not None else cogsim_scene.backpack_text(state)
        return f"Backpack: {words}"

    def _frame(self, state) -> tuple:
        if not self.images:
            return ()
        if self.drawing is not None:
            return (self.drawing.frame(self.play.scene(state)),)
        return (cogsim_marks.render(self.renderer(), [cogsim_scene.frame_spec(self.task, state, self.cell_size)])[0],)

    def _observe(self, feedback: str) -> dict:
        state = self.state
        frames = self._frame(state)
        if state.done:
            outcome = "You completed the goal." if state.success else "The task failed."
            return observation(f"{feedback}\nThe episode is over. {outcome}".strip(), frames, ())
        self.legal_actions = state.options()
        texts = self._option_texts()
        note = self._backpack_note(state)
        feedback = feedback if self.feedback else ""
        goal = self._goal(state)
        if self.template is not None:
            text = prompts.fill_template(self.template, goal, texts, note, feedback, state)
        else:
            text = prompts.turn_text(goal, texts, feedback, note)
        if self.example is not None and (self.turn == 0 or self.default_history == "current"):
            text = self.example.text() + "\n\n" + text
            frames = tuple(self.example.frames) + frames
        return observation(text, frames, texts)

    def _snapshot(self):
        s = self.state
        if self.play is not None:
            return s.to_bytes(), s.done
        return s.cells.tobytes(), tuple(s.bag), s.phase, s.done, s.progress

    def _apply(self, index: int) -> bool:
        """Plays option ``index``; whether it did what it says (the release's step_success)."""
        if self.play is not None:
            self.state.apply(index)
            return bool(self.state.last_step_ok)
        before = self._snapshot()
        self.state.apply(self.legal_actions[index])
        return self._snapshot() != before

    def _step(self, action: str):
        if self.state is None or self.state.done:
            raise ValueError("the episode is over (or was never started); call reset() first")
        texts = self._option_texts()
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
            changed = self._apply(index)
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
            "mechanics": self.mechanics,
            "look": self.look if self.images else None,
            # the release's look resamples the release's images with the installed Pillow, as the release does
            "pillow": look.PILLOW if self.drawing is not None else None,
            "layout": int(s.layout) or None if self.play is not None else None,
            **self._frames_record(),
        }

    def _frames_record(self) -> dict:
        """How the frames were sent (PNG, as the release saves them) and the release files they were drawn from."""
        if not self.images:
            return {}
        record: dict = {"frames": self.frame_format()}
        if self.assets_used is not None:
            record["release_assets"] = dict(self.assets_used)
        return record

    def frames_drawn_by(self) -> Optional[dict]:
        if not self.images:
            return None
        if self.drawing is not None:
            return {"look": "release", "path": "cpu", "gl_renderer": None}
        return super().frames_drawn_by()

    # -- scripted agents ----------------------------------------------------------------------
    def _choice(self, policy: str, state, options, rng: np.random.Generator) -> int:
        """The oracle plays a fewest-steps plan; from a state where none succeeds any more (after
        other agents' moves) it answers like the random agent."""
        if policy == "oracle" and self.play is not None:
            index = state.oracle_option()
            if index is not None:
                return index
        elif policy == "oracle":
            action = state.oracle_action()
            if action is not None:
                return options.index(action)
        return int(rng.integers(len(options)))

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        if policy not in self.scripted_policies:
            raise ValueError(f"policy must be one of {', '.join(self.scripted_policies)}, got {policy!r}")
        if self.state is None or self.state.done:
            raise ValueError("the episode is over (or was never started); call reset() first")
        index = self._choice(policy, self.state, self.legal_actions, rng)
        letter = chr(ord("A") + index)
        text = self._option_texts()[index]
        if policy == "oracle" and self.prompt == "cot":
            why = self._reason(self.state, index)
        else:
            why = f"I pick {letter}: '{text}'."
        return prompts.scripted_answer(self.prompt, letter, text, why)

    def _reason(self, state, index: int) -> str:
        if self.play is not None:
            return f"It is the next step of a shortest plan to the goal: '{self._option_texts(state)[index]}'."
        return reasons.explain(self.task, state, state.options()[index])

    def _worked_example(self, seed: int) -> prompts.WorkedExample:
        example_seed = EXAMPLE_SEED + self.level if seed != EXAMPLE_SEED + self.level else EXAMPLE_SEED - 1
        state = self._generate(example_seed)
        example = prompts.WorkedExample(self._goal(state))
        frames = []
        while not state.done:
            texts = self._option_texts(state)
            if self.play is not None:
                index = state.oracle_option()
                if (
                    index is None
                ):  # the release draws a few unsolvable Decode Maze episodes; the example needs a solvable one
                    example_seed += 1
                    state, example = self._generate(example_seed), prompts.WorkedExample(self._goal(state))
                    frames = []
                    continue
            else:
                index = state.options().index(state.oracle_action())
            frames.append(self._frame(state))
            letter = chr(ord("A") + index)
            why = self._reason(state, index)
            example.steps.append((texts, letter, f"{why} So the action is {letter}: '{texts[index]}'."))
            state.apply(index if self.play is not None else state.options()[index])
        example.frames = [frame for group in frames for frame in group]
        return example


@cache
def _accepted_options() -> tuple[str, ...]:
    """Every option a KidGym env takes: its constructor's own (the task is its env id's) and the
    generator knobs of cogsim's mechanics."""
    own = inspect.signature(KidGymEnv.__init__).parameters
    return tuple(name for name in own if name not in ("self", "env_id", "task", "generator_options")) + tuple(
        cogsim_catalog.CatalogOptions.__dataclass_fields__
    )


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

DEMO_SUITES = [
    # cogsim's look: the demo runs where the release's image files are not installed.
    # Classification and Maze at all three levels, so the report shows Execution and Planning scores.
    *(
        {
            "env_id": f"kidgym/{task}",
            "options": {"level": level, "cell_size": 32, "look": "cogsim"},
            "episodes": 3,
            "agents": ["oracle", "random"],
        }
        for task in ("classification", "maze")
        for level in (1, 2, 3)
    ),
    {
        "env_id": "kidgym/memory_decode",
        "options": {"level": 2, "cell_size": 32, "look": "cogsim"},
        "episodes": 3,
        "agents": ["oracle", "random"],
    },
    {
        "env_id": "kidgym/counting",
        "options": {"level": 2, "cell_size": 32, "look": "cogsim"},
        "episodes": 3,
        "agents": ["oracle", "random"],
    },
    {
        "env_id": "kidgym/puzzle",
        "options": {"level": 2, "cell_size": 32, "look": "cogsim"},
        "episodes": 3,
        "agents": ["oracle", "random"],
    },
]
