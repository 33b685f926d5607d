"""
cogsim C++ core: deterministic, batched engines (cube, pairs and maze, kidgym, wilt), the renderer's pixel repacking and its CPU compositor of 2D frames, frames of a template and flat-colour rectangles, PNG encoding
"""

from __future__ import annotations

import collections.abc
import typing

import numpy
import numpy.typing

__all__: list[str] = [
    "Compositor",
    "CosetSolver",
    "CubeOracle",
    "KidCatalog",
    "KidState",
    "MazeReleaseFrames",
    "PngBands",
    "SearchLimitError",
    "TableMemoryError",
    "WiltCases",
    "WiltProgram",
    "WiltProgramSet",
    "WiltReference",
    "clear_png_band_cache",
    "cube_apply",
    "cube_coset_build",
    "cube_coset_sizes",
    "cube_format_moves",
    "cube_from_facelets",
    "cube_inverse",
    "cube_move_names",
    "cube_multiply",
    "cube_neighbours",
    "cube_parse_moves",
    "cube_phase1_table",
    "cube_random_state",
    "cube_solved",
    "cube_states_from_facelets",
    "cube_states_from_moves",
    "cube_states_from_text",
    "cube_to_facelets",
    "cube_validate",
    "encode_png",
    "encode_png_after",
    "frame_digest",
    "kidgym_default_budget",
    "kidgym_generate",
    "kidgym_play",
    "kidgym_roles",
    "kidgym_state",
    "kidgym_task_names",
    "kidgym_verbs",
    "maze_extra_openings",
    "maze_generate",
    "maze_reachable_cells",
    "maze_release_camera",
    "maze_shortest_actions",
    "maze_shortest_cells",
    "maze_step",
    "paint_rect_frames",
    "pairs_deal",
    "pairs_flip",
    "pairs_optimal",
    "pairs_play_optimal",
    "paste_frames",
    "paste_tiles",
    "png_band_cache_stats",
    "rgb_tiles",
    "wilt_check",
    "wilt_compare",
    "wilt_compare_pairs",
    "wilt_compare_truth",
    "wilt_evaluate",
    "wilt_evaluate_grid",
    "wilt_evaluate_many",
    "wilt_evaluate_set",
    "wilt_opcodes",
    "wilt_program",
    "wilt_uniform_points",
]

class SearchLimitError(RuntimeError):
    pass

class TableMemoryError(MemoryError):
    pass

class CubeOracle:
    def __init__(
        self,
        cache_dir: str,
        edge_size: typing.SupportsInt | typing.SupportsIndex = 6,
        perimeter_depth: typing.SupportsInt | typing.SupportsIndex = 6,
        threads: typing.SupportsInt | typing.SupportsIndex = 0,
        progress: typing.Any = None,
        shell_filter: bool = True,
        phase1: typing.Any = "off",
    ) -> None: ...
    def distances(
        self,
        states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
        max_nodes: typing.SupportsInt | typing.SupportsIndex,
        threads: typing.SupportsInt | typing.SupportsIndex = 0,
        on_limit: str = "raise",
    ) -> tuple[numpy.typing.NDArray[numpy.int32], numpy.typing.NDArray[numpy.uint64]]:
        """
        Optimal distances and search nodes per state. A state over max_nodes raises SearchLimitError,
        or with on_limit='mark' gets distance -1 (and max_nodes as its node count).
        """
    def heuristics(
        self, states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]
    ) -> numpy.typing.NDArray[numpy.int32]:
        """
        The database lower bound of each state (the max over every table; no perimeter).
        """
    def histograms(self) -> dict: ...
    def info(self) -> dict: ...
    def phase1_bounds(
        self, states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]
    ) -> numpy.typing.NDArray[numpy.int32]:
        """
        Phase-1 distance of each state seen along the U-D, R-L and F-B axes: shape (N, 3).
        """
    def scrambles(
        self,
        depths: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
        seeds: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
        max_nodes: typing.SupportsInt | typing.SupportsIndex,
        threads: typing.SupportsInt | typing.SupportsIndex = 0,
    ) -> list[list[int]]: ...
    def solutions(
        self,
        states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
        max_nodes: typing.SupportsInt | typing.SupportsIndex,
        threads: typing.SupportsInt | typing.SupportsIndex = 0,
        on_limit: str = "raise",
    ) -> list[list[int] | None]:
        """
        One optimal solution (move indices) per state; with on_limit='mark', None for a state over max_nodes.
        """
    def solve(self, state: bytes, max_nodes: typing.SupportsInt | typing.SupportsIndex) -> list[int]: ...

