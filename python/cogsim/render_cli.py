"""``cogsim render KIND --seed S --out file.png``: a PNG of an example scene of a benchmark's look,
for looking at."""

from __future__ import annotations

import argparse

import numpy as np

KINDS = ("grid", "cube", "cards", "maze3d", "minimap", "patch")


def add_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("render", help="write a PNG of an example scene of any kind, for a seed")
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="PNG path (default: render-KIND-SEED.png)")
    parser.add_argument("--backend", default="egl", help="OpenGL context backend: egl (headless) or default")
    parser.add_argument("--cell-size", type=int, default=64, help="grid: cell size in px (32, 64, 96)")
    parser.add_argument("--theme", default="ascii", help="cards: ascii, poker, textures, noise, shapes, colors")
    parser.add_argument("--size", type=int, default=512, help="maze3d, minimap, patch: frame size in px")
    parser.add_argument("--fov", type=float, default=90.0, help="maze3d: horizontal field of view, degrees")
    parser.add_argument("--eye-height", type=float, default=0.5, help="maze3d: eye height (walls are 1 high)")
    parser.set_defaults(handler=run)


def render_example(renderer, args: argparse.Namespace) -> np.ndarray:
    from cogsim.benchmarks.cubebench import cogsim_look as cube_look
    from cogsim.benchmarks.kidgym import cogsim_look as kidgym_look
    from cogsim.benchmarks.rngbench.maze import cogsim_look as maze_look
    from cogsim.benchmarks.rngbench.pairs import cogsim_look as pairs_look

    seed = args.seed
    if args.kind == "grid":
        return renderer.grid(kidgym_look.example_grid(seed, args.cell_size))[0]
    if args.kind == "cube":
        return renderer.cube_net(cube_look.example_cube_facelets(seed))[0]
    if args.kind == "cards":
        return renderer.cards(pairs_look.example_cards(seed, theme=args.theme))[0]
    if args.kind == "maze3d":
        m, row, col, heading = maze_look.example_view(seed)
        options = maze_look.ViewOptions(args.size, args.size, fov=args.fov, eye_height=args.eye_height)
        return renderer.mazes(m).views(0, row, col, heading, options)[0]
    view = maze_look.example_map_view(seed)
    if args.kind == "minimap":
        return renderer.minimap(view, size=args.size)[0]
    return renderer.patch(view, size=args.size)[0]


def run(args: argparse.Namespace) -> int:
    import sys

    from cogsim import render

    try:
        renderer = render.Renderer(backend=args.backend)
    except render.ContextError as error:
        print(f"cogsim: error: {error}", file=sys.stderr)
        return 2
    out = args.out or f"render-{args.kind}-{args.seed}.png"
    render.save_png(render_example(renderer, args), out)
    print(out)
    return 0
