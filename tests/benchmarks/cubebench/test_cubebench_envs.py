"""Cube Bench envs: the oracle scores 100%, random sits at chance, images match the text state."""

import json

import numpy as np
import pytest

import cogsim
from cogsim import cube
from cogsim.benchmarks.cubebench import cogsim_look as cube_net
from cogsim.benchmarks.cubebench import items, seed_lists, views
from cogsim.benchmarks.cubebench import metrics as cube_metrics
from cogsim.cube import Cube
from cogsim.metrics import summarize

TEST_IDS = [
    "cube/reconstruction",
    "cube/verification",
    "cube/optimal-move",
    "cube/reflection",
    "cube/closed-loop",
    "cube/move-effect",
    "cube/recovery",
]


@pytest.fixture(autouse=True)
def _oracle(cube_oracle):
    return cube_oracle


def make(env_id, **options):
    """These tests pin cogsim's own protocol variant (strict one-line parsers, cogsim colours and
    labelled-face text, cogsim's scrambles and balanced layout, progress credit, cogsim's net image);
    the release's defaults are tested against the release's data beside this file."""
    defaults = {
        "look": "cogsim",
        "parser": "strict",
        "colours": "cogsim",
        "state_format": "cogsim",
        "scrambles": "cogsim",
        "layout": "cogsim",
    }
    if env_id == "cube/closed-loop":
        defaults["credit"] = "progress"
    return cogsim.make(env_id, **{**defaults, **options})


def run(env_id, policy, seeds, **options):
    env = make(env_id, **options)
    rng = np.random.default_rng(123)
    episodes = []
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        assert env.observation_space.contains(obs)
        while True:
            obs, reward, terminated, truncated, info = env.step(env.scripted_response(policy, rng))
            assert info["parse"] in ("ok", "parse_failure", "invalid")
            json.dumps(info["parsed"])
            if terminated or truncated:
                json.dumps(info["episode"])  # the results store keeps episodes as JSON
                episodes.append(
                    {"env_id": env_id, "options": options, "seed": seed, "agent": policy, **info["episode"]}
                )
                break
    return episodes


def test_the_seven_tests_are_registered():
    assert set(TEST_IDS) <= set(cogsim.list_envs())


@pytest.mark.parametrize("depth", (1, 2, 3))
@pytest.mark.parametrize(
    "env_id,options,key",
    [
        ("cube/reconstruction", {}, "matrix_correct"),
        ("cube/verification", {}, "correct"),
        ("cube/optimal-move", {"modality": "image+text"}, "correct"),
        ("cube/optimal-move", {"modality": "image"}, "correct"),
        ("cube/optimal-move", {"modality": "text"}, "correct"),
        ("cube/reflection", {"regime": "guided-unredacted", "modality": "text"}, "final_correct"),
        ("cube/closed-loop", {"modality": "text"}, "perfect_solve"),
        ("cube/closed-loop", {"modality": "text", "abstention": True}, "perfect_solve"),
        ("cube/closed-loop", {"modality": "text", "credit": "teacher"}, "perfect_solve"),  # picks the teacher's
        ("cube/move-effect", {"modality": "text"}, "all_labels_correct"),
        ("cube/recovery", {"modality": "text", "start": "injected"}, "solved"),
        ("cube/recovery", {"modality": "text", "start": "closed-loop"}, "failure_step"),
    ],
)
def test_oracle_scores_everything(env_id, options, key, depth):
    episodes = run(env_id, "oracle", range(8), depth=depth, **options)
    if key == "failure_step":  # the oracle never fails, so closed-loop start never needs recovery
        assert all(e["failure_step"] is None and not e["solved"] for e in episodes)
        return
    if key == "all_labels_correct":
        assert all(e["labels_correct"] == e["labels_total"] == 4 for e in episodes)
        return
    assert all(e[key] for e in episodes)


def test_oracle_at_depth_seven_solves_closed_loop_and_recovery():
    assert all(e["perfect_solve"] for e in run("cube/closed-loop", "oracle", range(4), depth=7, modality="text"))
    assert all(
        e["solved"] for e in run("cube/recovery", "oracle", range(4), depth=7, modality="text", start="injected")
    )


def _within(rate, chance, n, sigmas=4.0):
    return abs(rate - chance) <= sigmas * np.sqrt(chance * (1 - chance) / n)


