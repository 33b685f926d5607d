"""WILT metrics: accuracy, approximately correct, tests used, repeats, guess complexity, hypothesis-
space reduction per turn, and the test-swap experiment.

Definitions (per episode, from ``info["episode"]``):
    accuracy:          the final guess is equivalent to the hidden rule on the standard case set
    approx. correct:   the paper's model-judge figure: by the deterministic proxy of ``cogsim.benchmarks.wilt.judge``
                       (default), cogsim's earlier Jaccard >= 0.9, or a model judge (env ``judge=``); the
                       "approx. by" column names the method that produced it (older runs: "jaccard")
    tests used:        test cases proposed before the final guess (the paper's "average guesses")
    repeats:           test cases identical to an earlier one in the episode
    reduction curve:   after turn t, the fraction of the generated hypothesis space (2000 rules)
                       inconsistent with the observed results; it stays at its last value after the guess
    complexity:        operator count and character length of the guess; inclusion ratio
                       |guess True| / |hidden True| where one True set contains the other. As the
                       release's analysis (analysis/complexity_analysis.py): medians over the judged
                       guesses (correct or wrong, not invalid), operators counted as it counts them
                       (``release_operator_count``: substring counts of its operator list, longest
                       first). ``summary_row(..., complexity="mean")`` gives means instead.
Test-swap episodes (``swap`` true) are reported only in the test-swap table.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from cogsim.metrics import Table, mean_ci, register, wilson

MAX_TURNS = 30
CURVE_TURNS = (1, 2, 5, 10, 15, 20, 30)


def _group(episodes: Sequence[dict], *keys: str) -> dict:
    groups: dict = defaultdict(list)
    for e in episodes:
        groups[tuple(e.get(k) for k in keys)].append(e)
    return dict(sorted(groups.items(), key=lambda kv: tuple(str(v) for v in kv[0])))


def _mean(values) -> Optional[float]:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def reduction_curve(episodes: Sequence[dict], max_turns: int = MAX_TURNS) -> np.ndarray:
    """Mean eliminated fraction of the hypothesis space after each turn 1..max_turns."""
    if not episodes:
        return np.zeros(0)
    curves = np.zeros((len(episodes), max_turns))
    for row, episode in enumerate(episodes):
        reduction = list(episode.get("reduction") or [])[:max_turns]
        if reduction:
            curves[row, : len(reduction)] = reduction
            curves[row, len(reduction) :] = reduction[-1]
    return curves.mean(axis=0)


RELEASE_OPERATORS = (
    "and",
    "or",
    "not",
    "**",
    "==",
    "!=",
    "<=",
    ">=",
    ">>",
    "<<",
    "//",
    "+",
    "-",
    "/",
    "*",
    "=",
    "%",
    "&",
    "|",
    "~",
    "^",
    "<",
    ">",
)
COMPLEXITY_STATISTICS = ("median", "mean")


def release_operator_count(source: str) -> int:
    """Operators in a guess as the release counts them: for each operator of its list, longest first,
    count the occurrences in the text, then delete them (so "<=" is not counted again as "<" and "=")."""
    count = 0
    for op in sorted(RELEASE_OPERATORS, key=len, reverse=True):
        count += source.count(op)
        source = source.replace(op, "")
    return count


def _stat(values, statistic: str) -> Optional[float]:
    values = [v for v in values if v is not None]
    if not values:
        return None
    return float(np.median(values) if statistic == "median" else np.mean(values))


def summary_row(episodes: Sequence[dict], complexity: str = "median") -> dict:
    if complexity not in COMPLEXITY_STATISTICS:
        raise ValueError(f"complexity must be one of {COMPLEXITY_STATISTICS}, got {complexity!r}")
    n = len(episodes)
    guessed = [e for e in episodes if e.get("guessed") and not e.get("invalid")]
    ratios = [e["inclusion_ratio"] for e in guessed if e.get("inclusion_ratio") is not None]
    return {
        "episodes": n,
        "accuracy": wilson(sum(bool(e["correct"]) for e in episodes), n),
        "approx_correct": wilson(sum(bool(e["approx_correct"]) for e in episodes), n),
        "tests_used": mean_ci([e["num_tests"] for e in episodes]),
        "repeats": mean_ci([e["repeats"] for e in episodes]),
        "guess_operators": _stat((_release_ops(e) for e in guessed), complexity),
        "guess_length": _stat((e.get("guess_length") for e in guessed), complexity),
        "inclusion_ratio": _stat(ratios, complexity),
        "complexity_statistic": complexity,
        "approx_method": ", ".join(sorted({str(e.get("approx_method") or "jaccard") for e in episodes})),
        "no_guess": sum(not e.get("guessed") for e in episodes),
    }


def _release_ops(episode: dict) -> Optional[int]:
    source = episode.get("guess")
    return release_operator_count(source) if isinstance(source, str) else episode.get("guess_operators")


def summarize(episodes: Sequence[dict]) -> list[Table]:
    played = [e for e in episodes if not e.get("swap")]
    tables = []
    if played:
        tables.append(_results_table(played))
        tables.append(_tier_table(played))
        tables.append(_curve_table(played))
    swapped = [e for e in episodes if e.get("swap")]
    if swapped:
        tables.append(_swap_table(swapped))
    return tables


def _results_table(episodes) -> Table:
    table = Table(
        "WILT: results by agent",
        [
            "env",
            "agent",
            "episodes",
            "accuracy %",
            "approx. correct %",
            "tests used",
            "repeats",
            "guess ops",
            "guess length",
            "inclusion ratio",
            "no valid guess",
            "approx. by",
        ],
        note="Accuracy: equivalent on the release's point set (Wilson 95% CI). Approx. correct: wrong but near, "
        "by the method in 'approx. by'. Tests used is the paper's 'average guesses'. Guess ops, length and "
        "inclusion ratio: medians over judged guesses, as the release's complexity analysis.",
    )
    for (env_id, agent), group in _group(episodes, "env_id", "agent").items():
        s = summary_row(group)
        table.rows.append(
            [
                env_id,
                agent,
                s["episodes"],
                s["accuracy"].format(percent=True),
                s["approx_correct"].format(percent=True),
                s["tests_used"].format(),
                s["repeats"].format(digits=2),
                _fmt(s["guess_operators"]),
                _fmt(s["guess_length"]),
                _fmt(s["inclusion_ratio"], 2),
                s["no_guess"],
                s["approx_method"],
            ]
        )
    return table


def _tier_table(episodes) -> Table:
    tiers = sorted(
        {e.get("tier") for e in episodes},
        key=lambda t: ["easy", "medium", "very hard"].index(t) if t in ("easy", "medium", "very hard") else 9,
    )
    table = Table("WILT: accuracy by tier", ["env", "agent", *[f"{t} %" for t in tiers]])
    for (env_id, agent), group in _group(episodes, "env_id", "agent").items():
        cells = []
        for tier in tiers:
            members = [e for e in group if e.get("tier") == tier]
            cells.append(wilson(sum(bool(e["correct"]) for e in members), len(members)).format(percent=True))
        table.rows.append([env_id, agent, *cells])
    return table


def _curve_table(episodes) -> Table:
    table = Table(
        "WILT: hypothesis space eliminated after turn t (%)",
        ["env", "agent", *[f"t={t}" for t in CURVE_TURNS]],
        note="Mean fraction of the generated 2000-rule hypothesis space inconsistent with the tests so far.",
    )
    for (env_id, agent), group in _group(episodes, "env_id", "agent").items():
        curve = reduction_curve(group)
        table.rows.append([env_id, agent, *[f"{100 * curve[t - 1]:.1f}" for t in CURVE_TURNS]])
    return table


def _swap_table(episodes) -> Table:
    table = Table(
        "WILT: test swap (guess from another agent's test cases, one turn)",
        ["env", "guesser", "tests from", "episodes", "accuracy %", "approx. correct %"],
    )
    for (env_id, agent, source), group in _group(episodes, "env_id", "agent", "swap_source").items():
        s = summary_row(group)
        table.rows.append(
            [
                env_id,
                agent,
                source or "?",
                s["episodes"],
                s["accuracy"].format(percent=True),
                s["approx_correct"].format(percent=True),
            ]
        )
    return table


def _fmt(value, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


# -- test swap ---------------------------------------------------------------------------------------


def swap_options(episode: dict) -> dict:
    """Env options that replay ``episode``'s test cases (reasoning stripped) to another guesser."""
    if episode.get("rule_index", -1) < 0:
        raise ValueError("test swap needs an episode of a fixed split (wilt/full or wilt/lite), not procedural")
    return {
        "rule_index": episode["rule_index"],
        "given_tests": [t[:3] for t in episode["tests"]],
        "swap_source": episode.get("agent"),
    }


