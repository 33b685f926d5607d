"""The 3D maze's default pictures are the released harness's (InternLM/RNGBench 2_3d_maze/game.py):
the same frames, pixel for pixel, and the same JPEG bytes.

Goldens (data/maze_release_frames.json) were drawn by the release's own code
(scripts/release_goldens/maze.py). With COGSIM_RELEASES=DIR (DIR/RNGBench: the release's checkout),
the release's code also draws here and cogsim's frames are compared with its arrays.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import math
import os
import random
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, features

import cogsim
from cogsim import _core
from cogsim.benchmarks.rngbench import maze
from cogsim.benchmarks.rngbench.maze import look, rules
from cogsim.benchmarks.rngbench.maze.look import FRAME_FORMATS, BlockWorld, MazeState
from cogsim.render.frames import encode_frames

DATA = json.loads((Path(__file__).parent / "data" / "maze_release_frames.json").read_text())
SCRIPT = Path(__file__).resolve().parents[4] / "scripts" / "release_goldens" / "maze.py"
RELEASES = os.environ.get("COGSIM_RELEASES")
PINNED = ("pillow", "freetype2", "raqm", "libjpeg_turbo")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def golden_states():
    """(walk, frame record, MazeState) for every golden checkpoint."""
    for walk in DATA["walks"]:
        world = BlockWorld.of(maze.generate(walk["size"], walk["seed"], generator=walk["maze_type"]).walls)
        for frame in walk["frames"]:
            yield walk, frame, state_from(world, frame["state"], walk["vision_range"])


def state_from(world: BlockWorld, state: dict, vision_range: int) -> MazeState:
    visited = np.zeros((world.size, world.size), bool)
    for r, c in state["visited"]:
        visited[r, c] = True
    return MazeState(world, state["row"], state["col"], state["heading"], visited, state["steps"], vision_range)


def pinned_versions_differ() -> str:
    """Why this machine's Pillow cannot give the goldens' bytes ("" if it can): text rendering and JPEG
    encoding depend on Pillow's FreeType, raqm and libjpeg-turbo."""
    import PIL

    here = {"pillow": PIL.__version__, **{name: features.version(name) for name in PINNED[1:]}}
    differ = [
        f"{name} {DATA['versions'][name]} (here {here[name]})"
        for name in PINNED
        if here[name] != DATA["versions"][name]
    ]
    return "the goldens were drawn with " + ", ".join(differ) if differ else ""


# -- against the goldens (no release files needed) -------------------------------------------------
def test_the_goldens_say_where_they_come_from_and_pin_cogsims_font():
    assert DATA["source"].startswith("InternLM/RNGBench@f7fdd6e") and "2_3d_maze/game.py" in DATA["source"]
    assert sum(len(w["frames"]) for w in DATA["walks"]) >= 150
    assert {w["size"] for w in DATA["walks"]} >= {3, 5, 7, 9, 11, 13, 15}
    assert {w["vision_range"] for w in DATA["walks"]} >= {1, 2, 3, 4, 5, 6}
    assert DATA["font_sha256"] == sha256(look.font_path().read_bytes())


def test_the_3d_views_equal_the_releases():
    """The raycast view (no text, no Pillow drawing) on every machine."""
    checked = 0
    for _, frame, state in golden_states():
        if not frame["minimap"]:
            view = look.frames([state])[0, :360]
            assert sha256(view.tobytes()) == frame["view_sha256"], frame["state"]
            checked += 1
    assert checked >= 75


