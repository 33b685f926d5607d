"""Cube Bench on the cube engine: seeded items for the seven tests and the invariance sweep, prompts,
answer parsers (the release's extraction and cogsim's strict one-line formats), and the two release
lines of the authors' harness (``release_lines``).

The envs (``cube/reconstruction`` ... ``cube/recovery``) live in ``cogsim.benchmarks.cubebench.envs``; the metrics
and tables in ``cogsim.benchmarks.cubebench.metrics``.
"""

from cogsim.benchmarks.cubebench.items import (
    LABELS,
    TESTS,
    balanced_position,
    make_item,
    release_exact_scramble,
    release_scramble,
)
from cogsim.benchmarks.cubebench.parser import (
    EFFECT_LABELS,
    IDK,
    Parsed,
    parse_choice,
    parse_effect,
    parse_effects,
    parse_grid,
    parse_yes_no,
    release_choice,
    release_effects,
    release_grid,
    release_yes_no,
)
from cogsim.benchmarks.cubebench.prompts import PROMPT_VERSION
from cogsim.benchmarks.cubebench.release_lines import LINES as RELEASE_LINES
from cogsim.benchmarks.cubebench.release_lines import NEWEST as NEWEST_RELEASE
from cogsim.benchmarks.cubebench.seed_lists import build_seed_list, export_seed_list, load_seed_list, verify_seed_list

__all__ = [
    "LABELS",
    "TESTS",
    "EFFECT_LABELS",
    "IDK",
    "NEWEST_RELEASE",
    "PROMPT_VERSION",
    "RELEASE_LINES",
    "Parsed",
    "balanced_position",
    "build_seed_list",
    "export_seed_list",
    "load_seed_list",
    "make_item",
    "parse_choice",
    "parse_effect",
    "parse_effects",
    "parse_grid",
    "parse_yes_no",
    "release_choice",
    "release_effects",
    "release_exact_scramble",
    "release_grid",
    "release_scramble",
    "release_yes_no",
    "verify_seed_list",
]
