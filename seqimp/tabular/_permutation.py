"""Permutation importance (Breiman 2001; Fisher, Rudin & Dominici's model reliance).

The importance of a feature (or a group of features permuted jointly) is how
much a loss grows when the link between that feature and the rest of the row is
broken, as a difference ``e_perm - e_orig`` or a ratio ``e_perm / e_orig``.
Three ways of breaking the link:

``shuffle``
    a uniformly random permutation of the rows' values (Breiman);
``half_swap``
    the rows are split at random into two halves of ``n // 2`` rows and the
    feature values of the halves are exchanged pairwise (Fisher et al.);
``all_pairs``
    every row is paired with every *other* row's value, the exact ``n (n - 1)``
    estimator ``e_switch``; computed in batches of rows, so ``n = 2,000`` is a
    few seconds for a fast model.

Expectations: over random halves, ``half_swap`` is unbiased for ``all_pairs``; a
random shuffle leaves a row its own value with probability ``1/n``, so for a
mean loss ``E[shuffle] = e_orig / n + (n - 1) / n * e_switch``.
"""

from __future__ import annotations

import numbers

import numpy as np
from ._result import PermutationResult

from ..errors import SeqimpError
from .._utils.parallel import check_n_jobs, on_client, run_batches
from .._utils.progress import progress_bar
from ._losses import make_loss
from ..errors import check_choice, check_int, check_number, check_random_state
from ._tabdata import as_matrix, as_vector, column_index, t_interval

__all__ = ["permutation_importance"]

_STRATEGIES = ("shuffle", "half_swap", "all_pairs")
_COMPARE = ("difference", "ratio")
_BATCH_ROWS = 1 << 17


