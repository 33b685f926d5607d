"""The env contract (cogsim.envs.base), checked on every registered env id: spaces hold the
observations, a seed reproduces the episode, reset/step/close work, options stay what the user
passed, and misuse gives clear errors."""

import numpy as np
import pytest

import cogsim
from cogsim import envs, families

ENV_IDS = families.declared_env_ids()


def _same(a: dict, b: dict) -> bool:
    return (
        a["text"] == b["text"]
        and a["options"] == b["options"]
        and a["player"] == b["player"]
        and len(a["images"]) == len(b["images"])
        and all(np.array_equal(x, y) for x, y in zip(a["images"], b["images"]))
    )


def _play(env, seed: int, steps: int = 3):
    obs, info = env.reset(seed=seed)
    trace = [obs]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        action = env.scripted_response("random", rng)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs), obs
        assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(truncated, bool)
        assert info.get("parse") in ("ok", "parse_failure", "invalid")
        trace.append(obs)
        if terminated or truncated:
            assert isinstance(info.get("episode"), dict)
            break
    return trace


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_env_contract(env_id):
    env = cogsim.make(env_id)
    options_before = dict(env.options)
    with pytest.raises(envs.ResetNeeded):
        env.step("anything")
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs) and info["episode_seed"] == 5
    assert env.options == options_before, "reset must not change the options the env was made with"
    with pytest.raises(TypeError, match="response text"):
        env.step(None)
    first = _play(env, seed=11)
    again = _play(cogsim.make(env_id), seed=11)
    assert len(first) == len(again) and all(_same(a, b) for a, b in zip(first, again)), (
        "a seed must reproduce the episode"
    )
    assert {"oracle", "random"} <= set(env.scripted_policies)
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_final_observation_has_frames_only_for_a_caller_that_shows_it(env_id):
    shown = envs.play_scripted(cogsim.make(env_id), "random", seed=3).observations
    env = cogsim.make(env_id)
    env.final_frames = False
    unshown = envs.play_scripted(env, "random", seed=3).observations
    assert len(shown) == len(unshown) and all(_same(a, b) for a, b in zip(shown[:-1], unshown[:-1]))
    assert unshown[-1]["text"] == shown[-1]["text"] and unshown[-1]["images"] == ()
