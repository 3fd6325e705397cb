"""``seqimp predict`` as a library function: a saved model scores sequences -> ``predictions.tsv``
(id, score in input order), ``predictions.json`` and ``report.html``; with labels also auROC, auPRC
and their curves. And the files of ``seqimp train --cv`` beside the model
(:func:`write_cross_validation`).

>>> from seqimp.pipeline import run_predict                                      # doctest: +SKIP
>>> run = run_predict("scores", "model.npz", ["ACGT...", ...])                   # doctest: +SKIP
>>> run.table.head()                                                             # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .._utils.tables import write_tsv
from ..options import OutputOptions
from ..plot._curves import roc_pr_figure
from ..plot._save import save_figure
from ..report._page import page_table, write_page
from ..report._record import json_ready, versions, write_summary
from ..training._predict import (
    DEFAULT_BATCH_SIZE,
    check_labels,
    classification_metrics,
    encode_for_model,
    load_predictor,
    predictor_kind,
    score_in_batches,
)

__all__ = ["PREDICTION_COLUMNS", "PredictRun", "run_predict", "write_cross_validation"]

logger = logging.getLogger(__name__)

#: The columns of predictions.tsv: the contract (``label`` follows when labels are given).
PREDICTION_COLUMNS = ["id", "score"]

#: What ``predictions.json`` records of a model file's metadata.
_MODEL_KEYS = ("model", "degree", "shifts", "C", "length", "alphabet", "word_length", "informative", "n_train",
               "n_test", "accuracy", "auroc", "seed", "format")


@dataclass
class PredictRun:
    """What :func:`run_predict` scored and wrote: ``table`` (``predictions.tsv``: id, score, and
    label when given), ``metrics`` (auROC, auPRC, accuracy at 0, class sizes; empty without
    labels), ``parameters`` (``predictions.json``), ``files``."""

    table: pd.DataFrame
    metrics: dict
    parameters: dict
    files: list = field(default_factory=list)


def run_predict(out, model, sequences, *, ids=None, labels=None, output=OutputOptions(),
                batch_size=DEFAULT_BATCH_SIZE, model_source=None, name="sequences") -> PredictRun:
    """Score ``sequences`` with a model and write the scores into the folder ``out``.

    Parameters
    ----------
    out : path-like
        Existing folder: ``predictions.tsv``, ``predictions.json``, ``report.html`` and, with
        labels, ``roc_pr.<fmt>`` are written into it.
    model : path-like, PositionalWeights, GKMClassifier, estimator or callable
        A model file (``seqimp train``: WD/WDS, gkm; an LS-GKM model file where seqimp reads
        them), a model, a fitted estimator with ``decision_function``, or a score function on
        codes (n, L) (:mod:`seqimp.scorers`: ONNX, scikit-learn).
    sequences : sequence of str, SequenceSet, ndarray of shape (n, L), or records
        The positional models score their length only; the gapped-k-mer models any length.
    ids : list of str, optional
        One per sequence (default: the set's ids, else ``seq1, ...``).
    labels : array-like of shape (n,), optional
        0/1, 1 the positive class: auROC and auPRC, their curves and a ``label`` column.
    output : OutputOptions
        ``fmt`` (the figure), ``title``, ``progress`` (a bar counting the sequences scored).
    batch_size : int
        Sequences per call of the model's batch scoring.
    model_source : str, optional
        What the model is (a path, a ``--scorer`` spec), for ``predictions.json``.
    name : str
        What the sequences are, in error messages (``--fasta seqs.fa``).

    Returns
    -------
    PredictRun
    """
    out = Path(out)
    metadata = {}
    if isinstance(model, (str, os.PathLike)):
        model_source = model_source or str(model)
        model, kind, metadata = load_predictor(model)
    else:
        kind = predictor_kind(model)
    ids, X = encode_for_model(sequences, ids, model, kind, name=name)
    if labels is not None:
        labels = check_labels(labels, len(ids), "labels")
    scores = score_in_batches(model, X, kind=kind, batch_size=batch_size, progress=output.progress)
    table = pd.DataFrame({"id": pd.Series(ids, dtype=object), "score": scores})
    metrics, files = {}, [out / "predictions.tsv", out / "predictions.json"]
    if labels is not None:
        table["label"] = labels
        metrics = classification_metrics(scores, labels)
        fig = roc_pr_figure([("scores", labels, scores)], title=output.title)
        files.append(out / f"roc_pr.{output.fmt}")
        save_figure(fig, files[-1], dpi=110)
        _close(fig)
        logger.info(f"auROC {metrics['auroc']:.4f}, auPRC {metrics['auprc']:.4f} on {metrics['n']} sequences "
                    f"({metrics['n_positive']} positive)")
    write_tsv(table, files[0])
    lengths = [len(x) for x in X] if isinstance(X, list) else [X.shape[1]]
    parameters = {"model": {"kind": kind, "source": model_source,
                            "metadata": {k: v for k, v in metadata.items() if k in _MODEL_KEYS}},
                  "sequences": len(ids), "lengths": [min(lengths), max(lengths)], "batch_size": batch_size,
                  "metrics": metrics or None, "score": table["score"].describe().to_dict(), "versions": versions()}
    write_summary(files[1], json_ready(parameters))
    run = PredictRun(table, metrics, parameters, files)
    run.files.append(_report(out, run, output))
    return run


def _close(fig) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)


def _report(out, run, output) -> Path:
    m = run.metrics
    lead = (f"<p><b>auROC {m['auroc']:.4f}, auPRC {m['auprc']:.4f}</b> on {m['n']} labelled sequences "
            f"({m['n_positive']} positive, {m['n_negative']} negative).</p>" if m else
            f"<p>{len(run.table)} sequences scored.</p>")
    summary = {"model": f"{run.parameters['model']['kind']}: {run.parameters['model']['source']}",
               "sequences": len(run.table), "median score": f"{run.table['score'].median():.4g}"}
    sections = [(f"ROC and precision-recall ({m['n']} sequences)", run.files[2],
                 "ROC and precision-recall curves of the scores against the labels")] if m else []
    top = run.table.sort_values("score", ascending=False, kind="stable").head(50)
    sections.append(("The highest scores", page_table(top, limit=50)))
    return write_page(out, title=output.title or "seqimp predict", lead=lead, summary=summary, sections=sections,
                      files=[f.name for f in run.files])


def write_cross_validation(cv, prefix, *, fmt="png") -> list:
    """The files of ``seqimp train --cv`` for ``cv`` (:class:`~seqimp.training._cross_validation.CrossValidation`):
    ``PREFIX.cvpred.tsv`` (id, fold, label, score: one row per sequence in input order, as
    ``gkmtrain -x`` writes its cvpred file), ``PREFIX.cv.json`` (folds, seed, per-fold and mean
    auROC and auPRC) and ``PREFIX.cv.<fmt>`` (each fold's ROC and precision-recall curves).
    Returns their paths."""
    prefix = Path(prefix)
    files = [prefix.with_name(prefix.name + suffix) for suffix in (".cvpred.tsv", ".cv.json", f".cv.{fmt}")]
    write_tsv(cv.predictions, files[0])
    write_summary(files[1], json_ready({**cv.summary(), "versions": versions()}))
    p = cv.predictions
    fig = roc_pr_figure([(f"fold {k}", p["label"][p["fold"] == k], p["score"][p["fold"] == k])
                         for k in cv.folds["fold"]], title=f"{len(cv.folds)}-fold cross-validation")
    save_figure(fig, files[2], dpi=110)
    _close(fig)
    return files
