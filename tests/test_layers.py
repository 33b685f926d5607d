"""Imports of the root package from below the top layers. `lint-imports` (CI's lint stage) checks
the layers between subpackages, but the compiled extension is invisible to its import graph, so it
ignores imports of the root package `cogsim`; this test covers them: nothing below the harness may
import `cogsim` itself (it pulls in every family) or `from cogsim import` anything but a submodule."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "cogsim"
TOP = {"cli.py", "demo.py", "__init__.py", "integrations", "harness"}  # the facade and the layers above the envs


def _submodules() -> set[str]:
    names = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if p.is_dir()}
    return names | {"_core"}


def test_nothing_below_the_harness_imports_the_root_package():
    submodules = _submodules()
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] in TOP:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(alias.name == "cogsim" for alias in node.names):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: import cogsim")
            elif isinstance(node, ast.ImportFrom) and node.module == "cogsim" and node.level == 0:
                bad = [alias.name for alias in node.names if alias.name not in submodules]
                if bad:
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: from cogsim import {', '.join(bad)}")
    assert not offenders, "\n".join(offenders)
