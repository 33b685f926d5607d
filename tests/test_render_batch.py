"""render.frame_batch(): 2D frames asked for inside the block come from shared passes, bit for bit
the frames drawn one call at a time, whatever else shares their pass."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cogsim import cube, render
from cogsim.benchmarks.kidgym import cogsim_look as kidgym_look
from cogsim.benchmarks.rngbench.maze import cogsim_look as maze_look
from cogsim.benchmarks.rngbench.pairs import cogsim_look as pairs_look
from cogsim.render._renderer import shared_renderer


@pytest.fixture(autouse=True, params=("gl", "compositor"))
def render_path(request, monkeypatch):
    """Every test on both render paths of 2D frames (shared_renderer() follows the variable)."""
    monkeypatch.setenv(render.RENDER_PATH_VARIABLE, request.param)
    return request.param


def _requests():
    """A mix of kinds and sizes, as envs stepped together ask for them."""
    r = shared_renderer()
    return [
        lambda: r.grid(kidgym_look.example_grid(1, cell_size=32)),
        lambda: r.cards(pairs_look.example_cards(2, rows=3, cols=4)),
        lambda: r.grid([kidgym_look.example_grid(s, cell_size=32) for s in (2, 3)]),
        lambda: r.cube_net(cube.Cube.from_moves("R U F'"), sticker=12),
        lambda: r.minimap(maze_look.example_map_view(3), size=96),
        lambda: r.grid(kidgym_look.example_grid(4, cell_size=64)),
        lambda: r.patch(maze_look.example_map_view(5), size=96),
        lambda: r.cards(pairs_look.example_cards(6, rows=3, cols=4, theme="shapes")),
    ]


def test_frames_of_a_batch_equal_frames_drawn_alone():
    alone = [request() for request in _requests()]
    with render.frame_batch():
        batched = [request() for request in _requests()]
    for a, b in zip(alone, batched):
        assert a.shape == b.shape and np.array_equal(a, b)


def test_nested_blocks_draw_when_the_outermost_ends():
    scene = kidgym_look.example_grid(7, cell_size=32)
    alone = shared_renderer().grid(scene)
    with render.frame_batch():
        with render.frame_batch():
            inner = shared_renderer().grid(scene)
        assert shared_renderer()._deferred, "the inner block's end must not draw yet"
    assert not shared_renderer()._deferred
    assert np.array_equal(alone, inner)


def test_frames_pending_says_whether_a_batch_holds_draws_not_yet_filled():
    scene = kidgym_look.example_grid(9, cell_size=32)
    assert not render.frames_pending()
    with render.frame_batch():
        assert not render.frames_pending()  # a frame drawn without the renderer is filled at once
        with render.frame_batch():
            shared_renderer().grid(scene)
        assert render.frames_pending()  # the inner block's end fills nothing
    assert not render.frames_pending()


def test_a_scene_changed_after_the_call_does_not_change_its_frame():
    scene = kidgym_look.example_grid(8, cell_size=32)
    alone = shared_renderer().grid(scene)
    with render.frame_batch():
        frame = shared_renderer().grid(scene)
        scene = dataclasses.replace(scene, items=())  # what an env's next step would do
        shared_renderer().grid(scene)
    assert np.array_equal(alone, frame)


def test_an_error_inside_the_block_still_fills_the_frames_and_leaves_nothing_behind():
    scene = kidgym_look.example_grid(9, cell_size=32)
    with pytest.raises(RuntimeError, match="boom"):
        with render.frame_batch():
            frame = shared_renderer().grid(scene)
            raise RuntimeError("boom")
    assert np.array_equal(frame, shared_renderer().grid(scene))
    assert not shared_renderer()._deferred
    assert np.array_equal(shared_renderer().grid(scene), frame)  # outside a block: drawn at once again


def test_kidgym_vector_env_frames_equal_single_env_frames():
    import cogsim

    seeds, env_id = [3, 4, 5], "kidgym/maze"
    vec = cogsim.make_vec(env_id, len(seeds))
    singles = [cogsim.make(env_id) for _ in seeds]
    obs, _ = vec.reset(seed=seeds)
    alone = [env.reset(seed=s)[0] for env, s in zip(singles, seeds)]
    for _ in range(3):
        for o, a in zip(obs, alone):
            assert o["text"] == a["text"]
            assert all(np.array_equal(x, y) for x, y in zip(o["images"], a["images"]))
        actions = [env.scripted_response("oracle", np.random.default_rng(0)) for env in singles]
        obs = vec.step(actions)[0]
        alone = [env.step(action)[0] for env, action in zip(singles, actions)]


def test_a_lockstep_run_stores_the_same_frames_with_and_without_batching(tmp_path, monkeypatch):
    from contextlib import nullcontext

    from cogsim.harness import RunConfig, Task, lockstep, run
    from cogsim.store import open_store

    def stored_frames(run_dir):
        with open_store(run_dir) as store:
            return store.query(
                "SELECT e.agent, e.episode_index, t.turn, t.images FROM turns t JOIN episodes e ON e.id = t.episode_id "
                "ORDER BY 1, 2, 3"
            )

    config = RunConfig(
        [Task("kidgym/maze", 4, {"cell_size": 32, "look": "cogsim"})], ["oracle", "random"], concurrency=8, max_turns=6
    )
    run(config, tmp_path / "batched")
    monkeypatch.setattr(lockstep, "shared_frame_passes", nullcontext)
    run(config, tmp_path / "alone")
    batched, alone = stored_frames(tmp_path / "batched"), stored_frames(tmp_path / "alone")
    assert len(batched) >= 16 and all(row[3] for row in batched)  # every turn showed a frame
    assert batched == alone  # frames are stored under their content's hash


def _reads_its_frame_env(**options):
    from cogsim.envs import TextEnv, observation

    class ReadsItsFrame(TextEnv):
        def _reset(self, seed, options):
            self.seed_value = seed
            return self._observe()

        def _step(self, action):
            return self._observe(), 0.0, True, False, {}

        def _observe(self):
            frame = shared_renderer().grid(kidgym_look.example_grid(self.seed_value, cell_size=32))[0]
            return observation(f"pixel sum {int(frame.sum())}", (frame,))

    return ReadsItsFrame(**options)


def test_an_env_that_reads_its_frames_while_stepping_is_never_deferred():
    """Envs opt in (TextEnv.batches_frames); one that does not, such as this plugin that reports a
    pixel sum of the frame it just drew, steps together with others and still reads real pixels."""
    import cogsim
    from cogsim.envs import register

    register("test/reads-its-frame", _reads_its_frame_env)
    expected = [int(shared_renderer().grid(kidgym_look.example_grid(s, cell_size=32))[0].sum()) for s in (1, 2)]
    obs, _ = cogsim.make_vec("test/reads-its-frame", 2).reset(seed=[1, 2])
    assert [o["text"] for o in obs] == [f"pixel sum {e}" for e in expected]
