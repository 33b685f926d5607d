"""Renderer throughput: egocentric maze views and grid frames, batched versus one frame per call,
with a Pillow (CPU) drawing of the same grid frame as a peer.

    python benchmarks/bench_render.py            # Markdown table of frames per second
    python -m pytest benchmarks/bench_render.py  # the same cases under pytest-benchmark
"""

from __future__ import annotations

import statistics
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from cogsim import render
from cogsim.benchmarks.kidgym import cogsim_look as kidgym_look
from cogsim.benchmarks.rngbench.maze import cogsim_look as maze_look
from cogsim.benchmarks.rngbench.maze.cogsim_look import ViewOptions

BATCH = 64
MAZE_SIZES = (64, 128, 512)  # 128 and 512 are the sizes; 64 shows the overhead-bound regime
GRID_PEER_FRAMES = 16
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


@lru_cache(maxsize=1)
def renderer() -> render.Renderer:
    return render.Renderer()


@lru_cache(maxsize=1)
def maze_workload():
    """64 views spread over 8 mazes of 10 x 10 cells (geometry uploaded once)."""
    mazes = renderer().mazes([maze_look.example_maze(seed, 10) for seed in range(8)])
    rng = np.random.Generator(np.random.PCG64(0))
    return (
        mazes,
        rng.integers(0, 8, BATCH),
        rng.integers(0, 10, BATCH),
        rng.integers(0, 10, BATCH),
        rng.integers(0, 4, BATCH),
    )


def maze_batch(size: int, count: int) -> np.ndarray:
    mazes, index, rows, cols, headings = maze_workload()
    return mazes.views(index[:count], rows[:count], cols[:count], headings[:count], ViewOptions(size, size))


def maze_single_loop(size: int, count: int = BATCH) -> list:
    mazes, index, rows, cols, headings = maze_workload()
    options = ViewOptions(size, size)
    return [mazes.views(index[i], rows[i], cols[i], headings[i], options) for i in range(count)]


@lru_cache(maxsize=1)
def grid_scenes() -> list:
    return [kidgym_look.example_grid(seed, cell_size=64) for seed in range(BATCH)]


def grid_batch(count: int) -> np.ndarray:
    return renderer().grid(grid_scenes()[:count])


def grid_single_loop(count: int) -> list:
    return [renderer().grid(scene) for scene in grid_scenes()[:count]]


# ---- the Pillow peer: the same grid frame drawn on the CPU ----


@lru_cache(maxsize=None)
def _pillow_sprite(name: str, size: int) -> Image.Image:
    # Resized sprites are cached, as the GPU keeps its atlas: the peer pays only for drawing.
    atlas = _pillow_atlas()
    x0, y0, x1, y1 = (round(v * s) for v, s in zip(renderer().atlases.sprite_uv[name], atlas.size * 2))
    return atlas.crop((x0, y0, x1, y1)).resize((size, size), Image.BILINEAR)


@lru_cache(maxsize=1)
def _pillow_atlas() -> Image.Image:
    return Image.fromarray(renderer().atlases.sprite_pixels, "RGBa").convert("RGBA")


@lru_cache(maxsize=None)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(DEJAVU), size)


