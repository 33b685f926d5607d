"""Seeded item generation for the seven tests (seed lists of items: ``seed_lists``).

Episode ``index`` at scramble depth ``d`` uses seed ``index`` (or the seed a seed list maps it to):
the seed fixes the scramble, the teacher plan (the inverse scramble), the distractors and the oracle
labels, so every model sees identical items. Scramble samplers (``SAMPLERS``): "release" (the
newest release line's ``VirtualCube.scramble(random_seed=seed, n_moves=d, exact_depth=True)``),
"release-1ca7d58" (the older line's sampler, not exact-depth) and "cogsim" (``cube.scramble(d, seed)``,
an exact-depth optimal scramble). Item layouts (``LAYOUTS``): "release" reproduces the newest release's
seeded choices where they are reproducible (the optimal-move and invariance options, the closed-loop
step options, the verification cells and mismatch moves); "cogsim" is the balanced layout below.

Fairness: the correct option's slot is balanced by construction rather than by rejection. Within
each block of four consecutive indices the gold slot visits A, B, C and D once, in a seeded order,
so at any prefix of a seed list no slot is more than one ahead of another (the paper tracked slot
counts and regenerated; this gives the same near-uniform counts without depending on history, so
every item regenerates from its own seed). Yes/No labels (verification) alternate in blocks of two;
the move-effect doubled class cycles in blocks of three and its slot rotates with the index (the
paper's rotating double slot). Options within an item are always distinct moves.
"""

from __future__ import annotations

import hashlib
import random
import zlib
from typing import Optional

import numpy as np

from cogsim import cube
from cogsim.benchmarks._moved import names_moved_to
from cogsim.benchmarks.cubebench import views
from cogsim.benchmarks.cubebench.parser import COLOURS, EFFECT_LABELS
from cogsim.benchmarks.cubebench.prompts import PROMPT_VERSION
from cogsim.cube import DECREASE, INCREASE, MOVES, NO_CHANGE, Cube

LABELS = "ABCD"
TESTS = (
    "reconstruction",
    "verification",
    "optimal-move",
    "reflection",
    "closed-loop",
    "move-effect",
    "recovery",
    "invariance",
)
EFFECT_NAMES = {DECREASE: "DECREASE", NO_CHANGE: "NO_CHANGE", INCREASE: "INCREASE"}
MAX_DEPTH = 20


def check_depth(depth: object) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be an int in 1..{MAX_DEPTH}, got {depth!r}")
    return int(depth)


def check_seed(seed: object, what: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ValueError(f"{what} must be a non-negative int, got {seed!r}")
    return int(seed)


def _salt(*parts: object) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode())


def item_rng(test: str, depth: int, seed: int, *parts: object) -> np.random.Generator:
    """The generator for one item's random choices (PCG64 through SeedSequence: same on every machine)."""
    return np.random.default_rng([seed, depth, _salt(test, *parts)])


def balanced_position(index: int, k: int, *key: object) -> int:
    """Position in 0..k-1 for ``index``: each block of k consecutive indices visits every position
    once, in an order seeded by the block and ``key``."""
    block, offset = divmod(index, k)
    order = np.random.default_rng([block, _salt(*key)]).permutation(k)
    return int(order[offset])


def place(gold: str, others: list[str], slot: int) -> list[str]:
    options = list(others)
    options.insert(slot, gold)
    return options


SAMPLERS = ("release", "release-1ca7d58", "cogsim")
LAYOUTS = ("release", "cogsim")
SCRAMBLE_TRIES = 50  # the release's max_tries
# The release's move list, in its order (the order matters: its sampler indexes into it).
RELEASE_MOVES = ("R", "L", "U", "D", "F", "B", "R'", "L'", "U'", "D'", "F'", "B'", "R2", "L2", "U2", "D2", "F2", "B2")


class ScrambleError(ValueError):
    """The release's exact-depth sampler found no sequence of exactly the depth in its 50 draws."""


def _release_draws(depth: int, seed: int):
    """The release's move sequences for ``random_seed=seed``: a PCG64 generator seeded with the seed
    draws each move uniformly from the 18 moves (15 after the first: never the previous move's face
    again), one sequence per try."""
    rng = np.random.default_rng(seed)
    for _ in range(SCRAMBLE_TRIES):
        moves, last = [], None
        for _ in range(depth):
            candidates = [m for m in RELEASE_MOVES if m[0] != last] if last else list(RELEASE_MOVES)
            move = candidates[int(rng.integers(len(candidates)))]
            moves.append(move)
            last = move[0]
        yield moves