def permutation_importance(
    estimator,
    X,
    y,
    *,
    loss="mse",
    compare="difference",
    strategy="shuffle",
    n_repeats=5,
    groups=None,
    max_samples=None,
    n_jobs=None,
    random_state=None,
    confidence_level=0.95,
    client=None,
    batch_rows=_BATCH_ROWS,
    progress=False,
):
    """Permutation importance (model reliance) of each feature or feature group.

    Parameters
    ----------
    estimator : fitted estimator or callable
        A scikit-learn estimator, or a callable ``f(X)`` returning exactly what
        ``loss`` compares with ``y`` (labels, probabilities or scores).
    X : array-like or DataFrame of shape (n_samples, n_features)
        Data on which the loss is measured (usually held-out data).
    y : array-like of shape (n_samples,)
        Targets.
    loss : {"mse", "mae", "log_loss", "zero_one", "1-auc"} or callable
        ``"log_loss"`` uses ``predict_proba``; ``"1-auc"`` the decision function
        (else the probability of ``classes_[1]``); the others ``predict``. A
        callable is called as ``loss(y_true, estimator.predict(X_perm))``.
    compare : {"difference", "ratio"}
        ``e_perm - e_orig`` or ``e_perm / e_orig``.
    strategy : {"shuffle", "half_swap", "all_pairs"}
        How values are exchanged between rows (see the module docstring).
    n_repeats : int
        Repeats per feature. ``all_pairs`` without ``max_samples`` is
        deterministic: it is computed once and the column is repeated.
    groups : None, sequence of column sets, or dict name -> column set
        Columns (indices or DataFrame names) permuted jointly, with the same
        row permutation; one result row per group, in the given order.
    max_samples : None, int or float in (0, 1]
        Rows drawn without replacement for each repeat (the same rows for all
        features in a repeat); ``e_orig`` of a repeat uses the same rows.
    n_jobs : int or None
        Features are spread over ``n_jobs`` :class:`joblib.Parallel` workers. None follows
        the active joblib configuration: one job unless inside
        ``joblib.parallel_config(n_jobs=...)``, or ``joblib.parallel_config(backend="dask")``
        with a ``distributed.Client`` open (the features then go to the Dask cluster).
        Results do not depend on it (each feature has its own random stream).
    random_state : None, int or numpy Generator
        Each feature (group) gets its own stream, spawned from this seed with
        :meth:`numpy.random.Generator.spawn`; row subsamples get another
        (default None = fixed seed 0).
    confidence_level : float
        Level of the Student-t interval of the mean over repeats.
    client : distributed.Client, optional
        Spread the features over this Dask cluster (every worker thread); the same numbers as
        a local run with the same seed.
    batch_rows : int
        Rows per call of the model (memory bound).
    progress : bool
        Report finished features on stderr (:func:`seqimp._utils.progress.progress_bar`).

    Returns
    -------
    result : PermutationResult (a sklearn.utils.Bunch)
        importances : ndarray of shape (n_units, n_repeats)
            ``e_perm - e_orig`` (or ``e_perm / e_orig``) of every repeat; ``n_units`` is
            n_features, or the number of groups.
        importances_mean, importances_std : ndarray of shape (n_units,)
            Mean and standard deviation (``ddof=0``, as scikit-learn) over repeats. These
            three keys are those of :func:`sklearn.inspection.permutation_importance`.
        ci_low, ci_high : ndarray of shape (n_units,)
            Student-t interval ``mean -/+ t_{n_repeats-1} * sd(ddof=1) / sqrt(n_repeats)``;
            NaN when ``n_repeats == 1``.
        permuted_loss : ndarray of shape (n_units, n_repeats)
            ``e_perm`` of every repeat.
        baseline_loss : float
            ``e_orig`` on all rows of ``X``.
        feature_names : ndarray of shape (n_units,)
            Column names (DataFrame) or ``x1..xd``; groups are named by their
            dict keys or by their members joined with ``+``.
        groups : list of ndarray
            Column indices of each unit.
        strategy, loss, compare : str
            The options the importances were computed with.
    """
    frame = X
    X, names = as_matrix(X)
    n, d = X.shape
    y = as_vector(y, n, numeric=False)
    strategy = check_choice(strategy, "strategy", _STRATEGIES)
    compare = check_choice(compare, "compare", _COMPARE)
    n_repeats = check_int(n_repeats, "n_repeats")
    check_n_jobs(n_jobs)
    batch_rows = check_int(batch_rows, "batch_rows")
    confidence_level = check_number(confidence_level, "confidence_level", low=0, high=1, low_open=True,
                                    high_open=True)
    units, unit_names = _resolve_groups(groups, names, d)
    m = _n_rows(max_samples, n)
    if strategy != "shuffle" and m < 2:
        raise SeqimpError(f"strategy={strategy!r}: needs at least 2 rows per repeat")
    lossfn = make_loss(loss, estimator, y, frame)

    streams = check_random_state(random_state).spawn(len(units) + 1)
    row_rng = streams[-1]
    rows = [None if m == n else np.sort(row_rng.choice(n, m, replace=False)) for _ in range(n_repeats)]
    baseline = lossfn(y, lossfn.predict(X))
    base_rep = np.array([baseline if r is None else lossfn(y[r], lossfn.predict(X[r])) for r in rows])
    if strategy == "half_swap" and m % 2:  # the odd row out is not scored
        base_rep = None

    args = (strategy, rows, batch_rows)
    with on_client(client), progress_bar(len(units), f"permutation importance ({strategy})", enabled=progress) as bar:
        perm = list(run_batches(_unit_losses, (((cols, s) + args, 1) for cols, s in zip(units, streams)),
                                shared={"X": X, "y": y, "lossfn": lossfn}, labels={"lossfn": "estimator"},
                                n_jobs=n_jobs, bar=bar))
    permuted = np.array([p[0] for p in perm])
    if base_rep is None:
        base_rep = np.array([p[1] for p in perm])
    with np.errstate(divide="ignore", invalid="ignore"):
        imp = permuted - base_rep if compare == "difference" else permuted / base_rep
    low, high = t_interval(imp, confidence_level)
    return PermutationResult(
        importances=imp,
        importances_mean=imp.mean(axis=1),
        importances_std=imp.std(axis=1),
        ci_low=low,
        ci_high=high,
        permuted_loss=permuted,
        baseline_loss=baseline,
        feature_names=unit_names,
        groups=units,
        strategy=strategy,
        loss=lossfn.name,
        compare=compare,
    )


def _n_rows(max_samples, n):
    if max_samples is None:
        return n
    if isinstance(max_samples, numbers.Integral) and not isinstance(max_samples, bool):
        if not 1 <= max_samples <= n:
            raise SeqimpError(f"max_samples: must be between 1 and n_samples={n}, got {max_samples}")
        return int(max_samples)
    if isinstance(max_samples, numbers.Real) and 0 < max_samples <= 1:
        return max(1, int(round(max_samples * n)))
    raise SeqimpError(f"max_samples: expected None, an int or a fraction in (0, 1], got {max_samples!r}")


