"""Plots of tabular importances: box plots over repeats, q_f(t) curves, importance matrices.

Each function takes ``ax=None`` (a new figure) and returns the Axes.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import SeqimpError, check_int, check_random_state

__all__ = ["plot_importance_boxplot", "plot_firm_curve", "plot_importance_matrix"]


def _axes(ax, figsize):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize)
    return ax


def _version(text):
    parts = []
    for piece in text.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def plot_importance_boxplot(result, *, ax=None, top=None, reference=None, title=None, xlabel=None):
    """Horizontal box plots of importances over repeats, most important at the top.

    Parameters
    ----------
    result : Bunch
        From :func:`permutation_importance` or :func:`sensitivity_importance`
        (``importances`` of shape (n_units, n_repeats), ``feature_names``).
    ax : matplotlib Axes, optional
    top : int, optional
        Show only the ``top`` features with the largest mean.
    reference : float, optional
        Vertical line marking "no importance" (0 for differences, 1 for ratios;
        default from ``result.compare`` when present, else 0).
    title, xlabel : str, optional

    Returns
    -------
    ax : matplotlib Axes
    """
    imp = np.atleast_2d(np.asarray(result.importances, dtype=float))
    names = np.asarray(result.feature_names, dtype=object)
    if imp.shape[0] != len(names):
        raise SeqimpError(f"result: {imp.shape[0]} importance rows but {len(names)} feature names")
    order = np.argsort(imp.mean(axis=1))  # ascending: boxplot draws bottom-up
    if top is not None:
        order = order[-int(top):]
    ax = _axes(ax, (6, 0.35 * len(order) + 1.2))
    import matplotlib

    horizontal = {"orientation": "horizontal"} if _version(matplotlib.__version__) >= (3, 10) else {"vert": False}
    ax.boxplot(imp[order].T, widths=0.6, medianprops={"color": "black"}, **horizontal)
    ax.set_yticks(np.arange(1, len(order) + 1), names[order])
    if reference is None:
        reference = 1.0 if getattr(result, "compare", None) == "ratio" else 0.0
    ax.axvline(reference, color="grey", lw=0.8, ls="--")
    if xlabel is None:
        loss, compare = getattr(result, "loss", None), getattr(result, "compare", None)
        xlabel = f"importance ({loss} {compare})" if loss else "importance"
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    return ax


def plot_firm_curve(result, feature=0, *, ax=None, show_scores=True, title=None, max_points=2000, random_state=0):
    """Scores ``s(x_i)`` against a feature and its conditional expected score ``q_f(t)``.

    Parameters
    ----------
    result : Bunch
        From :func:`firm`.
    feature : int or str
        0-based position in ``result.feature_names``, or the name.
    ax : matplotlib Axes, optional
    show_scores : bool
        Draw the scores of the samples as points behind the curve.
    title : str, optional
        Default: the feature name, its FIRM and the method.
    max_points : int
        At most this many sample points are drawn (a random subset).
    random_state : int, numpy Generator or None, default=0
        Seed of that subset (None = the fixed seed 0).

    Returns
    -------
    ax : matplotlib Axes
    """
    names = np.asarray(result.feature_names, dtype=object)
    if isinstance(feature, (numbers.Integral, np.integer)) and not isinstance(feature, bool):
        if not 0 <= feature < len(names):
            raise SeqimpError(f"feature: index {feature} out of range for {len(names)} features")
        i = int(feature)
    else:
        hits = np.flatnonzero(names == str(feature))
        if len(hits) != 1:
            raise SeqimpError(f"feature: unknown feature {feature!r}")
        i = int(hits[0])
    max_points = check_int(max_points, "max_points")
    ax = _axes(ax, (4, 3.2))
    if show_scores:
        v, s = result.feature_values[:, i], result.scores
        if len(s) > max_points:
            keep = check_random_state(random_state).choice(len(s), max_points, replace=False)
            v, s = v[keep], s[keep]
        ax.scatter(v, s, s=6, color="tab:blue", alpha=0.35, lw=0, label="score s(x)")
    curve = result.curves[i]
    style = {"marker": "o"} if np.all(np.isfinite(curve.weight)) else {}
    ax.plot(curve.t, curve.q, color="tab:red", lw=2, label="q_f(t)", **style)
    ax.set_xlabel(str(names[i]))
    ax.set_ylabel("score")
    if title is None:
        title = f"{names[i]}: Q = {result.importances[i]:.3g} ({result.methods[i]})"
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    return ax


def plot_importance_matrix(values, *, row_labels, col_labels, ax=None, title=None, fmt=".2f", vmax=None, cbar=True):
    """Heat map of signed importances, diverging colours centred on zero (blue < 0 < red).

    Parameters
    ----------
    values : array-like of shape (n_rows, n_cols)
        NaN cells are left blank.
    row_labels : sequence of n_rows str
    col_labels : sequence of n_cols str
    ax : matplotlib Axes, optional
    title : str, optional
    fmt : str
        Format of the numbers written into the cells ("" for none).
    vmax : float, optional
        Colour limit (symmetric); default the largest absolute value.
    cbar : bool
        Draw a colour bar.

    Returns
    -------
    ax : matplotlib Axes
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape != (len(row_labels), len(col_labels)):
        raise SeqimpError(f"values: shape {values.shape} does not match {len(row_labels)} rows x {len(col_labels)} columns")
    ax = _axes(ax, (0.9 * values.shape[1] + 2, 0.5 * values.shape[0] + 1.2))
    finite = values[np.isfinite(values)]
    if vmax is None:
        vmax = float(np.max(np.abs(finite))) if finite.size else 1.0
    vmax = vmax or 1.0
    im = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu_r", vmin=-vmax, vmax=vmax, aspect="auto")
    ax.set_xticks(np.arange(values.shape[1]), col_labels)
    ax.set_yticks(np.arange(values.shape[0]), row_labels)
    if fmt:
        for (r, c), v in np.ndenumerate(values):
            if np.isfinite(v):
                ax.text(c, r, format(v, fmt), ha="center", va="center", fontsize=8,
                        color="white" if abs(v) > 0.6 * vmax else "black")
    if cbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    if title:
        ax.set_title(title, fontsize=10)
    return ax
