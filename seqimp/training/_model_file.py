"""Model files: a trained positional model (:class:`~seqimp.kernels.PositionalWeights`) with its
metadata (degree, shifts, C, training sizes, held-out metrics, how the SVM was solved) in one
``.npz`` file, checked from its headers before any table is read."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from .._utils.jsonable import json_ready
from .._utils.npz import read_metadata_json, save_npz, written_whole
from ..errors import SeqimpError
from ..kernels import PositionalWeights

__all__ = ["save_model", "load_model", "check_model_layout", "load_model_file"]


def save_model(path, weights, metadata=None) -> None:
    """Save the unfolded model: :meth:`PositionalWeights.save` plus a ``metadata`` entry (JSON).

    The file stays readable by :meth:`PositionalWeights.load`; :func:`load_model` also
    returns the metadata (degree, shifts, C, training sizes, metrics, how the SVM was solved:
    ``seqimp.training._solver.solver_record``, ...); NaN and infinities are written as null.
    """
    path = Path(os.fspath(path))
    if path.suffix != ".npz":
        raise SeqimpError(f"{path}: model files must end in .npz")
    with written_whole(path) as tmp:
        weights.save(tmp)
        text = json.dumps(json_ready(metadata or {}), sort_keys=True, allow_nan=False)
        save_npz(tmp, {"metadata": np.array(text)}, append=True)


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
    """Check a model file from its ``.npz`` headers (:func:`seqimp._utils.npz.npz_headers`) before any
    table is read: the arrays fit in memory, every order-k table (dense, or the shape of a sparse
    one) is (L - k + 1, A**k) for the L of order 1, a sparse table's indices and values agree in
    number and fit the table, and the metadata is bounded. Returns the headers; SeqimpError (one
    line naming the file) otherwise."""
    from .._utils.npz import MAX_METADATA_BYTES, check_npz_memory, npz_headers
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


def load_model_file(path):
    """A saved model file: ``(model, kind, metadata)`` with kind ``"wd"`` (PositionalWeights from
    ``seqimp train``), ``"gkm"`` (GKMClassifier from ``seqimp train --model gkm``) or ``"lsgkm"``
    (:class:`~seqimp.kernels.gkm._lsgkm.LSGKMModel`: a model file of LS-GKM's gkmtrain, plain or
    gzip; its metadata is empty)."""
    from ..kernels.gkm._file import load_gkm, model_file_kind
    from ..kernels.gkm._lsgkm import is_lsgkm_model_file
    from ..kernels import read_lsgkm_model

    if os.path.isfile(path) and is_lsgkm_model_file(path):
        return read_lsgkm_model(path), "lsgkm", {}
    kind = model_file_kind(path)
    if kind == "GKMClassifier":
        model, metadata = load_gkm(path)
        return model, "gkm", metadata
    if kind != "PositionalWeights":
        raise SeqimpError(f"{path}: holds a {kind}, not a model (seqimp train writes model files)")
    weights, metadata = load_model(path)
    return weights, "wd", metadata