def test_frames_patches_and_jpegs_equal_the_releases():
    reason = pinned_versions_differ()
    if reason:
        pytest.skip(reason)
    states = list(golden_states())
    for minimap in (False, True):
        chosen = [(f, s) for _, f, s in states if f["minimap"] == minimap]
        frames = look.frames([s for _, s in chosen], minimap=minimap)
        for (record, _), frame in zip(chosen, frames):
            assert frame.shape == tuple(DATA["frame_shape"])
            assert sha256(frame.tobytes()) == record["frame_sha256"], record["state"]
            (jpeg,) = encode_frames([frame], FRAME_FORMATS["3d"])
            assert (sha256(jpeg), len(jpeg)) == (record["jpeg_sha256"], record["jpeg_bytes"])
    patches = look.patches([s for _, _, s in states])
    for (_, record, _), patch in zip(states, patches):
        assert patch.shape == tuple(DATA["patch_shape"])
        assert sha256(patch.tobytes()) == record["patch_sha256"], record["state"]
        assert sha256(encode_frames([patch], FRAME_FORMATS["patch"])[0]) == record["patch_jpeg_sha256"]


@pytest.mark.parametrize("modality", ["3d", "patch"])
def test_the_env_sends_the_release_picture_of_each_turn(modality):
    """Replaying each golden walk through the env: the state the release had, its picture, its bytes."""
    exact = not pinned_versions_differ()
    for walk in DATA["walks"]:
        for minimap in (False, True) if modality == "3d" else (False,):
            env = cogsim.make(
                "maze3d/nav",
                size=walk["size"],
                generator=walk["maze_type"],
                vision_range=walk["vision_range"],
                minimap=minimap,
                modality=modality,
            )
            obs, _ = env.reset(seed=walk["seed"])
            wanted = {f["after"]: f for f in walk["frames"] if modality == "patch" or f["minimap"] == minimap}
            world = BlockWorld.of(env.walls)
            for done in range(len(walk["actions"]) + 1):
                if done in wanted and obs["images"]:
                    record = wanted[done]
                    expected = state_from(world, record["state"], walk["vision_range"])
                    assert (env.row, env.col, env.heading, env.actions_taken) == (
                        expected.row,
                        expected.col,
                        expected.heading,
                        expected.steps,
                    )
                    assert np.array_equal(env.visited, expected.visited)
                    (image,) = obs["images"]
                    (sent,) = encode_frames(obs["images"], env.frame_format())
                    if exact:
                        key = "frame" if modality == "3d" else "patch"
                        assert sha256(image.tobytes()) == record[f"{key}_sha256"]
                        assert sha256(sent) == record[f"{'' if modality == '3d' else 'patch_'}jpeg_sha256"]
                if done < len(walk["actions"]):
                    obs = env.step(f"Thought: go\nAction: {walk['actions'][done]}")[0]
            env.close()


# -- the pieces --------------------------------------------------------------------------------------
def test_the_camera_is_pythons_math_as_the_release_computes_it():
    half_fov_tan = math.tan(math.radians(66 / 2))
    for heading, angle in enumerate((270.0, 0.0, 90.0, 180.0)):
        dir_x, dir_y = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        expected = (dir_x, dir_y, -dir_y * half_fov_tan, dir_x * half_fov_tan)
        assert [v.hex() for v in _core.maze_release_camera(heading)] == [v.hex() for v in expected]


def test_the_block_grid_is_the_releases_world():
    for generator, n, seed in (("v6", 13, 2), ("v5", 9, 1), ("cogsim", 8, 3), ("cogsim", 2, 0)):
        walls = maze.generate(n, seed, generator=generator).walls
        grid = look.block_grid(walls)
        assert grid.shape == (2 * n + 1,) * 2 and grid[0].all() and grid[:, -1].all() and grid[::2, ::2].all()
        assert not grid[1::2, 1::2].any()
        assert np.array_equal(rules.grid_to_walls(["".join("#."[not b] for b in row) for row in grid]), walls)