@pytest.mark.parametrize("depth", (1, 2, 3))
def test_random_is_at_chance_per_depth(depth):
    n = 200
    optimal = run("cube/optimal-move", "random", range(n), depth=depth, modality="text")
    assert _within(np.mean([e["correct"] for e in optimal]), 0.25, n)
    loop = run("cube/closed-loop", "random", range(n), depth=depth, modality="text")
    first_step = [e["outcomes"][0] in ("teacher", "progress") for e in loop]
    progress_options = [items.make_item("closed-loop", depth, seed)["steps"][0]["effects"] for seed in range(n)]
    chance = np.mean([list(effects.values()).count("DECREASE") / 4 for effects in progress_options])
    assert chance == (0.25 if depth == 1 else pytest.approx(chance))  # depth 1 has one progress move
    assert _within(np.mean(first_step), chance, n)
    effect = run("cube/move-effect", "random", range(n), depth=depth, modality="text")
    gold, answers = cube_metrics.effect_labels_of(effect)
    assert _within(np.mean([g == a for g, a in zip(gold, answers)]), 1 / 3, 4 * n)
    assert abs(cube_metrics.cohen_kappa(gold, answers)) < 0.08
    verification = run("cube/verification", "random", range(n), depth=depth, sticker=8)
    balanced = cube_metrics.balanced_accuracy([e["gold"] for e in verification], [e["answer"] for e in verification])
    assert _within(balanced, 0.5, n)


def test_random_reconstruction_is_at_sticker_chance():
    episodes = run("cube/reconstruction", "random", range(60), depth=2, sticker=8)
    stickers = sum(e["stickers_correct"] for e in episodes)
    assert _within(stickers / (9 * 60), 1 / 6, 9 * 60)


def _front_from_image(frame, sticker):
    letters = list(cube_net.COLOUR_RGB)
    palette = np.array([cube_net.COLOUR_RGB[c] for c in letters], dtype=float)
    centres = np.round(cube_net.NetLayout(sticker).sticker_centres()[18:27]).astype(int)
    samples = frame[centres[:, 1], centres[:, 0]].astype(float)
    distance = ((samples[:, None, :] - palette[None]) ** 2).sum(-1)
    assert np.sqrt(distance.min(axis=1)).max() < 12, "a sticker centre is off the palette"
    flat = "".join(letters[i] for i in distance.argmin(axis=1))
    return [flat[0:3], flat[3:6], flat[6:9]]


def _face_from_text(text, label="Front"):
    lines = text.splitlines()
    start = lines.index(f"{label}:") + 1
    return [line.replace(" ", "") for line in lines[start : start + 3]]


def _net_from_image(frame, sticker):
    """Every face read off the image, keyed by its label, in facelet order U R F D L B."""
    letters = list(cube_net.COLOUR_RGB)
    palette = np.array([cube_net.COLOUR_RGB[c] for c in letters], dtype=float)
    centres = np.round(cube_net.NetLayout(sticker).sticker_centres()).astype(int)
    samples = frame[centres[:, 1], centres[:, 0]].astype(float)
    flat = "".join(letters[i] for i in ((samples[:, None, :] - palette[None]) ** 2).sum(-1).argmin(axis=1))
    return {
        cube_net.FACE_LABELS[face]: [flat[9 * k + 3 * r : 9 * k + 3 * r + 3] for r in range(3)]
        for k, face in enumerate(cube_net.FACE_ORDER)
    }


@pytest.mark.parametrize("seed", range(4))
def test_front_face_of_the_image_equals_the_text_state(seed):
    # cogsim's net; the labelled-faces text (state_format="cogsim"), in the default (release) colours
    env = cogsim.make(
        "cube/optimal-move", depth=4, modality="image+text", look="cogsim", sticker=16, state_format="cogsim"
    )
    obs, _ = env.reset(seed=seed)
    (frame,) = obs["images"]
    assert (
        _front_from_image(frame, 16)
        == _face_from_text(obs["text"])
        == env._grid(views.front_rows(env.item["facelets"]))
    )
    for label, rows in _net_from_image(frame, 16).items():  # the rest of the text state matches too
        assert _face_from_text(obs["text"], label) == rows, label
    recon = cogsim.make("cube/reconstruction", depth=4, look="cogsim", sticker=16)
    obs, _ = recon.reset(seed=seed)
    assert _front_from_image(obs["images"][0], 16) == recon._grid(recon.item["gold_grid"])
    assert "Front:" not in obs["text"]  # image only


