"""Matching Pairs in the release's look: the release's own drawing code against cogsim's, same boards, one run.

    COGSIM_RELEASES=DIR python benchmarks/release_look_pairs.py [--states 40] [--rounds 5]

DIR/RNGBench is a copy of the release (its code runs here, with this Pillow; its fonts pinned to
matplotlib's files as in scripts/release_goldens/pairs.py); the release's card files must also be
installed for cogsim (`cogsim assets add rngbench DIR/RNGBench`). For each board size (10 x 10,
8 x 10) and theme (poker, noise) it plays random games and keeps --states board states (cards face
up, matched, face down), then times per board:

- raw: the release's ImageCardRenderer.render against ReleaseBoards.frames, called per observation
  (one frame a call, as an env draws) and once for all the states (one batch; one thread, all cores);
- as sent: the same plus the JPEG the release sends (quality 85, optimize=True): the release's own
  save against cogsim's encode per observation on one thread, and of one batch over a thread pool
  (Pillow encodes without the GIL);
- the floors: a new frame's copy of the felt alone (the memory a frame must be written to, as cogsim's
  frames get it), and the JPEG encoding alone, which no drawing speed goes below on one thread.

Every cogsim frame is checked equal to the release's before anything is timed. Medians of --rounds.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from cogsim.benchmarks.rngbench import pairs
from cogsim.benchmarks.rngbench.pairs import look
from cogsim.render.frames import encode_frames

REPO = Path(__file__).resolve().parents[1]


def encode(frame: np.ndarray) -> bytes:
    """A board as the release sends it (JPEG quality 85, optimized): the bytes cogsim sends."""
    return encode_frames([frame], look.FRAME_FORMAT)[0]


def load_goldens_script():
    spec = importlib.util.spec_from_file_location("pairs_goldens", REPO / "scripts" / "release_goldens" / "pairs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def game_states(rows: int, cols: int, seed: int, count: int) -> list[tuple[np.ndarray, list]]:
    """(shown state, face-up cards) along random games: every flip gives the board as the release shows it."""
    rng = np.random.default_rng(seed)
    states: list = []
    while len(states) < count:
        game = pairs.PairsBatch.from_boards([pairs.deal(rows, cols, seed)])
        while game.remaining() and len(states) < count:
            down = np.flatnonzero(game.state().ravel() == pairs.FACE_DOWN)
            card = int(rng.choice(down))
            first = game.pending()
            game.flip([card])
            shown = game.state().copy()
            up = [divmod(card, cols)] + ([divmod(first, cols)] if first >= 0 else [])
            for r, c in up:
                shown[r, c] = look.FACE_UP
            states.append((shown, up))
    return states


def median_time(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def copy_of(base: np.ndarray) -> np.ndarray:
    """The least a new frame costs: the base copied into frame memory as cogsim's frames get it."""
    frame = look.FRAMES.take(base.shape)
    np.copyto(frame, base)
    return frame


def release_jpeg(image) -> bytes:
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=85, optimize=True)  # ImageStore.save_pil
    return buffer.getvalue()


def bench_case(release, rows: int, cols: int, theme: str, seed: int, count: int, rounds: int, pool) -> dict:
    from env.board import Board
    from env.card_assets import CardAssets
    from env.renderer import ImageCardRenderer

    board = Board(rows=rows, cols=cols, seed=seed)
    assets = CardAssets(theme, str(release / "1_matching_pairs_new" / "assets"), (64, 64))
    assets.select(board.symbols, seed)
    renderer = ImageCardRenderer(card_assets=assets)
    states = game_states(rows, cols, seed, count)

    def release_draw(shown, up):
        board.matched = [[bool(shown[r][c] == look.REMOVED) for c in range(cols)] for r in range(rows)]
        return renderer.render(board, [tuple(rc) for rc in up])

    ids = pairs.deal(rows, cols, seed)
    base = look.board_base(rows, cols)
    boards = look.ReleaseBoards(ids, theme, seed)
    views = [look.View(shown) for shown, _ in states]
    frames = boards.frames(views)
    for (shown, up), frame in zip(states, frames):  # the same pixels, or no timing
        assert np.array_equal(np.asarray(release_draw(shown, up)), frame), "cogsim's frame differs from the release's"
    images = [release_draw(shown, up) for shown, up in states]

    per = 1.0 / len(states)
    t = {
        "release raw": median_time(lambda: [release_draw(s, u) for s, u in states], rounds) * per,
        "release sent": median_time(lambda: [release_jpeg(release_draw(s, u)) for s, u in states], rounds) * per,
        "jpeg floor": median_time(lambda: [release_jpeg(image) for image in images], rounds) * per,
        "cogsim raw per observation": median_time(lambda: [boards.frames([v], threads=1) for v in views], rounds) * per,
        "copy floor": median_time(lambda: [copy_of(base) for _ in views], rounds) * per,
        "cogsim raw 1 thread": median_time(lambda: boards.frames(views, threads=1), rounds) * per,
        "cogsim raw all cores": median_time(lambda: boards.frames(views, threads=0), rounds) * per,
        "cogsim sent 1 thread": median_time(lambda: [encode(boards.frames([v], threads=1)[0]) for v in views], rounds)
        * per,
        "cogsim sent all cores": median_time(lambda: list(pool.map(encode, boards.frames(views, threads=0))), rounds)
        * per,
    }
    return t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    releases = os.environ.get("COGSIM_RELEASES")
    if not releases:
        sys.exit("set COGSIM_RELEASES=DIR, where DIR/RNGBench is a copy of the release")
    release = Path(releases) / "RNGBench"
    sys.path.insert(0, str(release / "1_matching_pairs_new"))
    load_goldens_script().pin_fonts()
    cores = os.cpu_count() or 1
    rows_out = []
    with ThreadPoolExecutor(cores) as pool:
        for rows, cols in ((10, 10), (8, 10)):
            for theme in ("poker", "noise"):
                t = bench_case(release, rows, cols, theme, 0, args.states, args.rounds, pool)
                rows_out.append((f"{rows}x{cols} {theme}", t))
    import PIL

    print(
        f"Pillow {PIL.__version__}, numpy {np.__version__}, {cores} cores, {args.states} states per board, "
        f"median of {args.rounds} rounds; ms per board\n"
    )
    print(
        "| board | release raw | cogsim raw, per observation (1 thread) | ratio | cogsim raw, one batch (1 thread) "
        "| ratio | cogsim raw, one batch (all cores) | ratio | a new frame's copy alone (floor) | release raw / floor "
        "| release as sent | cogsim as sent, per observation (1 thread) | ratio | cogsim as sent, one batch (all "
        "cores) | ratio | JPEG alone (floor) | release as sent / floor |"
    )
    print("| --- |" + " ---: |" * 16)
    for name, t in rows_out:
        ms = {k: v * 1e3 for k, v in t.items()}
        cells = [name, f"{ms['release raw']:.2f}"]
        for key in ("cogsim raw per observation", "cogsim raw 1 thread", "cogsim raw all cores", "copy floor"):
            cells += [f"{ms[key]:.3f}", f"{t['release raw'] / t[key]:.0f}x"]
        cells.append(f"{ms['release sent']:.2f}")
        for key in ("cogsim sent 1 thread", "cogsim sent all cores", "jpeg floor"):
            cells += [f"{ms[key]:.2f}", f"{t['release sent'] / t[key]:.2f}x"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
