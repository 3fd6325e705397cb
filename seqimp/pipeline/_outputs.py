"""Result files of a POIM run: the top table, figures, model files, summary and report.

Used by :mod:`seqimp.pipeline` (and so by ``seqimp poim``/``seqimp demo``); usable on
their own for a result computed elsewhere::

    from seqimp.pipeline import write_outputs
    write_outputs("results", result, weights=weights, summary={"title": "my run"})
"""

from __future__ import annotations

import io
import json
import os
import platform
import zipfile
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import SeqimpError
from .._tables import write_tsv
from ..kernels._weights import PositionalWeights

__all__ = ["top_oligomers", "write_figures", "write_outputs", "write_result_files", "write_summary", "save_model", "load_model",
           "versions"]


def versions() -> dict:
    """Versions of seqimp, Python and the numerical libraries, for summaries."""
    out = {"seqimp": __version__, "python": platform.python_version()}
    for name in ("numpy", "scipy", "numba", "sklearn", "matplotlib"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:  # pragma: no cover - optional
            pass
    return out


def top_oligomers(result, n=50):
    """The top ``n`` positional oligomers of every order by |FIRM|, merged and sorted by |FIRM|.

    The rows of ``top_oligomers.tsv``: ``result.top(n, measure="firm")`` (see
    :meth:`POIMResult.top <seqimp.importance.POIMResult.top>` for the ranking and its ties).

    Returns
    -------
    pandas.DataFrame
        Columns ``rank, oligomer, order, position`` (1-based start), ``poim, firm``.
    """
    return result.top(n, measure="firm")


def write_figures(out, result, weights=None, *, fmt="png", position_labels=None, dpi=130) -> list:
    """Write ``differential_poim``, ``poim_order<k>`` (k = 1..max_order) and ``weights_vs_firm``.

    Heatmaps of orders k <= 3 show all k-mers, larger orders the top 20 k-mers.
    Returns the written paths.
    """
    import matplotlib.pyplot as plt

    from ..plot._heatmaps import differential_heatmap, poim_heatmap, weights_vs_firm

    if fmt not in ("png", "svg", "pdf"):
        raise SeqimpError(f"figure format must be png, svg or pdf, got {fmt!r}")
    out = Path(out)
    jobs = [("differential_poim", lambda: differential_heatmap(result, position_labels=position_labels))]
    for k in range(1, result.max_order + 1):
        jobs.append((f"poim_order{k}", lambda k=k: poim_heatmap(result, k, position_labels=position_labels)))
    if weights is not None:
        jobs.append(("weights_vs_firm", lambda: weights_vs_firm(weights, result)))
    written = []
    for name, draw in jobs:
        ax = draw()
        path = out / f"{name}.{fmt}"
        ax.figure.savefig(path, dpi=dpi)
        plt.close(ax.figure)
        written.append(path)
    return written


def save_model(path, weights, metadata=None) -> None:
    """Save the unfolded model: :meth:`PositionalWeights.save` plus a ``metadata`` entry (JSON).

    The file stays readable by :meth:`PositionalWeights.load`; :func:`load_model` also
    returns the metadata (degree, shifts, C, training sizes, metrics, ...).
    """
    path = Path(os.fspath(path))
    if path.suffix != ".npz":
        raise SeqimpError(f"{path}: model files must end in .npz")
    tmp = path.with_name(f".{path.stem}.partial.npz")
    try:
        weights.save(tmp)
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, np.array(json.dumps(metadata or {})))
        with zipfile.ZipFile(tmp, "a", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("metadata.npy", buffer.getvalue())
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
    try:
        weights = PositionalWeights.load(path)
        with np.load(path, allow_pickle=False) as data:
            metadata = json.loads(str(data["metadata"])) if "metadata" in data.files else {}
    except (OSError, EOFError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        if isinstance(exc, SeqimpError):
            raise
        raise SeqimpError(f"{path}: not a seqimp model file ({exc})") from None
    return weights, metadata


def write_result_files(out, result, *, weights=None, fmt="png", top=50, position_labels=None,
                       model_metadata=None) -> list:
    """Write the result files of ``seqimp poim`` except ``summary.json`` and the report.

    ``top_oligomers.tsv``, the figures, ``poim.npz`` and ``model.npz`` (when ``weights``
    are given). Returns the written paths.
    """
    out = Path(out)
    written = [out / "top_oligomers.tsv"]
    write_tsv(top_oligomers(result, top), written[0])
    written += write_figures(out, result, weights, fmt=fmt, position_labels=position_labels)
    result.save(out / "poim.npz")
    written.append(out / "poim.npz")
    if weights is not None:
        save_model(out / "model.npz", weights, model_metadata)
        written.append(out / "model.npz")
    return written


def write_outputs(out, result, *, weights=None, summary=None, fmt="png", top=50, position_labels=None,
                  model_metadata=None, report=True, motifs_dir=None) -> list:
    """Write every result file of ``seqimp poim`` into the folder ``out``.

    :func:`write_result_files`, then ``summary.json`` and ``report.html``. Returns the written paths.
    """
    from ._report import write_report

    out = Path(out)
    written = write_result_files(out, result, weights=weights, fmt=fmt, top=top, position_labels=position_labels,
                                 model_metadata=model_metadata)
    write_summary(out / "summary.json", summary or {})
    written.append(out / "summary.json")
    if report:
        written.append(write_report(out, motifs_dir=motifs_dir))
    return written


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (Path, np.ndarray)):
        return str(value) if isinstance(value, Path) else value.tolist()
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def write_summary(path, summary) -> None:
    """Write a summary dict as indented JSON (NumPy scalars and arrays, paths converted)."""
    Path(path).write_text(json.dumps(summary, indent=2, default=_json_default) + "\n")