class CosetSolver:
    @staticmethod
    def in_memory(
        size: str, threads: typing.SupportsInt | typing.SupportsIndex = 0, progress: typing.Any = None
    ) -> CosetSolver:
        """
        Builds the coset table of `size` in memory only (the small one takes seconds).
        """
    def __init__(self, size: str, path: str) -> None:
        """
        Maps and checks the coset table of `size` at `path`.
        """
    def bounds(
        self, states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]
    ) -> numpy.typing.NDArray[numpy.int32]:
        """
        The lower bound the search starts from, per state.
        """
    def code_counts(self) -> list[int]: ...
    def distances(
        self,
        states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
        max_nodes: typing.SupportsInt | typing.SupportsIndex,
        threads: typing.SupportsInt | typing.SupportsIndex = 0,
        on_limit: str = "raise",
    ) -> tuple[numpy.typing.NDArray[numpy.int32], numpy.typing.NDArray[numpy.uint64]]:
        """
        Optimal distances and search nodes per state, as CubeOracle.distances.
        """
    def entries(
        self, states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]
    ) -> numpy.typing.NDArray[numpy.int32]:
        """
        The six table entries of each state, shape (N, 6): the state seen along axes 0-2, then its inverse.
        """
    def info(self) -> dict: ...
    def solutions(
        self,
        states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
        max_nodes: typing.SupportsInt | typing.SupportsIndex,
        threads: typing.SupportsInt | typing.SupportsIndex = 0,
        on_limit: str = "raise",
    ) -> tuple[list[list[int] | None], numpy.typing.NDArray[numpy.uint64]]:
        """
        One optimal solution (move indices) per state and the search nodes of each; with on_limit='mark',
        None for a state over max_nodes.
        """
    def time_random_reads(self, reads: typing.SupportsInt | typing.SupportsIndex = 2000000) -> tuple[float, float]:
        """
        Nanoseconds per read of a random stripe of the table, one read waiting for the other and 16
        prefetched at a time: the memory latency the search meets on this machine.
        """
    def use_portable_search(self) -> None:
        """
        Searches with the portable build of the search from now on, even where the CPU has SSSE3.
        """

class KidCatalog:
    def __init__(
        self,
        resources: typing.Annotated[
            collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]],
            "FixedSize(4)",
        ],
        counting_piles: typing.Annotated[
            collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]],
            "FixedSize(2)",
        ],
        animal_pieces: collections.abc.Sequence[
            typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]
        ],
        all_pieces: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
        baskets: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"],
        keys: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"],
        doors: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"],
        puzzle: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"],
        roman: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(8)"],
        diamond: typing.SupportsInt | typing.SupportsIndex,
        wall: typing.SupportsInt | typing.SupportsIndex,
        treasure: typing.SupportsInt | typing.SupportsIndex,
        sorting: typing.Annotated[
            collections.abc.Sequence[
                collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]]
            ],
            "FixedSize(3)",
        ],
        layouts: typing.Annotated[
            collections.abc.Sequence[
                typing.Annotated[
                    collections.abc.Sequence[
                        collections.abc.Sequence[
                            typing.Annotated[
                                collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(25)"
                            ]
                        ]
                    ],
                    "FixedSize(3)",
                ]
            ],
            "FixedSize(3)",
        ],
    ) -> None: ...

