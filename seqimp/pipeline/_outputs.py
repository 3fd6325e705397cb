"""Result files of a POIM run: the top table, figures, the POIM and the model, then the summary and
report (:mod:`seqimp.report`).

Used by :mod:`seqimp.pipeline` (and so by ``seqimp poim``/``seqimp demo``); usable on
their own for a result computed elsewhere::

    from seqimp.pipeline import write_outputs
    write_outputs("results", result, weights=weights, summary={"title": "my run"})
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .._utils.jsonable import json_ready
from .._utils.tables import write_tsv
from ..io import hits_to_bed, oligomer_hits, write_bed
from ..io import position_labels as _position_labels
from ..io._positions import format_position
from ..options import check_figure_format
from ..plot._save import save_figure
from ..report import write_report
from ..report._record import add_file_sizes, write_summary
from ..training import save_model

__all__ = ["top_oligomers", "write_top_bed", "write_figures", "write_outputs", "write_result_files", "poim_file",
           "tables_path"]


def tables_path(out, full_tables) -> Path | None:
    """Where ``full_tables`` go: ``out/poim_tables.h5``, or None."""
    return Path(out) / "poim_tables.h5" if full_tables else None


def top_oligomers(result, n=50, *, position_origin=None):
    """The top ``n`` positional oligomers of every order by |FIRM|, merged and sorted by |FIRM|.

    The rows of ``top_oligomers.tsv``: ``result.top(n, measure="firm")`` (see
    :meth:`POIMResult.top <seqimp.importance.POIMResult.top>` for the ranking and its ties).

    Parameters
    ----------
    result : POIMResult
    n : int, default=50
    position_origin : int, optional
        The 1-based position read as ``+1`` (a summit, a TSS): adds the column
        ``position_label`` beside ``position`` (``-2, -1, +1, +2, ...``; no 0; see
        :func:`seqimp.io.position_labels`).

    Returns
    -------
    pandas.DataFrame
        Columns ``rank, oligomer, order, position`` (1-based start), [``position_label``,]
        ``poim, firm``.
    """
    table = result.top(n, measure="firm")
    if position_origin is not None:
        labels = _position_labels(result.length, position_origin)
        text = [format_position(labels[p - 1]) for p in table["position"].to_numpy(np.int64)]
        table.insert(table.columns.get_loc("position") + 1, "position_label", pd.Series(text, dtype=object))
    return table


def write_top_bed(path, windows, table, *, min_order=3) -> int:
    """Write the genomic sites of ranked positional oligomers in the windows as BED6; return the row count.

    Only oligomers of order >= ``min_order`` (default 3: a 1- or 2-mer hits most windows);
    ``min_order=1`` writes every order. Scores are BED's integers 0-1000 (|FIRM| scaled by the
    largest, :func:`seqimp.io._bed.write_bed`).

    One row per window holding a ranked oligomer at its position (:func:`seqimp.io._genome.oligomer_hits`),
    in genome coordinates (:func:`seqimp.io._bed.hits_to_bed`): name ``oligomer@position``, score
    its FIRM, strand relative to the genome (a hit in a '-' window is on '-').
    """
    table = table[table["order"] >= min_order]
    hits = oligomer_hits(windows, table)
    firm = {(o, int(p)): f for o, p, f in zip(table["oligomer"], table["position"], table["firm"])}
    bed = hits_to_bed(windows, hits["window"], hits["position"], hits["length"],
                      name=[f"{o}@{p}" for o, p in zip(hits["oligomer"], hits["position"])],
                      score=[firm[(o, int(p))] for o, p in zip(hits["oligomer"], hits["position"])])
    write_bed(bed, path)
    return len(bed)


#: Orders whose per-order heatmaps are drawn (their full tables are kept by every result).
FIGURE_ORDERS = 4


def write_figures(out, result, weights=None, *, fmt="png", position_labels=None, dpi=130) -> list:
    """Write ``differential_poim``, ``maximal_poim``, ``poim_order<k>`` and ``weights_vs_firm``.

    Per-order heatmaps for k = 1..min(max_order, 4) (orders k <= 3 show all k-mers, k = 4 the
    top 20); the differential and maximal POIM cover every order. Works from a full
    :class:`~seqimp.importance.POIMResult` or from the summaries of a
    :class:`~seqimp.importance.StreamedPOIM`. Returns the written paths.
    """
    import matplotlib.pyplot as plt

    from ..plot import differential_heatmap, maximal_heatmap, poim_heatmap, weights_vs_firm

    check_figure_format(fmt)
    out = Path(out)
    jobs = [("differential_poim", lambda: differential_heatmap(result, position_labels=position_labels)),
            ("maximal_poim", lambda: maximal_heatmap(result, position_labels=position_labels))]
    top_order = min(result.max_order, FIGURE_ORDERS)
    for k in range(1, top_order + 1):
        jobs.append((f"poim_order{k}", lambda k=k: poim_heatmap(result, k, position_labels=position_labels)))
    if weights is not None:
        orders = range(1, min(weights.degree, top_order) + 1)
        jobs.append(("weights_vs_firm", lambda: weights_vs_firm(weights, result, orders=orders)))
    written = []
    for name, draw in jobs:
        ax = draw()
        path = out / f"{name}.{fmt}"
        save_figure(ax.figure, path, dpi=dpi)
        plt.close(ax.figure)
        written.append(path)
    return written


def poim_file(result, top=1000):
    """What ``poim.npz`` holds: for exact results the summaries (:class:`StreamedPOIM`: maximal and
    differential POIM, the top 1000 positional oligomers per order, full tables for k <= 4),
    a few MB where the full tables take hundreds; sampled results whole (they are small).
    Full tables of every order are written only on request (``full_tables=``, ``--full-tables``)."""
    from ..importance import StreamedPOIM

    if isinstance(result, StreamedPOIM) or result.method != "exact":
        return result
    return StreamedPOIM.from_result(result, top_n=max(1000, int(top)))


def write_result_files(out, result, *, weights=None, fmt="png", top=50, position_labels=None,
                       model_metadata=None, position_origin=None, windows=None) -> list:
    """Write the result files of ``seqimp poim`` except ``summary.json`` and the report.

    ``top_oligomers.tsv``, the figures, ``poim.npz`` and ``model.npz`` (when ``weights``
    are given); with ``windows`` (:class:`seqimp.io._genome.GenomicWindows` of the analysed
    sequences) also ``top_oligomers.bed`` (:func:`write_top_bed`). ``position_origin`` adds
    the ``position_label`` column and, unless ``position_labels`` are given, labels the
    figures' position axes the same way. Returns the written paths.
    """
    out = Path(out)
    written = [out / "top_oligomers.tsv"]
    table = top_oligomers(result, top, position_origin=position_origin)
    write_tsv(table, written[0])
    if windows is not None:
        write_top_bed(out / "top_oligomers.bed", windows, table)
        written.append(out / "top_oligomers.bed")
    if position_labels is None and position_origin is not None:
        position_labels = _position_labels(result.length, position_origin)
    written += write_figures(out, result, weights, fmt=fmt, position_labels=position_labels)
    poim_file(result, top).save(out / "poim.npz")
    written.append(out / "poim.npz")
    if weights is not None:
        save_model(out / "model.npz", weights, model_metadata)
        written.append(out / "model.npz")
    return written


def write_outputs(out, result, *, weights=None, summary=None, fmt="png", top=50, position_labels=None,
                  model_metadata=None, report=True) -> list:
    """Write every result file of ``seqimp poim`` into the folder ``out``.

    :func:`write_result_files`, then ``summary.json`` and ``report.html`` (from ``summary``).
    Returns the written paths.
    """
    out = Path(out)
    written = write_result_files(out, result, weights=weights, fmt=fmt, top=top, position_labels=position_labels,
                                 model_metadata=model_metadata)
    summary = json_ready(add_file_sizes(summary or {}, out, written))
    write_summary(out / "summary.json", summary)
    written.append(out / "summary.json")
    if report:
        written.append(write_report(out, summary=summary))
    return written


