"""Matching Pairs metrics: Score%, Resp./Score, PF%, IA% (single player), Win%, W/T/L and Elo
(duels), and the Memory Gap against the oracle (memory map) condition."""

from __future__ import annotations

from collections import defaultdict
from typing import Optional, Sequence

import numpy as np

from cogsim.benchmarks.rngbench.stats import agent_name, bootstrap_statistic, group, memory_gap_table, option
from cogsim.metrics import Estimate, Table, mean_ci, register, wilson

# Elo starts at 1500 as in the paper's duel table (its ratings average 1500). Neither the paper's
# text available here nor the release states K or computes Elo; K=32 is cogsim's choice.
ELO_BASE, ELO_K, ELO_ORDERS = 1500.0, 32.0, 200
ELO_BASE_COGSIM = 1000.0  # cogsim's earlier start rating (elo_base=ELO_BASE_COGSIM)
TIES = ("half", "loss")  # Win%: a tie counts half a win (paper), or as no win (cogsim's earlier wins / games)


def is_duel(episode: dict) -> bool:
    return str(episode.get("env_id", "")).endswith("/duel") or isinstance(episode.get("scores"), (list, tuple))


def condition(episode: dict, with_memory: bool = True) -> str:
    modality = option(episode, "modality", "text")
    parts = [modality if modality == "text" else f"image/{option(episode, 'theme', 'ascii')}"]
    if with_memory and option(episode, "memory_map", False):
        parts.append("memory map")
    if not option(episode, "cot", True):
        parts.append("no CoT")
    if not option(episode, "feedback", True):
        parts.append("no feedback")
    return ", ".join(parts)


def board(episode: dict) -> str:
    return f"{option(episode, 'rows', '?')}x{option(episode, 'cols', '?')}"


def responses_per_pair(episodes: Sequence[dict]) -> float:
    """Responses per matched pair, pooled over the episodes (nan when nothing was matched)."""
    matched = sum(e["matched"] for e in episodes)
    return sum(e["responses"] for e in episodes) / matched if matched else float("nan")


def score(episodes: Sequence[dict]) -> Estimate:
    return mean_ci([e["matched"] / e["pairs"] for e in episodes], bounds=(0.0, 1.0))


def single_table(episodes: Sequence[dict]) -> Table:
    table = Table(
        "Matching Pairs (single player)",
        ["Agent", "Board", "Condition", "N", "Score %", "Resp./Score", "Optimal Resp./Score", "PF %", "IA %"],
        note="Score% = pairs matched / pairs; Resp./Score = responses per matched pair (pooled; the perfect-memory optimum "
        "on the same boards beside it); PF% = parse failures and IA% = invalid flips, per response.",
    )
    for (agent, size, cond), items in group(episodes, lambda e: (agent_name(e), board(e), condition(e))).items():
        responses = sum(e["responses"] for e in items)
        optimal = sum(e["optimal_responses"] for e in items) / sum(e["pairs"] for e in items)
        table.rows.append(
            [
                agent,
                size,
                cond,
                len(items),
                _percent(score(items)),
                bootstrap_statistic(items, responses_per_pair),
                round(optimal, 2),
                _percent(wilson(sum(e["parse_failures"] for e in items), responses)),
                _percent(wilson(sum(e["invalid"] for e in items), responses)),
            ]
        )
    return table


def _percent(estimate: Estimate) -> Estimate:
    scale = lambda v: None if v is None else 100.0 * v
    return Estimate(100.0 * estimate.value, scale(estimate.low), scale(estimate.high), estimate.n)


def players_of(episode: dict) -> Optional[tuple[str, str]]:
    """The two agents of a duel episode, in seat order: ``players`` from the env (set via
    reset(options={"players": [a, b]})), else the runner's ``agent`` as a pair or "a vs b"."""
    for candidate in (episode.get("players"), episode.get("agent")):
        if isinstance(candidate, (list, tuple)) and len(candidate) == 2:
            return str(candidate[0]), str(candidate[1])
        if isinstance(candidate, str) and " vs " in candidate:
            a, b = candidate.split(" vs ", 1)
            return a, b
    return None


def duel_games(episodes: Sequence[dict]) -> list[tuple[str, str, float]]:
    """(seat-0 agent, seat-1 agent, seat-0 result: 1 win, 0.5 tie, 0 loss) per duel episode."""
    games = []
    for episode in episodes:
        players = players_of(episode)
        if players is None:
            continue
        a, b = episode["scores"]
        games.append((players[0], players[1], 1.0 if a > b else 0.5 if a == b else 0.0))
    return games


