"""Cube Bench: the seven tests of the paper and the release's invariance sweep as registered envs
(``cube/<test>``).

Every episode is generated from (depth, seed) by ``cogsim.cube.suite.items`` (or read from an
imported seed list); prompts live in ``cogsim.cube.suite.prompts`` and answers go through the
parsers of ``cogsim.cube.suite.parsers`` (the release's extraction by default, ``parser="strict"``
for cogsim's one-line formats), for scripted agents and models alike. ``info["episode"]``
carries the per-episode outcomes that ``cogsim.metrics.cube`` turns into the paper's tables.

Options common to all tests: ``depth`` (scramble depth, 1..20; keep <= 7 for fast oracle labels),
``look`` (the net image: "release", the release's own picture of the state pixel for pixel, the
default | "cogsim", cogsim's net), ``sticker`` (px per sticker of cogsim's net; look="cogsim" only),
``seed_list`` (path or dict from ``items.build_seed_list``: episode ``seed`` then means the list's
index), ``release`` (which line of the authors' harness "release" means: "731aff82", the newest and
the default, or "1ca7d58", the older ``main``; ``cogsim.cube.suite.releases``) and the protocol
options, each "release" by default (that line's reading, docs/fidelity.md): ``parser`` ("release" |
"strict"), ``colours`` ("release" | "cogsim"), ``state_format`` ("release" | "cogsim"), ``scrambles``
("release" | "cogsim"), ``layout`` ("release": the newest line's seeded option sets and verification
cells where reproducible | "cogsim"); ``env.protocol`` names the variant (``look`` included where
images are shown) and every episode records it, and
``env.metadata["cogsim.decoding"]`` holds the line's max_tokens, temperature and top_p. Per test:
``modality`` ("image+text" | "image" | "text" | "image+text-no-authority"), ``negatives``
(verification), ``abstention`` / ``abstain_policy`` / ``credit`` (closed-loop), ``regime`` /
``reveal_choice`` (reflection), ``start`` (recovery). Prompts and protocols follow the paper's
released harness (github.com/dana-23/cube-bench); where it is ambiguous the alternative reading is a
named option.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

import numpy as np

from cogsim import cube
from cogsim.cube import Cube
from cogsim.cube.suite import items as items_mod
from cogsim.cube.suite import parsers, prompts, releases, views
from cogsim.cube.suite.items import LABELS
from cogsim.envs import register
from cogsim.envs.base import ResetNeeded, TextEnv, observation

ABSTAIN_LABEL = "E"
ABSTAIN_POLICIES = ("teacher_on_abstain", "skip_item")
REGIMES = ("guided-redacted", "guided-unredacted")
RECOVERY_STARTS = ("closed-loop", "injected")
NEGATIVE_KINDS = ("image-move", "text-edit")
CREDITS = ("release", "progress", "teacher")
PROTOCOL_CHOICES = ("release", "cogsim")
DEFAULT_STICKER = 32  # px per sticker of cogsim's net
# The newest release line's decoding per test (its generation contracts): max tokens, temperature, top_p.
RELEASE_DECODING = releases.DECODING[releases.NEWEST]


def _one_of(name: str, value: object, allowed: tuple) -> Any:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def _sticker(value: object, look: str) -> Optional[int]:
    if look == "release":
        if value is not None:
            raise ValueError(
                f"sticker sizes cogsim's net (look='cogsim'); the release's net (look='release') is drawn at its own "
                f"size, got sticker={value!r}"
            )
        return None
    if value is None:
        return DEFAULT_STICKER
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 8 <= value <= 256:
        raise ValueError(f"sticker must be an int in 8..256 (px per sticker), got {value!r}")
    return int(value)


class CubeBenchEnv(TextEnv):
    """Shared machinery: options, item lookup, state observations, episode bookkeeping."""

    suite = "cube"
    default_history = "current"
    batches_frames = True
    test: ClassVar[str] = ""
    modalities: ClassVar[tuple[str, ...]] = prompts.MODALITIES
    default_modality: ClassVar[str] = "image+text"
    test_options: ClassVar[tuple[str, ...]] = ()  # options a subclass reads itself
    file_options: ClassVar[dict[str, str]] = {"seed_list": "json"}

    def __init__(
        self,
        env_id: str = "",
        depth: int = 1,
        modality: Optional[str] = None,
        look: str = "release",
        sticker: Optional[int] = None,
        seed_list=None,
        release: str = releases.NEWEST,
        parser: str = "release",
        colours: str = "release",
        state_format: str = "release",
        scrambles: str = "release",
        layout: str = "release",
        **options: Any,
    ):
        unknown = sorted(set(options) - set(self.test_options))
        if unknown:
            allowed = [
                "depth",
                "modality",
                "look",
                "sticker",
                "seed_list",
                "release",
                "parser",
                "colours",
                "state_format",
                "scrambles",
                "layout",
                *self.test_options,
            ]
            raise ValueError(
                f"unknown option(s) {', '.join(unknown)} for {env_id or self.test}; allowed: {', '.join(allowed)}"
            )
        modality = self.default_modality if modality is None else modality
        super().__init__(
            env_id,
            depth=depth,
            modality=modality,
            look=look,
            sticker=sticker,
            release=release,
            parser=parser,
            colours=colours,
            state_format=state_format,
            scrambles=scrambles,
            layout=layout,
            **options,
        )
        self.release = releases.check_line(release)
        self.parser = _one_of("parser", parser, parsers.PARSERS)
        self.colours = _one_of("colours", colours, views.COLOUR_SCHEMES)
        self.state_format = _one_of("state_format", state_format, views.STATE_FORMATS)
        self.scrambles = _one_of("scrambles", scrambles, PROTOCOL_CHOICES)
        self.layout = _one_of("layout", layout, PROTOCOL_CHOICES)
        self.metadata = {**type(self).metadata, "cogsim.decoding": self._decoding()}
        self.depth = items_mod.check_depth(depth)
        self.modality = _one_of("modality", modality, self.modalities)
        self.look = _one_of("look", look, views.LOOKS)
        self.sticker = _sticker(sticker, self.look)
        self._release_frames_drawn = False
        self.seed_list = None if seed_list is None else items_mod.load_seed_list(seed_list)
        self.item: dict = {}
        self._running = False

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        self._running = False
        result = super().reset(seed=seed, options=options)
        self._running = True
        return result

    def step(self, action: str):
        if not self._running:
            raise ResetNeeded("no episode is running: call reset() first (and again after the last step)")
        result = super().step(action)
        self._running = not (result[2] or result[3])
        return result

    # -- episode setup -------------------------------------------------------------------------
    @property
    def newest(self) -> bool:
        return self.release == releases.NEWEST

    @property
    def sampler(self) -> str:
        """The item sampler: the line's release sampler, or cogsim's."""
        if self.scrambles == "cogsim":
            return "cogsim"
        return "release" if self.newest else "release-1ca7d58"

    @property
    def item_layout(self) -> str:
        """The newest line's seeded layout where asked for; the older line's choices are not reproducible."""
        return "release" if self.layout == "release" and self.newest else "cogsim"

    def _decoding(self) -> dict:
        return dict(releases.DECODING[self.release][self.test])

    def _load_item(self, seed: int) -> dict:
        if self.seed_list is not None:
            return items_mod.seed_list_item(self.seed_list, self.test, self.depth, seed)
        return items_mod.make_item(self.test, self.depth, seed, scrambles=self.sampler, layout=self.item_layout)

    @property
    def protocol(self) -> str:
        """ "release" when every protocol option follows the newest release line; "release=1ca7d58" and
        the options that differ otherwise."""
        changed = [] if self.newest else [f"release={self.release}"]
        changed += [f"{name}={value}" for name, value in self._protocol_options().items() if value != "release"]
        return ",".join(changed) or "release"

    def _protocol_options(self) -> dict:
        return {
            "parser": self.parser,
            "colours": self.colours,
            "state_format": self.state_format,
            "scrambles": self.scrambles,
            "layout": self.layout,
            **({"look": self.look} if self.modality != "text" else {}),  # the net image, where one is shown
        }

    def _images(self, facelets: str) -> tuple:
        return () if self.modality == "text" else (self._net_image(facelets),)

    def _net_image(self, facelets: str, variant: str = "clean"):
        """The net image of a state in this env's look and colours (``variant``: the invariance sweep's)."""
        shown = views.recolour(facelets, self.colours)
        if self.look == "release":
            self._release_frames_drawn = True
            return views.release_net_image(shown, variant)
        return views.variant_image(shown, variant, self.sticker, self.renderer())

    def frames_drawn_by(self) -> Optional[dict]:
        """What drew the env's frames and in which look: the release's net is drawn on the CPU by the core."""
        if self.look == "release":
            return {"look": "release", "path": "cpu", "gl_renderer": "none"} if self._release_frames_drawn else None
        drawn = super().frames_drawn_by()
        return None if drawn is None else {**drawn, "look": "cogsim"}

    def _state_text(self, facelets: str) -> str:
        shown = views.recolour(facelets, self.colours)
        return views.release_net_text(shown) if self.state_format == "release" else views.state_text(shown)

    def _state_block(self, facelets: str) -> str:
        return prompts.state_block(self.modality, self._state_text(facelets))

    def _grid(self, rows) -> list:
        return views.recolour_grid(list(rows), self.colours)

    def _episode(self, **outcomes: Any) -> dict:
        base = {
            "test": self.test,
            "depth": self.depth,
            "modality": self.modality,
            "index": self.item["index"],
            "prompt_version": self.item["prompt_version"],
            "protocol": self.protocol,
        }
        return {**base, **outcomes}

    # -- answer extraction: the release's (default) or cogsim's strict one-line formats ---------
    def _parse_choice(
        self, action: str, allow_idk: bool = False, last_line: bool = False, options: Optional[list] = None
    ) -> parsers.Parsed:
        if self.parser == "release":
            return parsers.release_choice(action, LABELS, allow_idk=allow_idk, options=options, line=self.release)
        return parsers.parse_choice(
            action, LABELS, allow_idk=allow_idk, idk_label=ABSTAIN_LABEL if allow_idk else None, last_line=last_line
        )

    def _parse_yes_no(self, action: str) -> parsers.Parsed:
        return parsers.release_yes_no(action) if self.parser == "release" else parsers.parse_yes_no(action)

    def _parse_effects(self, action: str) -> parsers.Parsed:
        return (
            parsers.release_effects(action, LABELS)
            if self.parser == "release"
            else parsers.parse_effects(action, LABELS)
        )

    def _parse_grid(self, action: str) -> parsers.Parsed:
        return parsers.release_grid(action) if self.parser == "release" else parsers.parse_grid(action)

    def _check_policy(self, policy: str) -> None:
        _one_of("policy", policy, self.scripted_policies)


def _answer(token: str) -> str:
    return f"ANSWER: {token}"


def _tagged(token: str) -> str:
    return f"<ANSWER> {token} </ANSWER>"


def _choice_info(parsed: parsers.Parsed) -> dict:
    return {"parse": parsed.status, "parsed": parsed.value}


# -- 1. face reconstruction ----------------------------------------------------------------------


class ReconstructionEnv(CubeBenchEnv):
    """Image only: write the Front face as a 3x3 grid of colour letters."""

    test = "reconstruction"
    modalities = ("image",)
    default_modality = "image"

    def __init__(self, env_id: str = "", **options: Any):
        super().__init__(env_id, **options)
        self.system_prompt = prompts.RECONSTRUCTION_SYSTEM

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        text = prompts.RECONSTRUCTION.format(layout=prompts.NET_LAYOUT, colours=prompts.COLOUR_KEY)
        return observation(text, self._images(self.item["facelets"]))

    def _step(self, action: str):
        parsed = self._parse_grid(action)
        gold = self._grid(self.item["gold_grid"])
        predicted = list(parsed.value) if parsed.ok else None
        stickers = sum(a == b for p, g in zip(predicted, gold) for a, b in zip(p, g)) if predicted else 0
        episode = self._episode(
            parse=parsed.status,
            predicted_grid=predicted,
            gold_grid=gold,
            stickers_correct=stickers,
            matrix_correct=stickers == 9,
        )
        info = {"parse": parsed.status, "parsed": predicted, "episode": episode}
        return observation(""), float(stickers == 9), True, False, info

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        rows = (
            self._grid(self.item["gold_grid"])
            if policy == "oracle"
            else ["".join(rng.choice(list(parsers.COLOURS), size=3)) for _ in range(3)]
        )
        return (
            "ANSWER:\n"
            + "\n".join(
                f"Row {k}: [{', '.join(views.COLOUR_NAMES[c].capitalize() for c in row)}]"
                for k, row in enumerate(rows, 1)
            )
            + "\nAnswer verified for correctness."
        )


# -- 2. cross-modal verification -----------------------------------------------------------------


class VerificationEnv(CubeBenchEnv):
    """Image plus a textual Front-face grid. Under the newest release's layout the grid comes in a
    claim, affirmative ("is exactly this") or negated ("is NOT this"), and the answer says whether
    the claim is true (Yes/No); otherwise the question is whether the text matches the image.
    ``negatives``: "image-move" (default, the paper: the image shows the cube one face turn later)
    or "text-edit" (cogsim's layout only: the text is edited instead, sticker edits or the face after
    one extra move)."""

    test = "verification"
    test_options = ("negatives",)
    modalities = ("image",)
    default_modality = "image"

    def __init__(self, env_id: str = "", negatives: str = "image-move", **options: Any):
        super().__init__(env_id, negatives=negatives, **options)
        self.negatives = _one_of("negatives", negatives, NEGATIVE_KINDS)
        self.system_prompt = prompts.VERIFICATION_SYSTEM

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = item = self._load_item(seed)
        shown, image = item["shown_grid"], item["image_facelets"]
        if self.negatives == "text-edit" and item["text_edit"] is not None:
            shown, image = item["text_edit"]["shown_grid"], item["facelets"]
        grid = views.grid_text(self._grid(shown))
        if item.get("layout") == "release":
            self.system_prompt = prompts.CLAIM_SYSTEM
            claim = prompts.CLAIMS[item["polarity"]][item["claim_form"]].format(grid=grid)
            text = prompts.CLAIM.format(layout=prompts.NET_LAYOUT, colours=prompts.COLOUR_KEY, claim=claim)
        else:
            self.system_prompt = prompts.VERIFICATION_SYSTEM
            text = prompts.VERIFICATION.format(layout=prompts.NET_LAYOUT, colours=prompts.COLOUR_KEY, grid=grid)
        return observation(text, self._images(image))

    def _step(self, action: str):
        parsed = self._parse_yes_no(action)
        correct = parsed.ok and parsed.value == self.item["gold"]
        kind = (
            None
            if self.item["gold"] == "Yes"
            else (self.item["text_edit"]["kind"] if self.negatives == "text-edit" else self.item["negative_kind"])
        )
        episode = self._episode(
            parse=parsed.status,
            answer=parsed.value,
            gold=self.item["gold"],
            correct=bool(correct),
            negatives=self.negatives,
            negative_kind=kind,
            polarity=self.item.get("polarity", "affirmative"),
            template=f"{self.item.get('polarity', 'affirmative')}:{self.item.get('claim_form', 0)}",
            states_match=self.item.get("states_match", self.item["gold"] == "Yes"),
        )
        return observation(""), float(correct), True, False, {**_choice_info(parsed), "episode": episode}

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        return f"Answer: {self.item['gold'] if policy == 'oracle' else str(rng.choice(['Yes', 'No']))}"


# -- 3. optimal move prediction ------------------------------------------------------------------


class OptimalMoveEnv(CubeBenchEnv):
    """Four moves, one of which (the teacher's next move) reduces the distance by one."""

    test = "optimal-move"

    def __init__(self, env_id: str = "", **options: Any):
        super().__init__(env_id, **options)
        self.system_prompt = self._draft_system_prompt()

    def _draft_system_prompt(self) -> str:
        return prompts.OPTIMAL_MOVE_SYSTEM.format(distance=self.depth, target=self.depth - 1, notation=prompts.NOTATION)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        return self._question()

    def _question(self) -> dict:
        item = self.item
        text = prompts.OPTIMAL_MOVE.format(
            state=self._state_block(item["facelets"]),
            options=prompts.option_lines(LABELS, item["options"]),
            answer_format=prompts.tag_format(LABELS),
        )
        return observation(text, self._images(item["facelets"]), item["options"])

    def _outcome(self, parsed: parsers.Parsed) -> dict:
        chosen = self.item["options"][LABELS.index(parsed.value)] if parsed.ok else None
        return {
            "parse": parsed.status,
            "answer": parsed.value,
            "gold": self.item["gold"],
            "correct": bool(parsed.ok and parsed.value == self.item["gold"]),
            "chosen_move": chosen,
            "chosen_effect": self.item["effects"][chosen] if chosen else None,
        }

    def _step(self, action: str):
        parsed = self._parse_choice(action, options=self.item["options"])
        episode = self._episode(**self._outcome(parsed))
        return observation(""), float(episode["correct"]), True, False, {**_choice_info(parsed), "episode": episode}

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        return _tagged(self.item["gold"] if policy == "oracle" else str(rng.choice(list(LABELS))))


# -- 4. reflection-guided re-answering -----------------------------------------------------------


class ReflectionEnv(OptimalMoveEnv):
    """The paper's reflection protocol, three calls on one optimal-move item: a draft answer; one
    guided reflection (told, as in the paper, that its answer did not solve the cube, whatever the
    draft was); a re-answer given the reflection, one line
    ``ANSWER: X``. guided-redacted: the correct option is [REDACTED]; guided-unredacted: the correct
    option's letter is revealed (the oracle upper bound of reflection). Each call has its own system
    prompt (``system_prompt`` changes with the turn) and restates the state: history "current".

    ``reveal_choice`` (default True): the reflection prompt names the draft's letter, as the paper's
    appendix prompt reads; False shows it as [HIDDEN], as the harness's default code path did (the
    harness documents both arms; an unparsed draft is [HIDDEN] either way)."""

    test = "reflection"
    test_options = ("regime", "reveal_choice")
    default_history = "current"
    scripted_policies = ("oracle", "random", "random_then_hint")

    def __init__(self, env_id: str = "", regime: str = "guided-redacted", reveal_choice: bool = True, **options: Any):
        super().__init__(env_id, regime=regime, reveal_choice=reveal_choice, **options)
        self.regime = _one_of("regime", regime, REGIMES)
        if not isinstance(reveal_choice, bool):
            raise ValueError(f"reveal_choice must be True or False, got {reveal_choice!r}")
        self.reveal_choice = reveal_choice

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        self.draft: Optional[dict] = None
        self.reflection: Optional[str] = None
        self.system_prompt = self._draft_system_prompt()
        self._decode_reflection_turn(False)
        return self._question()

    def _decode_reflection_turn(self, reflecting: bool) -> None:
        """The line's decoding for the next turn: the older line sampled the reflection at 0.4."""
        decoding = self._decoding()
        if reflecting:
            decoding["temperature"] = releases.REFLECTION_TURN_TEMPERATURE[self.release]
        self.metadata = {**self.metadata, "cogsim.decoding": decoding}

    def _step(self, action: str):
        if self.draft is None:
            parsed = self._parse_choice(action, options=self.item["options"])
            self.draft = self._outcome(parsed)
            self.system_prompt = prompts.REFLECTION_SYSTEM
            self._decode_reflection_turn(True)
            return self._turn(self._reflection_prompt()), 0.0, False, False, _choice_info(parsed)
        if self.reflection is None:  # free text: any reflection is accepted and passed on verbatim
            self.reflection = (
                action if len(action) <= parsers.MAX_RESPONSE_CHARS else action[: parsers.MAX_RESPONSE_CHARS]
            )
            self.system_prompt = prompts.REANSWER_SYSTEM
            self._decode_reflection_turn(False)
            return self._turn(self._reanswer_prompt()), 0.0, False, False, {"parse": parsers.OK, "parsed": None}
        parsed = self._parse_choice(action)
        final = self._outcome(parsed)
        episode = self._episode(
            regime=self.regime,
            reveal_choice=self.reveal_choice,
            gold=self.item["gold"],
            initial_parse=self.draft["parse"],
            initial_answer=self.draft["answer"],
            initial_correct=self.draft["correct"],
            final_parse=final["parse"],
            final_answer=final["answer"],
            final_correct=final["correct"],
            reflection_chars=len(self.reflection),
        )
        return observation(""), float(final["correct"]), True, False, {**_choice_info(parsed), "episode": episode}

    def _turn(self, text: str) -> dict:
        return observation(text, self._images(self.item["facelets"]), self.item["options"])

    def _reflection_prompt(self) -> str:
        correct = (
            prompts.CORRECT_UNREDACTED.format(gold=self.item["gold"])
            if self.regime == "guided-unredacted"
            else prompts.CORRECT_REDACTED
        )
        return prompts.REFLECTION.format(
            state=self._state_block(self.item["facelets"]),
            distance=self.depth,
            options=prompts.option_lines(LABELS, self.item["options"]),
            choice=self._shown_choice(),
            correct_line=correct,
        )

    def _shown_choice(self) -> str:
        answer = self.draft["answer"] if self.draft else None
        return answer if self.reveal_choice and answer in tuple(LABELS) else prompts.HIDDEN_CHOICE

    def _reanswer_prompt(self) -> str:
        return prompts.REANSWER.format(
            state=self._state_block(self.item["facelets"]),
            options=prompts.option_lines(LABELS, self.item["options"]),
            reflection=self.reflection,
        )

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        gold = self.item["gold"]
        hinted = policy == "oracle" or (policy == "random_then_hint" and self.regime == "guided-unredacted")
        if self.draft is None:
            return _tagged(gold if policy == "oracle" else str(rng.choice(list(LABELS))))
        if self.reflection is None:
            return f"The correct option is {gold}." if hinted else "I cannot tell which option was correct."
        if hinted:
            return _answer(gold)
        if policy == "random_then_hint":
            return _answer(self.draft["answer"] or "A")
        return _answer(str(rng.choice(list(LABELS))))


# -- 5. closed-loop step-by-step -----------------------------------------------------------------


class ClosedLoopEnv(CubeBenchEnv):
    """From a depth-d state, choose one of four moves per step; the chosen move is executed. The
    options hold the teacher's move, one other progress move when there is one, and non-progress
    moves (under layout "release" the newest release's seeded set, whose correct letter is the first
    progress option). ``credit``: "release" is the line's rule. "progress" (the newest line's, and
    cogsim's reading of the paper): any progress move is credited, the teacher replans after a
    non-teacher one, the prompt states the true distance. "teacher" (the older line 1ca7d58): only
    the teacher's move is credited; another progress move is executed uncredited and the episode
    goes on along the teacher's original path; the prompt states the depth less the credited and
    teacher-helped steps. Either way it stops at the first non-progress step or parse failure, when
    solved, or after d decisions. With ``abstention`` a fifth option E (IDK) is offered:
    teacher_on_abstain applies the teacher's move and goes on, skip_item ends the item."""

    test = "closed-loop"
    test_options = ("abstention", "abstain_policy", "credit")

    def __init__(
        self,
        env_id: str = "",
        abstention: bool = False,
        abstain_policy: str = "teacher_on_abstain",
        credit: str = "release",
        **options: Any,
    ):
        super().__init__(env_id, abstention=abstention, abstain_policy=abstain_policy, credit=credit, **options)
        self.credit = _one_of("credit", credit, CREDITS)
        if credit == "release":
            credit = "progress" if self.newest else "teacher"
        self.credit_rule = credit
        if not isinstance(abstention, bool):
            raise ValueError(f"abstention must be True or False, got {abstention!r}")
        self.abstention = abstention
        self.abstain_policy = _one_of("abstain_policy", abstain_policy, ABSTAIN_POLICIES)
        self.labels = LABELS + (ABSTAIN_LABEL if abstention else "")
        # The paper's step prompt asks for <REASONING> then the answer on the final line; its
        # abstention prompt asks for the answer line alone.
        self.reasoning = not abstention
        self.system_prompt = step_system_prompt(abstention, self.reasoning)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        self.state, self.plan = Cube.from_facelets(self.item["facelets"]), list(self.item["teacher"])
        self.outcomes: list = []
        return self._step_observation()

    def _step_observation(self) -> dict:
        step, facelets = len(self.outcomes), self.state.to_facelets()
        recorded = self.item["steps"][step] if step < len(self.item["steps"]) else None
        if recorded is not None and recorded["facelets"] == facelets and self.plan[0] == self.item["teacher"][step]:
            self.current = recorded  # still on the teacher path: the item already holds this step
        elif self.item.get("layout") == "release":
            self.current = items_mod.release_closed_loop_step(
                self.depth, self.item["seed"], step, self.state, self.plan[0]
            )
        else:
            self.current = items_mod.closed_loop_step(
                self.depth, self.item["seed"], self.item["index"], step, self.state, self.plan[0]
            )
        option_texts = list(self.current["options"]) + ([prompts.ABSTAIN_OPTION] if self.abstention else [])
        text = prompts.STEP.format(
            distance=self._stated_distance(),
            state=self._state_block(facelets),
            options=prompts.option_lines(self.labels, option_texts),
            answer_format=prompts.tag_format(LABELS, idk=self.abstention, reasoning=self.reasoning),
        )
        return observation(text, self._images(facelets), option_texts)

    def _step(self, action: str):
        parsed = self._parse_choice(action, allow_idk=self.abstention, last_line=self.reasoning)
        if not parsed.ok:
            outcome = parsed.status
        elif parsed.value == parsers.IDK:
            outcome = "abstain"
            if self.abstain_policy == "teacher_on_abstain":
                self.state, self.plan = self.state.apply(self.plan[0]), self.plan[1:]
        else:
            outcome = self._execute(self.current["options"][LABELS.index(parsed.value)])
        self.outcomes.append(outcome)
        advance = outcome in ("teacher", "progress") or (
            outcome == "abstain" and self.abstain_policy == "teacher_on_abstain"
        )
        done = not advance or self.state.is_solved() or len(self.outcomes) == self.depth
        info = _choice_info(parsed)
        reward = float(outcome in self._credited())
        if not done:
            return self._step_observation(), reward, False, False, info
        info["episode"] = self._summary()
        return observation(""), reward, True, False, info

    def _protocol_options(self) -> dict:
        line_rule = "progress" if self.newest else "teacher"
        return {
            **super()._protocol_options(),
            "credit": "release" if self.credit_rule == line_rule else self.credit_rule,
        }

    def _stated_distance(self) -> int:
        """The distance the step prompt states. The older line states the scramble depth less the
        credited and the teacher-helped (abstained) steps, which is stale after an uncredited
        detour or for a scramble shorter than its depth; under progress credit (the newest line) it
        is the true distance."""
        if self.credit_rule == "teacher":
            helped = self.outcomes.count("abstain") if self.abstain_policy == "teacher_on_abstain" else 0
            return self.depth - self.outcomes.count("teacher") - helped
        return int(cube.distance(self.state))

    def _credited(self) -> tuple:
        return ("teacher",) if self.credit_rule == "teacher" else ("teacher", "progress")

    def _execute(self, chosen: str) -> str:
        """Progress credit: applies a progress move (teacher's: pop the plan; another: replan); a
        non-progress move is not applied and the episode stops there. Teacher credit (the older
        line's step-by-step test): the teacher's move is applied and credited even where an earlier
        detour made it stale; another progress move is applied without credit and the teacher's path
        is NOT replanned (its next move is simply the next one); anything else stops the episode."""
        if self.credit_rule == "teacher":
            if chosen == self.plan[0]:
                self.state, self.plan = self.state.apply(chosen), self.plan[1:]
                return "teacher"
            if self.current["effects"][chosen] != "DECREASE":
                return "wrong"
            self.state, self.plan = self.state.apply(chosen), self.plan[1:]
            return "progress"
        if self.current["effects"][chosen] != "DECREASE":
            return "wrong"
        self.state = self.state.apply(chosen)
        if chosen == self.plan[0]:
            self.plan = self.plan[1:]
            return "teacher"
        self.plan = cube.solve(self.state)
        return "progress"

    def _summary(self) -> dict:
        count = self.outcomes.count
        progress = count("teacher") + count("progress")
        correct = sum(count(o) for o in self._credited())
        parse_failures = count(parsers.PARSE_FAILURE) + count(parsers.INVALID)
        return self._episode(
            abstention=self.abstention,
            abstain_policy=self.abstain_policy if self.abstention else None,
            credit=self.credit_rule,
            steps_total=self.depth,
            outcomes=list(self.outcomes),
            adherent=correct,
            progress_moves=progress,
            teacher_moves=count("teacher"),
            abstained=count("abstain"),
            answered=progress + count("wrong"),
            decisions=len(self.outcomes),
            parse_failures=parse_failures,
            solved=self.state.is_solved(),
            perfect_solve=self.state.is_solved() and correct == self.depth and count("abstain") == 0,
        )

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        choice = self._oracle_label() if policy == "oracle" else str(rng.choice(list(self.labels)))
        answer = _tagged("IDK" if choice == ABSTAIN_LABEL else choice)  # the prompt's abstention answer
        return f"<REASONING>Scripted {policy} choice.</REASONING>\n{answer}" if self.reasoning else answer

    def _oracle_label(self) -> str:
        """The step's gold letter; under teacher credit the teacher's move, which the newest line's
        gold (the first progress option) need not be."""
        options = list(self.current["options"])
        if self.credit_rule == "teacher" and self.plan and self.plan[0] in options:
            return LABELS[options.index(self.plan[0])]
        return self.current["gold"]


def step_system_prompt(abstention: bool, reasoning: bool = False) -> str:
    choices = "A, B, C, D or IDK" if abstention else "A, B, C or D"
    return prompts.STEP_SYSTEM.format(
        choices=choices,
        notation=prompts.NOTATION,
        abstain_rule=prompts.ABSTAIN_RULE if abstention else "",
        output_rule=prompts.STEP_REASONING if reasoning else prompts.STEP_ONE_LINE,
    )


# -- 6. causal move-effect -----------------------------------------------------------------------


class MoveEffectEnv(CubeBenchEnv):
    """Label each of the four candidate moves A-D: does it DECREASE, do NO_CHANGE to, or INCREASE
    the distance to solved? (Paper: one answer line per option; the text state is ground truth and
    the paper shows no image, so the default modality is text.)"""

    test = "move-effect"
    default_modality = "text"

    def __init__(self, env_id: str = "", **options: Any):
        super().__init__(env_id, **options)
        self.system_prompt = prompts.MOVE_EFFECT_SYSTEM.format(notation=prompts.NOTATION)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = item = self._load_item(seed)
        text = prompts.MOVE_EFFECT.format(
            centres=views.centres_text(views.recolour(item["facelets"], self.colours)),
            state=self._state_block(item["facelets"]),
            options=prompts.option_lines(LABELS, item["options"]),
        )
        return observation(text, self._images(item["facelets"]), item["options"])

    def _step(self, action: str):
        parsed = self._parse_effects(action)
        gold = self.item["gold_labels"]
        answers = list(parsed.value) if parsed.ok else None
        correct = sum(a == g for a, g in zip(answers, gold)) if answers else 0
        episode = self._episode(
            parse=parsed.status, answers=answers, gold_labels=list(gold), labels_correct=correct, labels_total=len(gold)
        )
        info = {"parse": parsed.status, "parsed": answers, "episode": episode}
        return observation(""), correct / len(gold), True, False, info

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        labels = (
            self.item["gold_labels"] if policy == "oracle" else [str(rng.choice(parsers.EFFECT_LABELS)) for _ in LABELS]
        )
        return "\n".join(f"<{letter}> {label} </{letter}>" for letter, label in zip(LABELS, labels))


# -- 7. learning curve / recovery ----------------------------------------------------------------


class RecoveryEnv(CubeBenchEnv):
    """The paper's learning curve: closed-loop steps until the first failure (a non-progress move,
    applied, or a parse failure, nothing applied), then up to ``budget`` further decisions (depth + 3:
    4-7 at depths 1-4) under accept-progress control: the teacher's move is applied and popped; another
    progress move is applied and the teacher replans; any other move is applied and its inverse is
    pushed onto the plan. A parse failure during recovery uses up a decision. Every step offers one
    progress move and three non-progress moves.

    start="closed-loop" (default, the paper) recovers from the model's own first failure; episodes
    without one (solved within the horizon, which is the depth) record failure_step None and do not
    enter the learning-curve statistics. start="injected" starts every model from the item's seeded
    non-progress move instead (identical recovery states for every model, and an oracle check)."""

    test = "recovery"
    test_options = ("start",)

    def __init__(self, env_id: str = "", start: str = "closed-loop", **options: Any):
        super().__init__(env_id, start=start, **options)
        self.start = _one_of("start", start, RECOVERY_STARTS)
        self.system_prompt = step_system_prompt(False)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = item = self._load_item(seed)
        self.outcomes, self.distances, self.steps_used = [], [], 0
        if self.start == "injected":
            self._enter_recovery(
                Cube.from_facelets(item["recovery_facelets"]),
                list(item["recovery_teacher"]),
                failure_step=0,
                failure_move=item["failure_move"],
            )
        else:
            self.phase, self.state, self.plan = "probe", Cube.from_facelets(item["facelets"]), list(item["teacher"])
            self.failure_step, self.failure_move = None, None
        return self._step_observation()

    def _enter_recovery(self, state: Cube, plan: list, failure_step: int, failure_move: Optional[str]) -> None:
        self.phase, self.state, self.plan = "recover", state, plan
        self.failure_step, self.failure_move = failure_step, failure_move
        self.distances = [cube.distance(state)]

    def _options(self) -> dict:
        """Seeded by the item and the trajectory so far; the progress option at a balanced slot."""
        step_key = len(self.outcomes)
        rng = items_mod.item_rng(
            "recovery-step", self.depth, self.item["seed"], self.phase, step_key, self.state.to_facelets()
        )
        slot = items_mod.balanced_position(self.item["index"], 4, "recovery", self.depth, self.phase, step_key)
        return items_mod.progress_options(self.state, rng, slot)

    def _step_observation(self) -> dict:
        self.current = self._options()
        facelets = self.state.to_facelets()
        text = prompts.STEP.format(
            distance=cube.distance(self.state),
            state=self._state_block(facelets),
            options=prompts.option_lines(LABELS, self.current["options"]),
            answer_format=prompts.tag_format(LABELS),
        )
        return observation(text, self._images(facelets), self.current["options"])

    def _step(self, action: str):
        parsed = self._parse_choice(action)
        info = _choice_info(parsed)
        chosen = self.current["options"][LABELS.index(parsed.value)] if parsed.ok else None
        done = self._probe(chosen, parsed.status) if self.phase == "probe" else self._recover(chosen, parsed.status)
        if done:
            return self._end(info)
        return self._step_observation(), 0.0, False, False, info

    def _probe(self, chosen: Optional[str], status: str) -> bool:
        if chosen is None:  # a parse failure is the first failure; nothing is applied
            self.outcomes.append(status)
            self._enter_recovery(self.state, self.plan, failure_step=len(self.outcomes), failure_move=None)
            return False
        if self.current["effects"][chosen] == "DECREASE":
            self.outcomes.append("probe_progress")
            self.state = self.state.apply(chosen)
            self.plan = self.plan[1:] if chosen == self.plan[0] else cube.solve(self.state)
            return self.state.is_solved() or len(self.outcomes) >= self.item["horizon"]
        self.outcomes.append("probe_failure")
        self._enter_recovery(
            self.state.apply(chosen),
            [views.inverse_move(chosen)] + self.plan,
            failure_step=len(self.outcomes),
            failure_move=chosen,
        )
        return False

    def _recover(self, chosen: Optional[str], status: str) -> bool:
        self.steps_used += 1
        if chosen is None:
            self.outcomes.append(status)
        else:
            self.state = self.state.apply(chosen)
            if chosen == self.plan[0]:
                self.outcomes.append("teacher")
                self.plan = self.plan[1:]
            elif self.current["effects"][chosen] == "DECREASE":
                self.outcomes.append("progress")
                self.plan = cube.solve(self.state)
            else:
                self.outcomes.append("off_path")
                self.plan = [views.inverse_move(chosen)] + self.plan
        self.distances.append(cube.distance(self.state))
        return self.state.is_solved() or self.steps_used >= self.item["budget"]

    def _end(self, info: dict):
        solved = self.phase == "recover" and self.state.is_solved()
        info["episode"] = self._episode(
            start=self.start,
            failure_step=self.failure_step,
            failure_move=self.failure_move,
            budget=self.item["budget"],
            horizon=self.item["horizon"],
            steps_used=self.steps_used,
            solved=solved,
            solved_at=self.steps_used if solved else None,
            distances=[int(d) for d in self.distances],
            outcomes=list(self.outcomes),
            parse_failures=sum(o in (parsers.PARSE_FAILURE, parsers.INVALID) for o in self.outcomes),
        )
        return observation(""), float(solved), True, False, info

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        return _tagged(self.current["gold"] if policy == "oracle" else str(rng.choice(list(LABELS))))


# -- the release's invariance sweep ---------------------------------------------------------------


class InvarianceEnv(CubeBenchEnv):
    """The newest release's invariance sweep: one optimal-move item (the teacher's next move among
    four), asked four times with the same text state and question, each time beside another image
    of the state: clean, occluded by a black band, darkened (x 0.8) and recoloured (white<->yellow,
    orange<->red, green<->blue; the text stays authoritative). One turn per variant, each on its
    own (no history); the release decodes at most 64 new tokens. The episode records every
    variant's answer; the metrics give accuracy per variant and its change from clean."""

    test = "invariance"
    modalities = ("image+text",)
    default_modality = "image+text"

    def __init__(self, env_id: str = "", **options: Any):
        super().__init__(env_id, **options)
        self.system_prompt = prompts.INVARIANCE_SYSTEM

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        self.answers: list = []
        return self._variant_observation()

    def _variant(self) -> str:
        return items_mod.INVARIANCE_VARIANTS[len(self.answers)]

    def _variant_observation(self) -> dict:
        item = self.item
        text = prompts.INVARIANCE.format(
            state=self._state_text(item["facelets"]),
            depth=self.depth,
            options=prompts.lettered_options(LABELS, item["options"]),
        )
        return observation(text, (self._net_image(item["facelets"], self._variant()),), item["options"])

    def _step(self, action: str):
        parsed = self._parse_choice(action)
        correct = bool(parsed.ok and parsed.value == self.item["gold"])
        self.answers.append(
            {"variant": self._variant(), "parse": parsed.status, "answer": parsed.value, "correct": correct}
        )
        info = _choice_info(parsed)
        if len(self.answers) < len(items_mod.INVARIANCE_VARIANTS):
            return self._variant_observation(), float(correct), False, False, info
        info["episode"] = self._episode(
            gold=self.item["gold"],
            variants=[a["variant"] for a in self.answers],
            answers=[a["answer"] for a in self.answers],
            parses=[a["parse"] for a in self.answers],
            correct=[a["correct"] for a in self.answers],
        )
        return observation(""), float(correct), True, False, info

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        return _tagged(self.item["gold"] if policy == "oracle" else str(rng.choice(list(LABELS))))


_DESCRIPTIONS = {
    ReconstructionEnv: "Cube Bench 1: read the Front face off a cube-net image (3x3 colour grid)",
    VerificationEnv: "Cube Bench 2: does a textual Front-face grid match the image? (Yes/No)",
    OptimalMoveEnv: "Cube Bench 3: pick the optimal next move among four (image+text, image, text)",
    ReflectionEnv: "Cube Bench 4: draft answer, one reflection pass, re-answer (guided-redacted/-unredacted)",
    ClosedLoopEnv: "Cube Bench 5: closed-loop solving, one A-D move per step (optional IDK abstention)",
    MoveEffectEnv: "Cube Bench 6: label four candidate moves DECREASE / NO_CHANGE / INCREASE of distance",
    RecoveryEnv: "Cube Bench 7: recover from the first failure under accept-progress control",
    InvarianceEnv: "Cube Bench (release): invariance sweep, one item beside clean/occluded/darkened/recoloured images",
}

for _env_class, _description in _DESCRIPTIONS.items():
    register(f"cube/{_env_class.test}", _env_class, description=_description)

# The paper's grid: depths 1-3 (recovery 1-4; optimal move and reflection on depth-1 states, as the
# paper's prediction prompt states "exactly 1 move from solved"), every modality of the optimal-move
# test, both reflection regimes, closed loop with and without abstention. For full runs with models.
PAPER_DEPTHS = (1, 2, 3)
PAPER_SUITES = (
    [{"env_id": "cube/reconstruction", "options": {"depth": d}, "episodes": 100} for d in PAPER_DEPTHS]
    + [{"env_id": "cube/verification", "options": {"depth": d}, "episodes": 100} for d in PAPER_DEPTHS]
    + [
        {"env_id": "cube/optimal-move", "options": {"depth": 1, "modality": m}, "episodes": 100}
        for m in prompts.MODALITIES
    ]
    + [{"env_id": "cube/reflection", "options": {"depth": 1, "regime": r}, "episodes": 100} for r in REGIMES]
    + [
        {"env_id": "cube/closed-loop", "options": {"depth": d, **a}, "episodes": 100}
        for d in PAPER_DEPTHS
        for a in (
            {},
            {"abstention": True, "abstain_policy": "teacher_on_abstain"},
            {"abstention": True, "abstain_policy": "skip_item"},
        )
    ]
    + [{"env_id": "cube/move-effect", "options": {"depth": d}, "episodes": 99} for d in PAPER_DEPTHS]
    + [
        {"env_id": "cube/recovery", "options": {"depth": d, "start": st}, "episodes": 100}
        for d in (1, 2, 3, 4)
        for st in RECOVERY_STARTS
    ]
)

# What ``cogsim demo`` runs for this family: every test, small depths, a handful of episodes.
DEMO_SUITES = [
    {"env_id": "cube/reconstruction", "options": {"depth": 2}, "episodes": 8, "agents": ["oracle", "random"]},
    {"env_id": "cube/verification", "options": {"depth": 2}, "episodes": 8, "agents": ["oracle", "random"]},
    {"env_id": "cube/optimal-move", "options": {"depth": 1}, "episodes": 8, "agents": ["oracle", "random"]},
    {
        "env_id": "cube/reflection",
        "options": {"depth": 1, "regime": "guided-unredacted"},
        "episodes": 8,
        "agents": ["oracle", "random"],
    },
    {"env_id": "cube/closed-loop", "options": {"depth": 3}, "episodes": 8, "agents": ["oracle", "random"]},
    {
        "env_id": "cube/closed-loop",
        "options": {"depth": 3, "abstention": True},
        "episodes": 8,
        "agents": ["oracle", "random"],
    },
    {"env_id": "cube/move-effect", "options": {"depth": 2}, "episodes": 9, "agents": ["oracle", "random"]},
    {
        "env_id": "cube/recovery",
        "options": {"depth": 2, "start": "injected"},
        "episodes": 8,
        "agents": ["oracle", "random"],
    },
    {"env_id": "cube/invariance", "options": {"depth": 3}, "episodes": 8, "agents": ["oracle", "random"]},
]
