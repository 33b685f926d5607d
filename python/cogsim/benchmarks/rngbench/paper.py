"""paper:rngbench: Table 2, single player: Matching Pairs on a 10x10 board with image observations,
the noise card theme and CoT, seeds 0-2 (the release's launcher); the 3D maze at 13x13 without the
minimap, seeds 0-4. Table 3, duels (two agents or more): Matching Pairs on 8x10 poker boards, two
board seeds, every seating (five models: 16 games each).

Cells whose pictures are not the release's are marked (:func:`release_differences`): cogsim's look (chosen,
or where the release's files were not installed), the goal drawn into the maze's 3D view (``show_goal``),
a look the records do not state, card boards without a record of the release files they came from."""

from __future__ import annotations

from collections import defaultdict

from cogsim.benchmarks.rngbench.maze import metrics as maze_metrics
from cogsim.benchmarks.rngbench.pairs import metrics as pairs_metrics
from cogsim.metrics import Table
from cogsim.report.papers import Cell, Paper, RunCells, fmt, picture_differences, register

PAIRS_SINGLE = {"rows": 10, "cols": 10, "modality": "image", "theme": "noise", "cot": True}
PAIRS_DUEL = {"rows": 8, "cols": 10, "modality": "image", "theme": "poker", "cot": True}
MAZE = {"size": 13}
DUEL_GAMES, DUEL_OPPONENTS = 16, 4


def cells() -> list[Cell]:
    return [
        Cell("pairs/single", dict(PAIRS_SINGLE), 3, seeds=(0, 1, 2)),
        Cell("maze3d/nav", dict(MAZE), 5, seeds=(0, 1, 2, 3, 4)),
        Cell("pairs/duel", dict(PAIRS_DUEL), 2, seeds=(0, 1), min_agents=2),
    ]


def release_differences(cell: Cell, episodes: list[dict]) -> list[str]:
    """Why a cell's pictures are not the release's: cogsim's look, the goal in the maze's 3D view, a look
    not recorded, or Matching Pairs boards drawn in the release's look without a record of the release
    files their card images came from."""
    how = picture_differences(episodes)
    if any(
        e.get("look") == "release"
        and e.get("modality") == "image"
        and e.get("theme") != "ascii"
        and not e.get("release_assets")
        for e in episodes
        if cell.env_id.startswith("pairs/")
    ):
        how.append("the release files the card images came from are not recorded")
    return how


def _pairs_cells(games: list[dict]) -> list:
    if not games:
        return [None] * 4
    responses = sum(e["responses"] for e in games)
    return [
        sum(e["parse_failures"] for e in games) / responses if responses else None,
        sum(e["invalid"] for e in games) / responses if responses else None,
        pairs_metrics.responses_per_pair(games),
        pairs_metrics.score(games).value,
    ]


def _maze_cells(episodes: list[dict]) -> list:
    if not episodes:
        return [None] * 5
    return [
        maze_metrics.success_rate(episodes),
        maze_metrics.explore(episodes),
        sum(e["collisions"] for e in episodes) / len(episodes),
        maze_metrics.efficiency(episodes),
        maze_metrics.game_score(episodes),
    ]


TABLE2_COLUMNS = ["PF %", "IA %", "Resp./Score", "Score %", "SR %", "Explore %", "Walls", "Eff. %", "GS %"]
TABLE2_FIELDS = ["pf", "ia", "resp_per_score", "score", "sr", "explore", "walls", "eff", "gs"]
# (digits, scale) per column: rates in percent, Resp./Score and Walls as they are
TABLE2_FORMAT = [(1, 100), (1, 100), (2, 1), (1, 100), (1, 100), (1, 100), (1, 1), (1, 100), (1, 100)]


