"""Cube Bench metrics and the paper-shaped tables (per agent, variant and scramble depth).

Parse failures always count against the model: they are wrong answers in every accuracy, a
missing prediction in kappa and macro-F1, and a failed step in closed-loop control.

Readings of the paper made explicit here:
- Yes rate = share of Yes among parsed verification answers (the paper harness's figure); Yes-bias =
  Yes rate minus the share of Yes among the gold labels (0 for an unbiased answerer; the gold labels
  are balanced, so it is Yes rate - 0.5). The paper harness's balanced accuracy leaves unparsed
  answers out; the table shows it beside the house reading (unparsed = wrong).
- TA% (teacher adherence) divides the credited steps by all steps every episode could have taken
  (depth per episode), whether or not the episode got that far: unconditional denominators. Under
  progress credit (the newest release line, the default) any distance-reducing move is credited;
  under teacher credit (the older line 1ca7d58, and episodes recorded with credit "release" before
  the newest line was followed) only the teacher's move. PA% (progress adherence) divides all
  progress moves (teacher's or not) the same way, so both readings are reported for every episode.
- Invariance sweep (the newest release line): accuracy per image variant (clean, occluded,
  darkened, recoloured) with its change from clean, and the parse rate per variant.
- Coverage = answered / decisions, selective accuracy = correct / answered, where answered counts
  the A-D answers (correct or wrong); abstentions and parse failures are decisions, not answers.
- APA (abstention-penalised accuracy) credits a correct answer 1, an abstention s (0.25, what a
  uniform guess among four options earns) and anything else 0, over all decisions.
- Learning curve (paper): over the episodes that entered it (had a closed-loop failure), solve
  rate with a Wilson interval; P@1 the share solved with the first decision after the failure, P@3
  the share solved within three; Med@Solved the median decisions to solve over solved episodes;
  Avg@All the mean decisions over all of them, an unsolved episode counting its whole budget.
"""

from __future__ import annotations

import math
import numbers
from collections import defaultdict
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

import numpy as np

from cogsim.benchmarks.cubebench.prompts import PROMPT_VERSION
from cogsim.files import shown
from cogsim.metrics import Estimate, Table, mean_ci, register, wilson

ABSTAIN_CREDIT = 0.25
CORRECT_STEPS = ("teacher", "progress")  # closed-loop step outcomes that count as correct under credit="progress"


def credited_steps(episode: dict) -> tuple:
    """The closed-loop outcomes the episode's credit rule counts as correct (episodes without a
    "credit" field were recorded under progress credit; "release" in older records meant teacher)."""
    return ("teacher",) if episode.get("credit", "progress") in ("teacher", "release") else CORRECT_STEPS


EFFECT_LABELS = ("DECREASE", "NO_CHANGE", "INCREASE")


# -- metric functions (pure, checked against hand computations in the tests) ----------------------


def proportion(flags: Iterable[bool]) -> Estimate:
    flags = [bool(f) for f in flags]
    return wilson(sum(flags), len(flags))


def element_accuracy(predicted: Sequence[Optional[Sequence[str]]], gold: Sequence[Sequence[str]]) -> Estimate:
    """Share of correct stickers over all 9 per item (an unparsed grid has none correct)."""
    correct = sum(_stickers_correct(p, g) for p, g in zip(predicted, gold))
    return wilson(correct, 9 * len(gold))


def matrix_accuracy(predicted: Sequence[Optional[Sequence[str]]], gold: Sequence[Sequence[str]]) -> Estimate:
    return proportion(_stickers_correct(p, g) == 9 for p, g in zip(predicted, gold))


def _stickers_correct(predicted: Optional[Sequence[str]], gold: Sequence[str]) -> int:
    if predicted is None:
        return 0
    return sum(a == b for p, g in zip(predicted, gold) for a, b in zip(p, g))


