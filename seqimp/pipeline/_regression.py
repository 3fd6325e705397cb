"""The measured-values route of ``seqimp poim --table``: a WD regressor, its held-out R^2 and
Spearman correlation, and the exact POIM/FIRM of the unfolded model, with the same outputs
as :func:`seqimp.pipeline.run_poim`."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np

from .. import __version__
from ..errors import SeqimpError, check_random_state
from ..io import check_sequences, get_alphabet
from ._options import BackgroundOptions, ImportanceOptions, ModelOptions, OutputOptions
from ._poim_run import PipelineRun, explain_and_write, run_summary
from ._poim_routes import check_job, compute_importance, fit_background, tables_path
from ._sequences import alphabet_of, source_of
from ._train import recorded_seed

__all__ = ["run_regression", "train_regressor"]

logger = logging.getLogger(__name__)


def train_regressor(X, values, *, model=ModelOptions(), random_state=None, progress=False, alphabet="dna"):
    """Train a WD/WDS ridge regressor on a random (1 - test_fraction) of the rows, score the rest, unfold it.

    Parameters
    ----------
    X : ndarray of shape (n, L), uint8
        Encoded sequences.
    values : array-like of shape (n,)
        Measured values (finite).
    model : ModelOptions
        ``degree``, ``shifts``, ``alpha`` (:class:`seqimp.WDRegressor` parameters) and
        ``test_fraction``: the held-out share for R^2 and Spearman; 0 trains on every row and
        reports none.
    random_state : int, Generator or None
        The split (``None``: the fixed default seed 0).
    progress : bool, default=False
    alphabet : str, default="dna"
        The alphabet of ``X``.

    Returns
    -------
    weights : PositionalWeights
        The model trained on the training rows, unfolded.
    info : dict
        ``n_train``, ``n_test`` and the held-out :func:`seqimp.kernels.regression_metrics`
        (``r2``, ``spearman``, ``spearman_pvalue``, ``pearson``; None without a test split),
        ``train_seconds``.
    """
    from ..kernels import WDRegressor, regression_metrics

    y = np.asarray(values, dtype=np.float64)
    degree, shifts, alpha, frac = model.degree, model.shifts, model.alpha, model.test_fraction
    n = y.size
    info = {"n_test": 0, "r2": None, "spearman": None, "spearman_pvalue": None, "pearson": None}
    if frac > 0:
        n_test = int(np.ceil(frac * n))
        if n_test < 2 or n - n_test < 2:
            raise SeqimpError(f"too few sequences ({n}) for a held-out split of {frac:g}; add data or use "
                              "test_fraction=0")
        perm = check_random_state(random_state).permutation(n)
        test, train = np.sort(perm[:n_test]), np.sort(perm[n_test:])
    else:
        train, test = np.arange(n), None
    logger.info(f"training a WD{'S' if shifts else ''} regressor (degree {degree}, shifts {shifts}, alpha {alpha:g}) "
                f"on {train.size} sequences of length {X.shape[1]}")
    start = time.perf_counter()
    regressor = WDRegressor(degree=degree, shifts=shifts, alpha=alpha, alphabet=alphabet,  # solver lines at -v
                            verbose="log" if progress else False).fit(X[train], y[train])
    info["train_seconds"] = time.perf_counter() - start
    info["n_train"] = int(train.size)
    if test is not None:
        metrics = regression_metrics(y[test], regressor.predict(X[test]))
        info.update({k: metrics[k] for k in ("r2", "spearman", "spearman_pvalue", "pearson")}, n_test=int(test.size))
        logger.info(f"held-out R^2 {info['r2']:.3f}, Spearman {info['spearman']:.3f} on {info['n_test']} sequences")
    return regressor.positional_weights(), info


def run_regression(sequences, values, out, *, model=ModelOptions(), background=BackgroundOptions(kind="all"),
                   importance=ImportanceOptions(), output=OutputOptions(), random_state=None) -> PipelineRun:
    """Train a WD regressor on measured values, report held-out R^2 and Spearman, compute the
    exact POIM/FIRM of the unfolded model and write the outputs of :func:`run_poim` into ``out``.

    Parameters
    ----------
    sequences : list of str, SequenceSet (e.g. :class:`seqimp.io.MeasuredSequences`) or ndarray (n, L)
    values : array-like of shape (n,)
        The measured value of every sequence; a higher value is a higher model score.
    out : path-like
        Existing folder to write into.
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
    X = check_sequences(sequences, "sequences", alphabet)
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
