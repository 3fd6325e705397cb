"""The measured-values route of ``seqimp poim --table``: a WD regressor, its held-out R^2 and
Spearman correlation, and the exact POIM/FIRM of the unfolded model, with the same outputs
as :func:`seqimp.pipeline.run_poim`."""

from __future__ import annotations

import logging
import time

import numpy as np

from .. import __version__
from ..errors import SeqimpError, check_number, check_random_state
from ..io import get_alphabet
from ._run import (PipelineRun, _background_for, _describe, _explain_and_write, _summary, _tables_path, check_job,
                   compute_importance)
from ._train import _alphabet_of, _codes, recorded_seed

__all__ = ["run_regression", "train_regressor"]

logger = logging.getLogger(__name__)


def train_regressor(X, values, *, degree=8, shifts=0, alpha=1.0, test_fraction=0.2, random_state=None,
                    progress=False, alphabet="dna"):
    """Train a WD/WDS ridge regressor on a random (1 - test_fraction) of the rows, score the rest, unfold it.

    Parameters
    ----------
    X : ndarray of shape (n, L), uint8
        Encoded sequences.
    values : array-like of shape (n,)
        Measured values (finite).
    degree, shifts, alpha : :class:`seqimp.WDRegressor` parameters
    test_fraction : float in [0, 1), default=0.2
        Held-out share for R^2 and Spearman; 0 trains on every row and reports none.
    random_state : int, Generator or None
        The split (``None``: the fixed default seed 0).

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
    frac = check_number(test_fraction, "test_fraction", low=0.0, high=1.0, high_open=True)
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
    model = WDRegressor(degree=degree, shifts=shifts, alpha=alpha, alphabet=alphabet,
                        verbose=progress).fit(X[train], y[train])
    info["train_seconds"] = time.perf_counter() - start
    info["n_train"] = int(train.size)
    if test is not None:
        metrics = regression_metrics(y[test], model.predict(X[test]))
        info.update({k: metrics[k] for k in ("r2", "spearman", "spearman_pvalue", "pearson")}, n_test=int(test.size))
        logger.info(f"held-out R^2 {info['r2']:.3f}, Spearman {info['spearman']:.3f} on {info['n_test']} sequences")
    return model.positional_weights(), info


def run_regression(sequences, values, out, *, degree=8, shifts=0, alpha=1.0, max_order=None, background="all",
                   background_order=0, positional_background=False, test_fraction=0.2, random_state=None,
                   fmt="png", top=50, max_memory=None, position_labels=None, position_origin=None, alphabet=None,
                   dropped=None, title=None, progress=False, motifs_dir=None, full_tables=False) -> PipelineRun:
    """Train a WD regressor on measured values, report held-out R^2 and Spearman, compute the
    exact POIM/FIRM of the unfolded model and write the outputs of :func:`run_poim` into ``out``.

    Parameters
    ----------
    sequences : list of str, SequenceSet (e.g. :class:`seqimp.io.MeasuredSequences`) or ndarray (n, L)
    values : array-like of shape (n,)
        The measured value of every sequence; a higher value is a higher model score.
    out : path-like
        Existing folder to write into.
    degree, shifts, alpha : :class:`seqimp.WDRegressor` parameters (alpha: ridge penalty)
    max_order : int, optional
        Longest oligomer analysed; default ``degree``.
    background : {"all", "uniform"}, default="all"
        A Markov chain fitted on the sequences ("negative" means the same here: there are
        no negatives), or uniform letters.
    background_order, positional_background : the background's Markov order and position dependence
    test_fraction : float in [0, 1), default=0.2
    random_state : int or None
        The held-out split (recorded as ``seed``).
    alphabet : {"dna", "rna", "protein"}, optional
        Default: the SequenceSet's alphabet, else DNA.
    dropped : dict, optional
        Rows dropped while reading, by reason (``summary["dropped"]``).
    fmt, top, max_memory, position_labels, position_origin, title, progress, motifs_dir, full_tables :
        As in :func:`run_poim`.

    Returns
    -------
    PipelineRun
        ``summary["metrics"]`` holds ``r2``, ``spearman`` (held out), ``n_train``, ``n_test``.
    """
    alphabet = _alphabet_of(alphabet, sequences)
    X = _codes(sequences, "sequences", alphabet)
    y = np.asarray(values, dtype=np.float64)
    if y.shape != (X.shape[0],):
        raise SeqimpError(f"values: {y.shape[0] if y.ndim == 1 else y.shape} values for {X.shape[0]} sequences")
    if not np.all(np.isfinite(y)):
        raise SeqimpError(f"values: value {int(np.flatnonzero(~np.isfinite(y))[0])} (0-based) is not finite")
    max_order = degree if max_order is None else int(max_order)
    length = X.shape[1]
    tables = _tables_path(out, full_tables)
    check_job(length, degree=degree, max_order=max_order, background_order=background_order, max_memory=max_memory,
              full_tables=tables, alphabet_size=get_alphabet(alphabet).size)
    start = time.perf_counter()
    weights, info = train_regressor(X, y, degree=degree, shifts=shifts, alpha=alpha, test_fraction=test_fraction,
                                    random_state=random_state, progress=progress, alphabet=alphabet)
    timings = {"train": time.perf_counter() - start}
    kind = "uniform" if background == "uniform" else "all"
    bg, bg_info = _background_for(kind, positive=X, negative=None, fasta=None, length=length,
                                  order=background_order, positional=positional_background, alphabet=alphabet)
    metrics = {k: info[k] for k in ("n_train", "n_test", "r2", "spearman", "spearman_pvalue", "pearson")}
    metadata = {"degree": degree, "shifts": shifts, "alpha": alpha, "length": length, "alphabet": alphabet,
                "task": "regression", "test_fraction": test_fraction, "seed": recorded_seed(random_state), **metrics,
                "seqimp": __version__}
    parameters = {"degree": degree, "shifts": shifts, "max_order": max_order, "alpha": alpha, "background": kind,
                  "background_order": background_order, "positional_background": positional_background,
                  "test_fraction": test_fraction, "seed": recorded_seed(random_state), "format": fmt, "top": top}
    data = {"length": length, "table": _describe(sequences, "sequences"), "n_sequences": int(X.shape[0]),
            "values": {"mean": float(y.mean()), "std": float(y.std()), "min": float(y.min()), "max": float(y.max())}}
    summary = _summary(title, "poim --table (regression)", parameters, data, metrics, bg_info)
    return _explain_and_write(
        lambda: compute_importance(weights, bg, max_order=max_order, max_memory=max_memory, progress=progress,
                                   full_tables=tables),
        f"computing POIM and FIRM up to order {max_order} for L = {length}", out, weights=weights,
        model_metadata=metadata, summary=summary, timings=timings, fmt=fmt, top=top,
        position_labels=position_labels, motifs_dir=motifs_dir, position_origin=position_origin, dropped=dropped)
