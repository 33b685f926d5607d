"""A benchmark's code uses only what cogsim offers every benchmark, a plugin's too: no module under
``cogsim/benchmarks`` imports a private module or name of another package (``cogsim.envs._options``,
``cogsim.render._canvas``, ``from cogsim.render import _check``). Inside ``cogsim.benchmarks`` a
benchmark keeps its private modules, and the compiled core ``cogsim._core`` is the engine they all
stand on."""

from __future__ import annotations

import ast
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "python" / "cogsim" / "benchmarks"
CORE = "cogsim._core"


def _private(dotted: str) -> bool:
    return any(part.startswith("_") for part in dotted.split("."))


def _imports(path: Path):
    """(line, imported module, names) of every absolute import of a cogsim module in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("cogsim"):
                    yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("cogsim"):
            yield node.lineno, node.module, tuple(alias.name for alias in node.names)


def offenders(root: Path = BENCHMARKS) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for line, module, names in _imports(path):
            if module == "cogsim.benchmarks" or module.startswith("cogsim.benchmarks."):
                continue  # a benchmark's own modules, and what the benchmarks share
            targets = [f"{module}.{name}" for name in names] or [module]
            bad = targets if _private(module) else [t for t in targets if _private(t) and t != CORE]
            if bad:
                found.append(f"{path.relative_to(root)}:{line}: {', '.join(bad)}")
    return found


def test_no_benchmark_imports_a_private_module_of_another_package():
    assert offenders() == []


def test_the_check_sees_private_imports(tmp_path):
    (tmp_path / "bad.py").write_text(
        "from cogsim.envs._options import choice\n"
        "from cogsim.render import _check, scene_kind\n"
        "import cogsim._untrusted\n"
        "from cogsim import _core, _template\n"
        "from cogsim.benchmarks.wilt._rule import Rule\n"
        "from cogsim.envs.options import choice\n"
    )
    assert offenders(tmp_path) == [
        "bad.py:1: cogsim.envs._options.choice",
        "bad.py:2: cogsim.render._check",
        "bad.py:3: cogsim._untrusted",
        "bad.py:4: cogsim._template",
    ]
