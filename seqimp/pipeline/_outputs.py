"""Result files of a POIM run: the top table, figures, model files, summary and report.

Used by :mod:`seqimp.pipeline` (and so by ``seqimp poim``/``seqimp demo``); usable on
their own for a result computed elsewhere::

    from seqimp.pipeline import write_outputs
    write_outputs("results", result, weights=weights, summary={"title": "my run"})
"""

from __future__ import annotations

import json
import math
import os
import platform
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..errors import SeqimpError
from ..io import format_position, hits_to_bed, oligomer_hits, write_bed
from ..io import position_labels as _position_labels
from .._npz import read_metadata_json, save_npz
from .._tables import write_tsv
from ..kernels._weights import PositionalWeights
from ._options import check_figure_format

__all__ = ["top_oligomers", "write_top_bed", "write_figures", "save_figure", "write_outputs", "write_result_files",
           "write_summary", "json_ready", "save_model", "load_model", "check_model_layout", "versions", "file_sizes",
           "add_file_sizes"]


def versions() -> dict:
    """Versions of seqimp, Python and the numerical libraries, for summaries."""
    out = {"seqimp": __version__, "python": platform.python_version()}
    for name in ("numpy", "scipy", "numba", "sklearn", "matplotlib"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:  # pragma: no cover - optional
            pass
    return out


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
    largest, :func:`seqimp.io.write_bed`).

    One row per window holding a ranked oligomer at its position (:func:`seqimp.io.oligomer_hits`),
    in genome coordinates (:func:`seqimp.io.hits_to_bed`): name ``oligomer@position``, score
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

    from ..plot._heatmaps import differential_heatmap, maximal_heatmap, poim_heatmap, weights_vs_firm

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


#: Figure metadata without dates, so the same figure gives the same bytes (PNG carries none).
_NO_DATES = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}


def save_figure(figure, path, *, dpi=130) -> None:
    """``figure.savefig`` with reproducible bytes: no creation date, fixed SVG element ids."""
    import matplotlib

    fmt = Path(path).suffix.lstrip(".").lower()
    with matplotlib.rc_context({"svg.hashsalt": "seqimp"}):
        figure.savefig(path, dpi=dpi, metadata=_NO_DATES.get(fmt))