def balanced_accuracy(
    gold: Sequence[str], predicted: Sequence[Optional[str]], positive: str = "Yes", unparsed: str = "wrong"
) -> float:
    """Mean of the recall on positives and on negatives (nan if either class is absent). An
    unparsed answer (None) is a wrong answer with ``unparsed="wrong"`` (house rule), or left out of
    both recalls with ``unparsed="drop"`` (the paper's harness, which reports parse rate beside it)."""
    if unparsed not in ("wrong", "drop"):
        raise ValueError(f"unparsed must be 'wrong' or 'drop', got {unparsed!r}")
    recalls = []
    for is_positive in (True, False):
        pairs = [
            (g, p)
            for g, p in zip(gold, predicted)
            if (g == positive) == is_positive and (unparsed == "wrong" or p is not None)
        ]
        if not pairs:
            return float("nan")
        recalls.append(sum(g == p for g, p in pairs) / len(pairs))
    return float(np.mean(recalls))


def yes_rate(predicted: Sequence[Optional[str]], positive: str = "Yes") -> float:
    """The paper's Yes rate: share of Yes among parsed answers (0.5 for an unbiased answerer here)."""
    parsed = [p for p in predicted if p is not None]
    return sum(p == positive for p in parsed) / len(parsed) if parsed else float("nan")


def yes_bias(gold: Sequence[str], predicted: Sequence[Optional[str]], positive: str = "Yes") -> float:
    parsed = [p for p in predicted if p is not None]
    if not parsed or not gold:
        return float("nan")
    return sum(p == positive for p in parsed) / len(parsed) - sum(g == positive for g in gold) / len(gold)


def cohen_kappa(
    gold: Sequence[str], predicted: Sequence[Optional[str]], labels: Sequence[str] = EFFECT_LABELS
) -> float:
    """Cohen's kappa as the paper computes it: observed agreement over all labels (an unparsed
    prediction never agrees) against the chance agreement sum_k pi_k q_k of the gold priors pi and
    the model's label mix q over its parsed predictions."""
    n = len(gold)
    if n == 0:
        return float("nan")
    observed = sum(g == p for g, p in zip(gold, predicted)) / n
    parsed = [p for p in predicted if p in labels]
    expected = sum(
        (sum(g == label for g in gold) / n) * (parsed.count(label) / len(parsed) if parsed else 0.0) for label in labels
    )
    if expected == 1.0:
        return 1.0 if observed == 1.0 else float("nan")
    return (observed - expected) / (1.0 - expected)


MACRO_F1_ABSENT = ("zero", "skip")


def macro_f1(
    gold: Sequence[str], predicted: Sequence[Optional[str]], labels: Sequence[str] = EFFECT_LABELS, absent: str = "zero"
) -> float:
    """Unweighted mean F1 over the three labels. A label that occurs neither in gold nor in the
    predictions scores 0 with ``absent="zero"`` (the paper's harness averages all three classes) or
    is left out of the mean with ``absent="skip"``."""
    if absent not in MACRO_F1_ABSENT:
        raise ValueError(f"absent must be one of {MACRO_F1_ABSENT}, got {absent!r}")
    scores = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(gold, predicted))
        fp = sum(g != label and p == label for g, p in zip(gold, predicted))
        fn = sum(g == label and p != label for g, p in zip(gold, predicted))
        if tp + fp + fn:
            scores.append(2 * tp / (2 * tp + fp + fn))
        elif absent == "zero":
            scores.append(0.0)
    return float(np.mean(scores)) if scores else float("nan")


def apa(correct: int, abstained: int, decisions: int, credit: float = ABSTAIN_CREDIT) -> float:
    """Abstention-penalised accuracy: (correct + credit x abstained) / decisions."""
    if decisions == 0:
        return float("nan")
    return (correct + credit * abstained) / decisions


def error_fix_rate(initial: Sequence[bool], final: Sequence[bool]) -> Estimate:
    """EFR: of the items answered wrongly at first, the share answered correctly after reflection."""
    return proportion(f for i, f in zip(initial, final) if not i)


