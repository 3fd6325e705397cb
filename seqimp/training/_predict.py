"""Scoring new sequences with a saved model: what a model file holds (seqimp's WD/WDS and gkm
files, LS-GKM model files: :mod:`seqimp.kernels.gkm._lsgkm`), sequences encoded for
the model with errors naming the record, scores in batches with a progress bar, and the
classification metrics of scores against labels (auROC, auPRC). ``seqimp predict``
(:func:`seqimp.pipeline.run_predict`) and :func:`seqimp.training.cross_validate` use them.
"""

from __future__ import annotations

import os

import numpy as np

from .._utils.progress import progress_bar
from ..errors import SeqimpError, check_file, check_int
from ..io import get_alphabet
from ._model_file import load_model_file

__all__ = ["DEFAULT_BATCH_SIZE", "load_predictor", "predictor_kind", "encode_for_model", "score_in_batches",
           "classification_metrics", "check_labels"]

#: Sequences per call of a model's batch scoring (``seqimp predict --batch-size``).
DEFAULT_BATCH_SIZE = 4096


def load_predictor(path):
    """A model file for scoring: ``(model, kind, metadata)``.

    ``kind`` is ``"wd"`` (:class:`~seqimp.kernels.PositionalWeights` of ``seqimp train``, WD or
    WDS), ``"gkm"`` (:class:`~seqimp.kernels.GKMClassifier`, ``seqimp train --model gkm``) or
    ``"lsgkm"`` (:class:`~seqimp.kernels.gkm._lsgkm.LSGKMModel`: a model file of LS-GKM's ``gkmtrain``,
    plain or gzip, recognised by its content). SeqimpError (one line naming the file) for a missing
    file or one that is none of these.
    """
    model, kind, metadata = load_model_file(os.fspath(check_file(path, expected="a model file")))
    if kind == "lsgkm":  # what the run records of it: LS-GKM's file holds no seqimp metadata
        metadata = {"format": "LS-GKM", "model": f"LS-GKM {model.kernel}", "word_length": model.l,
                    "informative": model.k}
    return model, kind, metadata


def predictor_kind(model) -> str:
    """``"wd"`` (PositionalWeights), ``"gkm"`` (GKMClassifier), ``"estimator"`` (another object with
    ``decision_function``, e.g. a fitted :class:`~seqimp.WDClassifier`) or ``"scorer"`` (a score
    function on codes, :mod:`seqimp.scorers`)."""
    from ..kernels import GKMClassifier, PositionalWeights
    from ..kernels.gkm._lsgkm import LSGKMModel

    if isinstance(model, PositionalWeights):
        return "wd"
    if isinstance(model, GKMClassifier):
        return "gkm"
    if isinstance(model, LSGKMModel):
        return "lsgkm"
    if hasattr(model, "decision_function") and not isinstance(model, type):
        return "estimator"
    if callable(model):
        return "scorer"
    raise SeqimpError(f"model must be a model file, PositionalWeights, a GKMClassifier, a fitted estimator with "
                      f"decision_function or a score function, got {type(model).__name__}")


def _model_needs(model, kind):
    """``(alphabet, length, min_length)`` the model reads: a fixed length for the positional
    models (None: any), a shortest one for the gapped-k-mer models."""
    if kind == "wd":
        return model.alphabet.name, model.length, 1
    if kind == "gkm":
        return "dna", None, int(model.word_length)
    if kind == "lsgkm":
        return "dna", None, int(model.l)
    alphabet = getattr(model, "alphabet", "dna")
    length = getattr(model, "length_", None)
    return (alphabet if isinstance(alphabet, str) else getattr(alphabet, "name", "dna")), length, 1


