"""Heatmaps of POIMs and differential POIMs, and the weights-vs-FIRM scatter.

All functions draw on ``ax`` (a new figure when ``ax=None``) and return the Axes.
Positions on the axes are 1-based; colour scales diverge around zero.
"""

from __future__ import annotations

import numpy as np

from ..io import kmer_string
from ..errors import SeqimpError
from .._utils.tables import top_n

__all__ = ["poim_heatmap", "differential_heatmap", "maximal_heatmap", "weights_vs_firm"]

_MEASURE_LABELS = {"poim": "POIM  Q(z, j)", "firm": "FIRM(z, j)"}


def _axes(ax, size):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _symmetric_norm(values):
    """A colour normalisation symmetric around zero (NaN ignored)."""
    from matplotlib.colors import Normalize

    finite = np.abs(values[np.isfinite(values)])
    vmax = float(finite.max()) if finite.size else 0.0
    vmax = vmax if vmax > 0 else 1.0
    return Normalize(vmin=-vmax, vmax=vmax)


def _cmap(cmap):
    import matplotlib

    cm = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    return cm.with_extremes(bad="0.85")  # impossible / undefined entries in light grey


def _position_axis(ax, n, position_labels=None, *, axis="x", label="position"):
    """1-based integer ticks at readable spacing for n positions (works up to L in the thousands)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

    target = ax.xaxis if axis == "x" else ax.yaxis
    locator = MaxNLocator(nbins=12, integer=True, steps=[1, 2, 5, 10])
    target.set_major_locator(locator)
    if position_labels is not None:
        labels = np.asarray(position_labels)
        if labels.dtype.kind in "iuf" and len(labels):
            # ticks where the *labels* are round numbers (e.g. -50, -40, ... relative to a start site)
            nice = set(locator.tick_values(float(labels.min()), float(labels.max())).tolist())
            target.set_major_locator(FixedLocator([i + 1 for i, v in enumerate(labels) if float(v) in nice]))

        # labels counting from an origin (seqimp.io.position_labels: ..., -1, +1, ...) print signed
        signed = labels.dtype.kind in "iu" and len(labels) and labels.min() < 0 and not (labels == 0).any()

        def fmt(v, _pos):
            i = int(round(v)) - 1
            if not 0 <= i < len(labels):
                return ""
            return f"{int(labels[i]):+d}" if signed else str(labels[i])

        target.set_major_formatter(FuncFormatter(fmt))
    (ax.set_xlabel if axis == "x" else ax.set_ylabel)(label)
    (ax.set_xlim if axis == "x" else ax.set_ylim)(0.5, n + 0.5)


def _check_labels(position_labels, length):
    if position_labels is not None and len(position_labels) != length:
        raise SeqimpError(f"position_labels has {len(position_labels)} entries, the sequences have length {length}")


def _colorbar(ax, image, label):
    cb = ax.figure.colorbar(image, ax=ax, shrink=0.9, pad=0.01)
    cb.set_label(label)
    return cb


def poim_heatmap(result, order, ax=None, *, measure="poim", top=None, kmers=None, cmap="RdBu_r",
                 colorbar=True, position_labels=None, title=None):
    """Heatmap of the POIM (or FIRM) of one order: k-mers × positions.

    Parameters
    ----------
    result : POIMResult or StreamedPOIM
        ``result.table(k, measure)`` of shape (L-k+1, 4**k) is drawn; a streamed result keeps
        the tables of k <= 4 and says so in one line for higher orders.
    order : int
        k, 1 <= k <= ``result.max_order``.
    ax : matplotlib Axes, optional
    measure : {"poim", "firm"}, default="poim"
    top : int, optional
        Show only the ``top`` k-mers with the largest ``max_j |value|``. Default: all
        k-mers when there are at most 64 (DNA k <= 3, protein k = 1), else the top 20.
    kmers : sequence of str, optional
        Show exactly these k-mers (overrides ``top``).
    cmap : str or Colormap, default="RdBu_r"
        A diverging colormap; the scale is symmetric around zero. Grey marks NaN.
    colorbar : bool, default=True
    position_labels : sequence of length L, optional
        Tick labels for positions 1..L (e.g. -50..+7 relative to a start site).
        A column is labelled by the position of the k-mer's first symbol.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    table = np.asarray(result.table(order, measure), dtype=np.float64)  # (L-k+1, 4**k)
    order = int(order)
    _check_labels(position_labels, result.length)
    alphabet = result.alphabet
    if kmers is not None:
        from ..io import kmer_index

        rows = []
        for z in kmers:
            if len(z) != order:
                raise SeqimpError(f"k-mer {z!r} has length {len(z)}, expected order {order}")
            rows.append(kmer_index(z, alphabet))
        rows = np.array(rows, dtype=np.int64)
    else:
        if top is None:
            top = table.shape[1] if table.shape[1] <= 64 else 20   # DNA k <= 3, protein k = 1: every k-mer
        strength = np.nanmax(np.where(np.isnan(table), -np.inf, np.abs(table)), axis=0)
        top = int(min(max(top, 1), table.shape[1]))
        rows = np.arange(table.shape[1])
        if top < table.shape[1]:
            rows = np.sort(top_n(strength, top))
    data = table[:, rows].T  # (rows, positions)
    n_pos = table.shape[0]
    ax = _axes(ax, (min(14.0, 4.0 + 0.08 * n_pos), min(12.0, 1.5 + 0.16 * len(rows))))
    image = ax.imshow(data, aspect="auto", interpolation="nearest", cmap=_cmap(cmap), norm=_symmetric_norm(data),
                      extent=(0.5, n_pos + 0.5, len(rows) - 0.5, -0.5))
    _position_axis(ax, n_pos, position_labels, label="position (1-based start of the k-mer)"
                   if position_labels is None else "position (start of the k-mer)")
    ax.set_yticks(np.arange(len(rows)))
    ax.set_yticklabels([kmer_string(r, order, alphabet) for r in rows],
                       fontsize=max(4.5, min(9.0, 420.0 / max(len(rows), 1))), family="monospace")
    ax.set_ylabel(f"{order}-mer" + ("" if len(rows) == table.shape[1] else f" (top {len(rows)} by max |{measure}|)"))
    if colorbar:
        _colorbar(ax, image, _MEASURE_LABELS[measure])
    ax.set_title(title if title is not None else f"{measure.upper()}, k = {order}")
    return ax