def overthink_rate(initial: Sequence[bool], final: Sequence[bool]) -> Estimate:
    """OTR: of the items answered correctly at first, the share answered wrongly after reflection."""
    return proportion(not f for i, f in zip(initial, final) if i)


def solved_within(solved_at: Sequence[Optional[int]], k: int) -> Estimate:
    """P@k: share of learning-curve episodes solved within k decisions after the failure."""
    return proportion(s is not None and s <= k for s in solved_at)


def median_steps_solved(solved_at: Sequence[Optional[int]]) -> float:
    solved = [s for s in solved_at if s is not None]
    return float(np.median(solved)) if solved else float("nan")


def average_steps_all(steps_used: Sequence[int], solved: Sequence[bool], budgets: Sequence[int]) -> float:
    if not steps_used:
        return float("nan")
    return float(np.mean([s if ok else b for s, ok, b in zip(steps_used, solved, budgets)]))


# -- tables -----------------------------------------------------------------------------------------


def _flatten(episode: Mapping) -> Mapping:
    """A record whose outcome is nested under "episode" (as some earlier records were) with it lifted
    to the top; any other record as it is (read, never changed: a report may hold a million)."""
    inner = episode.get("episode")
    return {**episode, **inner} if isinstance(inner, dict) else episode


def _agent_label(episode: dict) -> str:
    """The agent, plus the protocol variant when it is not the newest release's, and the prompt
    version when it is not the current one (so runs under different protocols never pool into one
    row: episodes of earlier prompt versions followed the older release line)."""
    agent, protocol = str(episode.get("agent", "?")), episode.get("protocol")
    variant = [] if protocol in (None, "release") else [str(protocol)]
    version = episode.get("prompt_version")
    if version and version != PROMPT_VERSION:
        variant.append(str(version))
    return f"{agent} [{', '.join(variant)}]" if variant else agent


MAX_DEPTH = 20  # no cube state is further from solved: the deepest Cube Bench scramble


def _groups(episodes: Sequence[dict], test: str, variant: Callable[[dict], Any] = lambda e: "") -> list:
    groups: dict = defaultdict(list)
    for episode in episodes:
        if episode.get("test") == test:
            groups[(_agent_label(episode), variant(episode), _depth(episode))].append(episode)
    return sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]), kv[0][2]))


def _depth(episode: dict) -> int:
    """The episode's scramble depth, which sizes tables (a column per step): a stored record may
    hold any number there, so anything but an integer from 0 to MAX_DEPTH is refused."""
    depth = episode["depth"]
    whole = isinstance(depth, numbers.Integral) or (isinstance(depth, float) and depth.is_integer())
    if isinstance(depth, bool) or not whole or not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"an episode record holds depth {shown(depth)}; scrambles are 0 to {MAX_DEPTH} moves deep")
    return int(depth)


def _parse_rate(episodes: Sequence[dict], key: str = "parse") -> Estimate:
    return proportion(e.get(key) == "ok" for e in episodes)


def _nan_or(value: float) -> Any:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else round(value, 3)


def reconstruction_table(episodes: Sequence[dict]) -> Optional[Table]:
    rows = []
    for (agent, _, depth), group in _groups(episodes, "reconstruction"):
        predicted, gold = [e["predicted_grid"] for e in group], [e["gold_grid"] for e in group]
        rows.append(
            [
                agent,
                depth,
                len(group),
                element_accuracy(predicted, gold),
                matrix_accuracy(predicted, gold),
                _parse_rate(group),
            ]
        )
    return (
        Table(
            "Table 1. Cube face reconstruction (image only)",
            ["agent", "depth", "n", "element acc.", "matrix acc.", "parse rate"],
            rows,
            "Wilson 95% intervals; element accuracy pools the 9 stickers of every item.",
        )
        if rows
        else None
    )


