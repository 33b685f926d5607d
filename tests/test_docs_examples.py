"""Every code block of the README and the docs runs, so the docs cannot drift from the code.

The pages: README.md, docs/**/*.md and each benchmark folder's README. A page's blocks run in order:

- ```python blocks in one namespace per page, as a reader would type them into one session;
- ```pycon blocks are doctests in that namespace: the output shown is checked (``...`` matches anything);
- ```bash blocks run under ``bash -euo pipefail``;
- ```console blocks run each ``$ command`` line and check its output as shown (``...`` matches anything).

A block right after a ``<!-- not run: REASON -->`` line is left out, and the reason says why (it
needs a model server, a GPU, a cluster or minutes of work). Other languages (text, toml) are not
examples. Commands run in a fresh folder with the installed ``cogsim`` first on PATH and the tests'
table cache and release stand-ins (tests/conftest.py).
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    [
        ROOT / "README.md",
        *(ROOT / "docs").rglob("*.md"),
        *(ROOT / "python" / "cogsim" / "benchmarks").glob("*/README.md"),
    ]
)
RUN = ("python", "pycon", "bash", "console")
NOT_RUN = re.compile(r"^\s*<!-- not run: (.+?) -->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,})(\w*)\s*$")
CHECK = doctest.ELLIPSIS


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    not_run: Optional[str]  # the reason, for a block that is left out

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` (indented ones too, their indentation removed)."""
    found, lines = [], page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opened = FENCE.match(lines[index])
        if not opened:
            index += 1
            continue
        indent, fence, language = opened.groups()
        start, body = index, []
        index += 1
        while index < len(lines) and lines[index].strip() != fence:
            body.append(lines[index][len(indent) :] if lines[index].startswith(indent) else lines[index])
            index += 1
        marker = NOT_RUN.match(lines[start - 1]) if start else None
        found.append(Block(page, start + 1, language, "\n".join(body) + "\n", marker and marker[1]))
        index += 1
    return found


def _environment() -> dict:
    bin_dir = str(Path(sys.executable).parent)  # the installed cogsim, inspect, vf-eval
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "NO_COLOR": "1"}


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command],
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def run_python(block: Block, namespace: dict) -> None:
    code = compile(block.text, block.where(), "exec")
    exec(code, namespace)  # the docs' own example code, as a reader would run it


def run_pycon(block: Block, namespace: dict) -> None:
    test = doctest.DocTestParser().get_doctest(block.text, namespace, block.where(), str(block.page), block.line)
    runner = doctest.DocTestRunner(optionflags=CHECK)
    report: list[str] = []
    runner.run(test, out=report.append, clear_globs=False)
    assert runner.failures == 0, f"{block.where()}:\n" + "".join(report)


def run_bash(block: Block, cwd: Path) -> None:
    done = _shell(block.text, cwd)
    assert done.returncode == 0, (
        f"{block.where()}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )


def console_steps(text: str) -> list[tuple[str, str]]:
    """The ``$ command`` lines of a console block, each with the output shown after it."""
    steps: list[tuple[str, str]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], ""))
        elif steps:
            steps[-1] = (steps[-1][0], steps[-1][1] + line + "\n")
        elif line.strip():
            raise AssertionError(f"a console block starts with '$ command', got {line!r}")
    return steps


def run_console(block: Block, cwd: Path) -> None:
    checker = doctest.OutputChecker()
    for command, shown in console_steps(block.text):
        done = _shell(command, cwd)
        assert done.returncode == 0, f"{block.where()}: `{command}` exit {done.returncode}\n{done.stderr[-3000:]}"
        assert checker.check_output(shown, done.stdout, CHECK), (
            f"{block.where()}: `{command}` printed\n{done.stdout}\nbut the page shows\n{shown}"
        )


@pytest.mark.timeout(900)
@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_the_pages_code_runs_as_shown(page, tmp_path, monkeypatch, cube_oracle):
    runnable = [block for block in blocks(page) if block.language in RUN and block.not_run is None]
    if not runnable:
        return
    monkeypatch.chdir(tmp_path)  # what the examples write lands here
    namespace: dict = {"__name__": "__docs__"}
    for block in runnable:
        if block.language == "python":
            run_python(block, namespace)
        elif block.language == "pycon":
            run_pycon(block, namespace)
        elif block.language == "bash":
            run_bash(block, tmp_path)
        else:
            run_console(block, tmp_path)


def test_every_code_block_is_run_or_says_why_not():
    vague = [b.where() for page in PAGES for b in blocks(page) if b.not_run is not None and len(b.not_run.split()) < 2]
    assert not vague, f"a not-run block must say why: {vague}"
    runnable = [b for page in PAGES for b in blocks(page) if b.language in RUN and b.not_run is None]
    assert len(runnable) >= 20, len(runnable)


def test_a_block_is_read_as_a_reader_sees_it():
    page = ROOT / "build" / "docs-examples-probe.md"
    page.parent.mkdir(exist_ok=True)
    page.write_text(
        "text\n<!-- not run: needs a server -->\n```bash\nfalse\n```\n\n- item\n\n  ```python\n  x = 1\n  ```\n"
    )
    try:
        first, second = blocks(page)
    finally:
        page.unlink()
    assert (first.language, first.not_run, first.text, first.line) == ("bash", "needs a server", "false\n", 3)
    assert (second.language, second.not_run, second.text) == ("python", None, "x = 1\n")
    assert console_steps("$ echo a\na\n$ true\n") == [("echo a", "a\n"), ("true", "")]
