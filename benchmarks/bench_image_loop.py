"""KidGym's scripted image loop against a text suite's, and the floor PNG encoding puts under it.

    python benchmarks/bench_image_loop.py [--rounds 3] [--kidgym-episodes 2000] [--wilt-episodes 260]
        [--runs-dir FOLDER] [--decompose]

1. Throughput: `cogsim run kidgym/classification --agent random` (the release's pictures: needs the
   release's files, `cogsim assets add kidgym`) and `cogsim run wilt/lite --agent random` with about
   as many turns, alternating, each in a fresh process with the default workers; turns/s = stored
   turns / wall time of the whole command. The ratio is taken round by round. KidGym makes a file
   per distinct frame, so its runs also measure the file system's cost of a new file: ``--runs-dir``
   on a tmpfs (``/dev/shm``) leaves that out, and each KidGym run's kernel share of its CPU is shown.
2. Where a KidGym turn's CPU goes, in one process: the env's reset and step (the release's picture
   drawn), and the PNG encoding of each frame shown (576x448 RGBA, cogsim's core encoder: the bytes
   the model gets).
3. The floor under the frame: the same frames encoded by the core encoder, by zlib at level 1 over
   the same filtered rows, and as a PNG whose deflate stream only stores the rows (no compression at
   all: copying, Adler-32 and CRC-32, the least any valid PNG of those pixels costs), and by Pillow
   at its default level (what the release itself does with a frame).
4. With ``--decompose``: where a KidGym turn's CPU goes in the run itself. The same `cogsim run` is
   timed again with one more part of the frame's way switched off in every process each time (a
   module that replaces it, imported at start through ``sitecustomize`` on ``PYTHONPATH``): the
   frame file written to the store, its SHA-256, its encoding (the frame cache's digest and the
   PNG), its drawing. CPU ms per stored turn (user and kernel, all processes) of each, beside a
   `wilt/lite` run's, and what a KidGym turn may cost for the 0.62 goal.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Optional

import numpy as np

import cogsim
from cogsim.render import encode_frames


def run_turns_per_s(args: list[str], out: Path, env: Optional[dict] = None) -> tuple[float, float, float, int]:
    """(turns/s, CPU seconds in user mode, CPU seconds in the kernel, turns) of ``cogsim run ARGS``
    and its waited-for children, in ``env`` (default: this process's environment)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "cogsim.cli", "run", *args, "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"cogsim run {' '.join(args)} failed")
    with sqlite3.connect(out / "store.sqlite") as db:
        turns = db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    return turns / wall, usage.ru_utime, usage.ru_stime, turns


def throughput(
    rounds: int, kidgym_episodes: int, wilt_episodes: int, runs_dir: Optional[Path]
) -> list[tuple[float, float]]:
    """turns/s of both runs, round by round. The kernel's share of KidGym's CPU is printed too: it is
    mostly writing one file per distinct frame, and what that costs depends on the file system the
    runs go to (and on what was deleted from it in the last half minute: ext4 skips the inodes of
    recently deleted files while it looks for a free one)."""
    results = []
    with tempfile.TemporaryDirectory(dir=runs_dir) as tmp:
        for r in range(rounds):
            kidgym, user, kernel, _ = run_turns_per_s(
                ["kidgym/classification", "--agent", "random", "--episodes", str(kidgym_episodes)], Path(tmp) / f"k{r}"
            )
            wilt, _, _, _ = run_turns_per_s(
                ["wilt/lite", "--agent", "random", "--episodes", str(wilt_episodes)], Path(tmp) / f"w{r}"
            )
            results.append((kidgym, wilt))
            for name in (f"k{r}", f"w{r}"):  # about 1.4 GB of frames a KidGym run at the default size
                shutil.rmtree(Path(tmp) / name)
            print(
                f"round {r}: kidgym {kidgym:.0f} turns/s ({kernel / (user + kernel):.0%} of its CPU in the kernel), "
                f"wilt {wilt:.0f} turns/s, ratio {kidgym / wilt:.3f}",
                flush=True,
            )
    return results


def file_system(folder: Path) -> str:
    """The type of the file system ``folder`` is on (Linux's mount table), or "unknown"."""
    best, kind = "", "unknown"
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return kind
    resolved = str(folder.resolve())
    for line in mounts:
        fields = line.split()
        point = fields[1]
        inside = resolved == point or resolved.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fields[2]
    return kind


def components(episodes: int) -> dict:
    """CPU ms per turn of KidGym's env (reset and step) and of encoding its frames; the frames."""
    env = cogsim.make("kidgym/classification")
    rng = np.random.default_rng(0)
    frames, turns, env_s = [], 0, 0.0
    for seed in range(episodes):
        began = time.process_time()
        observation, _ = env.reset(seed=seed)
        env_s += time.process_time() - began
        done = False
        while not done:
            frames.extend(observation["images"])
            answer = env.scripted_response("random", rng)
            began = time.process_time()
            observation, _, terminated, truncated, _ = env.step(answer)
            env_s += time.process_time() - began
            turns += 1
            done = terminated or truncated
    frame_format = env.frame_format()
    began = time.process_time()
    encoded = [encode_frames([frame], frame_format)[0] for frame in frames]
    encode_s = time.process_time() - began
    sizes = [len(data) for data in encoded]
    return {
        "turns": turns,
        "frames": len(frames),
        "shape": frames[0].shape,
        "env_ms_per_turn": 1000 * env_s / turns,
        "encode_ms_per_frame": 1000 * encode_s / len(frames),
        "png_bytes": statistics.median(sizes),
        "sample": frames[: min(len(frames), 200)],
    }


def floors(frames: list[np.ndarray]) -> dict:
    """ms per frame of: the core encoder, zlib level 1 over the filtered rows, a stored-deflate PNG,
    Pillow's PNG at its default level."""
    from PIL import Image

    from cogsim import _core

    def timed(encode) -> float:
        began = time.process_time()
        for frame in frames:
            encode(frame)
        return 1000 * (time.process_time() - began) / len(frames)

    def filtered(frame: np.ndarray) -> bytes:
        rows = frame.reshape(frame.shape[0], -1)
        up = np.empty((rows.shape[0], rows.shape[1] + 1), np.uint8)
        up[:, 0] = 2
        up[0, 0] = 0
        up[0, 1:] = rows[0]
        up[1:, 1:] = rows[1:] - rows[:-1]
        return up.tobytes()

    def stored_png(frame: np.ndarray) -> bytes:
        data = filtered(frame)
        blocks = []
        for i in range(0, len(data), 65535):
            block = data[i : i + 65535]
            last = i + 65535 >= len(data)
            blocks.append(
                bytes([last]) + len(block).to_bytes(2, "little") + (0xFFFF ^ len(block)).to_bytes(2, "little")
            )
            blocks.append(block)
        stream = b"\x78\x01" + b"".join(blocks) + zlib.adler32(data).to_bytes(4, "big")
        return stream + zlib.crc32(stream).to_bytes(4, "big")

    def pillow(frame: np.ndarray) -> bytes:
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, "PNG")
        return buffer.getvalue()

    return {
        "core encoder": timed(lambda f: _core.encode_png(f[None], 1)),
        "zlib level 1 (filtered rows)": timed(lambda f: zlib.compress(filtered(f), 1)),
        "stored deflate (no compression)": timed(stored_png),
        "Pillow, default level": timed(pillow),
        "sizes (KB)": {
            "core encoder": len(_core.encode_png(frames[0][None], 1)[0]) / 1e3,
            "zlib level 1": len(zlib.compress(filtered(frames[0]), 1)) / 1e3,
            "stored": len(stored_png(frames[0])) / 1e3,
            "Pillow": len(pillow(frames[0])) / 1e3,
        },
    }