def pillow_grid(scene: kidgym_look.GridScene) -> np.ndarray:
    """The grid scene's layout drawn with Pillow: background, panels, cells, sprites, labels."""
    c, size = scene.cell_size, scene.size
    outer, _, stripe, light, dark, _ = kidgym_look.SCENES[scene.scene]
    image = Image.new("RGB", (size, size), outer)
    draw = ImageDraw.Draw(image)
    for i in range(0, 2 * size, c // 2):
        draw.line([(i, 0), (i - size, size)], fill=stripe, width=c // 6)
    draw.rounded_rectangle(
        (5, 5, 2 * c - 5, 8 * c - 5), radius=c // 6, fill=kidgym_look.PANEL, outline=kidgym_look.PANEL_EDGE, width=3
    )
    draw.text((c, c // 3), "Hint", font=_font(c // 4), fill=kidgym_look.PANEL_EDGE, anchor="mm")
    draw.text((c, c), scene.hint_text[:14], font=_font(c // 6), fill=kidgym_look.INK, anchor="mm")
    for row in range(kidgym_look.PLAY_CELLS):
        for col in range(kidgym_look.PLAY_CELLS):
            draw.rectangle(kidgym_look.play_cell_rect(scene, row, col), fill=light if (row + col) % 2 == 0 else dark)
    draw.rectangle((0, 8 * c, size, size), fill=(92, 74, 58))
    for slot in range(kidgym_look.BACKPACK_SLOTS):
        x0, y0, x1, y1 = kidgym_look.backpack_slot_rect(scene, slot)
        draw.rounded_rectangle(
            (x0 + 4, y0 + 4, x1 - 4, y1 - 4), radius=6, fill=(236, 226, 206), outline=(60, 46, 34), width=2
        )
        draw.text((x0 + 6, y0 + 6), chr(65 + slot), font=_font(c // 5), fill=kidgym_look.INK)
        if slot < len(scene.backpack) and scene.backpack[slot]:
            image.paste(sprite := _pillow_sprite(scene.backpack[slot], c - 16), (x0 + 8, y0 + 8), sprite)
    for item in scene.items:
        x0, y0, x1, y1 = kidgym_look.play_cell_rect(scene, item.row, item.col)
        if item.cell_colour:
            draw.rounded_rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), radius=8, fill=item.cell_colour)
        image.paste(sprite := _pillow_sprite(item.sprite, c - 12), (x0 + 6, y0 + 6), sprite)
        if item.label is not None:
            draw.ellipse((x1 - 25, y0 + 1, x1 - 1, y0 + 25), fill=(255, 255, 255), outline=kidgym_look.INK, width=2)
            draw.text((x1 - 13, y0 + 13), str(item.label), font=_font(c // 5), fill=kidgym_look.INK, anchor="mm")
    for target in scene.targets:
        x0, y0, x1, y1 = kidgym_look.play_cell_rect(scene, target.row, target.col)
        draw.text(
            (x0 + 16, y1 - 12), kidgym_look.roman(target.numeral), font=_font(c // 5), fill=(176, 96, 0), anchor="mm"
        )
    if scene.agent is not None:
        x0, y0, _, _ = kidgym_look.play_cell_rect(scene, *scene.agent)
        image.paste(sprite := _pillow_sprite(scene.agent_sprite, c - 8), (x0 + 4, y0 + 4), sprite)
    return np.asarray(image)


def pillow_grid_loop(count: int) -> list:
    return [pillow_grid(scene) for scene in grid_scenes()[:count]]


# ---- the table ----


def frames_per_second(cases: dict, rounds: int = 5) -> dict:
    """Per case {name: (fn, frames)}: (median frames/s, median CPU ms per frame). Cases run
    interleaved round by round so that load from other processes hits them alike; CPU time
    (all threads of this process, llvmpipe's workers included) is steadier than wall time on a
    shared machine."""
    wall: dict = {name: [] for name in cases}
    cpu: dict = {name: [] for name in cases}
    for fn, _ in cases.values():
        fn()  # warm up: shader compilation, buffer allocation
    for _ in range(rounds):
        for name, (fn, _) in cases.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            fn()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    return {
        name: (frames / statistics.median(wall[name]), 1e3 * statistics.median(cpu[name]) / frames)
        for name, (_, frames) in cases.items()
    }


def _row(workload: str, frame: str, per_call, result) -> str:
    fps, cpu_ms = result
    return f"| {workload} | {frame} | {per_call} | {fps:,.0f} | {cpu_ms:.2f} |"


def table() -> str:
    info = renderer().ctx.info
    lines = [
        f"Device: {info['GL_RENDERER']} ({info['GL_VERSION']}); median of 5 interleaved rounds after a warm-up.",
        "",
        "| workload | frame | frames per call | frames/s (wall) | CPU ms per frame |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for size in MAZE_SIZES:
        fps = frames_per_second(
            {"batched": (lambda: maze_batch(size, BATCH), BATCH), "single": (lambda: maze_single_loop(size), BATCH)}
        )
        frame = f"{size}x{size}"
        gain_wall = fps["batched"][0] / fps["single"][0]
        gain_cpu = fps["single"][1] / fps["batched"][1]
        lines += [
            _row(f"maze3d, one call for {BATCH} views", frame, BATCH, fps["batched"]),
            _row("maze3d, one call per view (peer)", frame, 1, fps["single"]),
            f"| **maze3d batching gain** | {frame} | | **{gain_wall:.1f}x** | **{gain_cpu:.1f}x** |",
        ]
    fps = frames_per_second(
        {
            "batched": (lambda: grid_batch(BATCH), BATCH),
            "single": (lambda: grid_single_loop(GRID_PEER_FRAMES), GRID_PEER_FRAMES),
            "pillow": (lambda: pillow_grid_loop(GRID_PEER_FRAMES), GRID_PEER_FRAMES),
        },
        rounds=3,
    )
    lines += [
        _row(f"grid, one call for {BATCH} frames", "576x576", BATCH, fps["batched"]),
        _row("grid, one call per frame", "576x576", 1, fps["single"]),
        _row("grid, Pillow on the CPU (peer)", "576x576", 1, fps["pillow"]),
    ]
    return "\n".join(lines)


# ---- pytest-benchmark ----


@pytest.mark.parametrize("size", MAZE_SIZES)
@pytest.mark.parametrize("count", [1, BATCH])
def test_maze3d_batched(benchmark, size, count):
    benchmark.extra_info["frames"] = count
    benchmark(maze_batch, size, count)


@pytest.mark.parametrize("size", MAZE_SIZES)
def test_maze3d_single_frame_loop(benchmark, size):
    benchmark.extra_info["frames"] = BATCH
    benchmark(maze_single_loop, size)


@pytest.mark.parametrize("count", [1, BATCH])
def test_grid_batched(benchmark, count):
    benchmark.extra_info["frames"] = count
    benchmark(grid_batch, count)


def test_grid_single_frame_loop(benchmark):
    benchmark.extra_info["frames"] = GRID_PEER_FRAMES
    benchmark(grid_single_loop, GRID_PEER_FRAMES)


def test_grid_pillow_peer(benchmark):
    benchmark.extra_info["frames"] = GRID_PEER_FRAMES
    benchmark(pillow_grid_loop, GRID_PEER_FRAMES)


if __name__ == "__main__":
    print(table())
    sys.exit(0)
