"""A small document model rendered to both Markdown and HTML (headings, paragraphs, tables, images).

Text from a run directory (model replies, errors, agent names, options) is untrusted: table cells,
headings and code blocks are always escaped for the format they are written in, and a paragraph's
untrusted parts are given as :class:`Text` or :class:`Code` (only plain ``str`` parts are markup).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any

from cogsim.metrics import Estimate, Table

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
.ci { color: #777; font-size: 12px; } .note { color: #555; font-size: 13px; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 12px; }
img { max-width: 100%; border: 1px solid #eee; }
"""


class Text(str):
    """Untrusted text in a paragraph: shown literally (escaped) in both formats."""


class Code(str):
    """Untrusted text shown as an inline code span (a cell or a paragraph part)."""


@dataclass(frozen=True)
class Link:
    """A table cell that links to ``href``, an address cogsim built (relative: an episode list of
    ``cogsim view``, which serves the report); ``cell`` is shown as any cell. Markdown shows the cell alone."""

    cell: Any
    href: str


# Emphasis, code, tables and backslashes are escaped; raw HTML, entities and autolinks are made inert;
# a link or an image needs "](", whose parenthesis is escaped.
_MARKDOWN_ESCAPES = str.maketrans(
    {
        **{c: "\\" + c for c in "\\`*_|~"},
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "\n": " ",
        "\r": " ",
    }
)


def markdown_text(text: str) -> str:
    """Text that Markdown (and the HTML it may embed) shows literally, on one line."""
    return str(text).translate(_MARKDOWN_ESCAPES).replace("](", "]\\(")


def markdown_code(text: str, in_table: bool = False) -> str:
    """An inline code span holding ``text`` literally: the fence is longer than any backtick run in it."""
    text = " ".join(str(text).splitlines())
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    if in_table:
        text = text.replace("|", "\\|")
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _markdown_fence(text: str) -> str:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def format_cell(cell: Any) -> str:
    """Plain text of a table cell; an Estimate shows its 95% interval."""
    if isinstance(cell, Estimate):
        if cell.n == 0 or math.isnan(cell.value):
            return "n/a"
        return cell.format(digits=_digits(cell.value))
    if isinstance(cell, float):
        if math.isnan(cell):
            return "n/a"
        return f"{cell:,.{_digits(cell)}f}"
    if isinstance(cell, int) and not isinstance(cell, bool):
        return f"{cell:,}"
    return str(cell)


def _digits(value: float) -> int:
    magnitude = abs(value)
    return 3 if magnitude < 1 else 2 if magnitude < 100 else 1 if magnitude < 10_000 else 0


@dataclass
class Document:
    title: str
    blocks: list = field(default_factory=list)

    def heading(self, text: str, level: int = 2) -> None:
        """A heading; untrusted parts of it must come as one :class:`Text`."""
        self.blocks.append(("heading", level, text))

    def paragraph(self, *parts: str) -> None:
        """Plain ``str`` parts are trusted markup (inline `code` spans); :class:`Text` and :class:`Code`
        parts are untrusted and escaped."""
        self.blocks.append(("paragraph", parts))

    def table(self, table: Table) -> None:
        self.blocks.append(("table", table))

    def image(self, caption: str, path: str) -> None:
        self.blocks.append(("image", caption, path))

    def code(self, text: str) -> None:
        self.blocks.append(("code", text))

    # -- rendering --------------------------------------------------------------------------------
    def markdown(self, path_prefix: str = "", heading_offset: int = 0, with_title: bool = True) -> str:
        """``path_prefix`` and ``heading_offset`` let another document embed this one."""
        parts = [f"{'#' * (1 + heading_offset)} {_markdown_part(self.title)}\n"] if with_title else []
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                parts.append(f"{'#' * (block[1] + heading_offset)} {_markdown_part(block[2])}\n")
            elif kind == "paragraph":
                parts.append("".join(_markdown_part(p) for p in block[1]) + "\n")
            elif kind == "table":
                parts.append(_markdown_table(block[1]))
            elif kind == "image":
                caption = markdown_text(block[1])
                parts.append(f"![{caption}](<{path_prefix}{block[2]}>)\n\n*{caption}*\n")
            elif kind == "code":
                fence = _markdown_fence(block[1])
                parts.append(f"{fence}text\n{block[1]}\n{fence}\n")
        return "\n".join(parts)

    def html(self) -> str:
        body = [f"<h1>{html.escape(self.title)}</h1>"]
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                body.append(f"<h{block[1]}>{html.escape(block[2])}</h{block[1]}>")
            elif kind == "paragraph":
                body.append(f"<p>{''.join(_html_part(p) for p in block[1])}</p>")
            elif kind == "table":
                body.append(_html_table(block[1]))
            elif kind == "image":
                caption = html.escape(block[1])
                body.append(
                    f'<figure><img src="{html.escape(block[2])}" alt="{caption}"><figcaption>{caption}</figcaption></figure>'
                )
            elif kind == "code":
                body.append(f"<pre>{html.escape(block[1])}</pre>")
        return (
            f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{html.escape(self.title)}</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
        )


def _markdown_part(part: str) -> str:
    if isinstance(part, Code):
        return markdown_code(part)
    if isinstance(part, Text):
        return markdown_text(part)
    return part


def _html_part(part: str) -> str:
    if isinstance(part, Code):
        return f"<code>{html.escape(part)}</code>"
    if isinstance(part, Text):
        return html.escape(part)
    return _inline_html(part)


def _markdown_table(table: Table) -> str:
    def cell(value: Any) -> str:
        if isinstance(value, Link):
            return cell(value.cell)
        if isinstance(value, Code):
            return markdown_code(value, in_table=True)
        if isinstance(value, str):  # text may come from the run directory; numbers are formatted here
            return markdown_text(value)
        return format_cell(value)

    lines = [f"**{_markdown_part(table.title)}**\n"] if table.title else []
    lines.append("| " + " | ".join(_markdown_part(c).replace("|", "\\|") for c in table.columns) + " |")
    lines.append("|" + "|".join(":---" if i == 0 else "---:" for i in range(len(table.columns))) + "|")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in table.rows]
    if table.note:
        lines.append(f"\n{table.note}")
    return "\n".join(lines) + "\n"


def _html_table(table: Table) -> str:
    def cell(value: Any) -> str:
        if isinstance(value, Link):
            return f'<a href="{html.escape(value.href)}">{cell(value.cell)}</a>'
        if isinstance(value, Estimate) and value.low is not None and value.n > 0 and not math.isnan(value.value):
            digits = _digits(value.value)
            return f"{value.value:.{digits}f} <span class='ci'>[{value.low:.{digits}f}, {value.high:.{digits}f}]</span>"
        if isinstance(value, Code):
            return f"<code>{html.escape(value)}</code>"
        return html.escape(format_cell(value))

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in table.columns)
    rows = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    title = f"<h4>{html.escape(table.title)}</h4>" if table.title else ""
    note = f"<p class='note'>{_inline_html(table.note)}</p>" if table.note else ""
    return f"{title}<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{note}"


def _inline_html(text: str) -> str:
    """Escaped text with `code` spans (the only inline markup the reports use)."""
    pieces = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))
