"""Cube Bench protocol defaults: the release's closed-loop credit rule, its decoding per test, its
answer extraction inside the envs, and the name of the protocol variant in every episode."""

import numpy as np
import pytest

import cogsim
from cogsim import cube
from cogsim.cube.suite import views
from cogsim.envs.cube import RELEASE_DECODING

TESTS = ["reconstruction", "verification", "optimal-move", "reflection", "closed-loop", "move-effect", "recovery"]


@pytest.fixture(autouse=True)
def _oracle(cube_oracle):
    return cube_oracle


def _detour(env, seeds=range(40)):
    """A reset episode whose first step offers a progress move other than the teacher's."""
    for seed in seeds:
        env.reset(seed=seed)
        others = [
            letter
            for letter, move in zip("ABCD", env.current["options"])
            if env.current["effects"][move] == "DECREASE" and move != env.plan[0]
        ]
        if others:
            return seed, others[0]
    raise AssertionError("no item with a second progress move")


@pytest.mark.parametrize("test", TESTS)
def test_release_is_the_default_and_decoding_is_declared(test):
    env = cogsim.make(f"cube/{test}", depth=2)
    assert env.protocol == "release"
    assert env.metadata["cogsim.decoding"] == RELEASE_DECODING[test]
    assert env.metadata["cogsim.decoding"]["max_tokens"] >= 16384  # never the old 512-token default
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        _, _, done, _, info = env.step(env.scripted_response("oracle", rng))
        if done:
            break
    assert info["episode"]["protocol"] == "release"


def test_the_release_decoding_values():
    assert RELEASE_DECODING["reconstruction"] == {"max_tokens": 65536, "temperature": 0.1}
    assert RELEASE_DECODING["verification"] == {"max_tokens": 16384, "temperature": 0.0}
    assert RELEASE_DECODING["optimal-move"]["temperature"] == 0.1
    assert RELEASE_DECODING["closed-loop"] == {"max_tokens": 65536, "temperature": 0.0}


def test_variants_are_named():
    env = cogsim.make("cube/closed-loop", depth=2, parser="strict", credit="progress")
    assert env.protocol == "parser=strict,credit=progress"
    with pytest.raises(ValueError, match="credit must be one of"):
        cogsim.make("cube/closed-loop", credit="any")
    with pytest.raises(ValueError, match="parser must be one of"):
        cogsim.make("cube/optimal-move", parser="loose")


def test_release_credit_counts_only_the_teacher_and_does_not_replan():
    env = cogsim.make("cube/closed-loop", depth=3, modality="text")
    seed, letter = _detour(env)
    teacher = list(env.item["teacher"])
    _, reward, done, _, _ = env.step(f"I will take {letter}. <ANSWER> {letter} </ANSWER>")
    assert reward == 0.0 and not done  # applied and the episode goes on, without credit
    assert env.plan == teacher[1:]  # the teacher's path is walked on, not replanned
    assert env.current["options"][list("ABCD").index(env.current["gold"])] == teacher[1]
    rng = np.random.default_rng(0)
    while not done:
        _, reward, done, _, info = env.step(env.scripted_response("oracle", rng))
    episode = info["episode"]
    assert episode["credit"] == "release" and episode["outcomes"][0] == "progress"
    assert episode["adherent"] == episode["teacher_moves"] == episode["outcomes"].count("teacher")
    assert episode["progress_moves"] >= episode["adherent"] + 1
    assert not episode["perfect_solve"]


def test_progress_credit_keeps_cogsims_reading():
    env = cogsim.make("cube/closed-loop", depth=3, modality="text", credit="progress")
    _, letter = _detour(env)
    _, reward, done, _, _ = env.step(f"<ANSWER> {letter} </ANSWER>")
    assert reward == 1.0 and not done
    assert env.plan == list(cube.solve(env.state))  # the teacher replans from the new state


def test_a_non_progress_move_ends_the_episode_under_both_rules():
    for credit in ("release", "progress"):
        env = cogsim.make("cube/closed-loop", depth=3, modality="text", credit=credit)
        env.reset(seed=1)
        bad = next(
            letter for letter, move in zip("ABCD", env.current["options"]) if env.current["effects"][move] != "DECREASE"
        )
        _, reward, done, _, info = env.step(f"<ANSWER> {bad} </ANSWER>")
        assert done and reward == 0.0 and info["episode"]["outcomes"] == ["wrong"]


