"""The metric suite ``guess``: per env and agent, the share of episodes solved within the budget
(Wilson 95% interval) and the guesses a solved episode took (mean, normal 95% interval)."""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from cogsim.metrics import Table, mean_ci, register, wilson

TITLE = "Guess: solved within the budget"


def summarize(episodes: Sequence[dict]) -> list[Table]:
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for episode in episodes:
        groups[episode["env_id"], str(episode["agent"])].append(episode)
    table = Table(TITLE, ["env", "agent", "episodes", "solved", "guesses when solved"])
    for (env_id, agent), group in sorted(groups.items()):
        solved = [e for e in group if e["solved"]]
        table.rows.append(
            [env_id, agent, len(group), wilson(len(solved), len(group)), mean_ci([e["guesses"] for e in solved])]
        )
    return [table]


register("guess", summarize)