def test_modalities_show_identical_items():
    texts = {}
    for modality in ("image+text", "image", "text"):
        env = make("cube/optimal-move", depth=2, modality=modality, sticker=8)
        obs, _ = env.reset(seed=5)
        texts[modality] = obs
        assert obs["options"] == tuple(env.item["options"])
        assert len(obs["images"]) == (0 if modality == "text" else 1)
        assert ("Front:" in obs["text"]) == (modality != "image")
    assert texts["image"]["options"] == texts["text"]["options"] == texts["image+text"]["options"]


def test_parse_failures_count_against_the_model():
    env = make("cube/optimal-move", depth=1, modality="text")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step("I think the answer is B")
    assert terminated and reward == 0.0 and info["parse"] == "parse_failure"
    assert info["episode"]["correct"] is False and info["episode"]["parse"] == "parse_failure"
    loop = make("cube/closed-loop", depth=3, modality="text")
    loop.reset(seed=0)
    _, _, terminated, _, info = loop.step("ANSWER: E")
    assert terminated and info["parse"] == "invalid" and info["episode"]["outcomes"] == ["invalid"]
    assert info["episode"]["adherent"] == 0 and info["episode"]["parse_failures"] == 1
    assert info["episode"]["answered"] == 0 and info["episode"]["decisions"] == 1  # not answered, still decided


def test_closed_loop_accepts_any_progress_move_and_replans():
    """Paper, closed-loop step-by-step: progress means the distance decreased; a progress move other
    than the teacher's is executed, the teacher replans, and the episode goes on."""
    env = make("cube/closed-loop", depth=3, modality="text")
    for seed in range(40):
        obs, _ = env.reset(seed=seed)
        effects, teacher = env.current["effects"], env.plan[0]
        other = [
            label
            for label, move in zip("ABCD", env.current["options"])
            if effects[move] == "DECREASE" and move != teacher
        ]
        if other:
            break
    assert obs["text"].startswith("The cube is 3 move(s) away from being solved.")
    chosen = env.current["options"]["ABCD".index(other[0])]
    obs, reward, done, _, _ = env.step(f"<ANSWER> {other[0]} </ANSWER>")
    assert reward == 1.0 and not done and env.outcomes == ["progress"]
    assert env.state == Cube.from_facelets(env.item["facelets"]).apply(chosen)
    assert cube.distance(env.state) == 2 and env.state.apply(env.plan).is_solved() and len(env.plan) == 2
    while not done:
        _, _, done, _, info = env.step(env.scripted_response("oracle", np.random.default_rng(0)))
    episode = info["episode"]
    assert episode["outcomes"] == ["progress", "teacher", "teacher"] and episode["perfect_solve"]
    assert episode["adherent"] == 3 and episode["teacher_moves"] == 2


@pytest.mark.parametrize("policy,decisions,solved", [("teacher_on_abstain", 3, True), ("skip_item", 1, False)])
def test_abstention_policies(policy, decisions, solved):
    env = make("cube/closed-loop", depth=3, modality="text", abstention=True, abstain_policy=policy)
    obs, _ = env.reset(seed=2)
    assert len(obs["options"]) == 5 and obs["options"][-1] == "I don't know (abstain)"
    done = False
    while not done:
        _, _, done, _, info = env.step("IDK")
    episode = info["episode"]
    assert episode["decisions"] == decisions and episode["abstained"] == decisions
    assert episode["solved"] is solved and episode["perfect_solve"] is False
    assert cube_metrics.apa(episode["adherent"], episode["abstained"], episode["decisions"]) == 0.25


def test_abstention_is_invalid_without_the_option():
    env = make("cube/closed-loop", depth=2, modality="text")
    env.reset(seed=0)
    assert env.step("IDK")[4]["parse"] == "invalid"


def test_reflection_turns_and_regimes():
    """Paper: draft, one guided reflection (told the answer was wrong; choice hidden; correct option
    redacted or revealed), then a one-line re-answer given the reflection text."""
    env = make("cube/reflection", depth=2, modality="text", regime="guided-unredacted")
    obs, _ = env.reset(seed=1)
    draft_system = env.system_prompt
    gold = env.item["gold"]
    obs, _, terminated, _, info = env.step(f"<ANSWER> {gold} </ANSWER>")  # a correct draft is still told it failed
    assert not terminated and info["parse"] == "ok" and env.system_prompt != draft_system
    assert "answered the following multiple-choice question incorrectly" in env.system_prompt
    assert f"You chose the option: {gold}, which did not solve the cube." in obs["text"]
    assert f"The correct solution was option: {gold}." in obs["text"]
    obs, _, terminated, _, info = env.step("Option B turns the wrong face; the revealed option undoes it.")
    assert not terminated and info["parse"] == "ok" and "RE-ANSWER phase" in env.system_prompt
    assert "Reflection:\nOption B turns the wrong face" in obs["text"]
    _, _, terminated, _, info = env.step("I now think it is B.\nANSWER: B")  # not one line: parse failure
    episode = info["episode"]
    assert terminated and info["parse"] == "parse_failure"
    assert episode["initial_correct"] is True and episode["final_correct"] is False  # an overthink
    redacted = make("cube/reflection", depth=2, modality="text", reveal_choice=False)
    redacted.reset(seed=1)
    obs, *_ = redacted.step("A")
    assert "[REDACTED]" in obs["text"] and f"option: {gold}." not in obs["text"]
    assert "You chose the option: [HIDDEN]" in obs["text"]