def release_scramble(depth: int, seed: int, start: Optional[Cube] = None) -> list[str]:
    """The older release line's scramble (1ca7d58) for ``random_seed=seed, n_moves=depth``: the first
    draw that leaves the cube (``start``, solved by default) unsolved, or the 50th. Not an
    exact-depth scramble: opposite faces commute, so e.g. R L R is two moves from solved."""
    start = Cube() if start is None else start
    moves: list[str] = []
    for moves in _release_draws(depth, seed):
        if not start.apply(" ".join(moves)).is_solved():
            break
    return moves


def release_exact_scramble(depth: int, seed: int) -> list[str]:
    """The newest release line's scramble, ``scramble(random_seed=seed, n_moves=depth, exact_depth=True)``:
    the first of the same draws whose state is exactly ``depth`` moves from solved. The release raises
    after 50 draws without one (none of seeds 0-99 does at depths 1-12), and so does this."""
    if depth > MAX_DEPTH:
        raise ScrambleError(f"depth must be at most {MAX_DEPTH} for exact-depth scrambles, got {depth}")
    for moves in _release_draws(depth, seed):
        if int(cube.distance(Cube.from_moves(" ".join(moves)))) == depth:
            return moves
    raise ScrambleError(
        f"the release's sampler found no exact-depth-{depth} scramble in {SCRAMBLE_TRIES} draws for seed {seed} "
        "(as the release itself fails there); use another seed, a smaller depth, or scrambles='cogsim'"
    )


def scramble_of(depth: int, seed: int, scrambles: str = "cogsim") -> list[str]:
    """The scramble of ``seed`` by one of the ``SAMPLERS``."""
    if scrambles == "release":
        return release_exact_scramble(depth, seed)
    if scrambles == "release-1ca7d58":
        return release_scramble(depth, seed)
    return cube.scramble(depth, seed)


