"""Cube Bench protocol defaults: the newest release line's closed-loop credit rule, its decoding per
test, its answer extraction inside the envs and the name of the protocol variant in every episode;
the older line (1ca7d58) as the named option ``release="1ca7d58"``."""

import numpy as np
import pytest

import cogsim
from cogsim import cube
from cogsim.benchmarks.cubebench import release_lines, views
from cogsim.benchmarks.cubebench.envs import RELEASE_DECODING
from cogsim.benchmarks.cubebench.items import TESTS

OLDER = {"release": "1ca7d58"}


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
    assert env.protocol == "release" and env.release == release_lines.NEWEST == "731aff82"
    assert env.metadata["cogsim.decoding"] == RELEASE_DECODING[test]
    assert env.metadata["cogsim.decoding"]["max_tokens"] >= (64 if test == "invariance" else 16384)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        _, _, done, _, info = env.step(env.scripted_response("oracle", rng))
        if done:
            break
    assert info["episode"]["protocol"] == "release"


def test_the_release_decoding_values():
    """The newest line's generation contracts: greedy (temperature 0.0, top_p 1.0) everywhere, 65,536
    new tokens (verification 16,384, the invariance sweep 64); the older line decoded reconstruction
    and move prediction at 0.1 and the reflection turn at 0.4."""
    assert all(d["temperature"] == 0.0 and d["top_p"] == 1.0 for d in RELEASE_DECODING.values())
    assert RELEASE_DECODING["reconstruction"]["max_tokens"] == 65536
    assert RELEASE_DECODING["verification"]["max_tokens"] == 16384
    assert RELEASE_DECODING["invariance"]["max_tokens"] == 64
    older = release_lines.DECODING["1ca7d58"]
    assert older["reconstruction"]["temperature"] == older["optimal-move"]["temperature"] == 0.1
    assert older["closed-loop"] == {"max_tokens": 65536, "temperature": 0.0, "top_p": 1.0}
    assert cogsim.make("cube/optimal-move", **OLDER).metadata["cogsim.decoding"]["temperature"] == 0.1


@pytest.mark.parametrize("line", release_lines.LINES)
def test_reflection_declares_each_turns_decoding(line):
    env = cogsim.make("cube/reflection", depth=1, release=line)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    temperatures = [env.metadata["cogsim.decoding"]["temperature"]]
    for _ in range(2):
        env.step(env.scripted_response("random", rng))
        temperatures.append(env.metadata["cogsim.decoding"]["temperature"])
    assert temperatures == [0.0, release_lines.REFLECTION_TURN_TEMPERATURE[line], 0.0]


def test_variants_are_named():
    env = cogsim.make("cube/closed-loop", depth=2, parser="strict", credit="teacher")
    assert env.protocol == "parser=strict,credit=teacher"
    assert cogsim.make("cube/closed-loop", credit="progress").protocol == "release"  # the newest line's rule
    assert cogsim.make("cube/closed-loop", **OLDER).protocol == "release=1ca7d58"
    assert cogsim.make("cube/closed-loop", credit="progress", **OLDER).protocol == "release=1ca7d58,credit=progress"
    with pytest.raises(ValueError, match="credit must be one of"):
        cogsim.make("cube/closed-loop", credit="any")
    with pytest.raises(ValueError, match="parser must be one of"):
        cogsim.make("cube/optimal-move", parser="loose")
    with pytest.raises(ValueError, match="release must be one of 731aff82, 1ca7d58, got 'main'"):
        cogsim.make("cube/optimal-move", release="main")


def test_newest_credit_counts_any_progress_move_and_replans():
    env = cogsim.make("cube/closed-loop", depth=3, modality="text")
    _, letter = _detour(env)
    _, reward, done, _, _ = env.step(f"<ANSWER> {letter} </ANSWER>")
    assert reward == 1.0 and not done
    assert env.plan == list(cube.solve(env.state))  # the teacher replans from the state reached


def test_older_credit_counts_only_the_teacher_and_does_not_replan():
    env = cogsim.make("cube/closed-loop", depth=3, modality="text", **OLDER)
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
    assert episode["credit"] == "teacher" and episode["outcomes"][0] == "progress"
    assert episode["adherent"] == episode["teacher_moves"] == episode["outcomes"].count("teacher")
    assert episode["progress_moves"] >= episode["adherent"] + 1
    assert not episode["perfect_solve"]


def test_a_non_progress_move_ends_the_episode_under_both_rules():
    for credit in ("teacher", "progress"):
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
    from cogsim.benchmarks.cubebench import metrics as cube_metrics

    env = cogsim.make("cube/closed-loop", depth=3, modality="text", **OLDER)
    _, letter = _detour(env)
    env.step(f"<ANSWER> {letter} </ANSWER>")
    rng, done = np.random.default_rng(0), False
    while not done:
        _, _, done, _, info = env.step(env.scripted_response("oracle", rng))
    episode = {"env_id": "cube/closed-loop", "agent": "scripted", **info["episode"]}
    table = cube_metrics.closed_loop_table([episode])
    row = dict(zip(table.columns, table.rows[0]))
    assert "credit=teacher" in row["variant"] and row["agent"] == "scripted [release=1ca7d58]"
    assert row["TA%"].value == pytest.approx(episode["teacher_moves"] / 3)
    assert row["PA%"].value == pytest.approx(episode["progress_moves"] / 3) and row["PA%"].value > row["TA%"].value
    by_step = cube_metrics.adherence_by_step_table([episode])
    assert by_step.rows[0][4].value == 0.0  # step 1 was a progress move, not the teacher's: no credit


def test_stated_distance_follows_each_line_after_a_detour():
    env = cogsim.make("cube/closed-loop", depth=3, modality="text", scrambles="cogsim", **OLDER)
    _detour(env)
    letter = next(
        lt
        for lt, move in zip("ABCD", env.current["options"])
        if env.current["effects"][move] == "DECREASE" and move != env.plan[0]
    )
    obs, *_ = env.step(f"<ANSWER> {letter} </ANSWER>")
    assert env._stated_distance() == 3 and "3 move(s)" in obs["text"]  # uncredited: the older line still says 3
    assert cube.distance(env.state) == 2
    progress = cogsim.make("cube/closed-loop", depth=3, modality="text", scrambles="cogsim")
    _detour(progress)
    letter = next(
        lt
        for lt, move in zip("ABCD", progress.current["options"])
        if progress.current["effects"][move] == "DECREASE" and move != progress.plan[0]
    )
    obs, *_ = progress.step(f"<ANSWER> {letter} </ANSWER>")
    assert progress._stated_distance() == 2 and "2 move(s)" in obs["text"]


def test_tables_name_and_separate_protocol_variants():
    from cogsim.benchmarks.cubebench import metrics as cube_metrics

    episodes = []
    for options in ({}, {"parser": "strict"}):
        env = cogsim.make("cube/optimal-move", depth=1, modality="text", **options)
        env.reset(seed=0)
        info = env.step(env.scripted_response("oracle", np.random.default_rng(0)))[4]
        episodes.append({"env_id": "cube/optimal-move", "agent": "oracle", **info["episode"]})
    table = cube_metrics.optimal_move_table(episodes)
    assert sorted(row[0] for row in table.rows) == ["oracle", "oracle [parser=strict]"]
