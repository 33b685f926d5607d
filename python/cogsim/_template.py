"""Prompt templates from files: plain named placeholders, checked when an env is made.

A template may use only ``{name}`` for the names its env allows: no format specs (``{step:>99}``
would pad a prompt to gigabytes), no conversions (``{goal!r}``), no attribute or index access
(``{goal.__class__}``), no positional fields. It is filled by joining its pieces, never by
``str.format``, and holds at most ``MAX_PLACEHOLDERS`` placeholders, so a filled prompt stays about
the size of its template. Two brace syntaxes: ``"format"`` (``{{`` and ``}}`` are literal braces, as
in Python format strings) and ``"literal"`` (only the exact ``{name}`` of an allowed name is a
placeholder; every other brace is text, for published prompts that contain braces).
"""

from __future__ import annotations

import string
from typing import Any, Sequence

from cogsim._untrusted import content_text, printable

MAX_TEMPLATE_BYTES = 1 << 20
MAX_PLACEHOLDERS = 64
SYNTAXES = ("format", "literal")


class Template:
    """A checked template: ``Template(text, fields, what).fill(**values)``."""

    def __init__(self, text: str, fields: Sequence[str], what: str, syntax: str = "format"):
        if syntax not in SYNTAXES:
            raise ValueError(f"template syntax must be one of {', '.join(SYNTAXES)}, got {syntax!r}")
        self.fields = tuple(fields)
        self.what = what
        self.pieces = _format_pieces(text, self.fields, what) if syntax == "format" else _literal_pieces(text, fields)
        used = sum(field is not None for _, field in self.pieces)
        if used > MAX_PLACEHOLDERS:
            raise ValueError(f"{what}: {used} placeholders; a template may hold at most {MAX_PLACEHOLDERS}")

    @property
    def names(self) -> set[str]:
        return {field for _, field in self.pieces if field is not None}

    def fill(self, **values: Any) -> str:
        parts = []
        for literal, field in self.pieces:
            parts.append(literal)
            if field is not None:
                parts.append(str(values[field]))
        return "".join(parts)


def load_template(source: Any, fields: Sequence[str], what: str, syntax: str = "format") -> Template:
    """A template from a path (read safely, at most MAX_TEMPLATE_BYTES) or from recorded file content."""
    return Template(content_text(source, what, MAX_TEMPLATE_BYTES), fields, what, syntax)


def _allowed(fields: Sequence[str]) -> str:
    return ", ".join("{" + name + "}" for name in fields)


def _format_pieces(text: str, fields: tuple, what: str) -> list[tuple[str, Any]]:
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as error:
        raise ValueError(f"{what} is not a valid template ({error}); write {{{{ and }}}} for literal braces") from None
    pieces: list[tuple[str, Any]] = []
    unknown = set()
    for literal, field, spec, conversion in parsed:
        if field is None:
            pieces.append((literal, None))
            continue
        if conversion or spec:
            shown = printable(
                "{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            )
            raise ValueError(
                f"{what}: placeholder {shown} has a conversion or format spec; only plain names are allowed: "
                + _allowed(fields)
            )
        if field not in fields:
            unknown.add(field)
        pieces.append((literal, field))
    if unknown:
        shown = ", ".join(printable("{" + name + "}", 80) for name in sorted(unknown)[:10])
        raise ValueError(f"{what}: unknown placeholder(s) {shown}; allowed: {_allowed(fields)}")
    return pieces


def _literal_pieces(text: str, fields: Sequence[str]) -> list[tuple[str, Any]]:
    """Pieces where only an exact ``{name}`` of an allowed name is a placeholder (one linear scan)."""
    pieces: list[tuple[str, Any]] = []
    start = 0
    brace = text.find("{")
    while brace >= 0:
        name = next((f for f in fields if text.startswith(f + "}", brace + 1)), None)
        if name is not None:
            pieces.append((text[start:brace], name))
            start = brace + len(name) + 2
        brace = text.find("{", brace + 1)
    pieces.append((text[start:], None))
    return pieces
