"""KidGym's release look: the frames the release's own code draws, pixel for pixel.

With the release's files (COGSIM_RELEASES=DIR, DIR/KidGym a copy of the release) every golden scene
(data/kidgym_release_frames.json, drawn by the release's render(): scripts/release_goldens/kidgym.py)
is drawn and its hash compared. Everywhere (CI has no release files) the same scenes are drawn from a
stand-in pack of the same files (tests/kidgym_standin.py) and compared with an independent statement
of the release's drawing steps (its grid image, pastes, backpack strip and side bars, written below with
Pillow); Pillow's paste arithmetic is checked for every (dst, src, alpha) value.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import cogsim
from cogsim import _core
from cogsim.benchmarks.kidgym import TASKS, catalog, release_files
from cogsim.benchmarks.kidgym.look import ReleaseLook

GOLDEN = json.loads((Path(__file__).parent / "data" / "kidgym_release_frames.json").read_text())
RELEASE = Path(os.environ.get("COGSIM_RELEASES", "/nonexistent")) / "KidGym"
needs_release = pytest.mark.skipif(not RELEASE.is_dir(), reason="COGSIM_RELEASES is not set to a copy of the release")


def test_paste_is_pillows_for_every_destination_source_and_alpha():
    values = np.arange(256, dtype=np.uint8)
    dst, src, alpha = (a.ravel() for a in np.meshgrid(values, values, values, indexing="ij"))
    side = 4096
    back = np.stack([dst, src, 255 - dst, dst], -1).reshape(side, side, 4)
    front = np.stack([src, dst, alpha, alpha], -1).reshape(side, side, 4)
    pillow = Image.fromarray(back, "RGBA")
    pillow.paste(Image.fromarray(front, "RGBA"), (0, 0), mask=Image.fromarray(front, "RGBA"))
    ours = np.empty((1, side, side, 4), np.uint8)
    _core.paste_frames(ours, [back, front], np.array([[0, 0, 0, 0, 0], [0, 1, 1, 0, 0]], np.int32))
    assert np.array_equal(ours[0], np.asarray(pillow))


# -- the release's drawing, restated step by step ------------------------------------------------


class Reference:
    """The release's render() restated with Pillow: Obj.render, Grid.render, Agent.render, Bag.render,
    ImgOverlay / ImgCombine / ImgZoom, and the tasks' get_info_img."""

    def __init__(self, root: Path):
        self.root = root
        self.loaded: dict = {}

    def load(self, path: str, size: int = 0) -> Image.Image:
        if (path, size) not in self.loaded:
            image = Image.open(self.root / path).convert("RGBA")
            self.loaded[path, size] = image.resize((size, size), Image.LANCZOS) if size else image
        return self.loaded[path, size].copy()

    @staticmethod
    def zoom(image: Image.Image, factor: float) -> Image.Image:
        return image.resize((int(image.width * factor), int(image.height * factor)), Image.LANCZOS)

    @staticmethod
    def over(back: Image.Image, front: Image.Image, offset=(0, 0), centred=False) -> Image.Image:
        back = back.copy()
        if centred:
            offset = ((back.width - front.width) // 2 + offset[0], (back.height - front.height) // 2 + offset[1])
        back.paste(front, offset, mask=front)
        return back

    @staticmethod
    def stack(images, vertical: bool) -> Image.Image:
        arrays = [np.asarray(i) for i in images]
        if vertical:
            width = max(a.shape[1] for a in arrays)
            arrays = [np.pad(a, ((0, 0), (0, width - a.shape[1]), (0, 0)), constant_values=255) for a in arrays]
            return Image.fromarray(np.concatenate(arrays, 0), "RGBA")
        height = max(a.shape[0] for a in arrays)
        arrays = [np.pad(a, ((0, height - a.shape[0]), (0, 0), (0, 0)), constant_values=255) for a in arrays]
        return Image.fromarray(np.concatenate(arrays, 1), "RGBA")

    def side_bar(self, bar: dict) -> Image.Image:
        white = Image.new("RGBA", (128, 576), (255, 255, 255, 255))
        box = "assets/imgs/game/bag_grid.png"
        if bar["kind"] == "remember":
            return self.over(
                white, self.zoom(self.stack([self.load(p, 96) for p in bar["items"]], True), 0.6), centred=True
            )
        if bar["kind"] == "pairs":
            rows = []
            for left, right in bar["pairs"]:
                tile = Image.new("RGBA", (64, 64), (255, 255, 255, 255))
                halves = [self.over(tile, self.zoom(self.load(p, 96), 0.5), centred=True) for p in (left, right)]
                arrow = self.zoom(self.load("assets/imgs/game/arrow.png"), 0.2)
                rows.append(self.over(self.stack(halves, False), arrow, centred=True))
            bar_image = self.over(white, self.stack(rows, True), centred=True)
            if bar.get("target"):
                target = self.over(
                    self.zoom(self.load(box), 0.6), self.zoom(self.load(bar["target"], 96), 0.6), centred=True
                )
                bar_image = self.over(bar_image, target, (0, -192), centred=True)
            return bar_image
        if bar["kind"] == "target":
            target = self.over(
                self.zoom(self.load(box), 1.1), self.zoom(self.load(bar["target"], 96), 0.9), centred=True
            )
            return self.over(white, target, centred=True)
        p = [self.load(path, 96) for path in bar["pieces"]]
        picture = self.zoom(self.stack([self.stack(p[:2], False), self.stack(p[2:], False)], True), 0.6)
        target = self.over(self.zoom(self.load(box), 1.1), self.zoom(picture, bar["zoom"]), centred=True)
        return self.over(white, target, centred=True)

    def frame(self, scene: dict) -> np.ndarray:
        grid = np.zeros((320, 320, 4), np.uint8)
        for o in scene["objects"]:
            if not o["shown"]:
                continue
            sprite = self.load(o["image"], 64)
            if scene["labels"] and o["label"] is not None:
                sprite = self.over(sprite, self.load(f"assets/imgs/id/obj_numbers/{o['label']}.png", 16), (24, 48))
            x, y = o["cell"]
            grid[64 * y : 64 * y + 64, 64 * x : 64 * x + 64] = np.asarray(sprite)
        direction = scene["agent"]["direction"]
        agent = self.over(
            self.load("assets/imgs/agent/agent.png", 64),
            self.load(f"assets/imgs/agent/direction/direction_{direction}.png", 64),
        )
        x, y = scene["agent"]["cell"]
        grid[64 * y : 64 * y + 64, 64 * x : 64 * x + 64] = np.asarray(agent)
        main = self.over(self.load(scene["background"]), Image.fromarray(grid, "RGBA"), tuple(scene["grid_at"]))
        slots = []
        for k, path in enumerate(scene["backpack"]):
            slot = self.load(f"assets/imgs/id/bag_letters/{'ABCD'[k]}.png")
            if path is not None:
                slot = self.over(slot, self.zoom(self.load(path, 64), 0.8), (10, 0), centred=True)
            slots.append(slot)
        padded = [slots[0]]
        for slot in slots[1:]:
            padded += [Image.new("RGBA", (12, 64), (255, 255, 255, 255)), slot]
        strip = self.stack(padded, False)
        bag = self.over(Image.new("RGBA", (448, 64), (255, 255, 255, 255)), strip, ((448 - strip.width) // 2, 0))
        frame = self.stack([main, bag], True)
        if scene["side_bar"] is not None:
            frame = self.stack([self.side_bar(scene["side_bar"]), frame], False)
        return np.asarray(frame)


def _sample_scenes(per_task_level: int = 2):
    seen: dict = {}
    for item in GOLDEN["frames"]:
        key = (item["scene"]["task"], item["scene"]["level"], item["scene"]["side_bar"] is None)
        if len(seen.setdefault(key, [])) < per_task_level:
            seen[key].append(item["scene"])
    return [scene for scenes in seen.values() for scene in scenes]


def test_stand_in_frames_follow_the_releases_drawing_steps(kidgym_release_images):
    look, reference = ReleaseLook(kidgym_release_images), Reference(kidgym_release_images)
    scenes = _sample_scenes()
    assert {s["task"] for s in scenes} == set(TASKS)
    for scene in scenes:
        assert np.array_equal(look.frame(scene), reference.frame(scene)), (scene["task"], scene["level"], scene["step"])


@needs_release
def test_frames_equal_the_releases_own_for_every_golden_scene():
    look = ReleaseLook(RELEASE)
    for item in GOLDEN["frames"]:
        frame = look.frame(item["scene"])
        assert list(frame.shape) == item["shape"]
        assert hashlib.sha256(frame.tobytes()).hexdigest() == item["sha256"], (item["scene"]["task"], item["seed"])


@needs_release
def test_the_installed_release_files_are_the_manifests():
    assert release_files.verify(RELEASE) == []


def test_the_goldens_cover_every_task_level_and_side_bar():
    covered = {(i["scene"]["task"], i["scene"]["level"]) for i in GOLDEN["frames"]}
    assert covered == {(name, level) for name in TASKS for level in (1, 2, 3)}
    kinds = {i["scene"]["side_bar"]["kind"] for i in GOLDEN["frames"] if i["scene"]["side_bar"]}
    assert kinds == {"remember", "pairs", "target", "picture"}
    assert "Pillow 13.0.0" in GOLDEN["source"]


def test_manifest_lists_every_image_the_drawing_loads(monkeypatch):
    monkeypatch.delenv("COGSIM_ASSETS_MANIFEST_KIDGYM", raising=False)  # the shipped one, not the stand-in's
    manifest = release_files.manifest()
    assert list(manifest) == ["benchmark", "repository", "commit", "archive_url", "files"]
    assert manifest["benchmark"] == "kidgym" and manifest["repository"] == "BoBo-Ye/KidGym"
    assert len(manifest["commit"]) == 40 and manifest["commit"] == catalog.COMMIT
    assert manifest["archive_url"] == f"https://github.com/BoBo-Ye/KidGym/archive/{manifest['commit']}.tar.gz"
    assert set(manifest["files"]) == {f"assets/imgs/{p}" for p in catalog.image_paths()}
    assert all(len(f["sha256"]) == 64 and f["size"] > 0 for f in manifest["files"].values())


# -- the env's frames ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(TASKS))
def test_env_frames_are_the_releases_size_rgba_and_redraw_from_the_scene(name, kidgym_release_images):
    env = cogsim.make(f"kidgym/{name}", level=2)
    obs, _ = env.reset(seed=4)
    side_bar = name in ("selection", "decode", "memory_decode", "decode_maze", "filling", "puzzle", "memory_filling")
    assert obs["images"][0].shape == (576, 576 if side_bar else 448, 4)
    scene = json.loads(json.dumps(env.scene()))
    assert np.array_equal(ReleaseLook(kidgym_release_images).frame(scene), obs["images"][0])
    obs, *_ = env.step(env.scripted_response("oracle", np.random.default_rng(0)))
    keeps_bar = side_bar and name not in ("selection", "memory_filling")  # these drop it after 'continue'
    assert obs["images"][0].shape == (576, 576 if keeps_bar else 448, 4)


def test_memory_filling_pieces_arrive_after_continue():
    env = cogsim.make("kidgym/memory_filling", level=1, images=False)
    env.reset(seed=0)
    assert env.scene()["backpack"] == [None] * 4 and env.scene()["side_bar"]["kind"] == "picture"
    env.step("A")
    scene = env.scene()
    assert all(scene["backpack"]) and scene["side_bar"] is None and len(env.state.options()) == 4


def test_missing_release_files_stop_with_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path / "cache-without-assets"))
    with pytest.raises(release_files.AssetsMissing, match="cogsim assets add kidgym .*look=cogsim") as error:
        cogsim.make("kidgym/maze")
    assert "\n" not in str(error.value)
    cogsim.make("kidgym/maze", images=False).reset(seed=0)  # text only: no files needed
    cogsim.make("kidgym/maze", look="cogsim").reset(seed=0)
    look = ReleaseLook(tmp_path)
    with pytest.raises(release_files.AssetsMissing, match="assets/imgs/maze/maze.png is missing"):
        look.file("assets/imgs/maze/maze.png")
    (tmp_path / "assets" / "imgs" / "agent").mkdir(parents=True)
    (tmp_path / "assets" / "imgs" / "agent" / "agent.png").mkdir()
    with pytest.raises(ValueError, match="not a regular file"):
        look.file("assets/imgs/agent/agent.png")
    os.mkfifo(tmp_path / "assets" / "imgs" / "agent" / "direction_0.png")
    with pytest.raises(ValueError):
        look.file("assets/imgs/agent/direction_0.png")
    with pytest.raises(ValueError, match="not one of the KidGym release files"):
        look.file("../../etc/passwd")
    outside = tmp_path.parent / "elsewhere.png"
    Image.new("RGBA", (4, 4)).save(outside)
    (tmp_path / "assets" / "imgs" / "maze").mkdir()
    (tmp_path / "assets" / "imgs" / "maze" / "wall.png").symlink_to(outside)
    with pytest.raises(ValueError, match="wall.png is a symbolic link, not a regular file"):  # never followed
        look.file("assets/imgs/maze/wall.png")
    broken = tmp_path / "assets" / "imgs" / "game"
    broken.mkdir(parents=True)
    (broken / "arrow.png").write_bytes(b"\x89PNG not really")
    with pytest.raises(ValueError, match="arrow.png in .* is not the release's file"):  # its SHA-256 is checked
        look.file("assets/imgs/game/arrow.png")


@pytest.mark.parametrize(
    "options, message",
    [
        ({"look": "sketch"}, "look must be one of release, cogsim"),
        ({"mechanics": "mine"}, "mechanics must be 'release' \\(the only game\\), got 'mine'"),
        ({"mechanics": "cogsim"}, "mechanics='cogsim', cogsim's earlier KidGym mechanics, are gone"),
        ({"look": "cogsim", "mechanics": "cogsim", "images": False}, "played by cogsim 0.1.0 and earlier"),
        ({"actions": "some"}, "actions must be one of release, executable"),
        ({"cell_size": 32}, "cell_size must be 64"),
        ({"maze_decoy_keys": 0}, "unknown option\\(s\\) 'maze_decoy_keys'"),
    ],
)
def test_bad_look_and_mechanics_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        cogsim.make("kidgym/maze", **options)


def test_an_episode_records_its_look_how_its_frames_were_sent_and_the_release_files():
    from cogsim import release_assets

    def record(**options) -> tuple:
        env = cogsim.make("kidgym/classification", **options)
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        while True:
            _, _, done, truncated, info = env.step(env.scripted_response("oracle", rng))
            if done or truncated:
                return info["episode"], env.frames_drawn_by()

    released, drawn = record()
    assert released["look"] == "release" and released["frames"] == {"format": "png"}  # RGBA PNGs, as it saves them
    assert released["release_assets"] == release_assets.used("kidgym") and drawn["look"] == "release"
    assert drawn == {"look": "release", "path": "cpu", "gl_renderer": None}
    cogsims, drawn = record(look="cogsim", cell_size=32)
    assert cogsims["look"] == "cogsim" and "release_assets" not in cogsims and drawn["look"] == "cogsim"
    blind, drawn = record(images=False)
    assert blind["look"] is None and "frames" not in blind and drawn is None
