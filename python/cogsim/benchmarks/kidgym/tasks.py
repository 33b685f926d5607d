"""The KidGym tasks: codes, capabilities, goal texts and action texts (the paper's templates).

Goal and action wordings are the KidGym release's templates (``assets/jsons/template.json`` of
github.com/BoBo-Ye/KidGym), word for word, including its "your need to select" in Selection and the
"{item}s." ending of the Counting goal. ``goal_texts="adapted"`` words Memory Decode for our frames
instead: it names the hint bar where the release says "the black box in the upper left corner", and
states that each row of the first image is "item -> its partner".

Capabilities follow the issue and the first public README (github.com/KidGym/KidGym): Memory Decode
is Memory + Learning and Memory Filling is Perception Reasoning + Memory. The later README swaps the
two rows (MDE "Memory + Perception Reasoning", MFI "Memory + Learning"), which contradicts what each
task asks; we read that as a table slip. Sorting is Learning (the later README) rather than
Execution + Learning (the first README), and Placement is Learning + Perception Reasoning (the later
README) rather than Execution + Learning; the issue's mapping agrees with the later README there.

Decode (DE), the release's thirteenth family and not one of the paper's twelve, is Memory Decode
without the memory phase: the code table and the target are shown together from the first turn.
Its capability is Learning (Memory Decode's Memory + Learning less the memory); the release's
README gives it no row of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from cogsim import _core

CAPABILITIES = ("Execution", "Memory", "Learning", "Planning", "Perception Reasoning")

VERBS = tuple(_core.kidgym_verbs())
PICK, PUT, OBTAIN, UNLOCK, CONTINUE, CHOOSE, PLACE, DECLARE = (
    VERBS.index(v) for v in ("pick", "put", "obtain", "unlock", "continue", "choose", "place", "declare")
)


@dataclass(frozen=True)
class TaskSpec:
    name: str  # env id suffix: kidgym/<name>
    code: str  # the paper's abbreviation
    title: str
    core_id: int
    capabilities: tuple[str, ...]
    memory: bool  # the paper sends the whole image history

    @property
    def env_id(self) -> str:
        return f"kidgym/{self.name}"


_CORE = {name: i for i, name in enumerate(_core.kidgym_task_names())}

TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        TaskSpec("classification", "CL", "Classification", _CORE["classification"], ("Execution",), False),
        TaskSpec("maze", "MA", "Maze", _CORE["maze"], ("Planning",), False),
        TaskSpec("selection", "SE", "Selection", _CORE["selection"], ("Memory",), True),
        TaskSpec("placement", "PL", "Placement", _CORE["placement"], ("Learning", "Perception Reasoning"), False),
        TaskSpec("sorting", "SO", "Sorting", _CORE["sorting"], ("Learning",), False),
        TaskSpec("decode_maze", "DMA", "Decode Maze", _CORE["decode_maze"], ("Learning", "Planning"), False),
        TaskSpec("memory_maze", "MMA", "Memory Maze", _CORE["memory_maze"], ("Memory", "Planning"), True),
        TaskSpec("memory_decode", "MDE", "Memory Decode", _CORE["memory_decode"], ("Memory", "Learning"), True),
        TaskSpec("counting", "CO", "Counting", _CORE["counting"], ("Perception Reasoning", "Planning"), False),
        TaskSpec("filling", "FI", "Filling", _CORE["filling"], ("Perception Reasoning",), False),
        TaskSpec("puzzle", "PU", "Puzzle", _CORE["puzzle"], ("Perception Reasoning",), False),
        TaskSpec(
            "memory_filling", "MFI", "Memory Filling", _CORE["memory_filling"], ("Perception Reasoning", "Memory"), True
        ),
        TaskSpec("decode", "DE", "Decode", _CORE["decode"], ("Learning",), False),
    )
}
PAPER_TASKS = tuple(name for name in TASKS if name != "decode")
"""The twelve tasks of the paper's tables (Table 2: CL SE SO MA FI PU PL CO DMA MMA MDE MFI). The
release registers a thirteenth, Decode (DE, budgets 1/2/3), which the paper does not report."""

_MAZE_RULE = (
    "When your path is blocked by a door, you can use a key of the same color to unlock it. "
    "Note: You must pick up the key first before you can use it to unlock doors."
)


def slot_letter(slot: int) -> str:
    return chr(ord("A") + slot)


def roman(number: int) -> str:
    """1..39 as a roman numeral (the positions of targets are small numbers)."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 39:
        raise ValueError(f"numeral must be an integer in [1, 39], got {number!r}")
    tens, units = divmod(number, 10)
    return "X" * tens + ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX")[units]


GOAL_TEXTS = ("release", "adapted")


