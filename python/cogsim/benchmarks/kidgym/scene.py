"""KidGym scenes in the release's terms: what a release frame is drawn from, as JSON-able data.

:func:`scene` turns a release-engine state into the pieces the release's ``render()`` composes: the
background file, each object's image, cell and number badge in the release's list order, the
backpack's four slots, the agent's cell and facing direction, and the side bar's content. Files are
named by their path in the release (``assets/imgs/<folder>/<name>.png``). ``cogsim.benchmarks.kidgym.look``
draws a scene; ``scripts/release_goldens/kidgym.py`` redraws it with the release's own code.

Side bar kinds (the release's ``get_info_img`` of each task):
    remember   Selection before 'continue': the items to remember, stacked (``items``)
    pairs      Decode, Memory Decode before 'continue', Decode Maze: ``pairs`` [[left, right], ...]
               (Decode also ``target``, in the box above the table)
    target     Memory Decode after 'continue': ``target`` in the box in the middle
    picture    Filling, Puzzle, Memory Filling before 'continue': the four quarters of the picture
               (``pieces``), shown at ``zoom`` (0.9; Puzzle 0.75)
"""

from __future__ import annotations

from typing import Optional

from cogsim.benchmarks.kidgym import catalog as rc

GRID_OFFSET = {5: (128, 70), 6: (64, 128)}  # the grid's place: figure and maze scenes; others (64, 192)
DEFAULT_GRID_OFFSET = (64, 192)
FACING = ("down", "right", "up", "left")
PICKABLE, HIDDEN = 1, 2  # object flags (cpp/kidgym/release.hpp)
IMAGES = "assets/imgs/"


def image(asset: int) -> str:
    return IMAGES + rc.asset_path(int(asset))


def grid_offset(background: int) -> tuple[int, int]:
    return GRID_OFFSET.get(background, DEFAULT_GRID_OFFSET)


def side_bar(name: str, state) -> Optional[dict]:
    """The side bar's content, or None when the frame has none."""
    if not state.side_bar:
        return None
    facts, level, started = state.facts, state.level, state.started
    if name == "selection":
        return {"kind": "remember", "items": [image(facts[1 + i]) for i in range(level)]}
    if name in ("decode", "memory_decode"):
        pairs = [[image(facts[3 + 2 * k]), image(facts[4 + 2 * k])] for k in range(level)]
        asked = image(facts[3 + 2 * facts[2]])
        if name == "decode":
            return {"kind": "pairs", "pairs": pairs, "target": asked}
        return {"kind": "target", "target": asked} if started else {"kind": "pairs", "pairs": pairs}
    if name == "decode_maze":
        return {"kind": "pairs", "pairs": [[image(facts[2 * i]), image(facts[2 * i + 1])] for i in range(level)]}
    if name in ("filling", "puzzle", "memory_filling"):
        return {"kind": "picture", "pieces": [image(a) for a in facts[:4]], "zoom": 0.75 if name == "puzzle" else 0.9}
    raise ValueError(f"{name} has no side bar")


def scene(name: str, state) -> dict:
    """The scene of a release-engine state (see the module notes)."""
    labels = bool(state.show_labels)
    objects = []
    for asset, label, x, y, _role, flags, _arg, _value in state.objects.tolist():
        label = None if label == 255 else label
        objects.append(
            {
                "image": image(asset),
                "cell": [x, y],
                "label": label,
                # the release skips an object whose badge is shown but which is not visible yet
                "shown": not (labels and label is not None and flags & HIDDEN),
            }
        )
    bag = [image(row[0]) for row in state.bag.tolist()]
    ax, ay, facing = state.agent
    bar = side_bar(name, state)
    return {
        "release": f"{rc.REPOSITORY}@{rc.COMMIT[:7]}",
        "task": name,
        "level": int(state.level),
        "step": int(state.steps),
        "size": [576 if bar else 448, 576],
        "background": IMAGES + rc.background_path(state.background),
        "grid_at": list(grid_offset(state.background)),
        "labels": labels,
        "objects": objects,
        "agent": {"cell": [ax, ay], "direction": facing, "facing": FACING[facing]},
        "backpack": bag + [None] * (4 - len(bag)),
        "side_bar": bar,
        "layout": int(state.layout) or None,
    }
