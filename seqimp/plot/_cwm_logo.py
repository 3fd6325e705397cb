"""Contribution logos: the letters of a CWM (contribution weight matrix) at their mean
contribution, above the axis where they raise the model's output and below where they lower it."""

from __future__ import annotations

import numpy as np

__all__ = ["cwm_logo"]


def cwm_logo(cwm, ax=None, *, title=None, ylabel="contribution"):
    """Logo of a CWM: each letter as tall as its mean contribution (negative: below the axis).

    Parameters
    ----------
    cwm : array-like of shape (w, 4)
        Mean contribution per column and letter, A C G T.
    ax : matplotlib Axes, optional
    title : str, optional
    ylabel : str, default="contribution"

    Returns
    -------
    matplotlib Axes
    """
    from ._logos import _axes, _letters_and_colors, _ticks, draw_letters

    values = np.asarray(cwm, dtype=np.float64)
    letters, scheme = _letters_and_colors("dna", None)
    ax = _axes(ax, len(values))
    bottom, top = draw_letters(ax, values, np.arange(1, len(values) + 1), letters, scheme, flip_below=False)
    low, high = min(bottom, 0.0), max(top, 0.0)
    if high > low:
        ax.set_ylim(low - 0.05 * (high - low), high + 0.05 * (high - low))
    ax.axhline(0, color="0.3", lw=0.6)
    ax.set_xlabel("motif column")
    ax.set_ylabel(ylabel)
    _ticks(ax, 1, len(values))
    ax.spines[["top", "right"]].set_visible(False)
    if title:
        ax.set_title(title, fontsize=10)
    return ax