def elo_ratings(
    games: Sequence[tuple[str, str, float]],
    k: float = ELO_K,
    base: float = ELO_BASE,
    orders: int = ELO_ORDERS,
    seed: int = 0,
) -> dict[str, float]:
    """Sequential Elo, averaged over ``orders`` seeded shuffles of the games (the order of games
    played in parallel carries no meaning); one order when there is one game."""
    players = sorted({p for a, b, _ in games for p in (a, b)})
    if not games:
        return {}
    rng = np.random.default_rng(seed)
    totals = defaultdict(float)
    runs = 1 if len(games) == 1 else orders
    for run in range(runs):
        order = range(len(games)) if run == 0 else rng.permutation(len(games))
        rating = {p: base for p in players}
        for index in order:
            a, b, result = games[index]
            expected = 1.0 / (1.0 + 10 ** ((rating[b] - rating[a]) / 400.0))
            rating[a] += k * (result - expected)
            rating[b] -= k * (result - expected)
        for p in players:
            totals[p] += rating[p]
    return {p: totals[p] / runs for p in players}


def win_rate(wins: int, ties: int, losses: int, tie_rule: str = "half") -> Estimate:
    """Win% as a fraction: (W + T/2) / games with tie_rule="half" (the paper: 7/2/7 gives 50.0),
    W / games with tie_rule="loss" (cogsim's earlier rule, Wilson interval)."""
    if tie_rule not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}, got {tie_rule!r}")
    n = wins + ties + losses
    if tie_rule == "loss":
        return wilson(wins, n)
    return mean_ci([1.0] * wins + [0.5] * ties + [0.0] * losses, bounds=(0.0, 1.0))


def duel_tables(episodes: Sequence[dict], ties: str = "half", elo_base: float = ELO_BASE) -> list[Table]:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    games = duel_games(episodes)
    if not games:
        return []
    record = defaultdict(lambda: [0, 0, 0])
    pairs_won = defaultdict(list)
    for episode, (a, b, result) in zip([e for e in episodes if players_of(e)], games):
        for seat, (player, outcome) in enumerate(((a, result), (b, 1.0 - result))):
            record[player][0 if outcome == 1.0 else 1 if outcome == 0.5 else 2] += 1
            pairs_won[player].append(episode["scores"][seat] / episode["pairs"])
    ratings = elo_ratings(games, base=elo_base)
    rule = "(wins + ties / 2) / games" if ties == "half" else "wins / games"
    table = Table(
        "Matching Pairs duels",
        ["Agent", "Games", "Win %", "W/T/L", "Pairs won %", "Elo"],
        note=f"Every pairing plays each board twice with the seats swapped. Win% = {rule}; Elo: K={ELO_K:g}, start "
        f"{elo_base:g}, averaged over {ELO_ORDERS} seeded orders of the games.",
    )
    for player in sorted(record, key=lambda p: -ratings[p]):
        w, t, l = record[player]
        n = w + t + l
        table.rows.append(
            [
                player,
                n,
                _percent(win_rate(w, t, l, ties)),
                f"{w}/{t}/{l}",
                _percent(mean_ci(pairs_won[player], bounds=(0.0, 1.0))),
                round(ratings[player], 1),
            ]
        )
    head = _head_to_head(games)
    return [table] + ([head] if head else [])


def _head_to_head(games) -> Optional[Table]:
    results = defaultdict(lambda: [0, 0, 0])
    for a, b, result in games:
        first, second = sorted((a, b))
        mine = result if a == first else 1.0 - result
        results[(first, second)][0 if mine == 1.0 else 1 if mine == 0.5 else 2] += 1
    table = Table("Matching Pairs duels, head to head", ["Agent", "Opponent", "W/T/L"])
    for (a, b), (w, t, l) in sorted(results.items()):
        table.rows.append([a, b, f"{w}/{t}/{l}"])
    return table


def summarize(episodes: Sequence[dict], ties: str = "half", elo_base: float = ELO_BASE) -> list[Table]:
    """All Matching Pairs tables. ties: "half" (paper) or "loss" (cogsim's earlier Win%);
    elo_base: the start rating (1500, the paper; ELO_BASE_COGSIM for cogsim's earlier 1000)."""
    singles = [e for e in episodes if not is_duel(e)]
    duels = [e for e in episodes if is_duel(e)]
    tables: list[Table] = []
    if singles:
        tables.append(single_table(singles))
        gaps: dict[tuple, dict[bool, Estimate]] = defaultdict(dict)
        for (agent, size, cond, memory), items in group(
            singles,
            lambda e: (agent_name(e), board(e), condition(e, with_memory=False), bool(option(e, "memory_map", False))),
        ).items():
            gaps[(agent, size, cond)][memory] = score(items)
        gap = memory_gap_table("Matching Pairs Memory Gap (Score)", "Score", gaps, ["Agent", "Board", "Condition"])
        if gap:
            tables.append(gap)
    tables += duel_tables(duels, ties=ties, elo_base=elo_base)
    return tables


register("pairs", summarize)
