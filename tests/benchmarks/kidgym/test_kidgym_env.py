"""KidGym envs on the cogsim contract: registration, scripted episodes, prompts, failures, errors."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks.kidgym import TASKS
from cogsim.benchmarks.kidgym.env import KidGymEnv
from cogsim.envs import play_scripted

ENV_IDS = [spec.env_id for spec in TASKS.values()]


def play(env, policy: str, seed: int, rng_seed: int = 0):
    played = play_scripted(env, policy, seed, rng_seed)
    return played.observations, played.infos, played.rewards[-1]


def test_every_task_is_registered():
    assert set(ENV_IDS) <= set(cogsim.list_envs())


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("level", [1, 2, 3])
def test_oracle_succeeds_through_the_text_interface(env_id, level):
    env = cogsim.make(env_id, level=level, images=False)
    for seed in range(5):
        env.reset(seed=seed)
        if env.state.oracle_option() is None:
            continue  # one of the few Decode Maze layouts the release draws unsolvable
        observations, infos, reward = play(env, "oracle", seed)
        episode = infos[-1]["episode"]
        assert reward == 1.0 and episode["success"] and episode["steps"] <= episode["budget"]
        assert all(info["parse"] == "ok" and info["step_success"] for info in infos)
        json.dumps(episode)
        for obs in observations[:-1]:
            assert env.observation_space.contains(obs)
            assert obs["options"] and f"A) '{obs['options'][0]}'" in obs["text"]


def test_random_agent_runs_and_records_failures():
    env = cogsim.make("kidgym/classification", level=3, images=False)
    results = [play(env, "random", seed, rng_seed=seed)[1][-1]["episode"]["success"] for seed in range(20)]
    assert not all(results)


def test_history_policy_follows_the_paper():
    for spec in TASKS.values():
        env = cogsim.make(spec.env_id)
        assert env.default_history == ("full" if spec.memory else "current")
        assert ("previous states" in env.system_prompt) == spec.memory


def test_unparseable_answer_spends_a_step_and_wrong_steps_fail():
    env = cogsim.make("kidgym/placement", level=1, images=False)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step("I am not sure.")
    assert info["parse"] == "parse_failure" and info["parsed"] is None
    assert truncated and not terminated and reward == 0.0
    assert info["episode"]["parse_failures"] == 1 and not info["episode"]["success"]


def test_unparseable_answer_can_be_re_asked():
    env = cogsim.make("kidgym/placement", level=1, images=False, invalid_answer_costs_step=False)
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step("hmm")
    assert not (terminated or truncated) and info["parse"] == "parse_failure"


def test_a_step_that_fails_has_no_effect_and_is_reported_with_cogsims_feedback():
    env = cogsim.make("kidgym/maze", level=2, images=False, max_steps=10, feedback=True)
    env.reset(seed=1)

    def fails(index: int) -> bool:
        state = env.state.copy()
        state.apply(index)
        return not state.last_step_ok

    wrong = next(i for i in range(len(env.state.options())) if fails(i))  # a target out of reach
    obs, _, _, _, info = env.step(chr(ord("A") + wrong))
    assert info["parse"] == "ok" and not info["step_success"] and "no effect" in obs["text"]


def test_same_seed_same_observations():
    a = cogsim.make("kidgym/memory_maze", level=2, images=False)
    b = cogsim.make("kidgym/memory_maze", level=2, images=False)
    assert [o["text"] for o in play(a, "oracle", 9)[0]] == [o["text"] for o in play(b, "oracle", 9)[0]]


def test_cot_and_in_context_prompts():
    env = cogsim.make("kidgym/selection", level=2, prompt="cot", images=False)
    env.reset(seed=0)
    answer = env.scripted_response("oracle", np.random.default_rng(0))
    assert answer.startswith("<think>") and answer.endswith("<answer>A</answer>")  # only 'continue' is offered
    assert "<think>" in env.system_prompt and "<answer>" in env.system_prompt
    env = cogsim.make("kidgym/maze", level=1, prompt="in_context", cell_size=32, look="cogsim")
    obs, _ = env.reset(seed=0)
    assert "fully worked example" in obs["text"] and "Reason:" in obs["text"]
    example_steps = obs["text"].count("Example step")
    assert example_steps == 3 and len(obs["images"]) == example_steps + 1
    assert all(image.shape == (288, 288, 3) for image in obs["images"])
    env = cogsim.make("kidgym/maze", level=1, prompt="in_context")  # the release's frames
    obs, _ = env.reset(seed=0)
    example_steps = obs["text"].count("Example step")
    assert example_steps == 3 and len(obs["images"]) == example_steps + 1
    assert all(image.shape == (576, 448, 4) for image in obs["images"])


@pytest.mark.parametrize("look", ["cogsim", "release"])
def test_mazes_state_the_backpack_keys_in_words_when_asked(look):
    """Off by default in both looks: each draws a key in the colour of its door."""
    env = cogsim.make("kidgym/maze", level=2, look=look, describe_backpack=True)
    observations, _, _ = play(env, "oracle", 3)
    assert "Backpack: empty" in observations[0]["text"]
    assert any(" key" in obs["text"].split("Backpack:")[1].split("\n")[0] for obs in observations[1:-1])
    default = cogsim.make("kidgym/maze", level=2, look=look)
    assert "Backpack:" not in default.reset(seed=3)[0]["text"]


def test_vector_env_runs_in_lockstep():
    vec = cogsim.make_vec("kidgym/sorting", 3, level=2, images=False)
    obs, _ = vec.reset(seed=0)
    assert len(obs) == 3 and len({o["text"] for o in obs}) == 3  # seeds 0, 1, 2
    obs, rewards, terminated, truncated, _ = vec.step(["A", "A", "A"])
    assert len(obs) == 3 and len(rewards) == 3
    vec.close()


@pytest.mark.parametrize(
    "options, field",
    [
        ({"level": 0}, "level"),
        ({"prompt": "few_shot"}, "prompt"),
        ({"decoder": "loose"}, "decoder"),
        ({"max_steps": -1}, "max_steps"),
        ({"cell_size": 48}, "cell_size"),
        ({"colour_blind": True}, "option"),
        ({"task": "counting_sheep"}, "task"),
    ],
)
def test_bad_options_raise_value_error(options, field):
    with pytest.raises(ValueError, match=field):
        cogsim.make("kidgym/classification", **options)


def test_an_unknown_option_is_named_with_every_option_kidgym_takes():
    with pytest.raises(ValueError) as error:
        cogsim.make("kidgym/maze", levle=3)
    message = str(error.value)
    assert message.startswith("unknown option(s) 'levle' for kidgym/maze; allowed: ")
    allowed = set(message.partition("allowed: ")[2].split(", "))
    constructor = set(inspect.signature(KidGymEnv.__init__).parameters) - {"self", "env_id", "task", "options"}
    assert {"level", "prompt", "look", "mechanics", "actions", "images"} <= allowed
    assert allowed == constructor


def test_stepping_a_finished_episode_raises():
    env = cogsim.make("kidgym/placement", images=False)
    play(env, "oracle", 0)
    with pytest.raises(ValueError, match="reset"):
        env.step("A")
    with pytest.raises(ValueError, match="policy"):
        env.scripted_response("genius", np.random.default_rng(0))


def test_oracle_answers_like_random_once_success_is_out_of_reach():
    env = cogsim.make("kidgym/sorting", level=2, images=False)
    env.reset(seed=2)

    def hopeless(index: int) -> bool:
        state = env.state.copy()
        state.apply(index)
        return state.oracle_option() is None and not state.done

    wrong = next(i for i in range(len(env.state.options())) if hopeless(i))  # an animal on the wrong numeral
    env.step(chr(ord("A") + wrong))
    assert env.state.oracle_option() is None
    rng = np.random.default_rng(0)
    while not env.state.done:
        *_, info = env.step(env.scripted_response("oracle", rng))
        assert info["parse"] == "ok"
    assert not info["episode"]["success"]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_oracle_reasons_in_chain_of_thought(env_id):
    env = cogsim.make(env_id, level=2, prompt="cot", images=False)
    for seed in range(3):
        env.reset(seed=seed)
        if env.state.oracle_option() is None:
            continue  # an unsolvable Decode Maze layout of the release's
        observations, infos, reward = play(env, "oracle", seed)
        assert reward == 1.0 and all(info["parse"] == "ok" for info in infos)


def test_in_context_example_explains_each_step():
    env = cogsim.make("kidgym/classification", level=1, prompt="in_context", images=False)
    obs, _ = env.reset(seed=3)
    assert obs["text"].count("Reason: It is the next step of a shortest plan to the goal") == 4
    assert obs["images"] == ()  # images=False: text only


def test_arbitrary_model_text_never_crashes_the_env():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    env = cogsim.make("kidgym/classification", level=3, images=False, max_steps=60)

    @settings(max_examples=150, deadline=None)
    @given(texts=st.lists(st.text(max_size=200), min_size=1, max_size=6), seed=st.integers(0, 2**31 - 1))
    def run(texts, seed):
        env.reset(seed=seed)
        for text in texts:
            obs, reward, terminated, truncated, info = env.step(text)
            assert info["parse"] in ("ok", "parse_failure") and reward in (0.0, 1.0)
            if terminated or truncated:
                break

    run()


def test_demo_suites_run():
    from cogsim.benchmarks.kidgym.env import DEMO_SUITES

    for suite in DEMO_SUITES:
        env = cogsim.make(suite["env_id"], **suite["options"], **suite["fallback"])
        for agent in suite["agents"]:
            for seed in range(suite["episodes"]):
                _, infos, _ = play(env, agent, seed)
                assert "episode" in infos[-1]


@pytest.mark.parametrize(
    "env_id", ["kidgym/selection", "kidgym/memory_maze", "kidgym/memory_decode", "kidgym/memory_filling"]
)
def test_any_answer_counts_as_continue_when_it_is_the_only_option(env_id):
    env = cogsim.make(env_id, level=1, images=False)
    obs, _ = env.reset(seed=3)
    assert obs["options"] == ("continue",)
    obs, _, terminated, truncated, info = env.step("I am not sure what to do.")
    assert info["parse"] == "ok" and info["parsed"]["action"] == "continue"
    assert not (terminated or truncated) and "continue" not in obs["options"]


def test_release_templates_for_counting_and_sorting():
    env = cogsim.make("kidgym/counting", level=2, images=False)
    obs, _ = env.reset(seed=0)
    declare = [text for text in obs["options"] if text.startswith("I have already collected")]
    item = declare[0].split(" ", 5)[5][: -len("(s)")]
    picks = [text for text in obs["options"] if text.startswith("pick up")]
    assert picks and all(text.startswith(f"pick up the {item} with label ") for text in picks)
    assert "select the action: 'I have already collected" in obs["text"] and f"{item}s.'" in obs["text"]

    env = cogsim.make("kidgym/sorting", level=1, images=False)
    obs, _ = env.reset(seed=0)
    assert "In this world, the " in obs["text"]
    assert " by speed in position I, II." in obs["text"] or " by weight in position I, II." in obs["text"]
    assert "Rank the animal in the backpack from " in obs["text"]
    assert all(text.startswith("place animal from backpack ") for text in obs["options"])


def test_the_final_observation_shows_the_final_state_unless_the_caller_never_shows_it():
    env = cogsim.make("kidgym/classification", level=1)
    observations = play(env, "oracle", seed=4)[0]
    last = observations[-1]["images"]
    assert len(last) == 1 and not np.array_equal(last[0], observations[-2]["images"][0])
    env.final_frames = False
    assert play(env, "oracle", seed=4)[0][-1]["images"] == ()


def test_a_run_draws_no_frame_that_no_agent_is_shown(tmp_path, monkeypatch):
    from cogsim.harness import RunConfig, Task, run

    drawn = {False: 0, True: 0}  # frames drawn, by whether the state had ended
    draw = KidGymEnv._frame

    def counted(self, state):
        frames = draw(self, state)
        drawn[bool(state.done)] += len(frames)
        return frames

    monkeypatch.setattr(KidGymEnv, "_frame", counted)
    summary = run(RunConfig([Task("kidgym/classification", 6)], ["random"], concurrency=3), tmp_path)
    assert summary.finished == 6 and drawn == {False: summary.turns, True: 0}