def test_ceiling_and_floor_are_numpys_float32_gradients():
    """A view with no wall in sight: the release's gradients, computed as NumPy does (float32)."""
    world = BlockWorld(np.zeros((1, 1), np.uint8), np.zeros((9, 9), np.uint8))  # no wall block within the fog
    view = look.frames([MazeState(world, 0, 0, 1, np.ones((1, 1), bool), 0, 1)])[0, :360]
    ys = np.arange(180, dtype=np.float32)
    t = ys / 179
    ceiling = [(np.uint8(b) * (1.0 - t) + np.uint8(a) * t).astype(np.uint8) for a, b in zip((8, 10, 22), (22, 28, 50))]
    ys = np.arange(180, 360, dtype=np.float32)
    t = (ys - 180) / 179
    floor = [(np.uint8(a) * (1 - t) + np.uint8(b) * t).astype(np.uint8) for a, b in zip((18, 15, 12), (55, 48, 38))]
    expected = np.concatenate([np.stack(ceiling, 1), np.stack(floor, 1)])
    assert np.array_equal(view, np.repeat(expected[:, None, :], 640, axis=1))


def test_a_wall_straight_ahead_fills_the_view_with_one_colour():
    walls = maze.generate(5, 0).walls
    world = BlockWorld.of(walls)
    row, col, heading = 0, 0, 0  # the north side of the top-left cell is the maze's border
    view = look.frames([MazeState(world, row, col, heading, np.eye(5, dtype=bool), 0, 4)])[0, :360]
    # perpendicular distance 0.5: strips 720 px high, fog 1 - 0.5 / 8; the face crossed along y (110, 115, 150)
    fog = np.float32(1 - 0.5 / 8)
    centre = (np.array([110, 115, 150], np.float32) * fog).astype(np.uint8)
    assert np.array_equal(view[:, 320], np.tile(centre, (360, 1)))


def test_walls_fade_to_black_and_vanish_past_the_fog_cut_off():
    """A straight corridor: its end wall 38.5 blocks ahead is drawn, darkened by 1 - d / (2 v), while
    d is at most 2 v + 0.5 blocks (black from 2 v on), and not at all beyond."""
    grid = np.ones((41, 41), np.uint8)
    grid[1, 1:40] = 0

    def centre_column(grid, vision_range):
        world = BlockWorld(np.zeros((1, 1), np.uint8), grid)
        state = MazeState(world, 0, 0, 1, np.ones((1, 1), bool), 0, vision_range)  # block (1, 1), facing east
        return look.frames([state])[0, :360, 320]

    background = centre_column(np.zeros((9, 9), np.uint8), 1)  # nothing to hit
    height = int(360 / 38.5) // 2
    for vision_range, fog in ((20, 1 - 38.5 / 40), (19, 0.0)):  # 38.5 <= 40.5 and 38.5 <= 38.5
        column = centre_column(grid, vision_range)
        colour = (np.array([160, 165, 200], np.float32) * np.float32(fog)).astype(np.uint8)
        assert np.array_equal(column[180 - height : 181 + height], np.tile(colour, (2 * height + 1, 1)))
        assert np.array_equal(column[: 180 - height], background[: 180 - height])
    assert np.array_equal(centre_column(grid, 18), background)  # 38.5 > 36.5: past the cut-off


def test_hud_stamps_equal_pil_drawing_the_hud():
    rng = random.Random(1)
    for n in (3, 9, 13, 63):
        world = BlockWorld.of(maze.generate(n, 0).walls)
        states = []
        for k in range(60):
            visited = np.zeros((n, n), bool)
            visited.flat[: rng.randint(1, n * n)] = True
            steps = rng.choice([k, 37 * k, 99_999 - k])
            states.append(MazeState(world, rng.randrange(n), rng.randrange(n), rng.randrange(4), visited, steps, 4))
        for state, frame in zip(states, look.frames(states)):
            image = Image.fromarray(frame.copy())
            look.draw_hud(image, state)
            assert np.array_equal(np.asarray(image), frame)


def test_hud_text_that_might_touch_is_drawn_by_pil(monkeypatch):
    """Where two pieces of text could share a pixel, stamps would not blend as PIL does: PIL draws it."""
    states = [s for _, f, s in golden_states()][:5]
    stamped = look.frames(states)
    hud_ops = look._hud_ops
    monkeypatch.setattr(look, "_hud_ops", lambda state: (hud_ops(state)[0][:1], False))  # no text stamped
    assert np.array_equal(look.frames(states), stamped)