def encode_for_model(sequences, ids, model, kind, *, name="sequences"):
    """Sequences encoded for ``model``: ``(ids, X)`` with ``X`` an ndarray of shape (n, L), uint8,
    where all have one length, else a list of n 1-D code arrays (the gapped-k-mer models take any
    lengths).

    Parameters
    ----------
    sequences : sequence of str, SequenceSet, ndarray of shape (n, L), or records
        Records: an object with ``.sequences`` (a list of str) and ``.ids``.
    ids : list of str or None
        One per sequence (default: the set's ids, else ``seq1, ...``).
    model, kind
        As :func:`load_predictor` returns them (or :func:`predictor_kind`).
    name : str
        What the sequences are, first word of every message (``--fasta seqs.fa``).

    Raises
    ------
    SeqimpError
        One line naming the record: a length the model does not score, a letter outside its
        alphabet, no sequences.
    """
    alphabet, length, min_length = _model_needs(model, kind)
    alpha = get_alphabet(alphabet)
    if ids is None:
        ids = getattr(sequences, "ids", None)
    inner = getattr(sequences, "sequences", None)
    strings = inner if isinstance(inner, list) else sequences
    if hasattr(strings, "codes") or isinstance(strings, np.ndarray):   # SequenceSet or codes: encoded already
        from ..io._check import check_sequences

        if getattr(strings, "alphabet", alpha).name != alpha.name:
            raise SeqimpError(f"{name}: {strings.alphabet.name} sequences; the model reads {alpha.name}")
        codes = check_sequences(strings, name, alpha, unknown=_reads_unknown(model, kind))
        ids = list(ids) if ids is not None else [f"seq{i + 1}" for i in range(len(codes))]
        lengths = np.full(len(codes), codes.shape[1], dtype=np.int64)
        _check_lengths(lengths, ids, length, min_length, name)
        return ids, codes
    strings = [s if isinstance(s, str) else s.decode("latin-1") for s in strings]
    if not strings:
        raise SeqimpError(f"{name}: no sequences")
    ids = list(ids) if ids is not None else [f"seq{i + 1}" for i in range(len(strings))]
    if len(ids) != len(strings):
        raise SeqimpError(f"{name}: {len(ids)} ids for {len(strings)} sequences")
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    _check_lengths(lengths, ids, length, min_length, name)
    if kind not in ("gkm", "lsgkm") and lengths.min() != lengths.max():
        row = int(np.flatnonzero(lengths != lengths[0])[0])
        raise SeqimpError(f"{name}: record {ids[row]} has length {lengths[row]}, record {ids[0]} {lengths[0]}; the "
                          "model scores sequences of one length")
    flat = alpha.lut[np.frombuffer("".join(strings).encode("latin-1", "replace"), dtype=np.uint8)]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    bad = np.flatnonzero(flat >= alpha.size)
    if bad.size and kind == "lsgkm":  # gkmpredict reads such a letter as A: the same scores, said once
        import warnings

        row = int(np.searchsorted(offsets, bad[0], side="right") - 1)
        at = int(bad[0] - offsets[row])
        records = np.unique(np.searchsorted(offsets, bad, side="right") - 1).size
        warnings.warn(f"{name}: {bad.size} letter(s) other than ACGT in {records} record(s) (first: "
                      f"{strings[row][at]!r} in record {ids[row]} at position {at + 1}) read as A, as LS-GKM does",
                      stacklevel=2)
        flat = flat.copy()
        flat[bad] = 0
        bad = bad[:0]
    if bad.size and _reads_unknown(model, kind) and alpha.ambiguous:    # N: the unknown code, no k-mer's letter
        bad = bad[flat[bad] != alpha.unknown]
    if bad.size:
        row = int(np.searchsorted(offsets, bad[0], side="right") - 1)
        at = int(bad[0] - offsets[row])
        raise SeqimpError(f"{name}: record {ids[row]}: letter {strings[row][at]!r} at position {at + 1} is not in the "
                          f"{alpha.name} alphabet ({alpha.symbols}) the model reads")
    if lengths.min() == lengths.max():
        return ids, flat.reshape(len(strings), int(lengths[0]))
    return ids, [flat[offsets[i]:offsets[i + 1]] for i in range(len(strings))]


