"""MkDocs hooks: the site's pages generated from the one source of each text.

- ``index.md``: the README, the repository's front page;
- ``benchmarks/<name>.md``: each benchmark folder's README, then its section of docs/fidelity.md and
  pictures drawn by the installed package at build time;
- ``results/<name>.md``: the measured results, ``benchmarks/results_*.md``;
- ``reference/cli.md``: the help of every ``cogsim`` command, from the parser itself.

Every text links other files by their repository path, so the links work where the file is read on
its own; here each link is mapped to the page its target became. A link to a file that is no page
(source code, a script) fails the build: name such files as code instead. Missing pages and headings
fail ``mkdocs build --strict`` through mkdocs.yml's validation settings.
"""

from __future__ import annotations

import argparse
import io
import os
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ("kidgym", "wilt", "cubebench", "rngbench")
FIDELITY_SECTIONS = {
    "kidgym": ["KidGym"],
    "wilt": ["WILT"],
    "cubebench": ["Cube Bench"],
    "rngbench": ["RNG-Bench: Matching Pairs", "RNG-Bench: 3D maze"],
}

_generated: dict[str, str] = {}  # site path -> the repository file it was made from


def _site_path(repo_path: str) -> str | None:
    """The site page (or file) a repository file became, if it became one."""
    if repo_path == "README.md":
        return "index.md"
    if repo_path.startswith("docs/"):
        return repo_path[len("docs/") :]
    match = re.fullmatch(r"python/cogsim/benchmarks/(\w+)/README\.md", repo_path)
    if match:
        return f"benchmarks/{match[1]}.md"
    match = re.fullmatch(r"benchmarks/results_(\w+)\.md", repo_path)
    if match:
        return f"results/{match[1]}.md"
    return None


_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)(\))")


def site_links(markdown: str, source: str, page: str) -> str:
    """``markdown`` from the repository file ``source`` with every relative link (outside code
    blocks) made a link from the site page ``page`` to the page its target became."""

    def rewrite(match: re.Match) -> str:
        target = match[2]
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match[0]
        path, hash_, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        mapped = _site_path(repo_path)
        if mapped is None:
            raise PluginError(
                f"{source} links to {target}, which is not a page of the site: name the file as `code`, "
                "or link the page that says what is needed"
            )
        relative = posixpath.relpath(mapped, posixpath.dirname(page) or ".")
        return f"{match[1]}{relative}{hash_}{anchor}{match[3]}"

    lines, fence = [], None
    for line in markdown.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened[2]
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            line = _LINK.sub(rewrite, line)
        lines.append(line)
    return "".join(lines)


def _section(markdown: str, title: str) -> str:
    """The level-2 section ``title`` of ``markdown``, its heading one level down."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", markdown, re.S | re.M)
    if match is None:
        raise PluginError(f"docs/fidelity.md has no section '## {title}'")
    body = re.sub(r"^(#+) ", r"#\1 ", match[1], flags=re.M)
    return f"### {title}\n{body}"


def _png(frame) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _first_frame(env_id: str, seed: int = 0, **options):
    import cogsim

    env = cogsim.make(env_id, **options)
    obs, _ = env.reset(seed=seed)
    env.close()
    return obs["images"][0]


# The pictures of each benchmark page: drawn now by the installed package, never from a release's
# image files (KidGym's and the Matching Pairs' default looks need the user's copy of those).
PICTURES = {
    "kidgym": [
        (
            "kidgym-maze.png",
            "`kidgym/maze` level 2 in cogsim's own look (`look=\"cogsim\"`) of the release's scene; the default "
            "look is the release's pictures, drawn from your copy of its image files",
            lambda: _first_frame("kidgym/maze", level=2, look="cogsim"),
        ),
    ],
    "cubebench": [
        (
            "cube-optimal-move.png",
            "`cube/optimal-move` at depth 3: the release's cube net, pixel for pixel (the default look)",
            lambda: _first_frame("cube/optimal-move", depth=3, modality="image+text"),
        ),
    ],
    "rngbench": [
        (
            "pairs-single.png",
            '`pairs/single` (4 x 4, `theme="poker"`) in cogsim\'s own look (`look="cogsim"`, `modality="image"`); '
            "the default look draws the release's card faces from your copy of its image files",
            lambda: _first_frame("pairs/single", look="cogsim", modality="image", theme="poker"),
        ),
        (
            "maze3d-nav.png",
            "`maze3d/nav` (`size=7`): the release's raycast frame with its HUD, pixel for pixel (the default look)",
            lambda: _first_frame("maze3d/nav", size=7, modality="3d"),
        ),
    ],
}


def _benchmark_page(name: str, fidelity: str, files: Files, config) -> str:
    page = f"benchmarks/{name}.md"
    source = f"python/cogsim/benchmarks/{name}/README.md"
    text = site_links((ROOT / source).read_text(encoding="utf-8"), source, page)
    text += "\n## Fidelity table\n\nFrom [Protocol fidelity](../fidelity.md), where every default names its source.\n\n"
    text += "\n".join(
        site_links(_section(fidelity, title), "docs/fidelity.md", page) for title in FIDELITY_SECTIONS[name]
    )
    pictures = PICTURES.get(name)
    text += "\n## Pictures\n\n"
    if not pictures:
        text += "WILT is a text-only benchmark: its observations carry no frames.\n"
    for file_name, caption, draw in pictures or []:
        files.append(File.generated(config, f"benchmarks/images/{file_name}", content=_png(draw())))
        text += f"![{file_name}](images/{file_name})\n\n{caption}.\n\n"
    return text


def _command_help(parser: argparse.ArgumentParser, name: str, seen: set[int]) -> list[str]:
    if id(parser) in seen:  # an alias of a command already written
        return []
    seen.add(id(parser))
    parts = [f"## `{name}`\n\n```text\n{parser.format_help()}```\n"]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub_parser in action.choices.items():
                parts += _command_help(sub_parser, f"{name} {sub_name}", seen)
    return parts


def cli_reference() -> str:
    from cogsim.cli import build_parser

    width = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"  # argparse wraps to the terminal's width: the same page everywhere
    try:
        sections = _command_help(build_parser(), "cogsim", set())
    finally:
        if width is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = width
    intro = (
        "# Command line\n\nEvery command of `cogsim`, with the help it prints (`cogsim COMMAND --help`); "
        "this page is generated from the parser (`cogsim.cli.build_parser`) when the site is built.\n\n"
    )
    return intro + "\n".join(sections)


def on_files(files: Files, config) -> Files:
    def add(page: str, source: str, content: str) -> None:
        files.append(File.generated(config, page, content=content))
        _generated[page] = source

    add("index.md", "README.md", site_links((ROOT / "README.md").read_text(encoding="utf-8"), "README.md", "index.md"))
    fidelity = (ROOT / "docs" / "fidelity.md").read_text(encoding="utf-8")
    for name in BENCHMARKS:
        add(
            f"benchmarks/{name}.md",
            f"python/cogsim/benchmarks/{name}/README.md",
            _benchmark_page(name, fidelity, files, config),
        )
    for path in sorted((ROOT / "benchmarks").glob("results_*.md")):
        source = f"benchmarks/{path.name}"
        add(_site_path(source), source, site_links(path.read_text(encoding="utf-8"), source, _site_path(source)))
    add("reference/cli.md", "python/cogsim/cli.py", cli_reference())
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    uri = page.file.src_uri
    if uri in _generated:
        return markdown
    return site_links(markdown, f"docs/{uri}", uri)