def _table2(run: RunCells, data: dict) -> Table:
    pairs, maze = run.find("pairs/single", **PAIRS_SINGLE), run.find("maze3d/nav", **MAZE)
    table = Table(
        "RNG-Bench Table 2: single player (Matching Pairs 10x10, image, noise; 3D maze 13x13)",
        ["model", "source"] + TABLE2_COLUMNS,
        note="PF/IA: parse failures and invalid flips per response; Resp./Score: responses per "
        "matched pair; Eff.: L*/L over successes; GS = (SR + SR x Eff. + (1 - SR) x Explore) / 2. The pictures "
        "are the release's (its noise cards from the installed release files, its raycast maze view), sent as "
        "it sends them (JPEG); cells drawn otherwise are marked.",
    )
    for agent in run.agents(pairs, maze):
        values = _pairs_cells(run.get(pairs, agent)) + _maze_cells(run.get(maze, agent))
        row = [agent, "this run"]
        for i, (value, (digits, scale)) in enumerate(zip(values, TABLE2_FORMAT)):
            cell = pairs if i < 4 else maze
            row.append(run.mark("Table 2", agent, TABLE2_COLUMNS[i], [cell], fmt(value, digits, scale)))
        table.rows.append(row)
    for published in data["table2"]:
        table.rows.append([published["model"], "Table 2"] + [f"{published[f]:g}" for f in TABLE2_FIELDS])
    return table


def _table3(run: RunCells, data: dict) -> Table:
    duel = run.find("pairs/duel", **PAIRS_DUEL)
    table = Table(
        "RNG-Bench Table 3: Matching Pairs duels (8x10, poker)",
        ["model", "source", "Win %", "W", "T", "L", "Score %", "Elo"],
        note="Win% = (W + T/2) / games; Score%: share of the board's pairs won; Elo starts at 1500 "
        "(K=32, averaged over seeded game orders; the paper states neither K nor the order).",
    )
    seatings = run.agents(duel)
    episodes = [e for seating in seatings for e in run.get(duel, seating) if pairs_metrics.players_of(e)]
    games = pairs_metrics.duel_games(episodes)
    if games:
        ratings = pairs_metrics.elo_ratings(games)
        record: dict = defaultdict(lambda: [0, 0, 0])
        won: dict = defaultdict(list)
        opponents: dict = defaultdict(set)
        for episode, (a, b, result) in zip(episodes, games):
            for seat, (player, outcome) in enumerate(((a, result), (b, 1.0 - result))):
                record[player][0 if outcome == 1.0 else 1 if outcome == 0.5 else 2] += 1
                won[player].append(episode["scores"][seat] / episode["pairs"])
                opponents[player].add(b if seat == 0 else a)
        for player in sorted(record, key=lambda p: -ratings[p]):
            w, t, l = record[player]
            how = sorted({reason for s in seatings if player in s.split(" vs ") for reason in run.how_differs(duel, s)})
            if w + t + l != DUEL_GAMES or len(opponents[player]) != DUEL_OPPONENTS:
                how.append(
                    f"{w + t + l} games against {len(opponents[player])} opponents "
                    f"(the paper: {DUEL_GAMES} against {DUEL_OPPONENTS})"
                )
            mark = lambda label, value: run.mark("Table 3", player, label, [], value, also=how)
            values = [
                ("Win %", fmt(pairs_metrics.win_rate(w, t, l).value, 1, 100)),
                ("W", str(w)),
                ("T", str(t)),
                ("L", str(l)),
                ("Score %", fmt(sum(won[player]) / len(won[player]), 1, 100)),
                ("Elo", fmt(ratings[player], 0)),
            ]
            table.rows.append([player, "this run"] + [mark(label, value) for label, value in values])
    for published in data["table3"]:
        table.rows.append(
            [published["model"], "Table 3"]
            + [f"{published['win']:g}", str(published["w"]), str(published["t"]), str(published["l"])]
            + [f"{published['score']:g}", str(published["elo"])]
        )
    return table


def tables(run: RunCells, data: dict) -> list[Table]:
    return [_table2(run, data), _table3(run, data)]


register(Paper("rngbench", "RNG-Bench (Tables 2 and 3)", cells(), tables, __package__, release_differences))
