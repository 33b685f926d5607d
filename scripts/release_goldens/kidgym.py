"""Golden frames of KidGym's release look, made with the release's own drawing code.

    COGSIM_RELEASES=DIR [RELEASE_PYTHON=PY] .venv/bin/python scripts/release_goldens/kidgym.py

DIR/KidGym is a checkout or an extracted archive of BoBo-Ye/KidGym at 083cf1f; PY is a Python with the
release's dependencies (gymnasium, and the same Pillow and numpy as cogsim's; default: this one).
Scenes come from cogsim's engine (``env.scene()`` terms: fixed seeds, every task and level,
the first frame and the frames after oracle and random answers); each is drawn by the release's
``render()`` after its task object is set to the scene, and the SHA-256 of the RGBA frame is kept
(tests/benchmarks/kidgym/data/kidgym_release_frames.json: the scenes and the hashes, never the images).
The test tests/benchmarks/kidgym/test_kidgym_release_look.py draws the same scenes with cogsim and compares.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "benchmarks" / "kidgym" / "data" / "kidgym_release_frames.json"
RELEASE_IDS = {
    "classification": "CL", "puzzle": "PU", "counting": "CO", "placement": "PL", "sorting": "SO", "filling": "FI",
    "maze": "MA", "decode": "DE", "selection": "SE", "memory_maze": "MMA", "memory_filling": "MFI",
    "memory_decode": "MDE", "decode_maze": "DMA",
}  # fmt: skip
SEEDS = (0, 1, 2, 3)


# -- in cogsim's environment: the scenes -----------------------------------------------------------


def make_scenes() -> list[dict]:
    import numpy as np

    from cogsim import _core
    from cogsim.benchmarks.kidgym import TASKS
    from cogsim.benchmarks.kidgym import catalog as rc
    from cogsim.benchmarks.kidgym.scene import scene

    catalog = rc.core_catalog()
    scenes = []
    for name in RELEASE_IDS:
        for level in (1, 2, 3):
            states = _core.kidgym_generate(TASKS[name].core_id, level, list(SEEDS), catalog)
            for seed, state in zip(SEEDS, states):
                rng = np.random.default_rng(seed)
                step = 0
                while True:
                    scenes.append({"seed": seed, "step": step, "scene": scene(name, state)})
                    if state.done:
                        break
                    option = state.oracle_option() if seed < 2 else None
                    state.apply(int(rng.integers(len(state.options()))) if option is None else option)
                    step += 1
    return scenes


# -- in the release's environment: its drawing -----------------------------------------------------


def release_task(scene: dict):
    """The release's task object for ``scene``, set up so that its render() draws that scene."""
    import gymnasium as gym
    from src.obj import Obj
    from src.utils import ImgCombine, ImgZoom

    def obj(path: str, **attributes):
        folder, name = path[len("assets/imgs/") : -len(".png")].split("/")
        return Obj(name, folder, **attributes)

    task_name, level = scene["task"], scene["level"]
    env = gym.make(f"{RELEASE_IDS[task_name]}_L{level}").unwrapped
    env.grid.reset()
    env.cur_step = scene["step"]
    env.grid.show_id = scene["labels"]
    for o in scene["objects"]:
        item = obj(o["image"], position_id=2)
        item.set_id(o["label"])
        item.set_pos(tuple(o["cell"]))
        if not o["shown"]:
            item.visible = False
        env.grid.objs.append(item)
    env.agent.set_pos(tuple(scene["agent"]["cell"]))
    env.agent.dir = scene["agent"]["direction"]
    for path in scene["backpack"]:
        if path is not None:
            env.bag.add(obj(path))
    env.type = scene["background"].split("/")[2]
    bar = scene["side_bar"]
    env.side_bar = bar is not None
    env.bag_pieces = []  # Memory Filling: the backpack is already in the scene
    if bar is not None and bar["kind"] == "remember":
        env.obj = [obj(p) for p in bar["items"]]
        env.mem_num = len(env.obj)
    if bar is not None and bar["kind"] in ("pairs", "target"):
        pairs = bar.get("pairs") or [[bar["target"], bar["target"]]]
        left, right = [obj(a) for a, _ in pairs], [obj(b) for _, b in pairs]
        single = len(pairs) == 1
        env.related_num = env.match_pairs = len(pairs)
        env.objs_1, env.objs_2 = (left[0], right[0]) if single else (left, right)
        env.keys, env.doors = left, right
        if bar.get("target"):
            env.target_obj = obj(bar["target"])
    if bar is not None and bar["kind"] == "picture":
        env.pieces = [obj(p) for p in bar["pieces"]]
        img12 = ImgCombine(env.pieces[0].img, env.pieces[1].img, pad_h=False)
        img34 = ImgCombine(env.pieces[2].img, env.pieces[3].img, pad_h=False)
        env.target = ImgZoom(ImgCombine(img12, img34, pad_h=True), factor=0.6)
    return env


def release_frame(scene: dict):
    env = release_task(scene)
    with contextlib.redirect_stdout(io.StringIO()):
        return env.render()


def import_release() -> None:
    """Makes the release's packages (src, tasks) importable and registers its tasks with gymnasium."""
    root = Path(os.environ["COGSIM_RELEASES"]) / "KidGym"
    sys.path.insert(0, str(root))
    os.chdir(root)
    import tasks  # noqa: F401


def draw_goldens(scenes_path: Path) -> None:
    import numpy
    import PIL

    import_release()

    scenes = json.loads(scenes_path.read_text())
    for item in scenes:
        frame = release_frame(item["scene"])
        item["shape"] = list(frame.shape)
        item["sha256"] = hashlib.sha256(numpy.ascontiguousarray(frame).tobytes()).hexdigest()
    golden = {
        "source": (
            "frames drawn by the render() of BoBo-Ye/KidGym 083cf1f (src/task.py, src/grid.py, src/bag.py, "
            f"src/agent.py, tasks/*.py) with Pillow {PIL.__version__} and numpy {numpy.__version__}, from scenes "
            "of cogsim's release engine; SHA-256 of the RGBA frame bytes; written by scripts/release_goldens/kidgym.py"
        ),
        "frames": scenes,
    }
    OUT.write_text(json.dumps(golden, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {len(scenes)} golden frames to {OUT}")


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "draw":
        draw_goldens(Path(sys.argv[2]))
        return 0
    if not (Path(os.environ.get("COGSIM_RELEASES", "")) / "KidGym" / "src").is_dir():
        print("set COGSIM_RELEASES=DIR with DIR/KidGym a copy of the KidGym release", file=sys.stderr)
        return 2
    scenes_path = OUT.with_suffix(".scenes.tmp")
    scenes_path.write_text(json.dumps(make_scenes()))
    try:
        python = os.environ.get("RELEASE_PYTHON", sys.executable)
        subprocess.run([python, str(Path(__file__).resolve()), "draw", str(scenes_path)], check=True)
    finally:
        scenes_path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