def _reads_unknown(model, kind) -> bool:
    """Whether the model reads the unknown code (N, ambiguity letters): seqimp's WD/WDS and gkm models, whose
    positional k-mers and l-mers that cover it are no features (an LS-GKM file reads it as A, as gkmpredict
    does; another scorer is not asked to)."""
    from ..kernels._wd_base import _WDModel

    return kind in ("wd", "gkm") or (kind == "estimator" and isinstance(model, _WDModel))


def _check_lengths(lengths, ids, length, min_length, name) -> None:
    if length is not None and (lengths != length).any():
        row = int(np.flatnonzero(lengths != length)[0])
        raise SeqimpError(f"{name}: record {ids[row]} has length {lengths[row]}; the model scores sequences of "
                          f"{length} nt")
    if (lengths < min_length).any():
        row = int(np.flatnonzero(lengths < min_length)[0])
        raise SeqimpError(f"{name}: record {ids[row]} has length {lengths[row]}, shorter than the model's "
                          f"l-mers ({min_length} nt)")


def _score_function(model, kind):
    if kind == "wd":
        return model.score
    if kind == "scorer":
        return model
    return model.decision_function


def score_in_batches(model, X, *, kind=None, batch_size=DEFAULT_BATCH_SIZE, progress=None) -> np.ndarray:
    """The model's score of every sequence, shape (n,), float64: its batch scoring
    (:meth:`PositionalWeights.score`, :meth:`GKMClassifier.decision_function`, any
    ``decision_function``, or the score function itself) on ``batch_size`` sequences at a time.

    Parameters
    ----------
    model : PositionalWeights, GKMClassifier, estimator or callable
    X : ndarray of shape (n, L) or list of n 1-D code arrays
        From :func:`encode_for_model`.
    kind : str, optional
        :func:`predictor_kind` of ``model`` (found when None).
    batch_size : int
    progress : bool or None
        A bar counting the sequences scored (:func:`seqimp._utils.progress.progress_bar`).
    """
    batch_size = check_int(batch_size, "batch_size")
    score = _score_function(model, kind or predictor_kind(model))
    n = len(X)
    out = np.empty(n, dtype=np.float64)
    with progress_bar(n, "scoring sequences", enabled=progress) as bar:
        for start in range(0, n, batch_size):
            part = X[start:start + batch_size]
            values = np.asarray(score(part), dtype=np.float64).reshape(-1)
            if values.shape != (len(part),):
                raise SeqimpError(f"the model returned {values.size} scores for {len(part)} sequences")
            out[start:start + len(part)] = values
            bar.update(len(part))
    return out


def check_labels(labels, n, name="labels") -> np.ndarray:
    """``labels`` as 0/1 int64 of shape (n,) with both classes, or a SeqimpError."""
    y = np.asarray(labels)
    if y.shape != (n,):
        raise SeqimpError(f"{name}: {y.size} labels for {n} sequences")
    if not np.isin(y, (0, 1)).all():
        raise SeqimpError(f"{name}: labels must be 0 (negative) and 1 (positive)")
    y = y.astype(np.int64)
    if y.min() == y.max():
        raise SeqimpError(f"{name}: all {n} sequences are {'positive' if y[0] else 'negative'}; auROC and auPRC "
                          "need both classes")
    return y


def classification_metrics(scores, labels) -> dict:
    """auROC (:func:`sklearn.metrics.roc_auc_score`), auPRC (the area under the precision-recall
    curve as average precision, :func:`sklearn.metrics.average_precision_score`), accuracy at score
    0 and the class sizes of scores (n,) against 0/1 labels (n,), 1 the positive class."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    scores = np.asarray(scores, dtype=np.float64)
    y = check_labels(labels, scores.size)
    return {"n": int(y.size), "n_positive": int(y.sum()), "n_negative": int(y.size - y.sum()),
            "auroc": float(roc_auc_score(y, scores)), "auprc": float(average_precision_score(y, scores)),
            "accuracy": float(np.mean((scores > 0) == (y == 1)))}