def verification_table(episodes: Sequence[dict]) -> Optional[Table]:
    rows = []
    for (agent, _, depth), group in _groups(episodes, "verification"):
        gold, answers = [e["gold"] for e in group], [e["answer"] for e in group]
        rows.append(
            [
                agent,
                depth,
                len(group),
                _nan_or(balanced_accuracy(gold, answers)),
                _nan_or(balanced_accuracy(gold, answers, unparsed="drop")),
                _parse_rate(group),
                _nan_or(yes_rate(answers)),
                _nan_or(yes_bias(gold, answers)),
            ]
        )
    return (
        Table(
            "Table 1b. Cross-modal verification (image + text grid, Yes/No)",
            ["agent", "depth", "n", "balanced acc.", "bal. acc. (parsed)", "parse rate", "Yes rate", "Yes-bias"],
            rows,
            "Yes/No balanced per depth. balanced acc. counts unparsed answers wrong; bal. acc. (parsed) and "
            "Yes rate (share of Yes among parsed answers) are the paper harness's; Yes-bias = Yes rate - "
            "Yes share of gold.",
        )
        if rows
        else None
    )


def optimal_move_table(episodes: Sequence[dict]) -> Optional[Table]:
    rows = [
        [agent, modality, depth, len(group), proportion(e["correct"] for e in group), _parse_rate(group)]
        for (agent, modality, depth), group in _groups(episodes, "optimal-move", lambda e: e["modality"])
    ]
    return (
        Table(
            "Table 2. Optimal move prediction (four options, one optimal)",
            ["agent", "modality", "depth", "n", "accuracy", "parse rate"],
            rows,
            "Chance is 25%. Identical items in every modality.",
        )
        if rows
        else None
    )


def effect_labels_of(episodes: Sequence[dict]) -> tuple[list, list]:
    """Gold and predicted labels pooled over the four options of every item (an unparsed answer
    predicts nothing for all four)."""
    gold, predicted = [], []
    for e in episodes:
        gold += e["gold_labels"]
        predicted += e["answers"] if e["answers"] is not None else [None] * len(e["gold_labels"])
    return gold, predicted


def move_effect_table(episodes: Sequence[dict]) -> Optional[Table]:
    rows = []
    for (agent, modality, depth), group in _groups(episodes, "move-effect", lambda e: e["modality"]):
        gold, answers = effect_labels_of(group)
        rows.append(
            [
                agent,
                modality,
                depth,
                len(group),
                wilson(sum(g == a for g, a in zip(gold, answers)), len(gold)),
                _nan_or(macro_f1(gold, answers)),
                _nan_or(cohen_kappa(gold, answers)),
                _parse_rate(group),
            ]
        )
    return (
        Table(
            "Table 2b. Causal move-effect (DECREASE / NO_CHANGE / INCREASE)",
            ["agent", "modality", "depth", "n", "micro acc.", "macro-F1", "kappa", "parse rate"],
            rows,
            "Four labels per item (every option), pooled; classes balanced per item (one of each plus a "
            "rotating doubled class). Kappa: chance = gold priors x the model's parsed label mix.",
        )
        if rows
        else None
    )


def _closed_loop_variant(episode: dict) -> str:
    abstain = f", IDK/{episode['abstain_policy']}" if episode.get("abstention") else ""
    return f"{episode['modality']}{abstain}, credit={episode.get('credit', 'progress')}"


