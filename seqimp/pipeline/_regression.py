"""The measured-values route of ``seqimp poim --table``: a WD regressor, its held-out R^2 and
Spearman correlation, and the exact POIM/FIRM of the unfolded model, with the same outputs
as :func:`seqimp.pipeline.run_poim`."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np

from .. import __version__
from .._utils.renamed import out_first
from ..background._poim_background import fit_background
from ..errors import SeqimpError
from ..importance._poim_job import check_job, compute_importance
from ..io import get_alphabet
from ..io._check import check_sequences
from ..io._labelled import alphabet_of, source_of
from ..options import BackgroundOptions, ImportanceOptions, ModelOptions, OutputOptions
from ..training import train_regressor
from ..training._classifier import recorded_seed
from ._outputs import tables_path
from ._poim_run import PipelineRun, explain_and_write, run_summary

__all__ = ["run_regression"]

logger = logging.getLogger(__name__)


@out_first(2)
def run_regression(out, sequences, values, *, model=ModelOptions(), background=BackgroundOptions(kind="all"),
                   importance=ImportanceOptions(), output=OutputOptions(), random_state=None) -> PipelineRun:
    """Train a WD regressor on measured values, report held-out R^2 and Spearman, compute the
    exact POIM/FIRM of the unfolded model and write the outputs of :func:`run_poim` into ``out``.

    Parameters
    ----------
    out : path-like
        Existing folder to write into (first, as in every ``run_*``; the old order
        ``run_regression(sequences, values, out)`` still works, with a DeprecationWarning).
    sequences : list of str, SequenceSet (e.g. :class:`seqimp.io._table_input.MeasuredSequences`) or ndarray (n, L)
    values : array-like of shape (n,)
        The measured value of every sequence; a higher value is a higher model score.
    model : ModelOptions
        ``degree``, ``shifts``, ``alpha`` (the ridge penalty), ``test_fraction`` and ``alphabet``
        (default: the SequenceSet's alphabet, else DNA).
    background : BackgroundOptions
        ``kind`` "all" (default; "negative" means the same here: there are no negatives): a
        Markov chain fitted on the sequences; or "uniform" letters. ``order``, ``positional``.
    importance, output : ImportanceOptions, OutputOptions
        As in :func:`run_poim` (``output.dropped``: rows dropped while reading, by reason).
    random_state : int or None
        The held-out split (recorded as ``seed``).

    Returns
    -------
    PipelineRun
        ``summary["metrics"]`` holds ``r2``, ``spearman`` (held out), ``n_train``, ``n_test``.
    """
    alphabet = alphabet_of(model.alphabet, sequences)
    X = check_sequences(sequences, "sequences", alphabet, unknown=True)   # N: k-mers covering it are no features
    y = np.asarray(values, dtype=np.float64)
    if y.shape != (X.shape[0],):
        raise SeqimpError(f"values: {y.shape[0] if y.ndim == 1 else y.shape} values for {X.shape[0]} sequences")
    if not np.all(np.isfinite(y)):
        raise SeqimpError(f"values: value {int(np.flatnonzero(~np.isfinite(y))[0])} (0-based) is not finite")
    max_order = importance.order(model.degree)
    length = X.shape[1]
    tables = tables_path(out, importance.full_tables)
    check_job(length, degree=model.degree, max_order=max_order, background_order=background.order,
              max_memory=importance.max_memory, full_tables=tables, alphabet_size=get_alphabet(alphabet).size)
    start = time.perf_counter()
    weights, info = train_regressor(X, y, model=model, random_state=random_state, progress=output.progress,
                                    alphabet=alphabet)
    timings = {"train": time.perf_counter() - start}
    kind = "uniform" if background.kind == "uniform" else "all"
    bg, bg_info = fit_background(replace(background, kind=kind), positive=X, length=length, alphabet=alphabet)
    metrics = {k: info[k] for k in ("n_train", "n_test", "r2", "spearman", "spearman_pvalue", "pearson")}
    metadata = {"degree": model.degree, "shifts": model.shifts, "alpha": model.alpha, "length": length,
                "alphabet": alphabet, "task": "regression", "test_fraction": model.test_fraction,
                "seed": recorded_seed(random_state), **metrics, "seqimp": __version__}
    parameters = {"degree": model.degree, "shifts": model.shifts, "max_order": max_order, "alpha": model.alpha,
                  "background": kind, "background_order": background.order,
                  "positional_background": background.positional, "test_fraction": model.test_fraction,
                  "seed": recorded_seed(random_state), "format": output.fmt, "top": output.top}
    data = {"length": length, "table": source_of(sequences, "sequences"), "n_sequences": int(X.shape[0]),
            "values": {"mean": float(y.mean()), "std": float(y.std()), "min": float(y.min()), "max": float(y.max())}}
    summary = run_summary(output.title, "poim --table (regression)", parameters, data, metrics, bg_info)
    return explain_and_write(
        lambda: compute_importance(weights, bg, max_order=max_order, max_memory=importance.max_memory,
                                   progress=output.progress, full_tables=tables),
        f"computing POIM and FIRM up to order {max_order} for L = {length}", out, weights=weights,
        model_metadata=metadata, summary=summary, timings=timings, output=output)