def test_show_goal_colours_the_walls_around_the_goal_only_on_request():
    walls = maze.generate(9, 1, generator="v5").walls
    world = BlockWorld.of(walls)
    visited = np.zeros((9, 9), bool)
    state = MazeState(world, 8, 6, 1, visited, 0, 4)  # two cells west of the goal, facing it
    plain, shown = look.frames([state])[0], look.frames([state], show_goal=True)[0]

    def orange(frame):  # the goal colour (200, 120, 10) faded; walls are blue-grey, the floor brown (R - B < 20)
        return int((frame[:360, :, 0].astype(int) > frame[:360, :, 2].astype(int) + 60).sum())

    assert orange(shown) > 1000 and orange(plain) == 0
    assert np.array_equal(plain[360:], shown[360:])


def test_batches_are_the_same_bytes_on_any_number_of_threads():
    states = [s for _, f, s in golden_states()][:40]
    one = look.frames(states, minimap=True, threads=1)
    assert np.array_equal(one, look.frames(states, minimap=True, threads=2))
    assert np.array_equal(one[7], look.frames([states[7]], minimap=True)[0])
    out = np.zeros((3,) + look.FRAME_SHAPE, np.uint8)
    assert look.frames(states[:3], minimap=True, out=out) is out and np.array_equal(out, one[:3])
    with pytest.raises(ValueError, match="out must be"):
        look.frames(states[:2], out=out)


def test_bad_states_and_arguments_are_refused():
    world = BlockWorld.of(maze.generate(5, 0).walls)
    visited = np.zeros((5, 5), bool)
    for state, match in (
        (MazeState(world, 5, 0, 0, visited, 0, 4), "pose"),
        (MazeState(world, 0, 0, 4, visited, 0, 4), "pose"),
        (MazeState(world, 0, 0, 0, np.zeros((4, 4), bool), 0, 4), "visited"),
        (MazeState(world, 0, 0, 0, visited, 0, 0), "vision_range"),
    ):
        with pytest.raises(ValueError, match=match):
            look.frames([state])
    core = _core.MazeReleaseFrames()
    out = np.zeros((1, 420, 640, 3), np.uint8)
    view = np.array([[0, 1, 1, 1, 4, 0, 9, 9]], np.int32)
    no_ops, ends = np.zeros((0, 3), np.int32), np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="scene"):
        core.draw([], view, ends, no_ops, out)
    with pytest.raises(ValueError, match="pose"):
        core.draw([world.grid], np.array([[0, 11, 1, 1, 4, 0, 9, 9]], np.int32), ends, no_ops, out)
    with pytest.raises(ValueError, match="stamp"):
        core.draw([world.grid], view, np.ones(1, np.int64), np.array([[5, 0, 0]], np.int32), out)
    with pytest.raises(ValueError, match="640"):
        core.draw([world.grid], view, ends, no_ops, np.zeros((1, 300, 640, 3), np.uint8))
    with pytest.raises(ValueError, match="views"):
        core.draw([world.grid], view[:, :5], ends, no_ops, out)
    with pytest.raises(ValueError, match="_camera|heading"):
        _core.maze_release_camera(4)


# -- the env's options ----------------------------------------------------------------------------
def test_the_env_defaults_to_the_release_look_and_says_how_to_send_it():
    env = cogsim.make("maze3d/nav", size=5, minimap=True)
    obs, _ = env.reset(seed=0)
    (frame,) = obs["images"]  # the minimap is drawn into the frame, as the release draws it
    assert frame.shape == (420, 640, 3) and "Minimap (the last image)" not in obs["text"]
    assert env.frame_format() == {"format": "jpeg", "quality": 88, "optimize": True}
    assert env.frames_drawn_by() == {"look": "release", "path": "cpu", "gl_renderer": None}
    (sent,) = encode_frames(obs["images"], env.frame_format())
    decoded = np.asarray(Image.open(io.BytesIO(sent)))
    assert sent[:2] == b"\xff\xd8" and decoded.shape == frame.shape
    assert np.abs(decoded.astype(int) - frame).mean() < 4
    assert env.step("Action: nonsense")[0]["images"] == ()  # asked again, no new frame
    assert len(env.step("Action: turn_left")[0]["images"]) == 1
    patch = cogsim.make("maze3d/nav", size=5, modality="patch")
    assert patch.reset(seed=0)[0]["images"][0].shape == (188, 188, 3)
    assert patch.frame_format()["quality"] == 92
    text = cogsim.make("maze3d/nav", size=5, modality="text")
    assert text.reset(seed=0)[0]["images"] == () and text.frames_drawn_by() is None


