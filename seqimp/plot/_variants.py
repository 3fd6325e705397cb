"""Plots of variant effects: the distribution of deltas against every possible substitution, and a
window's per-base importance with the reference and the alternative allele."""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError

__all__ = ["delta_distribution", "variant_importance"]


def _label(row) -> str:
    vid = str(row.get("id", "."))
    return vid if vid not in (".", "", "nan") else f"{row.get('chrom', '')}:{row.get('pos', '')}"


def delta_distribution(table, null=None, *, top=8, ax=None):
    """Histogram of the variants' deltas over that of every possible substitution of the windows.

    Parameters
    ----------
    table : pandas.DataFrame
        Column ``delta`` (and ``id``, ``chrom``, ``pos`` to label the top variants).
    null : array-like, optional
        The substitutions' deltas (:func:`seqimp.importance._variants.snv_null`).
    top : int, default=8
        Mark and label the variants with the largest ``|delta|``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    if "delta" not in table.columns:
        raise SeqimpError("delta_distribution: the table has no column 'delta'")
    delta = table["delta"].to_numpy(np.float64)
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.6))
    values = [delta] if null is None else [delta, np.asarray(null, dtype=np.float64).ravel()]
    span = max(float(np.abs(np.concatenate(values)).max(initial=0.0)), 1e-12)
    bins = np.linspace(-span, span, 61)
    if null is not None:
        ax.hist(values[1], bins=bins, density=True, color="0.75", label=f"every substitution ({values[1].size:,})")
    ax.hist(delta, bins=bins, density=True, histtype="step", color="#b2182b", lw=1.5,
            label=f"variants ({delta.size:,})")
    order = np.argsort(-np.abs(delta), kind="stable")[:top]
    ymax = ax.get_ylim()[1]
    for rank, i in enumerate(order):
        row = table.iloc[int(i)]
        ax.axvline(delta[i], color="#2166ac", lw=0.8, alpha=0.7)
        ax.text(delta[i], ymax * (0.95 - 0.08 * (rank % 6)), f" {_label(row)}", fontsize=7, color="#2166ac",
                ha="left" if delta[i] <= 0 else "right", va="top")
    ax.set_xlabel("delta = score(alt) - score(ref)")
    ax.set_ylabel("density")
    ax.legend(fontsize=7, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)
    return ax


def variant_importance(ref_importance, alt_importance, *, offset, ref_length=1, title=None, ax=None):
    """Per-base importance of a window with the reference and with the alternative allele.

    Parameters
    ----------
    ref_importance, alt_importance : array-like of shape (L,)
        One value per base (:func:`seqimp.importance._variants.base_importance`).
    offset : int
        0-based index of the variant's first REF base in the window.
    ref_length : int, default=1
        REF bases shaded.
    title : str, optional
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        1-based positions on the x axis, the variant shaded.
    """
    import matplotlib.pyplot as plt

    ref = np.asarray(ref_importance, dtype=np.float64)
    alt = np.asarray(alt_importance, dtype=np.float64)
    if ref.ndim != 1 or ref.shape != alt.shape:
        raise SeqimpError(f"variant_importance: ref and alt importance must be 1-D of one length, got {ref.shape} "
                          f"and {alt.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 2.6))
    x = np.arange(1, ref.size + 1)
    ax.axvspan(offset + 0.5, offset + ref_length + 0.5, color="#fee08b", alpha=0.7, lw=0)
    ax.axhline(0, color="0.6", lw=0.6)
    ax.step(x, ref, where="mid", color="0.25", lw=1.0, label="ref")
    ax.step(x, alt, where="mid", color="#b2182b", lw=1.0, label="alt")
    ax.set_xlim(0.5, ref.size + 0.5)
    ax.set_xlabel("1-based position in the window")
    ax.set_ylabel("importance")
    if title:
        ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="upper right")
    return ax