# Each switch-off replaces one internal of the frame's way; each is imported with the ones before it.
SWITCH_OFFS = {
    "store_write": """
from cogsim.store import sqlite
sqlite.Store.put_encoded = lambda self, ref, data: ref
""",
    "sha256": """
import itertools
from cogsim import _core
from cogsim.render import frames
_names = itertools.count()
def _encode(self, sent):
    _core.frame_digest(sent.pixels)
    return frames._encode_one(sent.pixels, sent.frame_format), "%064x" % next(_names)
frames.FrameEncoder._encode = _encode
""",
    "encoding": """
from cogsim.render import frames
frames.FrameEncoder._encode = lambda self, sent: (b"", "0" * 64)
""",
    "drawing": """
import numpy as np
from cogsim.benchmarks.kidgym import look
_drawn = {}
def _draw(self, scenes):
    width, height = scenes[0]["size"]
    key = (len(scenes), height, width)
    if key not in _drawn:
        _drawn[key] = np.zeros((len(scenes), height, width, 4), np.uint8)
    return _drawn[key]
look.ReleaseLook.draw = _draw
""",
}


def cpu_ms_per_turn(args: list[str], out: Path, switched_off: list[str], patches: Path) -> float:
    """CPU ms (user and kernel, the command and its children) per stored turn of ``cogsim run ARGS``
    with the named parts of the frame's way switched off in every process."""
    env = dict(os.environ)
    if switched_off:
        env["PYTHONPATH"] = os.pathsep.join([str(patches), *filter(None, [env.get("PYTHONPATH")])])
        env["COGSIM_BENCH_SWITCHED_OFF"] = ",".join(switched_off)
    _, user, kernel, turns = run_turns_per_s(args, out, env)
    shutil.rmtree(out)
    return 1000 * (user + kernel) / turns


