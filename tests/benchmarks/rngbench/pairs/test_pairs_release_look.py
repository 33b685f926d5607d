"""Matching Pairs in the release's look (look="release"), on a stand-in card pack: every frame equals
the release's drawing steps re-expressed in Pillow (pairs_standin.py beside this file), through the env too;
the env's options, records and encoded frames; and the core's tile paste."""

import io

import numpy as np
import pytest
from PIL import Image
from tests.benchmarks.rngbench.pairs.pairs_standin import (
    jpeg,
    make_standin,
    reference_board,
    reference_faces,
    reference_oracle,
    use_standin,
)

import cogsim
from cogsim import _core, release_assets
from cogsim.benchmarks.rngbench.pairs import look
from cogsim.render.frames import encode_frames

FOLDERS = {"poker": "poker", "noise": "noise", "textures": "textures", "shapes": "abstract", "colors": "similar_colors"}


@pytest.fixture(scope="module")
def standin_pack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("standin")
    return make_standin(folder), folder / "cache"


@pytest.fixture
def standin(standin_pack, monkeypatch):
    made, cache = standin_pack
    return use_standin(made, cache, monkeypatch)


def shown_state(shape, up=(), removed=()):
    shown = np.zeros(shape, np.uint8)
    for r, c in removed:
        shown[r, c] = 2
    for r, c in up:
        shown[r, c] = 1
    return shown


@pytest.mark.parametrize(
    "theme, rows, cols, seed, cell",
    [("poker", 8, 10, 3, 64), ("noise", 10, 10, 0, 64), ("poker", 4, 4, 7, 48), ("noise", 2, 4, 1, 40)]
    + [(theme, 4, 6, 2, 64) for theme in ("textures", "shapes", "colors")],
)
def test_boards_equal_the_release_steps_on_the_standin_pack(standin, theme, rows, cols, seed, cell):
    from cogsim.benchmarks.rngbench import pairs

    ids = pairs.deal(rows, cols, seed)
    faces = reference_faces(standin, FOLDERS[theme], seed, ids.size // 2, cell)
    rng = np.random.default_rng(seed)
    cards = [divmod(int(k), cols) for k in rng.permutation(ids.size)]
    states = [
        shown_state(ids.shape),
        shown_state(ids.shape, up=cards[:1]),
        shown_state(ids.shape, up=cards[:2], removed=cards[4:9]),
        shown_state(ids.shape, up=cards),
        shown_state(ids.shape, removed=cards),
    ]
    boards = look.ReleaseBoards(ids, theme, seed, cell)
    memory = shown_state(ids.shape, up=cards[2:7], removed=cards[9:11])
    views = [look.View(s) for s in states] + [look.View(states[1], memory)]
    frames = boards.frames(views, threads=2)
    for state, frame in zip(states, frames):
        assert np.array_equal(frame, np.asarray(reference_board(ids, state, faces, cell)))
    oracle = reference_oracle(reference_board(ids, states[1], faces, cell), reference_board(ids, memory, faces, cell))
    assert np.array_equal(frames[-1], np.asarray(oracle))
    assert encode_frames([frames[-1]], look.FRAME_FORMAT) == [jpeg(oracle)]


def play_oracle(env, steps):
    rng = np.random.default_rng(0)
    for _ in range(steps):
        yield env.step(env.scripted_response("random", rng))


def test_env_frames_states_and_records_follow_the_release(standin):
    env = cogsim.make("pairs/single", rows=4, cols=4, modality="image", theme="poker")
    assert env.look == "release" and env.card_width == 64
    assert env.frame_format() == {"format": "jpeg", "quality": 85, "optimize": True}
    obs, _ = env.reset(seed=5)
    faces = reference_faces(standin, "poker", 5, 8, 64)
    assert np.array_equal(obs["images"][0], np.asarray(reference_board(env.board, shown_state((4, 4)), faces, 64)))
    for obs, _, done, truncated, info in play_oracle(env, 40):
        if done or truncated:
            break
        state = env.game.state()
        last = np.asarray(reference_board(env.board, state, faces, 64))
        if env.game.pending() >= 0 or "Round" in obs["text"]:  # the board now (its first flip face up)
            assert np.array_equal(obs["images"][-1], last)
        encoded = encode_frames(obs["images"], env.frame_format())
        assert len(encoded) == len(obs["images"])
        for frame, data in zip(obs["images"], encoded):
            assert data[:2] == b"\xff\xd8" and data == jpeg(Image.fromarray(frame))
    episode = info["episode"]
    assert episode["look"] == "release" and episode["frames"] == {"format": "jpeg", "quality": 85, "optimize": True}
    assert episode["release_assets"] == release_assets.used("rngbench")
    assert episode["release_assets"]["commit"] == release_assets.manifest("rngbench").commit
    assert env.frames_drawn_by() == {"look": "release", "path": "cpu", "gl_renderer": None}


def test_oracle_condition_sends_one_frame_of_live_board_and_memory_aid(standin):
    env = cogsim.make("pairs/single", rows=2, cols=4, modality="image", theme="noise", memory_map=True)
    env.reset(seed=3)
    faces = reference_faces(standin, "noise", 3, 4, 64)
    rng = np.random.default_rng(1)
    for _ in range(6):
        obs, *_ = env.step(env.scripted_response("random", rng))
        state = env.game.state()
        seen = env.game.seen() & (state != 2)
        memory = np.where(seen, 1, state)
        expected = reference_oracle(
            reference_board(env.board, state, faces, 64), reference_board(env.board, memory, faces, 64)
        )
        assert np.array_equal(obs["images"][-1], np.asarray(expected))
        assert "Memory aid" in obs["text"] and "live board" in obs["text"]


def test_text_theme_draws_the_release_text_board_without_files(tmp_path, monkeypatch):
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path))  # nothing installed
    env = cogsim.make("pairs/single", rows=2, cols=2, modality="image")
    obs, _ = env.reset(seed=0)
    lines = look.text_board_lines(env.board, np.zeros((2, 2), np.uint8))
    assert lines == ["  [A][B]", "a [*][*]", "b [*][*]"]
    assert obs["images"][0].shape == (3 * 44 + 2 * 40, 253, 3)  # 3 lines of 44 px, 40 px padding
    assert "release_assets" not in env._episode()