def goal_words(name: str, level: int, started: bool, texts: str = "release", **words) -> str:
    """The release's goal template of task ``name`` filled with ``words`` (the names it needs:
    classification item_1 colour_1 item_2 colour_2; counting number item; sorting rule ranking;
    placement orientation rotation centre item)."""
    continue_hint = "" if started else " If you understand the rules, choose 'continue' to begin the task."
    if name == "classification":
        return (
            f"Place {words['item_1']} in the {words['colour_1']} basket and {words['item_2']} in the "
            f"{words['colour_2']} basket."
        )
    if name == "maze":
        return "There is a diamond shown in the scene, and you need to obtain the diamond. " + _MAZE_RULE
    if name == "decode_maze":
        return (
            "There is a diamond in the scene, and your goal is to obtain it. Some paths are blocked by doors, and the "
            "key required to unlock each door color is shown in the left hint panel. You must consult the hint panel "
            "and use the specified key to open the corresponding door."
        )
    if name == "memory_maze":
        return (
            "In the first image, a diamond will be shown in the scene that you need to remember its location. In the "
            "following images, the diamond will not be shown and several treasure boxes will be generated in the "
            "scene. You must choose to open the treasure box located at the diamond's original position to obtain the "
            "diamond. When your path is blocked by a door, you can use a key of the same color to unlock it. Note: You "
            "must obtain the key before you can use it to unlock doors." + continue_hint
        )
    if name == "selection":
        if level == 1:
            text = (
                "In the first image, an item will be shown on the left margin that you need to remember. In the "
                "following images, several random items will be generated in the scene, and your need to select the one you recall."
            )
        else:
            text = (
                "In the first image, some items will be shown on the left margin that you need to remember. In the "
                "following images, several random items will be generated in the scene, and your need to select all "
                "the items you recall one by one."
            )
        return text + (
            "" if started else " If you understand the rules, select the 'continue' action to start the task."
        )
    if name == "decode":
        return (
            "There are arrow-connected items with one-to-one correspondence(s) shown on the left margin and a target "
            "item displayed in the black box in the upper left corner. You need to select the correct corresponding "
            "item for the target based on the correspondence(s)."
        )
    if name == "memory_decode" and texts == "adapted":
        return (
            "In the first image, arrow-connected items with one-to-one correspondence(s) will be shown on the left "
            "margin that you need to remember (each row: item -> its partner). In the following images, the "
            "correspondence(s) will not be shown, and a target item will be shown in the hint bar on the left. You need "
            "to select the correct corresponding item for the target based on the pairing you remembered in the first image."
            + continue_hint
        )
    if name == "memory_decode":
        return (
            "In the first image, arrow-connected items with one-to-one correspondence(s) will be shown on the left "
            "margin that you need to remember. In the following images, the correspondence(s) will not be shown, and a "
            "target item will be generated in the black box in the upper left corner. You need to select the correct "
            "corresponding item for the target based on the pairing you remembered in the first image." + continue_hint
        )
    if name == "counting":
        number, item = words["number"], words["item"]
        return (
            f"Collect {number} {item}(s) from the scene and place them in the backpack. Make sure you have gathered "
            f"exactly this amount, no more and no less. You should be aware that there may be 1 to 3 items of different "
            f"quantities in one grid. Once you have collected this number of {item}s, select the action: "
            f"'I have already collected {number} {item}s.'"
        )
    if name in ("filling", "puzzle"):
        return (
            "There is a target item shown on the left margin. You need to fill the correct piece(s) from the backpack "
            "to complete the missing part(s) of the frame in the scene, ensuring they match and align with the target item."
        )
    if name == "memory_filling":
        return (
            "In the first image, a target item will be shown on the left margin that you need to remember. In the "
            "following images, the target item will not be shown. You need to fill the correct piece(s) from the "
            "backpack to complete the missing part(s) of the frame in the scene, ensuring they match and align with "
            "the target item." + continue_hint
        )
    if name == "sorting":
        positions = ", ".join(roman(i) for i in range(1, level + 2))
        return f"{words['rule']} Rank the animal in the backpack from {words['ranking']} in position {positions}."
    if name == "placement":
        orientation, rotation, centre, item = words["orientation"], words["rotation"], words["centre"], words["item"]
        if rotation is None:
            return (
                f"A direction will be provided: {orientation}. Determine its opposite direction, and then place "
                f"{item} in the corresponding location around {centre}."
            )
        return (
            f"A direction will be provided: {orientation}. From its opposite direction, determine the next {rotation} "
            f"position, then place {item} in the corresponding location around {centre}."
        )
    raise ValueError(f"unknown task {name!r}")


def action_words(name: str, action: tuple[int, int, int], item: str = "", kind: str = "") -> str:
    """The release's action template for ``action`` (verb, a, b) of task ``name``; ``item`` names the
    Counting item or the item Placement places, ``kind`` the category Selection asks for."""
    verb, a, b = action
    if verb == PICK:
        if name == "counting":
            return f"pick up the {item} with label {a}"
        return f"pick up the item with label {a}"
    if verb == PUT:
        return f"put the item from backpack {slot_letter(a)} into the basket with label {b}"
    if verb == OBTAIN:
        return f"obtain item with label {a}"
    if verb == UNLOCK:
        return f"use the key in backpack {slot_letter(a)} to unlock door with label {b}"
    if verb == CONTINUE:
        return "continue"
    if verb == CHOOSE:
        if name == "selection":
            return f"choose {kind} with label {a}"
        return f"choose the item with label {a}"
    if verb == DECLARE:
        return f"I have already collected {a} {item}(s)"
    if verb == PLACE:
        if name in ("filling", "puzzle", "memory_filling"):
            return f"place the piece from backpack {slot_letter(a)} into the grid at position {roman(b)}"
        if name == "sorting":
            return f"place animal from backpack {slot_letter(a)} at grid {roman(b)}"
        return f"place the {item} from backpack {slot_letter(a)} at grid {roman(b)}"
    raise ValueError(f"unknown action verb {verb}")