def differential_heatmap(result, ax=None, *, cmap="RdBu_r", colorbar=True, position_labels=None, title=None):
    """Heatmap of the differential POIM Ω(k, j): order k (rows, 1 at the bottom) × position.

    Peaks mark the length and the start of a motif: Ω(k, j) is large when the
    k-mers at j explain more than any (k-1)-mer inside them.

    Parameters
    ----------
    result : POIMResult or StreamedPOIM
        ``result.differential`` of shape (max_order, L), NaN where j > L-k (grey).
    ax : matplotlib Axes, optional
    cmap : str or Colormap, default="RdBu_r"
        Diverging; symmetric around zero.
    colorbar : bool, default=True
    position_labels : sequence of length L, optional
        Tick labels for positions 1..L.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    return _order_heatmap(result.differential, ax, cmap=cmap, colorbar=colorbar, position_labels=position_labels,
                          title="Differential POIM" if title is None else title,
                          colorbar_label="differential POIM  Ω(k, j)")


def maximal_heatmap(result, ax=None, *, cmap="RdBu_r", colorbar=True, position_labels=None, title=None):
    """Heatmap of the maximal POIM ``q_max(k, j) = max_z |Q(z, j)|``: order k (rows) × position.

    Parameters and return value as :func:`differential_heatmap`; ``result.maximal`` has
    shape (max_order, L), NaN where j > L-k (grey). The colour scale is centred on zero
    like every seqimp heatmap (the values are >= 0).
    """
    return _order_heatmap(result.maximal, ax, cmap=cmap, colorbar=colorbar, position_labels=position_labels,
                          title="Maximal POIM" if title is None else title,
                          colorbar_label="maximal POIM  max_z |Q(z, j)|")


def _order_heatmap(values, ax, *, cmap, colorbar, position_labels, title, colorbar_label):
    data = np.asarray(values, dtype=np.float64)  # (K, L)
    n_orders, length = data.shape
    _check_labels(position_labels, length)
    ax = _axes(ax, (min(14.0, 4.0 + 0.08 * length), 1.8 + 0.3 * n_orders))
    image = ax.imshow(data, aspect="auto", interpolation="nearest", origin="lower", cmap=_cmap(cmap),
                      norm=_symmetric_norm(data), extent=(0.5, length + 0.5, 0.5, n_orders + 0.5))
    _position_axis(ax, length, position_labels, label="position (1-based start)"
                   if position_labels is None else "position (start)")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(nbins=min(n_orders, 12), integer=True))
    ax.set_ylabel("order k (motif length)")
    if colorbar:
        _colorbar(ax, image, colorbar_label)
    ax.set_title(title)
    return ax


def weights_vs_firm(weights, result, ax=None, *, orders=None, max_points=20000, annotate=5, title=None):
    """Scatter of each positional oligomer's model weight w(z, j) against its FIRM(z, j).

    A weight says what the model adds for one k-mer in isolation; FIRM also counts
    the overlapping k-mers that come with it, so important motifs stand out on the
    FIRM axis even when their own weights are small.

    Parameters
    ----------
    weights : PositionalWeights
        ``weights.tables[k-1]`` of shape (L-k+1, 4**k).
    result : POIMResult or StreamedPOIM
        ``result.table(k, "firm")`` of the same shape; same sequence length.
    ax : matplotlib Axes, optional
    orders : sequence of int, optional
        Orders to show; default every k <= min(weights.degree, result.max_order).
    max_points : int, default=20000
        Per order, at most this many points: the ones with the largest
        ``max(|w| / max|w|, |FIRM| / max|FIRM|)`` (deterministic; the bulk near the
        origin is thinned). The hidden count is given in the legend.
    annotate : int, default=5
        Label this many points with the largest ``|FIRM|`` (k-mer @ 1-based position), in
        staggered columns towards the middle of the plot.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    if weights.length != result.length:
        raise SeqimpError(f"weights have length {weights.length}, the POIM result {result.length}")
    top_order = min(weights.degree, result.max_order)
    orders = list(range(1, top_order + 1)) if orders is None else [int(k) for k in orders]
    for k in orders:
        if not 1 <= k <= top_order:
            raise SeqimpError(f"order {k} is not in 1..{top_order} (both the weights and the result must have it)")
    ax = _axes(ax, (6.5, 5.0))
    import matplotlib

    colors = matplotlib.colormaps["viridis"](np.linspace(0.0, 0.9, max(len(orders), 1)))
    labelled = []
    for color, k in reversed(list(zip(colors, orders))):  # low orders drawn last, on top
        w = np.asarray(weights.tables[k - 1], dtype=np.float64).ravel()
        f = np.asarray(result.table(k, "firm"), dtype=np.float64).ravel()
        ok = np.isfinite(f)
        idx = np.flatnonzero(ok)
        wmax = max(np.abs(w[idx]).max(initial=0.0), 1e-300)
        fmax = max(np.abs(f[idx]).max(initial=0.0), 1e-300)
        hidden = 0
        if idx.size > max_points:
            strength = np.maximum(np.abs(w[idx]) / wmax, np.abs(f[idx]) / fmax)
            keep = top_n(strength, max_points)
            hidden = idx.size - max_points
            idx = idx[np.sort(keep)]
        label = f"k = {k}" + (f" ({hidden:,} near 0 not drawn)" if hidden else "")
        ax.scatter(w[idx], f[idx], s=6, color=color, alpha=0.6, linewidths=0, label=label, rasterized=True)
        n_cols = result.alphabet.size ** k
        labelled.extend((abs(f[i]), f[i], w[i], k, i // n_cols, i % n_cols) for i in idx)
    ax.axhline(0.0, color="0.5", lw=0.6)
    ax.axvline(0.0, color="0.5", lw=0.6)
    # labels in staggered columns pointing towards the middle of the plot, joined to their points by
    # thin lines, so that close points stay readable and no label leaves the axes
    ax.autoscale_view()
    xmid, ymid = np.mean(ax.get_xlim()), np.mean(ax.get_ylim())
    counts = {}
    for _, fv, wv, k, pos, z in sorted(labelled, key=lambda t: -t[0])[: max(int(annotate), 0)]:
        side = (wv > xmid, fv > ymid)
        i = counts[side] = counts.get(side, -1) + 1
        dx, dy = (-60 if side[0] else 60), (-1 if side[1] else 1) * (6 + 11 * i)
        ax.annotate(f"{kmer_string(z, k, result.alphabet)}@{pos + 1}", (wv, fv), xytext=(dx, dy),
                    textcoords="offset points", fontsize=7, family="monospace", va="center",
                    ha="right" if side[0] else "left",
                    arrowprops=dict(arrowstyle="-", color="0.4", lw=0.5, shrinkA=0, shrinkB=2))
    ax.set_xlabel("model weight  w(z, j)")
    ax.set_ylabel("FIRM(z, j)")
    ax.legend(fontsize=7, loc="best", markerscale=2)
    ax.set_title(title if title is not None else "Weights vs FIRM of positional oligomers")
    return ax
