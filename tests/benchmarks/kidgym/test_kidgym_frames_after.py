"""KidGym's release look notes the rows where a frame can differ from the episode's frame before it
(``ReleaseLook.frame_after``), and the PNG encoder takes the other bands from that frame's: the bytes
must be those of the pixels, on every task and level."""

from __future__ import annotations

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks.kidgym.look import BLEND, COPY, changed_rows
from cogsim.benchmarks.kidgym.tasks import TASKS
from cogsim.render import FrameEncoder, encode_frames
from cogsim.render import frames as sent_frames


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("task", sorted(TASKS))
def test_frames_encoded_after_the_one_before_are_the_bytes_of_their_pixels(task, level):
    env = cogsim.make(f"kidgym/{task}", level=level)
    encoder = FrameEncoder(threads=1, inline=True)
    rng = np.random.default_rng(level)
    noted = steps_shown = 0
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        shown = encoder.frames(obs["images"])
        for _ in range(12):
            obs, _, terminated, truncated, _ = env.step(env.scripted_response("random", rng))
            if terminated or truncated:
                break
            before, shown = shown, encoder.frames(obs["images"], after=shown)
            steps_shown += shown[-1].shape == before[-1].shape  # a side bar shown or gone: another size
            noted += sent_frames._changed_rows(shown[-1].pixels, before[-1].pixels) is not None
            assert [frame.data for frame in shown] == encode_frames(obs["images"])
    assert noted == steps_shown  # every frame after one of its size was noted: its other bands taken unread


def _op(kind: int, image: np.ndarray, x: int, y: int) -> tuple:
    return (kind, image, x, y)


def test_the_rows_that_can_change_are_those_of_the_ops_between_the_ones_both_frames_share():
    background, sprite = np.zeros((100, 50, 4), np.uint8), np.zeros((10, 10, 4), np.uint8)
    other = np.zeros((8, 8, 4), np.uint8)
    before = [_op(COPY, background, 0, 0), _op(BLEND, sprite, 5, 20), _op(BLEND, other, 30, 60)]
    moved = [_op(COPY, background, 0, 0), _op(BLEND, sprite, 5, 40), _op(BLEND, other, 30, 60)]
    assert changed_rows(before, before, 100) == []
    assert changed_rows(before, moved, 100) == [(20, 30), (40, 50)]
    assert changed_rows(before, before[:2], 100) == [(60, 68)]
    assert changed_rows(before, [_op(COPY, background.copy(), 0, 0)] + before[1:], 100) == [(0, 100), (0, 100)]
    assert changed_rows(before[:1], [_op(COPY, background, 0, 0), _op(BLEND, sprite, 0, 95)], 100) == [(95, 100)]
    an_equal_copy = [_op(COPY, background, 0, 0), _op(BLEND, sprite.copy(), 5, 20), before[2]]
    assert changed_rows(before, an_equal_copy, 100) == [(20, 30), (20, 30)]  # another array: taken as changed


def test_ops_both_frames_have_drawn_in_another_order_are_among_the_changed_rows():
    background, a, b = np.zeros((100, 50, 4), np.uint8), np.zeros((10, 10, 4), np.uint8), np.ones((10, 10, 4), np.uint8)
    first = [_op(COPY, background, 0, 0), _op(BLEND, a, 0, 0), _op(BLEND, b, 5, 5)]
    swapped = [first[0], first[2], first[1]]
    assert sorted(set(changed_rows(first, swapped, 100))) == [(0, 10), (5, 15)]
