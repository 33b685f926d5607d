"""The env registry and the vector env, on a tiny env defined here (the suites test their own)."""

import numpy as np
import pytest

import cogsim
from cogsim import envs
from cogsim.envs import TextEnv, observation
from cogsim.metrics import mean_ci, wilson


class CountToThree(TextEnv):
    suite = "test"

    def _reset(self, seed, options):
        self.count = 0
        return observation("Say the next number, starting at 1.")

    def _step(self, action):
        expected = str(self.count + 1)
        ok = action.strip() == expected
        self.count += ok
        done = not ok or self.count == 3
        info = {"parse": "ok" if action.strip().isdigit() else "parse_failure", "parsed": action.strip()}
        if done:
            info["episode"] = {"reached": self.count}
        return observation(f"Next after {self.count}?"), float(ok), done, False, info


envs.register("test/count", CountToThree)


def test_make_passes_options_and_id():
    env = cogsim.make("test/count", flavour="plain")
    assert env.env_id == "test/count" and env.options == {"flavour": "plain"}
    obs, info = env.reset(seed=7)
    assert env.observation_space.contains(obs)
    assert info["episode_seed"] == 7


def test_unknown_env_id_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown env id 'nope/x'.*test/count"):
        cogsim.make("nope/x")


def test_step_rejects_non_text_actions():
    env = cogsim.make("test/count")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="response text"):
        env.step(3)


def test_vector_env_steps_in_lockstep_and_its_spaces_hold_its_observations():
    vec = cogsim.make_vec("test/count", 3, autoreset_mode="Disabled")
    obs, _ = vec.reset(seed=10)
    assert len(obs) == 3 and vec.observation_space.contains(obs)
    assert vec.metadata["autoreset_mode"].value == "Disabled"
    obs, rewards, terminated, truncated, info = vec.step(["1", "2", "x"])
    assert vec.observation_space.contains(obs) and vec.action_space.contains(("1", "2", "3"))
    assert rewards.tolist() == [1.0, 0.0, 0.0]
    assert terminated.tolist() == [False, True, True]
    assert info["per_env"][2]["parse"] == "parse_failure"
    with pytest.raises(envs.ResetNeeded, match="autoreset disabled"):
        vec.step(["2", "1", "1"])
    with pytest.raises(ValueError, match="expected 3 actions"):
        vec.step(["1"])
    with pytest.raises(ValueError, match="num_envs"):
        cogsim.make_vec("test/count", 0)
    with pytest.raises(ValueError, match="autoreset_mode must be one of NextStep, SameStep, Disabled"):
        cogsim.make_vec("test/count", 2, autoreset_mode="sometimes")


def test_next_step_autoreset_starts_a_new_episode_on_the_following_step():
    vec = cogsim.make_vec("test/count", 2)
    assert vec.metadata["autoreset_mode"].value == "NextStep"
    vec.reset(seed=0)
    _, rewards, terminated, _, _ = vec.step(["1", "x"])
    assert terminated.tolist() == [False, True]
    obs, rewards, terminated, _, info = vec.step(["2", "ignored"])  # env 1 resets, its action unused
    assert rewards.tolist() == [1.0, 0.0] and terminated.tolist() == [False, False]
    assert obs[1]["text"] == "Say the next number, starting at 1." and "episode_seed" in info["per_env"][1]
    _, rewards, _, _, _ = vec.step(["3", "1"])
    assert rewards.tolist() == [1.0, 1.0]


def test_same_step_autoreset_returns_the_final_observation_in_info():
    vec = cogsim.make_vec("test/count", 2, autoreset_mode="SameStep")
    vec.reset(seed=0)
    obs, _, terminated, _, info = vec.step(["1", "x"])
    assert terminated.tolist() == [False, True]
    assert obs[1]["text"] == "Say the next number, starting at 1."
    assert info["final_obs"][1]["text"] == "Next after 0?" and info["final_info"][1]["episode"] == {"reached": 0}
    assert info["final_obs"][0] is None


def test_wilson_matches_hand_computation():
    # 8 of 10: centre (0.8 + 1.92/10)/(1 + 3.84/10) ... the textbook values 0.4902, 0.9433
    est = wilson(8, 10)
    assert est.value == 0.8
    assert est.low == pytest.approx(0.4902, abs=1e-4) and est.high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0).n == 0 and wilson(0, 0).format() == "n/a"
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_mean_ci_matches_hand_computation():
    est = mean_ci([1.0, 2.0, 3.0, 4.0])
    half = 1.959963984540054 * np.std([1, 2, 3, 4], ddof=1) / 2
    assert est.value == 2.5 and est.low == pytest.approx(2.5 - half) and est.high == pytest.approx(2.5 + half)


def test_mean_ci_clips_to_the_bounds_of_a_fraction():
    est = mean_ci([1.0, 1.0, 1.0, 0.5], bounds=(0.0, 1.0))
    assert est.high == 1.0 and est.low < est.value < 1.0


def test_bootstrap_interval_stays_within_the_observed_values():
    from cogsim.metrics import bootstrap

    est = bootstrap([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    assert est.value == 0.25 and 0.0 <= est.low <= 0.25 <= est.high <= 1.0
    assert bootstrap([3.0, 5.0], statistic=lambda v: float(max(v))).value == 5.0


class TakeTurns(TextEnv):
    """Two players alternate; each must say its own seat number; three turns in all."""

    suite = "test"
    num_players = 2

    def _reset(self, seed, options):
        self.turn = 0
        return observation("Say your seat.", player=0)

    def _step(self, action):
        ok = action == str(self.turn % 2)
        self.turn += 1
        done = self.turn == 3
        info = {"parse": "ok", "parsed": action}
        if done:
            info["episode"] = {"turns": self.turn}
        return observation("Next.", player=self.turn % 2), float(ok), done, False, info

    def scripted_response(self, policy, rng):
        return {"seat0": "0", "seat1": "1"}[policy]


def test_play_scripted_routes_each_player_to_its_policy():
    played = envs.play_scripted(TakeTurns(), ["seat0", "seat1"], seed=4)
    assert played.rewards == [1.0, 1.0, 1.0] and played.terminated and played.turns == 3
    assert played.episode == {"turns": 3} and len(played.observations) == 4
    wrong = envs.play_scripted(TakeTurns(), "seat0", seed=4)  # one policy for every seat
    assert wrong.rewards == [1.0, 0.0, 1.0]