def test_hint_following_agent_fixes_every_error_only_when_unredacted():
    for regime, fixed in (("guided-unredacted", 1.0), ("guided-redacted", 0.0)):
        episodes = run("cube/reflection", "random_then_hint", range(24), depth=1, modality="text", regime=regime)
        initial = [e["initial_correct"] for e in episodes]
        final = [e["final_correct"] for e in episodes]
        assert cube_metrics.error_fix_rate(initial, final).value == fixed
        assert cube_metrics.overthink_rate(initial, final).value == 0.0


def test_recovery_accept_progress_control():
    """Paper's accept-progress control: off the path the move is applied and its inverse pushed; a
    progress move is applied (teacher's: popped, another: replanned)."""
    env = make("cube/recovery", depth=2, modality="text", start="injected")
    env.reset(seed=4)
    plan = list(env.plan)
    effects = list(env.current["effects"].values())
    assert effects.count("DECREASE") == 1  # one progress move and three non-progress moves per step
    off_path = next(
        label
        for label, move in zip("ABCD", env.current["options"])
        if move != plan[0] and env.current["effects"][move] != "DECREASE"
    )
    move = env.current["options"]["ABCD".index(off_path)]
    env.step(f"<ANSWER> {off_path} </ANSWER>")
    assert env.plan == [views.inverse_move(move)] + plan  # off the path: the inverse is pushed
    assert env.outcomes == ["off_path"]
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, done, _, info = env.step(env.scripted_response("oracle", rng))
    episode = info["episode"]
    assert episode["solved"] and episode["steps_used"] == 1 + episode["distances"][1] == episode["solved_at"]
    assert set(episode["outcomes"][1:]) <= {"teacher", "progress"} and episode["distances"][-1] == 0


def test_recovery_from_the_models_own_failure():
    env = make("cube/recovery", depth=3, modality="text")
    assert env.start == "closed-loop"  # the paper's protocol is the default
    env.reset(seed=0)
    wrong = next(label for label in "ABCD" if label != env.current["gold"])
    env.step(wrong)
    assert env.phase == "recover" and env.failure_step == 1
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, done, _, info = env.step(env.scripted_response("oracle", rng))
    assert info["episode"]["solved"] and info["episode"]["failure_step"] == 1


def test_recovery_parse_failures_start_the_curve_and_use_up_decisions():
    env = make("cube/recovery", depth=1, modality="text")
    env.reset(seed=3)
    start = env.state
    env.step("the answer is A")  # first failure: nothing applied
    assert env.phase == "recover" and env.failure_step == 1 and env.failure_move is None and env.state == start
    done, steps = False, 0
    while not done:
        _, _, done, _, info = env.step("???")
        steps += 1
    episode = info["episode"]
    assert steps == episode["budget"] == 4 and episode["steps_used"] == 4 and not episode["solved"]
    assert episode["parse_failures"] == 5 and episode["solved_at"] is None


@pytest.mark.parametrize("negatives", ["image-move", "text-edit"])
def test_verification_negatives_differ_in_the_image_or_the_text(negatives):
    env = make("cube/verification", depth=2, sticker=8, negatives=negatives)
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        item = env.item
        shown_text = obs["text"].split("top row first):\n", 1)[1].split("\n2.", 1)[0]
        truth = views.grid_text(item["gold_grid"])
        if item["gold"] == "Yes" or negatives == "image-move":
            assert shown_text == truth
        else:
            assert shown_text == views.grid_text(item["text_edit"]["shown_grid"]) != truth
        expected_image = item["image_facelets"] if negatives == "image-move" else item["facelets"]
        assert np.array_equal(obs["images"][0], views.net_image(expected_image, 8))
        _, _, _, _, info = env.step(env.scripted_response("oracle", np.random.default_rng(0)))
        assert info["episode"]["correct"] and info["episode"]["negatives"] == negatives