def run_test_swap(source_episodes: Sequence[dict], guesser: str, seed: int = 0) -> list[dict]:
    """Runs the one-turn test swap with a scripted guesser on every source episode; returns episode
    records in the runner's shape (env_id, options, seed, agent, turns + the env's fields)."""
    from cogsim.envs import make

    records = []
    rng = np.random.default_rng(seed)
    for source in source_episodes:
        options = swap_options(source)
        env = make(source["env_id"], **options)
        env.reset(seed=seed)
        *_, info = env.step(env.scripted_response(guesser, rng))
        records.append(
            {
                "env_id": source["env_id"],
                "options": options,
                "seed": seed,
                "agent": guesser,
                "turns": 1,
                **info["episode"],
            }
        )
    return records


# -- plots -----------------------------------------------------------------------------------------


def plot(episodes: Sequence[dict], out_dir) -> list[tuple[str, Path]]:
    played = [e for e in episodes if not e.get("swap")]
    if not played:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    for (env_id, agent), group in _group(played, "env_id", "agent").items():
        curve = reduction_curve(group)
        ax.plot(np.arange(1, curve.size + 1), 100 * curve, label=f"{agent} ({env_id})")
    ax.set_xlabel("turn")
    ax.set_ylabel("hypothesis space eliminated (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    path = out / "wilt_reduction.png"
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [("WILT: hypothesis-space reduction per turn", path)]


register("wilt", summarize, plot)
