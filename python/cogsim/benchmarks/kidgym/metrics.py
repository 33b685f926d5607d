"""KidGym metrics: success rate per task and level (Wilson 95% intervals), the paper's capability
scores and a radar chart of them.

Capability score of capability c = 100 x mean over the tasks that test c of 0.2 p1 + 0.3 p2 + 0.5 p3,
with p_L the success rate at level L. A task counts only when all three levels were run.

Readings: the level weights are the paper's (Appendix D: w_t = 0.2 p1 + 0.3 p2 + 0.5 p3; the KidGym
release ships no scoring code). The task-to-capability map is ``cogsim.benchmarks.kidgym.tasks``'s (see its
docstring for where the two public READMEs disagree on Memory Decode and Memory Filling). Decode (DE),
the release's thirteenth task, measures Learning; the paper's tables and capability scores use the
other twelve (``PAPER_TASK_CODES``), so a run that includes Decode says so in the scores table.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Mapping, Optional, Sequence

from cogsim import metrics
from cogsim.metrics import Table, wilson

CAPABILITIES = ("Execution", "Memory", "Learning", "Planning", "Perception Reasoning")
LEVEL_WEIGHTS = {1: 0.2, 2: 0.3, 3: 0.5}

# The release's thirteen tasks: code -> (name, capabilities). Names match the env ids kidgym/<name>.
TASK_CAPABILITIES = {
    "CL": ("classification", ("Execution",)),
    "SE": ("selection", ("Memory",)),
    "SO": ("sorting", ("Learning",)),
    "MA": ("maze", ("Planning",)),
    "FI": ("filling", ("Perception Reasoning",)),
    "PU": ("puzzle", ("Perception Reasoning",)),
    "PL": ("placement", ("Learning", "Perception Reasoning")),
    "CO": ("counting", ("Perception Reasoning", "Planning")),
    "DMA": ("decode_maze", ("Learning", "Planning")),
    "MMA": ("memory_maze", ("Memory", "Planning")),
    "MFI": ("memory_filling", ("Perception Reasoning", "Memory")),
    "MDE": ("memory_decode", ("Memory", "Learning")),
    "DE": ("decode", ("Learning",)),  # the release's thirteenth family; the paper reports the other twelve
}
PAPER_TASK_CODES = tuple(code for code in TASK_CAPABILITIES if code != "DE")
_CODE_OF = {name: code for code, (name, _) in TASK_CAPABILITIES.items()}


def _task_code(episode: Mapping) -> str:
    if "code" in episode:
        return str(episode["code"])
    name = str(episode.get("task") or str(episode.get("env_id", "")).split("/", 1)[-1])
    if name not in _CODE_OF:
        raise ValueError(f"episode is not a KidGym episode (task {name!r}); known tasks: {', '.join(_CODE_OF)}")
    return _CODE_OF[name]


def _level(episode: Mapping) -> int:
    level = episode.get("level", (episode.get("options") or {}).get("level", 1))
    if level not in LEVEL_WEIGHTS:
        raise ValueError(f"episode level must be 1, 2 or 3, got {level!r}")
    return int(level)


def _group(episode: Mapping) -> str:
    agent = str(episode.get("agent", "agent"))
    prompt = episode.get("prompt")
    return f"{agent} ({prompt})" if prompt and prompt != "zero_shot" else agent


def success_counts(episodes: Sequence[Mapping]) -> dict[str, dict[str, dict[int, tuple[int, int]]]]:
    """group -> task code -> level -> (successes, episodes)."""
    counts: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: [0, 0])))
    for episode in episodes:
        cell = counts[_group(episode)][_task_code(episode)][_level(episode)]
        cell[0] += bool(episode["success"])
        cell[1] += 1
    return {
        g: {t: {lv: tuple(c) for lv, c in levels.items()} for t, levels in tasks.items()} for g, tasks in counts.items()
    }


def weighted_score(rates: Mapping[int, float]) -> Optional[float]:
    """0.2 p1 + 0.3 p2 + 0.5 p3, or None unless all three levels are present."""
    if set(rates) != set(LEVEL_WEIGHTS):
        return None
    return sum(LEVEL_WEIGHTS[level] * rates[level] for level in LEVEL_WEIGHTS)


def capability_scores(
    rates: Mapping[str, Mapping[int, float]], codes: Optional[Sequence[str]] = None
) -> dict[str, Optional[float]]:
    """rates: task code -> level -> success rate. Returns capability -> score in 0..100 (None: no task).
    ``codes`` limits the tasks counted (``PAPER_TASK_CODES``: the paper's twelve, as its Table 6)."""
    per_capability: dict[str, list[float]] = defaultdict(list)
    for code, levels in rates.items():
        if codes is not None and code not in codes:
            continue
        score = weighted_score(levels)
        if score is None:
            continue
        for capability in TASK_CAPABILITIES[code][1]:
            per_capability[capability].append(score)
    return {
        c: (100.0 * sum(per_capability[c]) / len(per_capability[c]) if per_capability[c] else None)
        for c in CAPABILITIES
    }


def _complete(levels: Optional[Mapping[int, tuple[int, int]]]) -> bool:
    return bool(levels) and all(levels.get(lv, (0, 0))[1] for lv in LEVEL_WEIGHTS)


def _rates(tasks: Mapping[str, Mapping[int, tuple[int, int]]]) -> dict[str, dict[int, float]]:
    return {code: {lv: s / n for lv, (s, n) in levels.items() if n} for code, levels in tasks.items()}


def summarize(episodes: Sequence[Mapping]) -> list[Table]:
    tables = []
    counts = success_counts(episodes)
    score_rows = []
    for group in sorted(counts):
        tasks = counts[group]
        table = Table(
            f"KidGym success rate: {group}",
            ["task", "level 1", "level 2", "level 3", "0.2 p1 + 0.3 p2 + 0.5 p3"],
            note="Success rate (fraction of episodes) with Wilson 95% interval; the weighted score in percent.",
        )
        for code in (c for c in TASK_CAPABILITIES if c in tasks):
            cells = [wilson(*tasks[code][lv]) if lv in tasks[code] else "-" for lv in (1, 2, 3)]
            score = weighted_score(_rates({code: tasks[code]})[code])
            table.rows.append([code] + cells + ["-" if score is None else round(100 * score, 1)])
        tables.append(table)
        scores = capability_scores(_rates(tasks))
        counted = "+DE" if _complete(tasks.get("DE")) else "paper's 12"
        score_rows.append([group, counted] + ["-" if scores[c] is None else round(scores[c], 1) for c in CAPABILITIES])
    tables.append(
        Table(
            "KidGym capability scores",
            ["agent", "tasks"] + list(CAPABILITIES),
            score_rows,
            note="100 x mean over the capability's tasks of 0.2 p1 + 0.3 p2 + 0.5 p3 (tasks with all three levels run). "
            "Decode (DE), the release's thirteenth task, counts in Learning when all its levels were run ('+DE'); "
            "the paper's Table 6 uses the other twelve.",
        )
    )
    return tables


def radar_chart(scores: Mapping[str, Mapping[str, Optional[float]]], path) -> Path:
    """One polygon per agent over the five capabilities (missing scores drawn at 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    angles = np.linspace(0, 2 * np.pi, len(CAPABILITIES), endpoint=False).tolist()
    fig, ax = plt.subplots(figsize=(5.5, 5.5), subplot_kw={"polar": True})
    for agent, values in scores.items():
        points = [values.get(c) or 0.0 for c in CAPABILITIES]
        ax.plot(angles + angles[:1], points + points[:1], label=agent, linewidth=1.6)
        ax.fill(angles + angles[:1], points + points[:1], alpha=0.12)
    ax.set_xticks(angles)
    ax.set_xticklabels(CAPABILITIES)
    ax.set_ylim(0, 100)
    ax.set_title("KidGym capability scores")
    ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.1), fontsize=8)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def plot(episodes: Sequence[Mapping], out_dir) -> list[tuple[str, Path]]:
    counts = success_counts(episodes)
    scores = {group: capability_scores(_rates(tasks)) for group, tasks in counts.items()}
    if not scores:
        return []
    path = radar_chart(scores, Path(out_dir) / "kidgym_capabilities.png")
    return [("KidGym capability scores (radar)", path)]


metrics.register("kidgym", summarize, plot)
