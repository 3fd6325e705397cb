"""Figures written to files with reproducible bytes: :func:`save_figure`."""

from __future__ import annotations

from pathlib import Path

__all__ = ["save_figure"]


#: Figure metadata without dates, so the same figure gives the same bytes (PNG carries none).
_NO_DATES = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}


def save_figure(figure, path, *, dpi=130) -> None:
    """``figure.savefig`` with reproducible bytes: no creation date, fixed SVG element ids."""
    import matplotlib

    fmt = Path(path).suffix.lstrip(".").lower()
    with matplotlib.rc_context({"svg.hashsalt": "seqimp"}):
        figure.savefig(path, dpi=dpi, metadata=_NO_DATES.get(fmt))
