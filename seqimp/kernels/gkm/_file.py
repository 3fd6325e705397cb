"""The gkm model file: a fitted :class:`~seqimp.kernels.GKMClassifier` as an ``.npz``.

Written by ``seqimp train --model gkm``, read by ``seqimp variants --model``. Entries:
``kind`` (``"GKMClassifier"``), ``format_version``, the parameters (``word_length``,
``informative``, ``reverse_complement``, ``normalize``, ``bias``, ``C``), the fitted
``coef`` (one weight per gapped k-mer, :mod:`seqimp.kernels.gkm._kernel`'s index), ``intercept``,
``classes`` and a JSON ``metadata`` string (training data, held-out metrics, the window
``length``). The dual variables are not kept: scoring needs the weights only. Files are
byte-identical for the same model (:func:`seqimp._utils.npz.save_npz`); a model whose arrays take more
than :data:`~seqimp.kernels._weights.COMPRESS_ABOVE` bytes is deflated.
"""

from __future__ import annotations

import json
import os
import zipfile
from math import comb
from pathlib import Path

import numpy as np

from ..._utils.npz import check_npz_memory, npz_headers, read_metadata_json, save_npz, written_whole
from ...errors import SeqimpError
from .._weights import COMPRESS_ABOVE

__all__ = ["GKM_FORMAT_VERSION", "load_gkm", "model_file_kind", "save_gkm"]

#: Version of the layout :func:`save_gkm` writes and :func:`load_gkm` reads.
GKM_FORMAT_VERSION = 1

_PARAMS = ("word_length", "informative", "reverse_complement", "normalize", "bias", "C")


def model_file_kind(path) -> str:
    """``"GKMClassifier"`` or ``"PositionalWeights"``: what a seqimp model file holds (its
    ``kind`` entry; files without one are PositionalWeights). SeqimpError for a file that is not
    a seqimp model file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise SeqimpError(f"{path}: no such file")
    headers = npz_headers(path, name=path, expected="a seqimp model file")
    if "kind" not in headers:
        return "PositionalWeights"
    try:
        with np.load(path, allow_pickle=False) as data:
            return str(data["kind"])
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise SeqimpError(f"{path}: not a seqimp model file ({exc})") from None


def save_gkm(path, model, metadata=None) -> None:
    """Save a fitted GKMClassifier to ``path`` (must end in ``.npz``), staged beside it and
    renamed, so a failed write leaves no half-written file."""
    if not hasattr(model, "coef_"):
        raise SeqimpError("save_gkm: the GKMClassifier is not fitted")
    path = Path(os.fspath(path))
    if path.suffix != ".npz":
        raise SeqimpError(f"{path}: model files must end in .npz")
    classes = np.asarray(model.classes_)
    if classes.dtype.kind == "O":
        classes = classes.astype(str)
    arrays = {"kind": "GKMClassifier", "format_version": GKM_FORMAT_VERSION,
              **{name: getattr(model, name) for name in _PARAMS},
              "coef": np.asarray(model.coef_, dtype=np.float64), "intercept": float(model.intercept_),
              "classes": classes}
    try:
        arrays["metadata"] = np.array(json.dumps(metadata or {}, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise SeqimpError(f"metadata must be JSON-serialisable: {exc}") from None
    with written_whole(path) as tmp:
        save_npz(tmp, arrays, compress=arrays["coef"].nbytes > COMPRESS_ABOVE)


def load_gkm(path):
    """Read a model written by :func:`save_gkm`.

    Returns
    -------
    model : GKMClassifier
        Fitted: ``decision_function``, ``attributions``, ``gapped_kmer_weights`` work
        (``dual_coef_`` is empty).
    metadata : dict
    """
    from ._estimator import GKMClassifier

    name = os.fspath(path)
    if not os.path.isfile(name):
        raise SeqimpError(f"{name}: no such file")
    check_npz_memory(npz_headers(name, name=name, expected="a seqimp model file"), name=name)
    try:
        with np.load(name, allow_pickle=False) as data:
            if "kind" not in data.files or str(data["kind"]) != "GKMClassifier":
                raise SeqimpError(f"{name}: not a gkm model file (it holds "
                                  f"{str(data['kind']) if 'kind' in data.files else 'PositionalWeights'})")
            version = int(data["format_version"])
            if version > GKM_FORMAT_VERSION:
                raise SeqimpError(f"{name}: gkm model file format version {version} is newer than this seqimp reads "
                                  f"({GKM_FORMAT_VERSION}); upgrade seqimp")
            params = {k: data[k].item() for k in _PARAMS}
            coef = np.array(data["coef"], dtype=np.float64)
            intercept = float(data["intercept"])
            classes = np.array(data["classes"])
            metadata = read_metadata_json(str(data["metadata"]), name=name) if "metadata" in data.files else {}
    except SeqimpError:
        raise
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise SeqimpError(f"{name}: not a readable gkm model file ({str(exc).splitlines()[0]})") from None
    model = GKMClassifier(int(params["word_length"]), int(params["informative"]), C=float(params["C"]),
                          reverse_complement=bool(params["reverse_complement"]), normalize=bool(params["normalize"]),
                          bias=float(params["bias"]))
    model.tables_ = model._tables()
    expected = comb(model.tables_.word_length, model.tables_.informative) * 4 ** model.tables_.informative
    if coef.shape != (expected,) or not np.isfinite(coef).all() or not np.isfinite(intercept):
        raise SeqimpError(f"{name}: the weights are damaged (shape {coef.shape}, expected ({expected},) finite values)")
    if classes.shape != (2,):
        raise SeqimpError(f"{name}: the model must have two classes, the file has {classes.shape}")
    model.coef_, model.intercept_, model.classes_ = coef, intercept, classes
    model.columns_ = model.tables_.columns
    model.dual_coef_ = np.zeros(0)
    model.n_iter_ = 0
    if not isinstance(metadata, dict):
        raise SeqimpError(f"{name}: the model's metadata is not a JSON object")
    return model, metadata