def closed_loop_table(episodes: Sequence[dict]) -> Optional[Table]:
    rows = []
    for (agent, variant, depth), group in _groups(episodes, "closed-loop", _closed_loop_variant):
        adherent = sum(e["adherent"] for e in group)
        abstained = sum(e["abstained"] for e in group)
        answered = sum(e["answered"] for e in group)
        decisions = sum(e["decisions"] for e in group)
        ta = mean_ci([e["adherent"] / e["steps_total"] for e in group], bounds=(0.0, 1.0))
        pa = mean_ci([e.get("progress_moves", e["adherent"]) / e["steps_total"] for e in group], bounds=(0.0, 1.0))
        rows.append(
            [
                agent,
                variant,
                depth,
                len(group),
                ta,
                pa,
                proportion(e["perfect_solve"] for e in group),
                wilson(answered, decisions),
                wilson(adherent, answered),
                _nan_or(apa(adherent, abstained, decisions)),
                wilson(decisions - sum(e["parse_failures"] for e in group), decisions),
            ]
        )
    return (
        Table(
            "Table 3. Closed-loop step-by-step control",
            [
                "agent",
                "variant",
                "depth",
                "n",
                "TA%",
                "PA%",
                "perfect solve",
                "coverage",
                "selective acc.",
                f"APA (s={ABSTAIN_CREDIT})",
                "parse rate",
            ],
            rows,
            "TA% (credited steps: the teacher's move only under credit=teacher) and PA% (any progress move) "
            "over all depth x n steps (unconditional denominators), normal interval over episodes. "
            "Coverage, selective accuracy and APA count decisions actually presented.",
        )
        if rows
        else None
    )


def adherence_by_step_table(episodes: Sequence[dict]) -> Optional[Table]:
    """TA@t: share of all episodes whose step t was a progress move, the teacher's or another
    optimal one (episodes that stopped earlier count as not adherent at t)."""
    groups = _groups(episodes, "closed-loop", _closed_loop_variant)
    if not groups:
        return None
    longest = max(depth for (_, _, depth), _ in groups)
    rows = []
    for (agent, variant, depth), group in groups:
        cells = [
            proportion(len(e["outcomes"]) > t and e["outcomes"][t] in credited_steps(e) for e in group)
            if t < depth
            else ""
            for t in range(longest)
        ]
        rows.append([agent, variant, depth, len(group), *cells])
    return Table(
        "Table 3b. Teacher adherence by step (closed loop)",
        ["agent", "variant", "depth", "n", *[f"TA@{t + 1}" for t in range(longest)]],
        rows,
        "Unconditional denominators: every episode counts at every step up to its depth.",
    )


def reflection_table(episodes: Sequence[dict]) -> Optional[Table]:
    rows = []
    for (agent, regime, depth), group in _groups(episodes, "reflection", lambda e: e["regime"]):
        initial = [bool(e["initial_correct"]) for e in group]
        final = [bool(e["final_correct"]) for e in group]
        rows.append(
            [
                agent,
                regime,
                depth,
                len(group),
                proportion(initial),
                proportion(final),
                round(float(np.mean(final)) - float(np.mean(initial)), 3),
                error_fix_rate(initial, final),
                overthink_rate(initial, final),
                _parse_rate(group, "final_parse"),
            ]
        )
    return (
        Table(
            "Table 4. Reflection-guided re-answering",
            ["agent", "regime", "depth", "n", "initial acc.", "final acc.", "gain", "EFR", "OTR", "final parse rate"],
            rows,
            "EFR: wrong drafts fixed; OTR: correct drafts broken (every draft is told it was wrong, as in the "
            "paper). guided-unredacted reveals the gold option's letter.",
        )
        if rows
        else None
    )


def recovery_table(episodes: Sequence[dict]) -> Optional[Table]:
    rows = []
    for (agent, start, depth), group in _groups(episodes, "recovery", lambda e: e["start"]):
        failed = [e for e in group if e["failure_step"] is not None]
        solved_at = [e["solved_at"] for e in failed]
        rows.append(
            [
                agent,
                start,
                depth,
                len(group),
                len(failed),
                proportion(e["solved"] for e in failed),
                solved_within(solved_at, 1),
                solved_within(solved_at, 3),
                _nan_or(median_steps_solved([e["solved_at"] for e in failed])),
                _nan_or(
                    average_steps_all(
                        [e["steps_used"] for e in failed], [e["solved"] for e in failed], [e["budget"] for e in failed]
                    )
                ),
            ]
        )
    return (
        Table(
            "Table 5. Learning curve / recovery after the first failure",
            ["agent", "start", "depth", "n", "failures", "solve rate", "P@1", "P@3", "Med@Solved", "Avg@All"],
            rows,
            "Budget depth+3 decisions after the first failure; rates over episodes with a failure; "
            "P@k: solved within k decisions.",
        )
        if rows
        else None
    )