class KidState:
    def apply(self, index: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        apply option `index` of the list shown
        """
    def astar_path(
        self, x: typing.SupportsInt | typing.SupportsIndex, y: typing.SupportsInt | typing.SupportsIndex
    ) -> list[tuple[int, int]]:
        """
        the release's A* path from the agent to (x, y) as cells (x, y); empty if none
        """
    def check_goal(self) -> tuple[bool, bool]: ...
    def copy(self) -> KidState: ...
    def options(self) -> list:
        """
        the action list shown, as (verb, slot, target), in its order
        """
    def oracle_option(self) -> typing.Any: ...
    def oracle_plan_length(self) -> int: ...
    def to_bytes(self) -> bytes: ...
    def waste_step(self) -> None: ...
    @property
    def agent(self) -> tuple[int, int, int]:
        """
        (x, y, direction): direction 0 down, 1 right, 2 up, 3 left
        """
    @property
    def background(self) -> int: ...
    @property
    def bag(self) -> numpy.typing.NDArray[numpy.uint8]:
        """
        uint8 (n, 8), slots A..
        """
    @property
    def budget(self) -> int: ...
    @property
    def correct(self) -> int: ...
    @property
    def done(self) -> bool: ...
    @property
    def executable(self) -> bool: ...
    @property
    def facts(self) -> list[int]: ...
    @property
    def last_step_ok(self) -> bool: ...
    @property
    def layout(self) -> int: ...
    @property
    def level(self) -> int: ...
    @property
    def objects(self) -> numpy.typing.NDArray[numpy.uint8]:
        """
        uint8 (n, 8): asset, label, x, y, role, flags, arg, value per object, in the release's list order
        """
    @property
    def pending(self) -> numpy.typing.NDArray[numpy.uint8]: ...
    @property
    def show_labels(self) -> bool: ...
    @property
    def side_bar(self) -> bool: ...
    @property
    def started(self) -> bool: ...
    @property
    def steps(self) -> int: ...
    @property
    def success(self) -> bool: ...
    @property
    def target(self) -> tuple[int, int]: ...
    @property
    def task(self) -> int: ...
    @property
    def truncated(self) -> bool: ...

class WiltProgram:
    @property
    def num_slots(self) -> int: ...
    @property
    def size(self) -> int: ...

class WiltProgramSet:
    def __init__(self, programs: collections.abc.Sequence[WiltProgram]) -> None: ...
    def __len__(self) -> int: ...

class WiltCases:
    """
    The points of WILT checks, converted once, and their grid part.
    """
    def __init__(
        self,
        xs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
        ys: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
        zs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
        grid_begin: typing.SupportsInt | typing.SupportsIndex = 0,
        grid_axis: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex] = [],
    ) -> None: ...
    def __len__(self) -> int: ...
    @property
    def grid_points(self) -> int: ...

class WiltReference:
    """
    A rule's truth on a WiltCases, packed for checks.
    """
    def __init__(self, cases: WiltCases, truth: typing.Annotated[numpy.typing.ArrayLike, numpy.bool]) -> None: ...

class Compositor:
    """
    Composes 2D frames from stamps of draw items (render._compose); see cpp/render/compose.hpp.
    """
    def __init__(self, max_bytes: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def add_base(self, rgba: numpy.typing.NDArray[numpy.uint8]) -> int: ...
    def add_stamp(
        self,
        row: numpy.typing.NDArray[numpy.float32],
        width: typing.SupportsInt | typing.SupportsIndex,
        height: typing.SupportsInt | typing.SupportsIndex,
        rgba: numpy.typing.NDArray[numpy.uint8],
    ) -> None: ...
    def compose(
        self,
        rows: numpy.typing.NDArray[numpy.float32],
        base_ids: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
        outs: list[numpy.typing.NDArray[numpy.uint8]],
        threads: typing.SupportsInt | typing.SupportsIndex = 0,
    ) -> list[int]:
        """
        Composes the frames of outs (arrays of frames, in order); returns the rows whose stamps are missing (then no frame is written).
        """
    def placement(
        self,
        row: numpy.typing.NDArray[numpy.float32],
        width: typing.SupportsInt | typing.SupportsIndex,
        height: typing.SupportsInt | typing.SupportsIndex,
    ) -> tuple[int, int, int, int]:
        """
        The frame pixels (x0, y0, x1, y1) whose stamp a row needs (empty if it draws nothing there).
        """
    @property
    def stamp_bytes(self) -> int: ...
    @property
    def stamp_count(self) -> int: ...

class PngBands:
    """
    A frame's encoded bands, for encode_png_after of the frame shown after it (opaque).
    """

class MazeReleaseFrames:
    """
    Frames of the released RNG-Bench maze: raycast views and opaque stamps (cpp/maze/release_frames.hpp).
    """
    def __init__(self) -> None: ...
    def add_stamp(
        self,
        rgb: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
        mask: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    ) -> int:
        """
        Adds a stamp: rgb (H, W, 3) shown where mask (H, W) is nonzero; returns its id.
        """
    def draw(
        self,
        grids: collections.abc.Sequence[typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]],
        views: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
        op_ends: typing.Annotated[numpy.typing.ArrayLike, numpy.int64],
        ops: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
        out: numpy.typing.NDArray[numpy.uint8],
        threads: typing.SupportsInt | typing.SupportsIndex = 0,
    ) -> None:
        """
        Draws out[i]: the 3D view of views[i] (scene -1: none, black), then the stamps ops[op_ends[i-1]:op_ends[i]] in order.
        """
    @property
    def stamp_count(self) -> int: ...

def clear_png_band_cache() -> None:
    """
    Empties the encoder's cache of bands seen before (the bytes never depend on it, only the time).
    """

def cube_apply(arg0: bytes, arg1: str) -> bytes: ...
def cube_coset_build(
    size: str,
    path: str,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
    progress: typing.Any = None,
    checkpoint_seconds: typing.SupportsFloat | typing.SupportsIndex = 60.0,
) -> dict:
    """
    Builds the coset table of `size` into `path` (resuming a killed build's checkpoint), unless a
    valid one is there; says whether it built and how long it took. progress(done, total, stage) is
    called from the building threads.
    """

def cube_coset_sizes() -> list: ...
def cube_format_moves(arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> str: ...
def cube_from_facelets(arg0: str) -> bytes: ...
def cube_inverse(arg0: bytes) -> bytes: ...
def cube_move_names() -> list[str]: ...
def cube_multiply(arg0: bytes, arg1: bytes) -> bytes: ...
def cube_neighbours(states: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]) -> numpy.typing.NDArray[numpy.uint8]:
    """
    States after each of the 18 moves: shape (N * 18, 40), move-major within a state.
    """

def cube_parse_moves(text: str) -> list[int]: ...
def cube_phase1_table(kind: str) -> dict:
    """
    The phase-1 table of `kind` ('plain' or 'sorted'): its name, its file name in the cache and its
    size in bytes (the memory its build holds, and its mapping).
    """

def cube_random_state(seed: typing.SupportsInt | typing.SupportsIndex) -> bytes: ...
def cube_solved() -> bytes: ...
def cube_states_from_facelets(facelets: collections.abc.Sequence[str]) -> numpy.typing.NDArray[numpy.uint8]: ...
def cube_states_from_moves(sequences: collections.abc.Sequence[str]) -> numpy.typing.NDArray[numpy.uint8]: ...
def cube_states_from_text(
    texts: collections.abc.Sequence[str], item: str = "state", first: typing.SupportsInt | typing.SupportsIndex = 0
) -> numpy.typing.NDArray[numpy.uint8]:
    """
    States from 54-letter facelet strings or move strings, each recognised on its own; an error names
    the bad text as '<item> <first + index>'.
    """

def cube_to_facelets(arg0: bytes) -> str: ...
def cube_validate(arg0: bytes) -> None: ...
def encode_png(
    frames: numpy.typing.NDArray[numpy.uint8], threads: typing.SupportsInt | typing.SupportsIndex = 0
) -> list:
    """
    The PNG files (8-bit RGB or RGBA) of frames (N, H, W, 3 or 4), the same bytes on every machine; over threads (0: all cores), the GIL released.
    """

def encode_png_after(
    frame: numpy.typing.NDArray[numpy.uint8],
    previous: PngBands | None = None,
    changed_rows: collections.abc.Sequence[
        tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]
    ]
    | None = None,
) -> tuple:
    """
    (PNG file, its bands) of one frame (H, W, 3 or 4): the bytes of encode_png, each band first compared with the one in the same place of `previous` (the bands of the frame shown before it) before the cache is asked; with changed_rows ([(start, end), ...]: where the frame can differ from the one `previous` was made of) the bands outside them are taken without reading them; the GIL released.
    """

def frame_digest(frame: numpy.typing.NDArray[numpy.uint8]) -> int:
    """
    A 64-bit digest of a frame's shape and every eighth row for finding repeated frames in one process (compare the frames before taking them as equal), the GIL released.
    """

def kidgym_default_budget(
    task: typing.SupportsInt | typing.SupportsIndex, level: typing.SupportsInt | typing.SupportsIndex
) -> int:
    """
    The release's registered step budget of a task at a level (its max_steps).
    """

def kidgym_generate(
    task: typing.SupportsInt | typing.SupportsIndex,
    level: typing.SupportsInt | typing.SupportsIndex,
    seeds: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    catalog: KidCatalog,
    budget: typing.SupportsInt | typing.SupportsIndex = 0,
    executable: bool = False,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> list[KidState]:
    """
    Episodes as the release draws them, one per seed (mazes play layout seed % 100 + 1); batched, GIL released.
    """

def kidgym_play(
    task: typing.SupportsInt | typing.SupportsIndex,
    level: typing.SupportsInt | typing.SupportsIndex,
    seeds: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    catalog: KidCatalog,
    policy: str,
    policy_seed: typing.SupportsInt | typing.SupportsIndex = 0,
    budget: typing.SupportsInt | typing.SupportsIndex = 0,
    executable: bool = False,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> tuple[numpy.typing.NDArray[numpy.uint8], numpy.typing.NDArray[numpy.uint8]]:
    """
    Generate and play whole release episodes with a scripted policy; returns (success, steps) uint8 arrays.
    """

def kidgym_roles() -> list[str]: ...
def kidgym_state(
    task: typing.SupportsInt | typing.SupportsIndex,
    level: typing.SupportsInt | typing.SupportsIndex,
    budget: typing.SupportsInt | typing.SupportsIndex,
    steps: typing.SupportsInt | typing.SupportsIndex,
    objects: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    bag: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    pending: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    agent: tuple[
        typing.SupportsInt | typing.SupportsIndex,
        typing.SupportsInt | typing.SupportsIndex,
        typing.SupportsInt | typing.SupportsIndex,
    ],
    facts: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    options: collections.abc.Sequence[
        tuple[
            typing.SupportsInt | typing.SupportsIndex,
            typing.SupportsInt | typing.SupportsIndex,
            typing.SupportsInt | typing.SupportsIndex,
        ]
    ],
    show_labels: bool,
    side_bar: bool,
    started: bool,
    correct: typing.SupportsInt | typing.SupportsIndex,
    target: tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex],
    background: typing.SupportsInt | typing.SupportsIndex,
    layout: typing.SupportsInt | typing.SupportsIndex,
    executable: bool = False,
    shuffle_seed: typing.SupportsInt | typing.SupportsIndex = 0,
) -> KidState:
    """
    A state built field by field (to replay a scene recorded from the release).
    """

def kidgym_task_names() -> list[str]: ...
def kidgym_verbs() -> list[str]: ...
def maze_extra_openings(
    n: typing.SupportsInt | typing.SupportsIndex, loop_rate: typing.SupportsFloat | typing.SupportsIndex
) -> int: ...
def maze_generate(
    sizes: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
    seeds: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64],
    loop_rate: typing.SupportsFloat | typing.SupportsIndex,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> tuple[list, list, numpy.typing.NDArray[numpy.int32], numpy.typing.NDArray[numpy.int32]]:
    """
    Generates mazes; returns (walls list, extra openings, L* in actions, shortest path in cells).
    """

def maze_reachable_cells(walls: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]) -> int: ...
def maze_release_camera(heading: typing.SupportsInt | typing.SupportsIndex) -> tuple[float, float, float, float]:
    """
    The released maze's camera for a heading: (dir_x, dir_y, plane_x, plane_y).
    """

def maze_shortest_actions(
    walls: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    row: typing.SupportsInt | typing.SupportsIndex,
    col: typing.SupportsInt | typing.SupportsIndex,
    heading: typing.SupportsInt | typing.SupportsIndex,
    goal_row: typing.SupportsInt | typing.SupportsIndex,
    goal_col: typing.SupportsInt | typing.SupportsIndex,
) -> numpy.typing.NDArray[numpy.uint8]: ...
def maze_shortest_cells(
    walls: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    from_row: typing.SupportsInt | typing.SupportsIndex,
    from_col: typing.SupportsInt | typing.SupportsIndex,
    to_row: typing.SupportsInt | typing.SupportsIndex,
    to_col: typing.SupportsInt | typing.SupportsIndex,
) -> int: ...
def maze_step(
    batch: dict,
    actions: typing.Annotated[numpy.typing.ArrayLike, numpy.uint8],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
    outcomes: bool = True,
) -> numpy.typing.NDArray[numpy.uint8]:
    """
    Applies actions[t, i] to walker i for every round t, in place; returns outcome codes (t, i).
    """

def paint_rect_frames(
    template: numpy.typing.NDArray[numpy.uint8],
    rects: numpy.typing.NDArray[numpy.int32],
    palette: numpy.typing.NDArray[numpy.uint8],
    colours: numpy.typing.NDArray[numpy.uint8],
    out: numpy.typing.NDArray[numpy.uint8],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> None:
    """
    Writes out[i] = template with each rect (slot, y0, y1, x0, x1) filled in palette[colours[i, slot]], rects in order; over threads (0: all cores), the GIL released.
    """

def pairs_deal(
    rows: typing.SupportsInt | typing.SupportsIndex,
    cols: typing.SupportsInt | typing.SupportsIndex,
    seed: typing.SupportsInt | typing.SupportsIndex,
) -> numpy.typing.NDArray[numpy.int16]: ...
def pairs_flip(
    batch: dict,
    cards: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> numpy.typing.NDArray[numpy.uint8]:
    """
    Flips cards[i] in game i, in place; returns outcome codes (0 invalid, 1 first, 2 match, 3 mismatch, 4 over).
    """

def pairs_optimal(
    batch: dict, threads: typing.SupportsInt | typing.SupportsIndex = 0
) -> numpy.typing.NDArray[numpy.int32]:
    """
    The perfect-memory policy's next flip per game (-1 when over).
    """

def pairs_play_optimal(
    batch: dict, threads: typing.SupportsInt | typing.SupportsIndex = 0
) -> numpy.typing.NDArray[numpy.int32]:
    """
    Plays every game to the end with the optimal policy; returns responses used.
    """

def paste_frames(
    out: numpy.typing.NDArray[numpy.uint8],
    sources: collections.abc.Sequence[typing.Annotated[numpy.typing.ArrayLike, numpy.uint8]],
    ops: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> None:
    """
    Fill each frame of `out` with 255, then run its ops in order: copy (0) or Pillow's paste through the source's alpha (1) of sources[source] at (x, y).
    """

def paste_tiles(
    bases: numpy.typing.NDArray[numpy.uint8],
    base_ids: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
    tiles: numpy.typing.NDArray[numpy.uint8],
    placements: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
    outs: list[numpy.typing.NDArray[numpy.uint8]],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> None:
    """
    Writes outs[i] = bases[base_ids[i]] with tiles[t] pasted at (x, y) for each (t, x, y) of placements[i] (t = -1: none). Tiles must lie inside the frame.
    """

def png_band_cache_stats() -> dict:
    """
    The encoder's cache of bands since it was last emptied: hits, misses, and the bytes and bands it holds.
    """

def rgb_tiles(image: numpy.typing.NDArray[numpy.uint8], out: numpy.typing.NDArray[numpy.uint8]) -> None:
    """
    Writes tile i (row-major, out's frame size) of an RGBA (H, W, 4) image into out[i] as RGB.
    """

def wilt_check(
    a: WiltProgram,
    reference: WiltReference,
    max_examples: typing.SupportsInt | typing.SupportsIndex = 5,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> tuple[int, int, int, int, int, int, list[int], list[int]]:
    """
    wilt_compare_truth against a packed reference, the case set's grid part evaluated factored: (mismatches, true_a, true_b, true_both, fallback, raised_a, first_mismatches, first_raised_a).
    """

def wilt_compare(
    a: WiltProgram,
    b: WiltProgram,
    xs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    ys: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    zs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    max_examples: typing.SupportsInt | typing.SupportsIndex = 5,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> dict: ...
def wilt_compare_pairs(
    guesses: collections.abc.Sequence[WiltProgram],
    hidden: collections.abc.Sequence[WiltProgram],
    xs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    ys: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    zs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> numpy.typing.NDArray[numpy.int64]: ...
def wilt_compare_truth(
    a: WiltProgram,
    truth: typing.Annotated[numpy.typing.ArrayLike, numpy.bool],
    xs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    ys: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    zs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    max_examples: typing.SupportsInt | typing.SupportsIndex = 5,
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> dict: ...
def wilt_evaluate(
    program: WiltProgram,
    xs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    ys: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    zs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> tuple[numpy.typing.NDArray[numpy.bool], numpy.typing.NDArray[numpy.uint8]]: ...
def wilt_evaluate_grid(
    program: WiltProgram, axis: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex]
) -> tuple[numpy.typing.NDArray[numpy.bool], typing.Any]:
    """
    Truth (L, L, L) of the program on axis^3 (x, y, z) evaluated factored, and statuses (None: all decided, none raised).
    """

def wilt_evaluate_many(
    programs: collections.abc.Sequence[WiltProgram],
    xs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    ys: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    zs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> tuple: ...
def wilt_evaluate_set(
    programs: WiltProgramSet,
    xs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    ys: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    zs: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
    threads: typing.SupportsInt | typing.SupportsIndex = 0,
) -> tuple: ...
def wilt_opcodes() -> list[str]:
    """
    The VM's opcode names in opcode order (python/cogsim/benchmarks/wilt/_bytecode.py builds its Op enum from them).
    """

def wilt_program(
    code: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
    aux: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    const_tags: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    const_f: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex],
    const_i: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    python312: bool,
) -> WiltProgram: ...
def wilt_uniform_points(
    seed: typing.SupportsInt | typing.SupportsIndex,
    n: typing.SupportsInt | typing.SupportsIndex,
    lo: typing.SupportsFloat | typing.SupportsIndex,
    hi: typing.SupportsFloat | typing.SupportsIndex,
) -> numpy.typing.NDArray[numpy.float64]: ...