def save_model(path, weights, metadata=None) -> None:
    """Save the unfolded model: :meth:`PositionalWeights.save` plus a ``metadata`` entry (JSON).

    The file stays readable by :meth:`PositionalWeights.load`; :func:`load_model` also
    returns the metadata (degree, shifts, C, training sizes, metrics, how the SVM was solved:
    ``seqimp.pipeline._train.solver_record``, ...); NaN and infinities are written as null.
    """
    path = Path(os.fspath(path))
    if path.suffix != ".npz":
        raise SeqimpError(f"{path}: model files must end in .npz")
    tmp = path.with_name(f".{path.stem}.partial.npz")
    try:
        weights.save(tmp)
        text = json.dumps(json_ready(metadata or {}), sort_keys=True, allow_nan=False)
        save_npz(tmp, {"metadata": np.array(text)}, append=True)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def load_model(path):
    """Read a model written by :func:`save_model` (or plain :meth:`PositionalWeights.save`).

    Returns
    -------
    weights : PositionalWeights
    metadata : dict
        Empty for files without metadata.
    """
    path = Path(os.fspath(path))
    if not path.exists():
        raise SeqimpError(f"{path}: no such file")
    check_model_layout(path)  # from the headers, before any array is read
    try:
        weights = PositionalWeights.load(path)
        with np.load(path, allow_pickle=False) as data:
            metadata = read_metadata_json(str(data["metadata"]), name=str(path)) if "metadata" in data.files else {}
    except (OSError, EOFError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        if isinstance(exc, SeqimpError):
            raise
        raise SeqimpError(f"{path}: not a seqimp model file ({str(exc).splitlines()[0]})") from None
    if not isinstance(metadata, dict):
        raise SeqimpError(f"{path}: the model's metadata is not a JSON object")
    for key, value in (("degree", weights.degree), ("length", weights.length), ("alphabet", weights.alphabet.name)):
        if metadata.get(key) is not None and metadata[key] != value:
            raise SeqimpError(f"{path}: the metadata says {key} {metadata[key]!r} but the weights have {value!r}; "
                              "the file was altered")
    return weights, metadata


def check_model_layout(path) -> dict:
    """Check a model file from its ``.npz`` headers (:func:`seqimp._npz.npz_headers`) before any
    table is read: the arrays fit in memory, every order-k table (dense, or the shape of a sparse
    one) is (L - k + 1, A**k) for the L of order 1, a sparse table's indices and values agree in
    number and fit the table, and the metadata is bounded. Returns the headers; SeqimpError (one
    line naming the file) otherwise."""
    from .._npz import MAX_METADATA_BYTES, check_npz_memory, npz_headers
    from ..io import get_alphabet

    name = str(path)
    headers = npz_headers(path, name=name, expected="a seqimp model file")
    check_npz_memory(headers, name=name)
    meta = headers.get("metadata")
    if meta is not None and (meta[1].kind not in "US" or meta[1].itemsize > 4 * MAX_METADATA_BYTES):
        raise SeqimpError(f"{name}: its metadata entry is {meta[1]}, not a JSON string of at most "
                          f"{MAX_METADATA_BYTES:,} characters; the file was altered")
    small = [n for n in ("alphabet", "format_version") if n in headers] + \
        [n for n in headers if n.startswith("sparse_") and n.endswith("_shape")]
    if any(int(np.prod(headers[n][0], dtype=object)) * headers[n][1].itemsize > 1024 for n in small):
        raise SeqimpError(f"{name}: not a seqimp model file (an oversized entry among {', '.join(small)})")
    try:
        with np.load(path, allow_pickle=False) as data:
            values = {n: data[n] for n in small}
        size = get_alphabet(str(values["alphabet"])).size if "alphabet" in values else None
    except (OSError, ValueError, KeyError, SeqimpError):
        return headers  # PositionalWeights.load says what is wrong
    shapes = {}
    for n, (shape, _dtype) in headers.items():
        parts = n.split("_")
        if len(parts) >= 2 and parts[0] in ("table", "sparse") and parts[1].isdigit():
            k = int(parts[1])
            if parts[0] == "table":
                shapes[k] = shape
            elif n.endswith("_shape"):
                shapes[k] = tuple(int(x) for x in np.ravel(values[n]))
    length = shapes.get(1, (None,))[0] if len(shapes.get(1, ())) == 2 else None
    for k, shape in sorted(shapes.items()):
        want = None if length is None or size is None else (length - k + 1, size ** k)
        if len(shape) != 2 or (want is not None and shape != want):
            raise SeqimpError(f"{name}: the order-{k} table has shape {shape}; a model of sequences of length "
                              f"{length} needs {want}; the file was altered" if want else
                              f"{name}: the order-{k} table has shape {shape}, not (positions, k-mers)")
        cells = shape[0] * shape[1]
        entries = [headers[f"sparse_{k}_{part}"][0] for part in ("index", "step", "value")
                   if f"sparse_{k}_{part}" in headers]
        if entries and (any(len(e) != 1 or e[0] > cells for e in entries) or len({e[0] for e in entries}) != 1):
            raise SeqimpError(f"{name}: the order-{k} table is damaged (its sparse entries {entries} do not fit "
                              f"a table of {cells:,} cells)")
    return headers


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
    are given); with ``windows`` (:class:`seqimp.io.GenomicWindows` of the analysed
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
    from ._report import write_report

    out = Path(out)
    written = write_result_files(out, result, weights=weights, fmt=fmt, top=top, position_labels=position_labels,
                                 model_metadata=model_metadata)
    summary = json_ready(add_file_sizes(summary or {}, out, written))
    write_summary(out / "summary.json", summary)
    written.append(out / "summary.json")
    if report:
        written.append(write_report(out, summary=summary))
    return written


def file_sizes(folder, paths) -> dict:
    """What a run wrote and its size, as ``summary.json`` records it (key ``files``).

    Parameters
    ----------
    folder : path-like
        The output folder; names are relative to it, with ``/`` between folders.
    paths : iterable of path-like
        Files written into ``folder`` (``summary.json`` and ``report.html`` themselves are not
        among them: they are written after the record).

    Returns
    -------
    dict
        ``{"bytes": {name: size in bytes}, "total": sum of the sizes}``, names sorted.
    """
    folder = Path(folder)
    sizes = {Path(p).relative_to(folder).as_posix(): Path(p).stat().st_size for p in paths}
    sizes = dict(sorted(sizes.items()))
    return {"bytes": sizes, "total": sum(sizes.values())}


def add_file_sizes(summary: dict, folder, paths) -> dict:
    """``summary`` with the files ``paths`` in ``folder`` added to its record of what was written
    (:func:`file_sizes`; files already recorded are measured again, and those no longer in
    ``folder``, e.g. the logos of an earlier motif run that a new one replaced, left out)."""
    folder = Path(folder)
    earlier = [folder / name for name in summary.get("files", {}).get("bytes", {})]
    return dict(summary, files=file_sizes(folder, set(p for p in earlier if p.is_file()) | {Path(p) for p in paths}))


def json_ready(value):
    """``value`` (nested dicts, lists, tuples, arrays, NumPy and Python numbers, paths) as the
    JSON data it is written as: lists, Python numbers, strings for paths, and None for NaN and
    infinities. What ``summary.json`` holds is what a report built from it in memory shows."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_summary(path, summary) -> None:
    """Write a summary dict as indented, valid JSON (:func:`json_ready`: NumPy values and paths
    converted, NaN and infinities written as ``null``)."""
    Path(path).write_text(json.dumps(json_ready(summary), indent=2, allow_nan=False) + "\n")
