"""Sequence logos (logomaker): motifs by information content, POIMs by per-position importance.

Both functions draw on ``ax`` (a new figure when ``ax=None``) and return the Axes; positions
are 1-based (a placed motif shows its positions in the sequences).
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError
from ..importance._result import measure_tables

__all__ = ["logo", "importance_logo", "letter_importance"]

_LETTERS = list("ACGT")


def _axes(ax, width):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(min(max(1.0 + 0.45 * width, 3.5), 16), 2.4), layout="constrained")
    return ax


def _ticks(ax, first, n):
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(nbins=min(n, 15), integer=True))
    ax.set_xlim(first - 0.5, first + n - 0.5)


def logo(motif, ax=None, *, color_scheme="classic", title=None, ymax=None):
    """Information-content logo of a motif.

    Letter heights are ``p(a) * IC`` with IC the column's information content in bits
    (uniform background, 0..2 bits).

    Parameters
    ----------
    motif : Motif
    ax : matplotlib Axes, optional
    color_scheme : str, default="classic"
        A logomaker colour scheme (A green, C blue, G orange, T red).
    title : str, optional
        Default: name, consensus and start of the motif.
    ymax : float, optional
        Top of the y axis in bits. Default 2, or 1.15 times the tallest column when no column
        reaches 0.5 bit (flat PWMs, such as those fitted to a POIM alone, would be invisible
        on a 0-2 bit axis; the title then says that the axis is zoomed).

    Returns
    -------
    matplotlib Axes
    """
    import logomaker
    import pandas as pd

    from ..motifs._motif import information_content

    pwm = np.asarray(motif.pwm, dtype=np.float64)
    first = motif.start if motif.start is not None else 1
    heights = pwm * information_content(pwm)[:, None]
    df = pd.DataFrame(heights, columns=_LETTERS, index=np.arange(first, first + len(pwm)))
    ax = _axes(ax, len(pwm))
    logomaker.Logo(df, ax=ax, color_scheme=color_scheme)
    tallest = float(heights.sum(axis=1).max())
    zoomed = ymax is None and tallest < 0.5
    if ymax is None:
        ymax = 1.15 * tallest if zoomed and tallest > 0 else 2.0
    ax.set_ylim(0, ymax)
    ax.set_ylabel("bits")
    ax.set_xlabel("position (1-based)" if motif.start is not None else "motif column")
    _ticks(ax, first, len(pwm))
    ax.spines[["top", "right"]].set_visible(False)
    if title is None:
        where = f" at {motif.start}" if motif.start is not None else ""
        spread = f" (± {motif.spread:.1f})" if motif.start is not None and motif.spread >= 0.05 else ""
        title = f"{motif.name}: {motif.consensus}{where}{spread}" + ("\nflat PWM: y axis zoomed" if zoomed else "")
    ax.set_title(title, fontsize=10)
    return ax


def letter_importance(result, *, order=1, measure="poim") -> np.ndarray:
    """Per-position, per-letter importance of a POIM (the data of :func:`importance_logo`).

    For order k, entry ``[j, a]`` averages over the k windows that cover position j the largest
    importance of a k-mer that has letter a at j; each position is then centred over the four
    letters. For k = 1 this is the order-1 POIM ``Q(a, j)`` centred.

    Returns
    -------
    ndarray of shape (L, 4), float64
    """
    tables = measure_tables(result, measure)
    k = int(order)
    if not 1 <= k <= result.max_order:
        raise SeqimpError(f"order must lie in 1..{result.max_order}, got {order}")
    L = result.length
    table = np.where(np.isfinite(tables[k - 1]), tables[k - 1], -np.inf)
    out = np.zeros((L, 4))
    covered = np.zeros(L)
    for p in range(k):  # letter a at offset p of a window starting at j - p
        shaped = table.reshape(table.shape[0], 4 ** p, 4, 4 ** (k - 1 - p))
        best = shaped.max(axis=(1, 3))  # (L-k+1, 4)
        best = np.where(np.isfinite(best), best, 0.0)
        out[p:p + table.shape[0]] += best
        covered[p:p + table.shape[0]] += 1
    out /= np.maximum(covered, 1)[:, None]
    return out - out.mean(axis=1, keepdims=True)


def importance_logo(result, ax=None, *, order=1, measure="poim", positions=None, color_scheme="classic",
                    title=None):
    """Logo of per-position letter importance from a POIM or FIRM.

    Letters above the axis raise the score when they occur at that position, letters below
    lower it (see :func:`letter_importance`).

    Parameters
    ----------
    result : POIMResult
    ax : matplotlib Axes, optional
    order : int, default=1
    measure : {"poim", "firm"}, default="poim"
    positions : (int, int), optional
        1-based first and last position shown (default: all).

    Returns
    -------
    matplotlib Axes
    """
    import logomaker
    import pandas as pd

    values = letter_importance(result, order=order, measure=measure)
    first, last = (1, result.length) if positions is None else (int(positions[0]), int(positions[1]))
    if not 1 <= first <= last <= result.length:
        raise SeqimpError(f"positions must satisfy 1 <= first <= last <= {result.length}, got {positions}")
    block = values[first - 1:last]
    df = pd.DataFrame(block, columns=_LETTERS, index=np.arange(first, last + 1))
    ax = _axes(ax, last - first + 1)
    logomaker.Logo(df, ax=ax, color_scheme=color_scheme, flip_below=False, fade_below=0.4)
    ax.axhline(0, color="0.3", lw=0.6)
    ax.set_xlabel("position (1-based)")
    ax.set_ylabel(f"{measure.upper()} (order {order})")
    _ticks(ax, first, last - first + 1)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or f"letter importance, {measure.upper()} order {order}", fontsize=10)
    return ax