def test_the_episode_records_its_look_and_how_its_frames_were_sent():
    env = cogsim.make("maze3d/nav", size=3, show_goal=True)
    env.reset(seed=0)
    record = _play_out(env)
    assert (record["look"], record["show_goal"]) == ("release", True)
    assert record["frames"] == {"format": "jpeg", "quality": 88, "optimize": True}
    patch = _play_out(cogsim.make("maze3d/nav", size=3, modality="patch"), reset=True)
    assert patch["frames"]["quality"] == 92 and "show_goal" not in patch
    assert _play_out(cogsim.make("maze3d/nav", size=3, modality="text"), reset=True)["look"] is None


def _play_out(env, reset: bool = False) -> dict:
    if reset:
        env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        _, _, done, truncated, info = env.step(env.scripted_response("oracle", rng))
        if done or truncated:
            return info["episode"]


def test_cogsims_look_stays_an_option():
    env = cogsim.make("maze3d/nav", size=5, look="cogsim", image_size=64, minimap=True)
    obs, _ = env.reset(seed=0)
    assert [i.shape for i in obs["images"]] == [(64, 64, 3), (64, 64, 3)]
    assert env.frame_format() == {"format": "png"} and env.frames_drawn_by()["look"] == "cogsim"
    assert all(b[:8] == b"\x89PNG\r\n\x1a\n" for b in encode_frames(obs["images"], env.frame_format()))
    env.close()
    # two cells west of the goal of 3x3 maze 0, facing it: the GL's goal tile shows with show_goal only
    views = []
    for show_goal in (False, True):
        env = cogsim.make("maze3d/nav", size=3, look="cogsim", image_size=64, show_goal=show_goal)
        env.reset(seed=0)
        env.row, env.col, env.heading = 2, 0, 1
        views.append(env._frame())
        env.close()
    assert not np.array_equal(*views)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"look": "gl"}, "look"),
        ({"show_goal": "yes"}, "show_goal"),
        ({"image_size": 128}, "image_size.*look='cogsim'"),
        ({"modality": "patch", "patch_radius": 2}, "patch_radius.*look='cogsim'"),
        ({"wall_tags": True}, "wall_tags.*look='cogsim'"),
        ({"modality": "patch", "minimap": True}, "minimap.*look='cogsim'"),
    ],
)
def test_options_the_release_look_cannot_honour_are_refused(options, match):
    with pytest.raises(ValueError, match=match):
        cogsim.make("maze3d/nav", **options)


# -- against the release's own code (COGSIM_RELEASES) ----------------------------------------------
@pytest.fixture(scope="module")
def release_game():
    if not RELEASES:
        pytest.skip("COGSIM_RELEASES is not set: the release's code is not at hand (the goldens above still run)")
    spec = importlib.util.spec_from_file_location("maze_release_goldens", SCRIPT)
    assert spec is not None and spec.loader is not None
    goldens = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(goldens)
    return goldens, goldens.load_release_game(Path(RELEASES))


def release_state(game, walls: np.ndarray, vision_range: int):
    """The release's game over cogsim's maze (any generator, any size), at the start."""
    n = walls.shape[0]
    g = game.MazeGame3D(maze_size=3, seed=0, vision_range=vision_range, action_space="v5")
    grid = look.block_grid(walls)
    g.maze_size, g.grid_h, g.grid_w = n, 2 * n + 1, 2 * n + 1
    g.grid = [["#" if wall else "." for wall in row] for row in grid]
    g.goal_pos = (2 * n - 1, 2 * n - 1)
    g.grid[1][1], g.grid[2 * n - 1][2 * n - 1] = "S", "G"
    return g