def test_labels_are_laid_out_by_raqm_or_the_release_look_says_what_is_missing(tmp_path, monkeypatch):
    """Pillow lays text out with Raqm where FriBiDi is installed and with its basic layout elsewhere;
    the two kern the labels apart (the 2x2 text board above is 256 pixels wide laid out the basic
    way), so the release look draws Raqm's everywhere or stops at make with one line."""
    from PIL import ImageFont, features

    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path))
    assert features.check("raqm"), "this machine lacks FriBiDi: scripts/setup.sh installs libfribidi0"
    basic = ImageFont.truetype(
        look.font_file("DejaVuSansMono.ttf"), look.TEXT_FONT_SIZE, layout_engine=ImageFont.Layout.BASIC
    )
    raqm = look._font("DejaVuSansMono.ttf", look.TEXT_FONT_SIZE)
    assert raqm.layout_engine == ImageFont.Layout.RAQM and basic.getlength("[A][B]") != raqm.getlength("[A][B]")
    monkeypatch.setattr(features, "check", lambda feature: feature != "raqm")
    with pytest.raises(release_assets.AssetsMissing, match="libfribidi0") as missing:
        cogsim.make("pairs/single", rows=2, cols=2, modality="image")
    assert "\n" not in str(missing.value) and "look='cogsim'" in str(missing.value)
    assert cogsim.make("pairs/single", rows=2, cols=2, modality="image", look="cogsim").look == "cogsim"


def test_missing_files_stop_make_and_reset_with_one_line(standin, tmp_path, monkeypatch):
    env = cogsim.make("pairs/duel", rows=2, cols=4, modality="image", theme="poker")
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path / "empty"))
    with pytest.raises(release_assets.AssetsMissing) as missing:
        env.reset(seed=0)
    message = str(missing.value)
    assert "\n" not in message
    for part in ("cogsim assets add rngbench PATH", "cogsim assets fetch rngbench", "--env-option look=cogsim"):
        assert part in message
    with pytest.raises(release_assets.AssetsMissing):
        cogsim.make("pairs/single", modality="image", theme="noise")
    assert cogsim.make("pairs/single", modality="image", theme="noise", look="cogsim").look == "cogsim"
    assert cogsim.make("pairs/single", theme="noise").look == "release"  # text: no pictures, no files