def _resolve_groups(groups, names, d):
    if groups is None:
        return [np.array([j]) for j in range(d)], names.copy()
    items = list(groups.items()) if isinstance(groups, dict) else [(None, g) for g in groups]
    if not items:
        raise SeqimpError("groups: must name at least one group")
    units, labels = [], []
    for k, (label, members) in enumerate(items):
        where = f"groups[{label if label is not None else k}]"
        if isinstance(members, (str, numbers.Integral)):
            members = [members]
        cols = np.array(sorted({column_index(ref, names, d, where) for ref in members}), dtype=int)
        if len(cols) == 0:
            raise SeqimpError(f"{where}: empty group")
        units.append(cols)
        labels.append(str(label) if label is not None else "+".join(names[cols]))
    return units, np.array(labels, dtype=object)


class _Accumulator:
    """Collect the loss of several row sets, predicting in large batches.

    ``add(key, X, y, drop)``: rows of ``X`` scored against ``y``, except those
    flagged in the boolean ``drop`` (scored but left out of the loss).
    """

    def __init__(self, lossfn, batch_rows):
        self.lossfn, self.batch_rows = lossfn, batch_rows
        self.blocks, self.n_rows = [], 0
        self.sums, self.counts, self.preds, self.labels = {}, {}, {}, {}

    def add(self, key, Xb, yb, drop=None):
        self.blocks.append((key, Xb, yb, drop))
        self.n_rows += len(yb)
        if self.n_rows >= self.batch_rows:
            self.flush()

    def flush(self):
        if not self.blocks:
            return
        Xall = self.blocks[0][1] if len(self.blocks) == 1 else np.concatenate([b[1] for b in self.blocks])
        pred = self.lossfn.predict(Xall)
        start = 0
        for key, _, yb, drop in self.blocks:
            p = pred[start : start + len(yb)]
            start += len(yb)
            if self.lossfn.per_sample is not None:
                terms = self.lossfn.per_sample(yb, p)
                if drop is not None:
                    terms = terms[~drop]
                self.sums[key] = self.sums.get(key, 0.0) + float(np.sum(terms))
                self.counts[key] = self.counts.get(key, 0) + len(terms)
            else:
                if drop is not None:
                    p, yb = p[~drop], yb[~drop]
                self.preds.setdefault(key, []).append(p)
                self.labels.setdefault(key, []).append(yb)
        self.blocks, self.n_rows = [], 0

    def result(self, key):
        self.flush()
        if self.lossfn.per_sample is not None:
            return self.sums[key] / self.counts[key]
        return self.lossfn(np.concatenate(self.labels[key]), np.concatenate(self.preds[key]))


def _unit_losses(cols, rng, strategy, rows, batch_rows, *, X, y, lossfn):
    """Permuted losses of one feature group for every repeat, and (for half_swap) the paired baselines."""
    acc = _Accumulator(lossfn, batch_rows)
    baselines = []
    n_repeats = len(rows)
    deterministic = strategy == "all_pairs" and rows[0] is None
    for r in range(1 if deterministic else n_repeats):
        Xs, ys = (X, y) if rows[r] is None else (X[rows[r]], y[rows[r]])
        m = len(ys)
        if strategy == "shuffle":
            Xp = Xs.copy()
            Xp[:, cols] = Xs[rng.permutation(m)[:, None], cols]
            acc.add(r, Xp, ys)
        elif strategy == "half_swap":
            order = rng.permutation(m)
            h = m // 2
            a, b = order[:h], order[h : 2 * h]
            keep = np.concatenate([a, b])
            Xp = Xs[keep]
            Xp[:, cols] = Xs[np.concatenate([b, a])[:, None], cols]
            acc.add(r, Xp, ys[keep])
            if m % 2:
                baselines.append(lossfn(ys[keep], lossfn.predict(Xs[keep])))
        else:
            _add_all_pairs(acc, r, Xs, ys, cols, batch_rows)
    losses = np.array([acc.result(r) for r in range(1 if deterministic else n_repeats)])
    if deterministic:
        losses = np.repeat(losses, n_repeats)
    return losses, (np.array(baselines) if baselines else None)


def _add_all_pairs(acc, key, Xs, ys, cols, batch_rows):
    """Rows ``i`` paired with the ``cols`` values of every row ``k != i``."""
    m = len(ys)
    block = max(1, batch_rows // m)
    donor = Xs[:, cols]
    for start in range(0, m, block):
        stop = min(m, start + block)
        nb = stop - start
        Xb = np.repeat(Xs[start:stop], m, axis=0)
        Xb[:, cols] = np.tile(donor, (nb, 1))
        own = np.zeros(nb * m, dtype=bool)
        own[np.arange(nb) * m + np.arange(start, stop)] = True  # row i with its own value: scored, not counted
        acc.add(key, Xb, np.repeat(ys[start:stop], m), own)