def release_rng(*parts: object) -> random.Random:
    """The newest release's per-item generator (``BaseTest.item_rng``): Python's ``random.Random``
    seeded with the first 8 bytes (big-endian) of SHA-256 over the parts joined by ':'."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def release_mcq(correct: str, rng: random.Random, letter: str) -> list[str]:
    """The release's ``gen_mcq(correct, rng, force_letter=letter)``: three distractors sampled from the
    other 17 moves (in the release's move order), shuffled, filling the other letters in order."""
    distractors = rng.sample([m for m in RELEASE_MOVES if m != correct], 3)
    rng.shuffle(distractors)
    others = iter(distractors)
    return [correct if slot == letter else next(others) for slot in LABELS]


def release_step_options(depth: int, seed: int, step: int, teacher_move: str, good: set) -> list[str]:
    """The release's ``gen_mcq_balanced`` of the closed-loop step ``step`` of item ``seed``: the
    teacher's move, one other progress move when there is one (``rng.choice`` of the sorted others),
    non-progress moves sampled for the rest, all four shuffled (``item_rng(depth, seed, step)``)."""
    rng = release_rng(depth, seed, step)
    others = good - {teacher_move}
    bad = [m for m in RELEASE_MOVES if m != teacher_move and m not in others]
    picks = [rng.choice(sorted(others))] if others else []
    picks += rng.sample(bad, 3 - len(picks))
    options = [teacher_move] + picks
    rng.shuffle(options)
    return options


def effect_labels(state: Cube) -> dict[str, str]:
    return {move: EFFECT_NAMES[effect] for move, effect in cube.move_effects(state).items()}


def move_options(state: Cube, gold_move: str, rng, slot: int, effects: Optional[dict] = None) -> dict:
    """Four distinct moves: the gold move at ``slot`` and three legal non-progress distractors."""
    effects = effects if effects is not None else effect_labels(state)
    non_progress = [m for m in MOVES if effects[m] != "DECREASE" and m != gold_move]
    distractors = [str(m) for m in rng.choice(non_progress, size=3, replace=False)]
    options = place(gold_move, distractors, slot)
    return {"options": options, "gold": LABELS[slot], "effects": {m: effects[m] for m in options}}


def _base(test: str, depth: int, seed: int, index: int, scrambles: str = "cogsim", layout: str = "cogsim") -> dict:
    scramble = scramble_of(depth, seed, scrambles)
    state = Cube.from_moves(" ".join(scramble))
    extra = {"scrambles": scrambles} if scrambles != "cogsim" else {}  # cogsim items stay as they were
    if layout != "cogsim":
        extra["layout"] = layout
    return {
        **extra,
        "test": test,
        "depth": depth,
        "seed": seed,
        "index": index,
        "prompt_version": PROMPT_VERSION,
        "scramble": " ".join(scramble),
        "facelets": state.to_facelets(),
        "teacher": views.inverse_sequence(scramble),
    }


def max_colour_count(depth: int) -> int:
    """The paper's colour-prior control for reconstruction: at depth 3 and above no colour may fill
    more than 6 of the 9 Front stickers (a near-solved face is too easy to guess)."""
    return 9 if depth < 3 else 6


def reconstruction_item(depth: int, seed: int, index: int, scrambles: str = "cogsim", layout: str = "cogsim") -> dict:
    """The Front face of the seed's scramble; when one colour covers more than ``max_colour_count``
    stickers, the paper regenerates with seed * 10000 + attempt (attempt 1..50), recorded as
    ``scramble_seed``. The newest release scrambles a fresh cube each time; the older line
    (``scrambles="release-1ca7d58"``) scrambled the same cube again, so its moves accumulate."""
    item = _base("reconstruction", depth, seed, index, scrambles, layout)
    item["scramble_seed"] = seed
    for attempt in range(1, 51):
        rows = views.front_rows(item["facelets"])
        if max("".join(rows).count(c) for c in COLOURS) <= max_colour_count(depth):
            break
        item["scramble_seed"] = seed * 10000 + attempt
        if scrambles == "release-1ca7d58":
            scramble = item["scramble"].split() + release_scramble(
                depth, item["scramble_seed"], Cube.from_facelets(item["facelets"])
            )
        else:
            scramble = scramble_of(depth, item["scramble_seed"], scrambles)
        item.update(
            scramble=" ".join(scramble),
            facelets=Cube.from_moves(" ".join(scramble)).to_facelets(),
            teacher=views.inverse_sequence(scramble),
        )
    item["gold_grid"] = list(views.front_rows(item["facelets"]))
    return item


FRONT_AFFECTING = tuple(m for m in MOVES if not m.startswith("B"))
"""The moves the paper's verification negatives draw from: every face turn but the Back face's."""


# The newest release's verification cells, cycled by item index: (polarity, states match, answer).
VERIFICATION_CELLS = (
    ("affirmative", True, "Yes"),
    ("affirmative", False, "No"),
    ("negated", True, "No"),
    ("negated", False, "Yes"),
)
CLAIM_FORMS = 3  # surface forms per polarity; form (index // 4) % 3


def verification_item(depth: int, seed: int, index: int, scrambles: str = "cogsim", layout: str = "cogsim") -> dict:
    """layout "release" (the newest release): the question is a claim about the Front face, stated
    affirmatively ("is exactly this") or negated ("is NOT this"), in one of three surface forms; the
    cell (polarity, whether image and text match) cycles with ``seed`` % 4 and the form with
    (seed // 4) % 3; a mismatching image is the cube after ``item_rng("verification", d, seed).choice``
    of the 15 non-B face turns, as drawn (the release does not check that it changes the face).

    layout "cogsim": an affirmative question; Yes and No alternate in blocks of two. The paper's
    negative ("image-move"): the image shows the cube after one more face turn (not B) that changes
    the Front face. The alternative negative ("text-edit", env option ``negatives``): the image is the
    scrambled cube and the text edits one or two stickers (token edit) or is the Front face after
    one extra move (move edit)."""
    item = _base("verification", depth, seed, index, scrambles, layout)
    rng = item_rng("verification", depth, seed)
    state = Cube.from_facelets(item["facelets"])
    truth = list(views.front_rows(state))
    if layout == "release":
        polarity, match, gold = VERIFICATION_CELLS[seed % 4]
        positive = match
        form = (seed // len(VERIFICATION_CELLS)) % CLAIM_FORMS
    else:
        positive = balanced_position(index, 2, "verification", depth) == 0
        polarity, gold, form = "affirmative", "Yes" if positive else "No", 0
    item.update(
        gold_grid=truth,
        gold=gold,
        polarity=polarity,
        claim_form=form,
        states_match=positive,
        shown_grid=truth,
        image_facelets=item["facelets"],
        negative_kind=None,
        negative_move=None,
        text_edit=None,
    )
    if not positive and layout == "release":
        move = release_rng("verification", depth, seed).choice(FRONT_AFFECTING)
        item.update(image_facelets=state.apply(move).to_facelets(), negative_kind="image-move", negative_move=move)
    elif not positive:
        moved, move = _image_move(state, truth, rng)
        item.update(image_facelets=moved, negative_kind="image-move", negative_move=move)
        if rng.random() < 0.5:
            item["text_edit"] = {"kind": "token_edit", "move": None, "shown_grid": _token_edit(truth, rng)}
        else:
            shown, edit_move = _move_edit(state, truth, rng)
            item["text_edit"] = {"kind": "move", "move": edit_move, "shown_grid": shown}
    return item


def _image_move(state: Cube, truth: list[str], rng) -> tuple[str, str]:
    for move in rng.permutation(FRONT_AFFECTING):
        moved = state.apply(str(move))
        if list(views.front_rows(moved)) != truth:
            return moved.to_facelets(), str(move)
    raise AssertionError("every face turn leaves the Front face unchanged, which no cube state allows")


def _token_edit(truth: list[str], rng) -> list[str]:
    letters = list("".join(truth))
    for position in rng.choice(9, size=int(rng.integers(1, 3)), replace=False):
        letters[position] = str(rng.choice([c for c in COLOURS if c != letters[position]]))
    flat = "".join(letters)
    return [flat[0:3], flat[3:6], flat[6:9]]


def _move_edit(state: Cube, truth: list[str], rng) -> tuple[list[str], str]:
    for move in rng.permutation(MOVES):
        shown = list(views.front_rows(state.apply(str(move))))
        if shown != truth:
            return shown, str(move)
    raise AssertionError("every face turn leaves the Front face unchanged, which no cube state allows")


def optimal_move_item(
    depth: int, seed: int, index: int, test: str = "optimal-move", scrambles: str = "cogsim", layout: str = "cogsim"
) -> dict:
    """The teacher's next move (first move of the inverse scramble) at the gold letter. layout
    "cogsim": three legal moves that do not reduce the distance, the gold slot balanced in blocks of
    four. layout "release" (the newest release's prediction test): the gold letter is "ABCD"[seed % 4]
    and the three distractors are ``gen_mcq``'s draw from ``random.Random(seed)`` among the other 17
    moves (at depth >= 2 a distractor can reduce the distance too; only the gold letter scores)."""
    item = _base(test, depth, seed, index, scrambles, layout)
    state = Cube.from_facelets(item["facelets"])
    teacher = item["teacher"][0]
    if layout == "release":
        gold = LABELS[seed % 4]
        options = release_mcq(teacher, random.Random(seed), gold)
        effects = effect_labels(state)
        item.update(options=options, gold=gold, effects={m: effects[m] for m in options})
    else:
        rng = item_rng("optimal-move", depth, seed)
        slot = balanced_position(index, 4, "optimal-move", depth)
        item.update(move_options(state, teacher, rng, slot))
    item["gold_move"] = teacher
    return item


def reflection_item(depth: int, seed: int, index: int, scrambles: str = "cogsim", layout: str = "cogsim") -> dict:
    return optimal_move_item(depth, seed, index, test="reflection", scrambles=scrambles, layout=layout)


# The invariance sweep's image variants, in the release's order, and its recolouring (image only).
INVARIANCE_VARIANTS = ("clean", "occl", "bright", "recolor")


def invariance_item(depth: int, seed: int, index: int, scrambles: str = "cogsim", layout: str = "cogsim") -> dict:
    """One invariance-sweep item: a depth-d state, the teacher's next move among four (the release's
    ``gen_mcq`` with ``random.Random(seed)`` and gold letter "ABCD"[seed % 4] under layout "release"),
    asked once per image variant with the same text. The release's sweep scrambles without
    ``exact_depth`` (``invariance_sweep.py``): under ``scrambles="release"`` it uses that sampler."""
    sampler = "release-1ca7d58" if scrambles == "release" else scrambles
    item = optimal_move_item(depth, seed, index, test="invariance", scrambles=sampler, layout=layout)
    item["variants"] = list(INVARIANCE_VARIANTS)
    return item


def closed_loop_options(state: Cube, teacher_move: str, rng, slot: int, effects: Optional[dict] = None) -> dict:
    """One closed-loop step's options (the paper's balanced step MCQ): the teacher's next move at
    ``slot``, one other progress move when the state has one, and non-progress moves for the rest.
    Every progress option counts as correct; ``gold`` is the teacher's slot (what the oracle picks)."""
    effects = effects if effects is not None else effect_labels(state)
    others_progress = [m for m in MOVES if effects[m] == "DECREASE" and m != teacher_move]
    # The teacher's move is left out of the distractors: under the release's credit rule a stale
    # teacher move (after a detour) can be a non-progress move, and must not appear twice.
    non_progress = [m for m in MOVES if effects[m] != "DECREASE" and m != teacher_move]
    picks = [str(rng.choice(others_progress))] if others_progress else []
    picks += [str(m) for m in rng.choice(non_progress, size=3 - len(picks), replace=False)]
    picks = [picks[i] for i in rng.permutation(3)]
    options = place(teacher_move, picks, slot)
    return {"options": options, "gold": LABELS[slot], "effects": {m: effects[m] for m in options}}


def closed_loop_step(depth: int, seed: int, index: int, step: int, state: Cube, teacher_move: str) -> dict:
    """The options shown at ``step`` in ``state``: seeded by the item, the step and the state, so a
    trajectory that leaves the teacher path (another progress move) still gets reproducible items."""
    rng = item_rng("closed-loop-step", depth, seed, step, state.to_facelets())
    slot = balanced_position(index, 4, "closed-loop", depth, step)
    return closed_loop_options(state, teacher_move, rng, slot)


def release_closed_loop_step(depth: int, seed: int, step: int, state: Cube, teacher_move: str) -> dict:
    """The newest release's step: its option set (``release_step_options``) and its correct letter,
    the first letter whose move reduces the distance (any progress move is correct)."""
    effects = effect_labels(state)
    good = {m for m in MOVES if effects[m] == "DECREASE"}
    options = release_step_options(depth, seed, step, teacher_move, good)
    gold = next(label for label, move in zip(LABELS, options) if move in good)
    return {"options": options, "gold": gold, "effects": {m: effects[m] for m in options}}


def closed_loop_item(depth: int, seed: int, index: int, scrambles: str = "cogsim", layout: str = "cogsim") -> dict:
    """The scramble, the teacher plan and, for the record, the option sets along the teacher path
    (the env generates the same sets online, and new ones where a model's progress move leaves it)."""
    item = _base("closed-loop", depth, seed, index, scrambles, layout)
    state = Cube.from_facelets(item["facelets"])
    steps = []
    for step, move in enumerate(item["teacher"]):
        if layout == "release":
            options = release_closed_loop_step(depth, seed, step, state, move)
        else:
            options = closed_loop_step(depth, seed, index, step, state, move)
        steps.append({"facelets": state.to_facelets(), **options})
        state = state.apply(move)
    item["steps"] = steps
    return item


def effect_option_set(
    effects: dict, rng, doubled_class: str, doubled_slot: int, fallback: int = 0
) -> tuple[list[str], str]:
    """Four distinct moves (the paper's move-effect balancing): one of every class the state has, plus
    a second move of ``doubled_class`` (when that class has fewer than two moves: the feasible class
    number ``fallback`` modulo their count), topped up from any class if the state lacks a class.
    One move of the doubled class sits at ``doubled_slot``; the rest are shuffled."""
    by_class = {
        label: [str(m) for m in rng.permutation([m for m in MOVES if effects[m] == label])] for label in EFFECT_LABELS
    }
    if len(by_class[doubled_class]) < 2:
        feasible = [label for label in EFFECT_LABELS if len(by_class[label]) >= 2]  # 18 moves: never empty
        doubled_class = feasible[fallback % len(feasible)]
    picked = [by_class[doubled_class][0], by_class[doubled_class][1]]
    picked += [by_class[label][0] for label in EFFECT_LABELS if label != doubled_class and by_class[label]]
    leftovers = [str(m) for m in rng.permutation(MOVES) if str(m) not in picked]
    picked += leftovers[: 4 - len(picked)]
    anchor, rest = picked[0], [picked[i] for i in rng.permutation(range(1, 4))]
    return place(anchor, rest, doubled_slot), doubled_class


def move_effect_item(depth: int, seed: int, index: int, scrambles: str = "cogsim", layout: str = "cogsim") -> dict:
    """Four candidate moves, each to be labelled DECREASE / NO_CHANGE / INCREASE (paper: the model
    labels every option A-D). Class balancing: one move of each class present plus one doubled class,
    which cycles through the three classes in blocks of three; where the state has fewer than two
    moves of that class (DECREASE, mostly), the feasible classes alternate block by block (the paper
    doubles the feasible class furthest below its target share). Slot rotation: the doubled class's
    anchor move rotates through A, B, C, D with the index (the paper's rotating double slot). The
    release's option sets depend on every earlier item of the run (its balancing counters and an
    unseeded shuffle), so no layout reproduces them; layout "release" keeps this one."""
    item = _base("move-effect", depth, seed, index, scrambles, layout)
    rng = item_rng("move-effect", depth, seed)
    effects = effect_labels(Cube.from_facelets(item["facelets"]))
    target = EFFECT_LABELS[balanced_position(index, 3, "move-effect-class", depth)]
    options, doubled = effect_option_set(effects, rng, target, index % 4, fallback=index // 3)
    item.update(
        options=options,
        gold_labels=[effects[m] for m in options],
        doubled_class=doubled,
        effects={m: effects[m] for m in options},
    )
    return item


def progress_options(state: Cube, rng, slot: int, effects: Optional[dict] = None) -> dict:
    """A learning-curve step's options (the paper's MCQ from the oracle's progress moves): one
    progress move drawn at random at ``slot`` and three non-progress moves."""
    effects = effects if effects is not None else effect_labels(state)
    progress = [m for m in MOVES if effects[m] == "DECREASE"]
    return move_options(state, str(rng.choice(progress)), rng, slot, effects)


def recovery_budget(depth: int) -> int:
    """Steps allowed after the failure: depth + 3 (4-7 at depths 1-4, as in the paper)."""
    return depth + 3


def recovery_horizon(depth: int) -> int:
    """Closed-loop steps watched for the first failure (``start="closed-loop"``): the depth."""
    return depth


def recovery_item(depth: int, seed: int, index: int, scrambles: str = "cogsim", layout: str = "cogsim") -> dict:
    """The depth-d scramble followed by one seeded non-progress move: the injected first failure.
    The teacher plan after it is the failure's inverse followed by the inverse scramble. (The
    release draws the learning curve's options with an unseeded generator: no layout reproduces them.)"""
    item = _base("recovery", depth, seed, index, scrambles, layout)
    rng = item_rng("recovery", depth, seed)
    state = Cube.from_facelets(item["facelets"])
    effects = effect_labels(state)
    failure = str(rng.choice([m for m in MOVES if effects[m] != "DECREASE"]))
    item.update(
        failure_move=failure,
        failure_effect=effects[failure],
        recovery_facelets=state.apply(failure).to_facelets(),
        recovery_teacher=[views.inverse_move(failure)] + item["teacher"],
        horizon=recovery_horizon(depth),
        budget=recovery_budget(depth),
    )
    return item


GENERATORS = {
    "reconstruction": reconstruction_item,
    "verification": verification_item,
    "optimal-move": optimal_move_item,
    "reflection": reflection_item,
    "closed-loop": closed_loop_item,
    "move-effect": move_effect_item,
    "recovery": recovery_item,
    "invariance": invariance_item,
}


def make_item(
    test: str,
    depth: int,
    seed: int,
    index: Optional[int] = None,
    scrambles: str = "cogsim",
    layout: str = "cogsim",
) -> dict:
    """The JSON-able item of episode ``index`` (default: the seed) of ``test`` at ``depth``, by one of
    the ``SAMPLERS`` and ``LAYOUTS``."""
    if test not in GENERATORS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if scrambles not in SAMPLERS:
        raise ValueError(f"scrambles must be one of {', '.join(map(repr, SAMPLERS))}, got {scrambles!r}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(map(repr, LAYOUTS))}, got {layout!r}")
    depth, seed = check_depth(depth), check_seed(seed)
    index = seed if index is None else check_seed(index, "index")
    return GENERATORS[test](depth, seed, index, scrambles=scrambles, layout=layout)


# Seed lists moved to their own module; their names are still found here, with a warning.
__getattr__ = names_moved_to(__name__, "cogsim.benchmarks.cubebench.seed_lists")