def test_move_effect_labels_every_option_and_parse_failures_score_nothing():
    env = make("cube/move-effect", depth=2)
    assert env.modality == "text"  # the paper's move-effect prompt shows no image
    obs, _ = env.reset(seed=3)
    assert "Face centres:\nU: white" in obs["text"] and "<D> DECREASE|NO_CHANGE|INCREASE </D>" in obs["text"]
    gold = env.item["gold_labels"]
    flipped = ["INCREASE" if g == "DECREASE" else "DECREASE" for g in gold]
    answer = "\n".join(f"{letter}: {label}" for letter, label in zip("ABCD", gold[:3] + flipped[3:]))
    _, reward, done, _, info = env.step(answer)
    assert done and reward == 0.75 and info["episode"]["labels_correct"] == 3
    env.reset(seed=3)
    _, reward, _, _, info = env.step("<A> DECREASE </A>")  # three lines missing: nothing parses
    assert reward == 0.0 and info["parse"] == "parse_failure" and info["episode"]["answers"] is None


def test_seed_list_option_replays_exported_items(tmp_path):
    path = seed_lists.export_seed_list(
        seed_lists.build_seed_list("move-effect", 2, 3, first_seed=100), tmp_path / "list.json"
    )
    env = make("cube/move-effect", depth=2, modality="text", seed_list=str(path))
    env.reset(seed=1)
    assert env.item == items.make_item("move-effect", 2, 101, 1)
    with pytest.raises(ValueError, match="no episode 3"):
        env.reset(seed=3)
    with pytest.raises(ValueError, match="is for test"):
        make("cube/optimal-move", depth=2, seed_list=str(path)).reset(seed=0)


@pytest.mark.parametrize(
    "env_id,options,match",
    [
        ("cube/optimal-move", {"modality": "audio"}, "modality"),
        ("cube/reconstruction", {"modality": "text"}, "modality"),
        ("cube/optimal-move", {"depth": 0}, "depth"),
        ("cube/optimal-move", {"sticker": 2}, "sticker"),
        ("cube/closed-loop", {"abstain_policy": "guess"}, "abstain_policy"),
        ("cube/closed-loop", {"abstention": "yes"}, "abstention"),
        ("cube/reflection", {"regime": "free"}, "regime"),
        ("cube/reflection", {"reveal_choice": "yes"}, "reveal_choice"),
        ("cube/verification", {"negatives": "both"}, "negatives"),
        ("cube/recovery", {"start": "middle"}, "start"),
        ("cube/closed-loop", {"abstension": True}, "unknown option.*abstension"),
        ("cube/optimal-move", {"regime": "guided-redacted"}, "unknown option.*regime"),
    ],
)
def test_bad_options_are_value_errors(env_id, options, match):
    with pytest.raises(ValueError, match=match):
        make(env_id, **options)


HUGE = "x" * 100_000


@pytest.mark.parametrize(
    "env_id,options,name",
    [
        ("cube/optimal-move", {"parser": HUGE}, "parser"),
        ("cube/optimal-move", {"release": HUGE}, "release"),
        ("cube/optimal-move", {"depth": HUGE}, "depth"),
        ("cube/optimal-move", {"look": "release", "sticker": HUGE}, "sticker"),
        ("cube/optimal-move", {"look": "cogsim", "sticker": HUGE}, "sticker"),
        ("cube/closed-loop", {"abstention": HUGE}, "abstention"),
        ("cube/reflection", {"regime": HUGE}, "regime"),
        ("cube/verification", {HUGE: 1}, "unknown option"),
    ],
)
def test_a_huge_bad_option_gives_a_short_one_line_error(env_id, options, name):
    with pytest.raises(ValueError, match=name) as caught:
        cogsim.make(env_id, **options)
    message = str(caught.value)
    assert "\n" not in message and "xxx..." in message
    if HUGE in options:  # an unknown name: the message also lists the options the env takes
        with pytest.raises(ValueError) as short:
            cogsim.make(env_id, **{"x": 1})
        assert len(message) < len(str(short.value)) + 100
    else:
        assert len(message) < 300


def test_unknown_scripted_policy_is_a_value_error():
    env = make("cube/optimal-move", modality="text")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="policy"):
        env.scripted_response("genius", np.random.default_rng(0))


