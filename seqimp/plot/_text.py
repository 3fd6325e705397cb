"""Text from files in figures: a motif's name or description may hold control characters
(a bell, an escape), which no font draws; they are shown as ``\\x07``, as on the terminal."""

from __future__ import annotations

__all__ = ["plot_text"]

#: Control characters (C0 but the newline, DEL, C1) written as ``\\xNN``; a tab is a space.
_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0)]}
_CONTROL[0x09] = " "


def plot_text(text) -> str:
    """``text`` as a figure shows it: control characters as ``\\x07`` (matplotlib would warn of a
    missing glyph and draw a box), a tab as a space; line breaks stay."""
    return str(text).translate(_CONTROL)