def invariance_table(episodes: Sequence[dict]) -> Optional[Table]:
    rows = []
    for (agent, _, depth), group in _groups(episodes, "invariance"):
        variants = group[0]["variants"]
        accuracy = [proportion(e["correct"][k] for e in group) for k in range(len(variants))]
        parsed = [proportion(e["parses"][k] == "ok" for e in group) for k in range(len(variants))]
        deltas = [round(a.value - accuracy[0].value, 3) for a in accuracy[1:]]
        rows.append([agent, depth, len(group), *accuracy, *deltas, *parsed])
    if not rows:
        return None
    names = ("clean", "occl", "bright", "recolor")
    return Table(
        "Table 2c. Invariance sweep (one item, four images)",
        ["agent", "depth", "n"]
        + [f"acc. {v}" for v in names]
        + [f"delta {v}" for v in names[1:]]
        + [f"parse {v}" for v in names],
        rows,
        "The newest release line's sweep: the same text and options beside a clean, an occluded (black band), "
        "a darkened (x 0.8) and a recoloured image; delta = accuracy minus clean accuracy.",
    )


TABLES = (
    reconstruction_table,
    verification_table,
    optimal_move_table,
    invariance_table,
    move_effect_table,
    closed_loop_table,
    adherence_by_step_table,
    reflection_table,
    recovery_table,
)


def summarize(episodes: Sequence[dict]) -> list[Table]:
    flat = [_flatten(e) for e in episodes]
    return [table for build in TABLES if (table := build(flat)) is not None]


# The headline column of each table, drawn against depth (one line per agent and variant).
HEADLINES = {
    "Table 1": "matrix acc.",
    "Table 1b": "balanced acc.",
    "Table 2": "accuracy",
    "Table 2b": "micro acc.",
    "Table 2c": "acc. clean",
    "Table 3": "TA%",
    "Table 3b": "TA@1",
    "Table 4": "final acc.",
    "Table 5": "solve rate",
}
VARIANT_COLUMNS = ("modality", "variant", "regime", "start")


def _value(cell: Any) -> float:
    if isinstance(cell, Estimate):
        return cell.value
    return float(cell) if isinstance(cell, (int, float)) else float("nan")


def plot(episodes: Sequence[dict], out_dir) -> list[tuple[str, Any]]:
    """One figure: the headline metric of every test against scramble depth."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = summarize(episodes)
    if not tables:
        return []
    figure, axes = plt.subplots(1, len(tables), figsize=(3.2 * len(tables), 3.0), squeeze=False)
    for axis, table in zip(axes[0], tables):
        headline = HEADLINES[table.title.split(".")[0]]
        column = table.columns.index(headline)
        variant = next((table.columns.index(c) for c in VARIANT_COLUMNS if c in table.columns), None)
        lines: dict = defaultdict(list)
        for row in table.rows:
            label = row[0] if variant is None else f"{row[0]} ({row[variant]})"
            lines[label].append((row[table.columns.index("depth")], _value(row[column])))
        for label, points in lines.items():
            depths, values = zip(*sorted(points))
            axis.plot(depths, values, marker="o", label=label)
        axis.set_title(table.title.split(". ", 1)[1].split(" (")[0], fontsize=8)
        axis.xaxis.get_major_locator().set_params(integer=True)
        axis.set_xlabel("scramble depth")
        axis.set_ylabel(headline)
        axis.set_ylim(-0.05, 1.05)
        axis.legend(fontsize=5)
    figure.tight_layout()
    path = Path(out_dir) / "cube_by_depth.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return [("Cube Bench: headline metric of each test by scramble depth", path)]


register("cube", summarize, plot)
