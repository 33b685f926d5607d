"""Duel tournaments (seat-swapped round robin) and the SFT exporter (disjoint seeds, replayable)."""

from __future__ import annotations

import base64
import json
from collections import Counter

import pytest

import cogsim
from cogsim import metrics
from cogsim.benchmarks.rngbench import pairs
from cogsim.harness import sft, tournament
from cogsim.render.frames import encode_frames


def test_every_pairing_plays_each_board_twice_with_seats_swapped():
    first_free = lambda obs: "Action: (1, 1)"  # a deliberately bad agent: always the top-left card
    agents = {"oracle": "oracle", "random": "random", "stubborn": first_free}
    episodes = tournament.tournament(agents, seeds=[3, 4], rows=2, cols=4)
    assert len(episodes) == 3 * 2 * 2
    seatings = Counter((tuple(e["players"]), e["seed"]) for e in episodes)
    for a, b in [("oracle", "random"), ("oracle", "stubborn"), ("random", "stubborn")]:
        for seed in (3, 4):
            assert seatings[((a, b), seed)] == 1 and seatings[((b, a), seed)] == 1
    json.dumps(episodes)
    table = next(t for t in metrics.summarize("pairs", episodes) if t.title == "Matching Pairs duels")
    ranking = [row[0] for row in table.rows]
    assert ranking[0] == "oracle" and table.rows[0][-1] > 1500


def test_sft_records_replay_the_optimal_episode():
    records = list(sft.sft_records("pairs/single", [(2, 4)], [1_000_003]))
    assert len(records) == 1
    record = records[0]
    assert record["messages"][0]["role"] == "system" and record["meta"]["split"] == "train"
    env = cogsim.make("pairs/single", rows=2, cols=4)
    env.reset(seed=1_000_003)
    answers = [m["content"] for m in record["messages"] if m["role"] == "assistant"]
    for answer in answers:
        *_, terminated, truncated, info = env.step(answer)
    assert terminated and info["episode"] == record["meta"]["episode"] and info["episode"]["score"] == 1.0
    assert len(answers) == pairs.optimal_responses(pairs.deal(2, 4, 1_000_003))


def test_sft_seed_ranges_are_disjoint_and_enforced():
    assert sft.TRAIN_SEEDS.start >= sft.EVAL_SEEDS.stop
    with pytest.raises(ValueError, match="split 'train'"):
        list(sft.sft_records("maze3d/nav", [5], [7]))
    with pytest.raises(ValueError, match="split 'eval'"):
        list(sft.sft_records("maze3d/nav", [5], [1_000_000], split="eval"))
    with pytest.raises(ValueError, match="env_id"):
        list(sft.sft_records("pairs/duel", [(2, 2)], [1_000_000]))


def test_sft_history_windows_and_images(tmp_path):
    records = list(sft.sft_records("maze3d/nav", [5], [1_000_001], options={"modality": "text", "history": "last:3"}))
    steps = records[0]["meta"]["episode"]["steps"]
    assert len(records) == steps
    assert [len(r["messages"]) for r in records[:4]] == [3, 5, 7, 7]
    assert all(m["content"].startswith("Action: ") for r in records for m in r["messages"] if m["role"] == "assistant")
    image_records = list(
        sft.sft_records("pairs/single", [(2, 2)], [5], split="eval", options={"modality": "image", "card_width": 16})
    )
    first_user = image_records[0]["messages"][1]["content"]
    # the bytes a model gets: the release's JPEG of the board (quality 85), with its MIME type
    env = cogsim.make("pairs/single", modality="image", card_width=16, rows=2, cols=2)
    board = env.reset(seed=5)[0]["images"][0]
    (sent,) = encode_frames([board], env.frame_format())
    assert first_user[0] == {"type": "image", "image": "data:image/jpeg;base64," + base64.b64encode(sent).decode()}
    pngs = list(sft.sft_records("pairs/single", [(2, 2)], [5], "eval", {"modality": "image", "look": "cogsim"}))
    assert pngs[0]["messages"][1]["content"][0]["image"].startswith("data:image/png;base64,")
    assert sft.write_jsonl(image_records, tmp_path / "sft.jsonl") == 1
    assert json.loads((tmp_path / "sft.jsonl").read_text().splitlines()[0])["meta"]["seed"] == 5