def test_vector_env_and_tables_for_every_test():
    vec = cogsim.make_vec("cube/optimal-move", 3, depth=1, modality="text")
    obs, _ = vec.reset(seed=0)
    assert len(obs) == 3
    episodes = []
    for env_id in TEST_IDS:
        for policy in ("oracle", "random"):
            options = {} if env_id in ("cube/reconstruction", "cube/verification") else {"modality": "text"}
            episodes += run(env_id, policy, range(4), depth=1, sticker=8, **options)
    tables = summarize("cube", episodes)
    assert [t.title.split(".")[0] for t in tables] == [
        "Table 1",
        "Table 1b",
        "Table 2",
        "Table 2b",
        "Table 3",
        "Table 3b",
        "Table 4",
        "Table 5",
    ]
    for table in tables:
        assert {row[0].split(" [")[0] for row in table.rows} == {
            "oracle",
            "random",
        }  # "[protocol]" when not the release's
        assert all(len(row) == len(table.columns) for row in table.rows)


def test_demo_suites_run_quickly():
    from cogsim.benchmarks.cubebench import envs as cube_envs

    for suite in cube_envs.DEMO_SUITES:
        for agent in suite["agents"]:
            episodes = run(suite["env_id"], agent, range(suite["episodes"]), **suite["options"])
            assert len(episodes) == suite["episodes"]


def test_stepping_outside_an_episode_is_a_clear_error():
    env = make("cube/optimal-move", modality="text")
    with pytest.raises(RuntimeError, match="reset"):
        env.step("A")
    env.reset(seed=0)
    env.step("A")
    with pytest.raises(RuntimeError, match="reset"):
        env.step("A")


def test_paper_suites_name_registered_envs_with_valid_options():
    from cogsim.benchmarks.cubebench import envs as cube_envs

    for suite in cube_envs.PAPER_SUITES:
        make(suite["env_id"], **suite["options"])


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(TEST_IDS), st.lists(st.text(max_size=30), min_size=1, max_size=6))
def test_any_model_text_is_parsed_never_crashes(env_id, responses):
    options = {"sticker": 8} if env_id in ("cube/reconstruction", "cube/verification") else {"modality": "text"}
    env = make(env_id, depth=2, **options)
    env.reset(seed=len(responses))
    for text in responses:
        _, reward, terminated, _, info = env.step(text)
        assert info["parse"] in ("ok", "parse_failure", "invalid") and reward in (0.0, 1.0)
        if terminated:
            assert isinstance(info["episode"], dict)
            break


def test_closed_loop_reasoning_then_final_answer_line():
    """Paper's step prompt: reasoning in <REASONING> tags, then <ANSWER> X </ANSWER> on the final line
    (its abstention prompt asks for the answer line alone)."""
    env = make("cube/closed-loop", depth=2, modality="text")
    obs, _ = env.reset(seed=0)
    assert "<REASONING>" in env.system_prompt and "<REASONING>" in obs["text"]
    gold = env.current["gold"]
    _, reward, _, _, info = env.step(
        f"<REASONING>A undoes the last turn.\nB does not.</REASONING>\n<ANSWER> {gold} </ANSWER>"
    )
    assert info["parse"] == "ok" and reward == 1.0
    _, _, done, _, info = env.step(f"<ANSWER> {env.current['gold']} </ANSWER>\nI hope that helps.")
    assert done and info["parse"] == "parse_failure"
    idk = make("cube/closed-loop", depth=2, modality="text", abstention=True)
    idk.reset(seed=0)
    assert "No explanations" in idk.system_prompt
    assert (
        idk.step(f"<REASONING>x</REASONING>\n<ANSWER> {idk.current['gold']} </ANSWER>")[4]["parse"] == "parse_failure"
    )


def test_closed_loop_options_off_the_teacher_path_are_regenerated_reproducibly():
    env = make("cube/closed-loop", depth=3, modality="text")
    for seed in range(40):
        env.reset(seed=seed)
        other = [
            label
            for label, move in zip("ABCD", env.current["options"])
            if env.current["effects"][move] == "DECREASE" and move != env.plan[0]
        ]
        if other:
            break
    env.step(other[0])
    assert env.state.to_facelets() != env.item["steps"][1]["facelets"]  # off the recorded teacher path
    expected = items.closed_loop_step(3, seed, seed, 1, env.state, env.plan[0])
    assert env.current == expected and env.current["options"][items.LABELS.index(expected["gold"])] == env.plan[0]