def test_the_envs_use_the_release_extraction():
    env = cogsim.make("cube/optimal-move", depth=1, modality="text")
    env.reset(seed=3)
    gold = env.item["gold"]
    reply = f"Let me check each option.\n**Final answer:** <answer> {gold.lower()} </answer>"
    assert env.step(reply)[1] == 1.0
    strict = cogsim.make("cube/optimal-move", depth=1, modality="text", parser="strict")
    strict.reset(seed=3)
    _, reward, _, _, info = strict.step(reply)
    assert reward == 0.0 and info["parse"] == "parse_failure"


def test_release_abstention_phrases():
    env = cogsim.make("cube/closed-loop", depth=2, modality="text", abstention=True, abstain_policy="skip_item")
    env.reset(seed=0)
    _, _, done, _, info = env.step("Hard to say, I don't know.")
    assert done and info["episode"]["outcomes"] == ["abstain"]


def test_state_text_and_images_use_the_release_colours():
    env = cogsim.make("cube/optimal-move", depth=1, modality="text")
    obs, _ = env.reset(seed=0)
    assert views.release_net_text(views.recolour(env.item["facelets"])) in obs["text"]
    solved_text = views.release_net_text(views.recolour("U" * 9 + "R" * 9 + "F" * 9 + "D" * 9 + "L" * 9 + "B" * 9))
    assert solved_text.splitlines()[3] == "[r][r][r][g][g][g][o][o][o][b][b][b]"
    recon = cogsim.make("cube/reconstruction", depth=1)
    recon.reset(seed=0)
    _, reward, _, _, _ = recon.step(recon.scripted_response("oracle", np.random.default_rng(0)))
    assert reward == 1.0


def test_metrics_report_teacher_and_progress_adherence():
    from cogsim.metrics import cube as cube_metrics

    env = cogsim.make("cube/closed-loop", depth=3, modality="text")
    _, letter = _detour(env)
    env.step(f"<ANSWER> {letter} </ANSWER>")
    rng, done = np.random.default_rng(0), False
    while not done:
        _, _, done, _, info = env.step(env.scripted_response("oracle", rng))
    episode = {"env_id": "cube/closed-loop", "agent": "scripted", **info["episode"]}
    table = cube_metrics.closed_loop_table([episode])
    row = dict(zip(table.columns, table.rows[0]))
    assert "credit=release" in row["variant"]
    assert row["TA%"].value == pytest.approx(episode["teacher_moves"] / 3)
    assert row["PA%"].value == pytest.approx(episode["progress_moves"] / 3) and row["PA%"].value > row["TA%"].value
    by_step = cube_metrics.adherence_by_step_table([episode])
    assert by_step.rows[0][4].value == 0.0  # step 1 was a progress move, not the teacher's: no credit


def test_stated_distance_follows_the_release_after_a_detour():
    env = cogsim.make("cube/closed-loop", depth=3, modality="text", scrambles="cogsim")
    _detour(env)
    letter = next(
        lt
        for lt, move in zip("ABCD", env.current["options"])
        if env.current["effects"][move] == "DECREASE" and move != env.plan[0]
    )
    obs, *_ = env.step(f"<ANSWER> {letter} </ANSWER>")
    assert env._stated_distance() == 3 and "3 move(s)" in obs["text"]  # uncredited: the release still says 3
    assert cube.distance(env.state) == 2
    progress = cogsim.make("cube/closed-loop", depth=3, modality="text", scrambles="cogsim", credit="progress")
    _detour(progress)
    letter = next(
        lt
        for lt, move in zip("ABCD", progress.current["options"])
        if progress.current["effects"][move] == "DECREASE" and move != progress.plan[0]
    )
    obs, *_ = progress.step(f"<ANSWER> {letter} </ANSWER>")
    assert progress._stated_distance() == 2 and "2 move(s)" in obs["text"]


def test_tables_name_and_separate_protocol_variants():
    from cogsim.metrics import cube as cube_metrics

    episodes = []
    for options in ({}, {"parser": "strict"}):
        env = cogsim.make("cube/optimal-move", depth=1, modality="text", **options)
        env.reset(seed=0)
        info = env.step(env.scripted_response("oracle", np.random.default_rng(0)))[4]
        episodes.append({"env_id": "cube/optimal-move", "agent": "oracle", **info["episode"]})
    table = cube_metrics.optimal_move_table(episodes)
    assert sorted(row[0] for row in table.rows) == ["oracle", "oracle [parser=strict]"]