def place(g, row: int, col: int, heading: int) -> None:
    g.px, g.py = 2 * col + 1.5, 2 * row + 1.5
    g.facing = "NESW"[heading]
    g.angle = {"N": 270.0, "E": 0.0, "S": 90.0, "W": 180.0}[g.facing]


def test_golden_walks_equal_the_releases_arrays_and_bytes(release_game):
    goldens, game = release_game
    for record, states in goldens.golden_walks(game):
        world = BlockWorld.of(maze.generate(record["size"], record["seed"], generator=record["maze_type"]).walls)
        for index, (_, g) in enumerate(states):
            ours = state_from(world, goldens.state_of(g), record["vision_range"])
            for minimap in (False, True):
                theirs = goldens.release_pictures(g, minimap)
                frame = look.frames([ours], minimap=minimap)[0]
                assert np.array_equal(frame, theirs["frame"]), (record, index, minimap)
                assert encode_frames([frame], FRAME_FORMATS["3d"]) == [theirs["jpeg"]]
            patch = look.patches([ours])[0]
            assert np.array_equal(patch, theirs["patch"]) and encode_frames([patch], FRAME_FORMATS["patch"]) == [
                theirs["patch_jpeg"]
            ]


@pytest.mark.slow
def test_every_pose_of_these_mazes_is_the_releases_view(release_game):
    """Every cell and heading, vision ranges 1-7, the release's mazes and cogsim's (even sizes too):
    corners, grazing rays, walls at distance 0.5, the fog cut-off."""
    _, game = release_game
    for generator, n, seed in (("v6", 13, 2), ("v5", 11, 7), ("v5", 5, 1), ("cogsim", 8, 3), ("cogsim", 2, 4)):
        walls = maze.generate(n, seed, generator=generator).walls
        world = BlockWorld.of(walls)
        for vision_range in (1, 2, 4, 7):
            g = release_state(game, walls, vision_range)
            states, theirs = [], []
            for row in range(n):
                for col in range(n):
                    for heading in range(4):
                        place(g, row, col, heading)
                        theirs.append(g._build_3d_scene())
                        states.append(MazeState(world, row, col, heading, np.zeros((n, n), bool), 0, vision_range))
            ours = look.frames(states)[:, :360]
            for state, a, b in zip(states, ours, theirs):
                assert np.array_equal(a, b), (generator, n, seed, vision_range, state.row, state.col, state.heading)


def test_minimaps_of_any_size_and_reveal_are_the_releases(release_game):
    _, game = release_game
    rng = random.Random(5)
    for n in [2, 3, 4, 6, 8, 10, 13, 17, 25, 40, 63]:
        walls = maze.generate(n, n, generator="v6" if n % 2 and n >= 3 else "cogsim").walls
        world = BlockWorld.of(walls)
        for _ in range(3):
            vision_range = rng.choice([1, 2, 4, 6])
            g = release_state(game, walls, vision_range)
            g.seen_raw, g.visited_cells = set(), set()
            visited = np.zeros((n, n), bool)
            for _ in range(rng.randint(1, n * n)):
                row, col = rng.randrange(n), rng.randrange(n)
                visited[row, col] = True
                g.visited_cells.add((row, col))
                place(g, row, col, 0)
                g._update_visibility()
            row, col, heading = rng.randrange(n), rng.randrange(n), rng.randrange(4)
            place(g, row, col, heading)
            g.step_count = rng.choice([0, 7, 12345])
            theirs = np.asarray(g.render_frame(show_minimap=True))
            ours = look.frames([MazeState(world, row, col, heading, visited, g.step_count, vision_range)], True)
            assert np.array_equal(ours[0], theirs), (n, row, col, heading)
