"""Cube Bench throughput: item generation and scripted-oracle episodes per second, per test and depth.

    .venv/bin/python -m pytest benchmarks/bench_cubebench.py --benchmark-only

Episodes run through the env exactly as the model loop does (prompt text, net image unless the
modality is text, the release's answer extraction and protocol by default); the oracle agent makes
every episode run to its full length.
"""

import numpy as np
import pytest

import cogsim
from cogsim import cube
from cogsim.benchmarks.cubebench import items

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
    options = {"start": "injected"} if env_id == "cube/recovery" else {}  # the oracle never fails on its own
    env = cogsim.make(env_id, depth=depth, modality=modality, **options)
    benchmark.pedantic(_episodes, args=(env, range(EPISODES)), rounds=3, warmup_rounds=1)
    benchmark.extra_info["episodes_per_second"] = EPISODES / benchmark.stats.stats.median


# -- scripted baselines: `python benchmarks/bench_cubebench.py [episodes] [depths]` -------------------


def baseline_episodes(episodes_per_depth: int, depths) -> list:
    """Oracle and random agents on every test and variant, text modality where the test has one
    (scripted agents ignore the image; reconstruction, verification and the invariance sweep are
    image tests and render for real)."""
    variants = {
        "cube/reconstruction": [{}],
        "cube/verification": [{}],
        "cube/optimal-move": [{"modality": "text"}],
        "cube/reflection": [{"modality": "text", "regime": r} for r in ("guided-redacted", "guided-unredacted")],
        "cube/invariance": [{}],
        "cube/closed-loop": [
            {"modality": "text"},
            {"modality": "text", "credit": "teacher"},
            {"modality": "text", "abstention": True},
        ],
        "cube/move-effect": [{"modality": "text"}],
        "cube/recovery": [{"modality": "text", "start": "closed-loop"}, {"modality": "text", "start": "injected"}],
    }
    records = []
    for env_id, option_sets in variants.items():
        for options in option_sets:
            for depth in depths:
                env = cogsim.make(env_id, depth=depth, **options)
                for agent in ("oracle", "random"):
                    rng = np.random.default_rng(1)
                    for seed in range(episodes_per_depth):
                        env.reset(seed=seed)
                        done = False
                        while not done:
                            _, _, done, _, info = env.step(env.scripted_response(agent, rng))
                        records.append(
                            {"env_id": env_id, "options": options, "seed": seed, "agent": agent, **info["episode"]}
                        )
    return records


def _cell(value) -> str:
    from cogsim.metrics import Estimate

    return value.format(percent=True) if isinstance(value, Estimate) else str(value)


if __name__ == "__main__":
    import sys
    import time

    from cogsim.metrics import summarize

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    depth_list = [int(d) for d in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 2, 3, 4]
    cube.configure(progress=None)
    started = time.perf_counter()
    records = baseline_episodes(count, depth_list)
    for table in summarize("cube", records):
        print(f"\n### {table.title}\n\n| {' | '.join(table.columns)} |\n|{'---|' * len(table.columns)}")
        for row in table.rows:
            print(f"| {' | '.join(_cell(c) for c in row)} |")
        print(f"\n{table.note}")
    print(f"\n{len(records)} episodes in {time.perf_counter() - started:.1f} s")
