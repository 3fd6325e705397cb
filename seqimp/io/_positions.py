"""Position labels people read: 1..L, or ..., -2, -1, +1, +2, ... around an origin (no 0).

Arrays keep 0-based indices everywhere in seqimp; these labels are for axes, tables and
reports only.
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError, check_int

__all__ = ["position_labels", "format_position"]


def position_labels(length, origin=None) -> np.ndarray:
    """The labels people read for array indices 0 to ``length-1``.

    Parameters
    ----------
    length : int
        Sequence length L.
    origin : int, optional
        The 1-based position that becomes ``+1`` (a transcription start site, a peak summit).
        Positions before it are ``-1, -2, ...`` counting away from it; there is no 0, as in
        promoter papers. ``None`` (default): plain 1-based positions ``1 .. L``. For windows
        cut from a genome (:func:`seqimp.io.extract_windows`) the origin is the window's
        centre, ``width // 2 + 1`` (``GenomicWindows.origin``).

    Returns
    -------
    ndarray of shape (L,), int64
        ``labels[i]`` for 0-based index i: ``i + 1`` without origin; with origin N,
        ``i + 2 - N`` for ``i >= N - 1`` and ``i + 1 - N`` before it. Pass it as
        ``position_labels=`` to the heatmaps (positive labels print with ``+``).

    Examples
    --------
    >>> position_labels(5, origin=3).tolist()
    [-2, -1, 1, 2, 3]
    """
    length = check_int(length, "length")
    index = np.arange(length, dtype=np.int64)
    if origin is None:
        return index + 1
    origin = check_int(origin, "position origin", minimum=-(2 ** 62))
    rel = index + 1 - origin          # 0 at the origin
    return np.where(rel >= 0, rel + 1, rel)


def format_position(label) -> str:
    """A label as text: ``+5`` for positive, ``-3`` for negative (use with ``origin``)."""
    label = int(label)
    if label == 0:
        raise SeqimpError("position 0 does not exist when positions count from an origin")
    return f"{label:+d}"