def decompose(rounds: int, kidgym_episodes: int, wilt_episodes: int, runs_dir: Optional[Path]) -> None:
    """The in-run cost of each part of a KidGym turn's frame (medians over rounds), beside WILT's turn."""
    parts = list(SWITCH_OFFS)
    steps: dict[str, list[float]] = {name: [] for name in ["nothing", *parts, "wilt"]}
    with tempfile.TemporaryDirectory(dir=runs_dir) as tmp, tempfile.TemporaryDirectory() as patches:
        for name, code in SWITCH_OFFS.items():
            (Path(patches) / f"bench_switch_off_{name}.py").write_text(code)
        (Path(patches) / "sitecustomize.py").write_text(
            "import os\n"
            "for _name in filter(None, os.environ.get('COGSIM_BENCH_SWITCHED_OFF', '').split(',')):\n"
            "    __import__('bench_switch_off_' + _name)\n"
        )
        kidgym = ["kidgym/classification", "--agent", "random", "--episodes", str(kidgym_episodes)]
        for r in range(rounds):
            for k, name in enumerate(["nothing", *parts]):
                steps[name].append(cpu_ms_per_turn(kidgym, Path(tmp) / f"d{r}{k}", parts[:k], Path(patches)))
            wilt = ["wilt/lite", "--agent", "random", "--episodes", str(wilt_episodes)]
            steps["wilt"].append(cpu_ms_per_turn(wilt, Path(tmp) / f"w{r}", [], Path(patches)))
    median = {name: statistics.median(values) for name, values in steps.items()}
    print(f"CPU ms per turn, medians of {rounds} rounds (each: {', '.join(f'{v:.3f}' for v in steps['nothing'])})")
    print(f"  kidgym/classification, whole: {median['nothing']:.3f}")
    before = "nothing"
    for name in parts:
        print(f"  - {name.replace('_', ' ')}: {median[before] - median[name]:.3f}")
        before = name
    print(f"  - the rest (the env's rules and scene, the runner, the store's rows): {median[parts[-1]]:.3f}")
    print(f"  wilt/lite, whole: {median['wilt']:.3f}")
    print(f"  a KidGym turn at 0.62 of WILT's turns/s, at the same CPU per wall second: {median['wilt'] / 0.62:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kidgym-episodes", type=int, default=2000)  # 4 turns each
    parser.add_argument("--wilt-episodes", type=int, default=260)  # 31 turns each
    parser.add_argument("--components-episodes", type=int, default=300)
    parser.add_argument(
        "--runs-dir", type=Path, help="where the runs are written (default: the temporary folder), e.g. a tmpfs"
    )
    parser.add_argument(
        "--decompose", action="store_true", help="also time the runs with parts of the frame's way switched off"
    )
    args = parser.parse_args()
    runs_dir = args.runs_dir or Path(tempfile.gettempdir())
    print(
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, runs in {runs_dir} ({file_system(runs_dir)})"
    )
    parts = components(args.components_episodes)
    floor = floors(parts.pop("sample"))
    print(
        f"KidGym turn, one process: env {parts['env_ms_per_turn']:.2f} ms (reset and step, the release's picture), "
        f"{parts['frames'] / parts['turns']:.2f} frames of {parts['shape']} encoded at "
        f"{parts['encode_ms_per_frame']:.2f} ms each ({parts['png_bytes'] / 1e3:.0f} KB)"
    )
    print("PNG of one frame, ms:", {k: (round(v, 3) if isinstance(v, float) else v) for k, v in floor.items()})
    rounds = throughput(args.rounds, args.kidgym_episodes, args.wilt_episodes, args.runs_dir)
    ratios = [k / w for k, w in rounds]
    if ratios:
        print(
            f"kidgym / wilt turns/s: median {statistics.median(ratios):.3f} (rounds: {', '.join(f'{r:.3f}' for r in ratios)})"
        )
    if args.decompose:
        decompose(args.rounds, args.kidgym_episodes, args.wilt_episodes, args.runs_dir)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