def test_look_options_are_checked_at_make(standin):
    for options, match in [
        ({"look": "paper"}, "look must be one of release, cogsim"),
        ({"coords": "numbers"}, "coords='numbers' needs look='cogsim'"),
        ({"faces": "cogsim"}, "faces='cogsim'"),
        ({"rows": 12, "cols": 10, "theme": "poker"}, "54 distinct faces"),
    ]:
        with pytest.raises(ValueError, match=match):
            cogsim.make("pairs/single", modality="image", **{"theme": "noise", **options})
    assert cogsim.make("pairs/single", modality="image", theme="noise", rows=10, cols=10).card_width == 64
    assert cogsim.make("pairs/single", modality="image", look="cogsim").card_width == 48


def test_asset_free_layers_of_the_release_board():
    """Felt, labels, backs and slots need no files; the frame sizes are the release's."""
    assert look.board_size(10, 10) == (708, 708) and look.board_size(8, 10) == (708, 572)
    base = look.board_base(8, 10)
    assert tuple(base[300, 2]) == (50, 120, 50) and base.shape == (572, 708, 3)
    assert tuple(look.back_tile()[10, 10]) in {(30, 80, 160), (40, 100, 180)}
    assert tuple(look.slot_tile()[30, 30]) == (247, 247, 247)  # 240 at alpha 128 over white, as Pillow blends


def test_paste_tiles_checks_its_input():
    bases = np.zeros((1, 8, 8, 3), np.uint8)
    tiles = np.arange(2 * 2 * 2 * 3, dtype=np.uint8).reshape(2, 2, 2, 3)
    out = [np.empty((8, 8, 3), np.uint8)]
    _core.paste_tiles(bases, np.zeros(1, np.int32), tiles, np.array([[[1, 6, 0], [-1, 0, 0]]]), out)
    assert np.array_equal(out[0][0:2, 6:8], tiles[1]) and out[0][2:].sum() == 0
    for ids, placements, match in [
        ([1], [[[0, 0, 0]]], "base id"),
        ([0], [[[2, 0, 0]]], "tile 2"),
        ([0], [[[0, 7, 0]]], "inside the frame"),
        ([0], [[[0, 0, -1]]], "inside the frame"),
    ]:
        with pytest.raises(ValueError, match=match):
            _core.paste_tiles(bases, np.array(ids, np.int32), tiles, np.array(placements), out)
    with pytest.raises(ValueError, match="every out must be"):
        _core.paste_tiles(bases, np.zeros(1, np.int32), tiles, np.zeros((1, 1, 3)), [np.empty((4, 8, 3), np.uint8)])
    with pytest.raises(ValueError, match="one base index per out"):
        _core.paste_tiles(bases, np.zeros(2, np.int32), tiles, np.zeros((1, 1, 3)), out)


def test_jpeg_is_what_the_release_sends():
    frame = look.board_base(2, 4).copy()
    (data,) = encode_frames([frame], look.FRAME_FORMAT)
    image = Image.open(io.BytesIO(data))
    assert image.format == "JPEG" and image.size == (frame.shape[1], frame.shape[0])


def test_frame_arena_reuses_a_block_only_when_its_frames_are_gone():
    arena = look.FrameArena(block_bytes=700, spare_blocks=1)
    pair = [arena.take((10, 10, 3)), arena.take((10, 10, 3))]  # 2 x 300 bytes (+ alignment) in one block
    pair[0][...] = 7
    second = arena.take((10, 10, 3))  # the block is full: a new one, the first still in use
    assert len(arena.blocks) == 2 and pair[1].base is arena.blocks[0] and second.base is arena.blocks[1]
    third = arena.take((10, 10, 3))
    assert third.base is arena.blocks[1] and (pair[0] == 7).all()
    del pair  # the first block's frames are gone: it is filled again
    fourth = arena.take((10, 10, 3))
    assert fourth.base is arena.blocks[0] and len(arena.blocks) == 2
    assert not np.shares_memory(fourth, second) and not np.shares_memory(fourth, third)
    kept = arena.take((10, 10, 3))  # the first block again (second frame in it), the second block still in use
    assert kept.base is arena.blocks[0] and len(arena.blocks) == 2
