"""Cube Bench throughput: item generation and scripted-oracle episodes per second, per test and depth.

    .venv/bin/python -m pytest benchmarks/bench_cubebench.py --benchmark-only

Episodes run through the env exactly as the model loop does (prompt text, net image unless the
modality is text, strict parsing); the oracle agent makes every episode run to its full length.
"""

import numpy as np
import pytest

import cogsim
from cogsim import cube
from cogsim.cube.suite import items

EPISODES = 20
DEPTHS = (1, 3, 7)


@pytest.fixture(scope="module", autouse=True)
def oracle():
    return cube.configure(progress=None)


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("test", items.TESTS)
def test_item_generation(benchmark, test, depth):
    benchmark(lambda: [items.make_item(test, depth, seed) for seed in range(EPISODES)])
    benchmark.extra_info["items_per_second"] = EPISODES / benchmark.stats.stats.median


def _episodes(env, seeds):
    rng = np.random.default_rng(0)
    for seed in seeds:
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, done, truncated, _ = env.step(env.scripted_response("oracle", rng))


@pytest.mark.parametrize("modality", ["image+text", "text"])
@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("env_id", ["cube/optimal-move", "cube/closed-loop", "cube/move-effect", "cube/recovery"])
def test_oracle_episodes(benchmark, env_id, depth, modality):
    env = cogsim.make(env_id, depth=depth, modality=modality)
    benchmark.pedantic(_episodes, args=(env, range(EPISODES)), rounds=3, warmup_rounds=1)
    benchmark.extra_info["episodes_per_second"] = EPISODES / benchmark.stats.stats.median
