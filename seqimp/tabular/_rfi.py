"""Relative Feature Importance (Holz & Loew): classifier-independent ranking.

Not to be confused with the conditional-sampling "relative feature importance"
of König et al.; this is the discriminant-analysis metric of Holz & Loew:

1. non-parametric (kNN local-mean) or parametric within- and between-class
   scatter matrices, with the Fukunaga–Mantock boundary weight;
2. extraction by the generalised symmetric eigenproblem ``S_b v = λ S_w v``;
3. the optimal subset: kNN error in the extracted space for every subset of
   the original features on ``n_datasets`` resampled data sets (blocks), and
   a randomized-block ANOVA picking the smallest subset not significantly
   worse than the best;
4. ranking inside that subset by WAWS (weighted absolute weight size) with a
   second randomized-block ANOVA and Tukey's HSD; inseparable features share
   a rank, features outside the subset get rank 0.

Design choices where the paper is silent are listed in ``docs/rfi.md``.
"""

from __future__ import annotations

import itertools
import warnings
import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.utils import Bunch
from ._result import RFIResult

from ..errors import SeqimpError
from ._rfi_stats import block_anova, distinct_groups, mcb_critical_value
from ._scatter import block_class_neighbours, extract, knn_error, metric_coordinates, scatter_matrices, waws
from ..errors import check_choice, check_int, check_number, check_random_state

__all__ = ["relative_feature_importance", "table1_problem"]

_SCATTER = ("nonparametric", "parametric")
# share of every class drawn (without replacement) into each resampled data set
_FRACTION = 0.8
_DISTANCE = ("euclidean", "mahalanobis")


def relative_feature_importance(
    X,
    y,
    *,
    n_neighbors=5,
    within="nonparametric",
    between="nonparametric",
    distance="euclidean",
    n_datasets=10,
    alpha=0.05,
    max_exhaustive=12,
    random_state=None,
    datasets=None,
):
    """Rank features by Holz & Loew's Relative Feature Importance.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Real-valued features, finite.
    y : array-like of shape (n_samples,)
        Class labels (any sortable values); at least two classes, 80 % of
        each holding at least ``n_neighbors + 1`` samples.
    n_neighbors : int, default=5
        k of the local means, of the boundary weight and of the kNN error.
    within, between : {"nonparametric", "parametric"}, default="nonparametric"
        Form of the within- and between-class scatter matrix.
    distance : {"euclidean", "mahalanobis"}, default="euclidean"
        Metric of the neighbour search for the scatter matrices: Euclidean on
        features standardised to unit variance, or Mahalanobis under the
        total covariance.
    n_datasets : int, default=10
        Number of resampled data sets (ANOVA blocks). Each is a stratified
        random subsample of 80 % of every class, without replacement; the
        scatter matrices, the extraction and the leave-one-out kNN error in
        the extracted space are computed on it.
    alpha : float, default=0.05
        Level of the comparisons with the best subset (Hsu's MCB, one-sided
        Dunnett) and of the Tukey HSD comparisons between features.
    max_exhaustive : int, default=12
        Largest number of features searched exhaustively (``2**d - 1``
        subsets); above it a sequential floating forward search is used and
        a :class:`RuntimeWarning` says the subset is not guaranteed optimal.
    random_state : int, numpy Generator or None, default=None
        Seeds the resampling (default None = fixed seed 0).
    datasets : array-like of shape (n_samples,), optional
        Label of the independently drawn data set each row belongs to. When
        given, every data set is one ANOVA block, as in the paper (which drew
        fresh data sets), instead of the ``n_datasets`` resampled subsamples
        of one learning sample; ``n_datasets`` and ``random_state`` are then
        not used. At least two data sets, each holding at least
        ``n_neighbors + 1`` samples of every class.

    Returns
    -------
    result : :class:`sklearn.utils.Bunch` with
        ranks : ndarray of shape (n_features,), int
            0 outside the optimal subset; inside it 1..G over the G groups of
            features with distinct WAWS, a higher rank meaning more
            discriminatory power; features that cannot be separated share a
            rank.
        optimal_subset : ndarray of shape (n_selected,), int
            0-based column numbers of the optimal subset, ascending.
        waws_mean : ndarray of shape (n_features,)
            Mean WAWS over the data sets for features in the optimal subset
            (NaN outside it).
        importances : ndarray of shape (n_features, n_blocks)
            WAWS of every feature on every data set (block), the values the
            ranking ANOVA compares (``anova.ranking.waws``, transposed); 0 for
            a feature outside the optimal subset, whose weight in the
            extraction is zero. The keys ``importances*`` are those of
            :func:`sklearn.inspection.permutation_importance`, with the data
            sets as repeats.
        importances_mean : ndarray of shape (n_features,)
            Mean of ``importances`` over the data sets: ``waws_mean`` inside
            the optimal subset, 0 outside it.
        importances_std : ndarray of shape (n_features,)
            Standard deviation of ``importances`` over the data sets
            (``ddof=0``, as scikit-learn); 0 outside the optimal subset.
        subset_table : :class:`pandas.DataFrame` with one row per evaluated subset
            ``features`` (1-based, comma-separated), ``n_features``,
            ``mean_error``, ``sd_error`` (over data sets),
            ``diff_from_best``, ``in_anova`` (the lowest-error subset of its
            size: the ANOVA treatments), ``significantly_worse`` (mean error
            above the best by more than ``anova.subset.critical_difference``)
            and ``optimal``.
        anova : Bunch with ``subset`` and ``ranking``
            (``n_blocks`` is ``n_datasets``, or the number of distinct ``datasets``)
            The two randomized-block ANOVAs (see :func:`block_anova` fields:
            ``treatment_means``, ``f_statistic``, ``p_value``, ``df_*``,
            ``ms_*``, ``q_critical``, ``critical_difference``), plus
            ``subset.errors`` of shape (n_blocks, n_subsets),
            ``subset.treatments`` (the subsets compared, one per size),
            ``subset.mcb_critical`` (one-sided Dunnett quantile; for the
            subset ANOVA ``critical_difference`` is Hsu's MCB margin
            ``mcb_critical * sqrt(2 * ms_error / n_blocks)``, for the
            ranking ANOVA Tukey's HSD),
            ``subset.search`` ("exhaustive" or "floating"),
            ``ranking.waws`` of shape (n_blocks, n_selected) and
            ``ranking.groups`` (list of arrays of 0-based feature numbers,
            lowest rank first).

    Notes
    -----
    Runs sequentially; inside ``joblib.parallel_config(n_jobs=...)`` the
    subsets are spread over worker processes with identical results. The
    design choices where the paper is silent are listed in ``docs/rfi.md``.

    Examples
    --------
    >>> X, y = table1_problem(n_per_cluster=150, random_state=0)
    >>> res = relative_feature_importance(X, y, random_state=0)
    >>> res.ranks.shape
    (4,)
    """
    X, y, classes = _check_input(X, y, n_neighbors)
    opts = _check_options(within, between, distance, n_datasets, alpha, max_exhaustive)
    n_features = X.shape[1]
    n_classes = len(classes)
    if datasets is None:
        rng = check_random_state(random_state)
        samples = [_subsample(y, n_classes, rng) for _ in range(n_datasets)]
    else:
        samples = _dataset_blocks(datasets, y, n_classes, n_neighbors)
    evaluator = _SubsetEvaluator(X, y, n_classes, samples, n_neighbors, opts)

    if n_features <= max_exhaustive:
        subsets = [
            c for size in range(1, n_features + 1) for c in itertools.combinations(range(n_features), size)
        ]
        errors = evaluator.errors_of(subsets)
        search = "exhaustive"
    else:
        warnings.warn(
            f"X has {n_features} features, more than max_exhaustive={max_exhaustive}: "
            "using sequential floating forward search, which is not guaranteed to find "
            "the optimal subset",
            RuntimeWarning,
            stacklevel=2,
        )
        subsets = _floating_search(evaluator, n_features)
        errors = evaluator.errors_of(subsets)
        search = "floating"

    means = errors.mean(axis=0)
    sizes = np.array([len(s) for s in subsets])
    # treatments: the subset of lowest mean error of every size (first one on ties)
    champions = np.array(
        [np.flatnonzero(sizes == m)[np.argmin(means[sizes == m])] for m in np.unique(sizes)]
    )
    subset_anova = block_anova(errors[:, champions], alpha)
    # Hsu's multiple comparisons with the best: one-sided Dunnett against the best other
    subset_anova.mcb_critical = mcb_critical_value(alpha, len(champions), subset_anova.df_error)
    subset_anova.critical_difference = (
        subset_anova.mcb_critical * np.sqrt(2 * subset_anova.ms_error / len(samples)) if len(champions) > 1 else 0.0
    )
    diff = means - means.min()
    worse = diff > subset_anova.critical_difference * (1 + 1e-9) + 1e-12
    chosen = int(champions[np.flatnonzero(~worse[champions])[0]])
    optimal = np.array(subsets[chosen], dtype=np.intp)

    ranks, waws_mean, importances, rank_anova = _rank_subset(evaluator, optimal, alpha, n_features)

    table = pd.DataFrame(
        {
            "features": [",".join(str(f + 1) for f in s) for s in subsets],
            "n_features": sizes,
            "mean_error": means,
            "sd_error": errors.std(axis=0, ddof=1),
            "diff_from_best": diff,
            "in_anova": np.isin(np.arange(len(subsets)), champions),
            "significantly_worse": worse,
            "optimal": np.arange(len(subsets)) == chosen,
        }
    )
    subset_anova.errors = errors
    subset_anova.treatments = [subsets[c] for c in champions]
    subset_anova.search = search
    return RFIResult(
        ranks=ranks,
        optimal_subset=optimal,
        waws_mean=waws_mean,
        importances=importances,
        importances_mean=np.where(ranks > 0, waws_mean, 0.0),
        importances_std=importances.std(axis=1),
        subset_table=table,
        anova=Bunch(subset=subset_anova, ranking=rank_anova),
    )


def _rank_subset(evaluator, subset, alpha, n_features):
    """Ranks, mean WAWS, the WAWS of every feature per data set (0 outside ``subset``;
    shape (n_features, n_blocks)) and the ranking ANOVA of the features in ``subset`` (step 4)."""
    subset = np.asarray(subset, dtype=np.intp)
    waws_blocks = evaluator.waws_of(tuple(subset))
    rank_anova = block_anova(waws_blocks, alpha)
    groups = distinct_groups(rank_anova.treatment_means, rank_anova.critical_difference)
    ranks = np.zeros(n_features, dtype=np.intp)
    for r, group in enumerate(groups, start=1):
        ranks[subset[group]] = r
    waws_mean = np.full(n_features, np.nan)
    waws_mean[subset] = rank_anova.treatment_means
    importances = np.zeros((n_features, len(waws_blocks)))
    importances[subset] = waws_blocks.T
    rank_anova.waws = waws_blocks
    rank_anova.groups = [subset[g] for g in groups]
    return ranks, waws_mean, importances, rank_anova


class _SubsetEvaluator:
    """kNN error and WAWS of feature subsets on the fixed resampled data sets."""

    def __init__(self, X, y, n_classes, samples, n_neighbors, opts):
        self.X, self.y, self.n_classes = X, y, n_classes
        self.samples = samples
        self.k = n_neighbors
        self.opts = opts
        self._cache = {}

    def _neighbours(self, features):
        """Scatter-matrix neighbours of every data set, from one search on all samples.

        The neighbour metric (standardisation or total covariance) is taken
        from the whole learning sample, so it is the same on every data set.
        """
        if self.opts["within"] == "parametric" and self.opts["between"] == "parametric":
            return [None] * len(self.samples)
        Z = metric_coordinates(self.X[:, list(features)], self.opts["distance"])
        return block_class_neighbours(Z, self.y, self.n_classes, self.k, self.samples)

    def _fits(self, features):
        """(X of the data set, extraction) for every data set."""
        cols = list(features)
        for rows, nb in zip(self.samples, self._neighbours(features)):
            Xs = self.X[np.ix_(rows, cols)]
            S_w, S_b = scatter_matrices(
                Xs,
                self.y[rows],
                self.n_classes,
                n_neighbors=self.k,
                within=self.opts["within"],
                between=self.opts["between"],
                distance=self.opts["distance"],
                neighbours=nb,
            )
            yield Xs, extract(S_w, S_b, cols)

    def block_errors(self, features):
        """kNN error in the extracted space, one per data set; shape (n_datasets,)."""
        features = tuple(features)
        if features not in self._cache:
            self._cache[features] = np.array(
                [
                    knn_error(Xs @ ext.transform, self.y[rows], self.n_classes, self.k)
                    for rows, (Xs, ext) in zip(self.samples, self._fits(features))
                ]
            )
        return self._cache[features]

    def mean_error(self, features):
        return float(self.block_errors(tuple(sorted(features))).mean())

    def errors_of(self, subsets):
        """Error matrix of shape (n_datasets, len(subsets)).

        Spread over ``joblib`` workers when a ``joblib.parallel_config(n_jobs=...)``
        is active (sequential by default).
        """
        todo = [tuple(s) for s in subsets if tuple(s) not in self._cache]
        n_jobs = effective_n_jobs(None)
        if n_jobs > 1 and len(todo) > 1:
            chunks = [todo[i :: 4 * n_jobs] for i in range(min(4 * n_jobs, len(todo)))]
            done = Parallel(n_jobs=n_jobs)(delayed(_chunk_errors)(self._clone(), chunk) for chunk in chunks)
            for chunk, cols in zip(chunks, done):
                self._cache.update(zip(chunk, cols))
        return np.column_stack([self.block_errors(s) for s in subsets])

    def _clone(self):
        return _SubsetEvaluator(self.X, self.y, self.n_classes, self.samples, self.k, self.opts)

    def waws_of(self, features):
        """WAWS of each feature on each data set; shape (n_datasets, len(features))."""
        return np.array([waws(ext.eigenvalues, ext.components) for _, ext in self._fits(features)])


def _chunk_errors(evaluator, subsets):
    return [evaluator.block_errors(s) for s in subsets]


def _floating_search(evaluator, n_features):
    """Sequential floating forward selection; the best subset found per size.

    Returns a list of sorted tuples, one per size 1..n_features.
    """
    J = evaluator.mean_error
    best = {}

    def record(subset):
        key = tuple(sorted(subset))
        score = J(key)
        if len(key) not in best or score < best[len(key)][0]:
            best[len(key)] = (score, key)
        return score

    current = []
    while len(current) < n_features:
        rest = [f for f in range(n_features) if f not in current]
        add = min(rest, key=lambda f: J(tuple(sorted(current + [f]))))
        current = current + [add]
        record(current)
        while len(current) > 2:
            drop = min(current, key=lambda f: J(tuple(sorted(set(current) - {f}))))
            reduced = [f for f in current if f != drop]
            if J(tuple(sorted(reduced))) < best[len(reduced)][0]:
                current = reduced
                record(current)
            else:
                break
    return [best[size][1] for size in sorted(best)]


def _subsample(y, n_classes, rng):
    """Sorted row indices of a stratified subsample without replacement.

    ``_FRACTION`` of every class (rounded down); no row appears twice, so
    the nearest-neighbour searches never meet a copy of the point itself.
    """
    rows = [rng.permutation(np.flatnonzero(y == c))[: _per_class(np.sum(y == c))] for c in range(n_classes)]
    return np.sort(np.concatenate(rows))


def _dataset_blocks(datasets, y, n_classes, n_neighbors):
    """Sorted row indices of every user-given data set (block), checked."""
    labels = np.asarray(datasets)
    if labels.ndim != 1 or len(labels) != len(y):
        raise SeqimpError(f"datasets: must be 1-D with one label per row of X ({len(y)}), got shape {labels.shape}")
    names, codes = np.unique(labels, return_inverse=True)
    if len(names) < 2:
        raise SeqimpError("datasets: only one data set; the ANOVA needs at least two blocks")
    blocks = []
    for b, name in enumerate(names.tolist()):
        rows = np.flatnonzero(codes == b)
        counts = np.bincount(y[rows], minlength=n_classes)
        if counts.min() < n_neighbors + 1:
            raise SeqimpError(
                f"datasets: data set {name!r} has {counts.min()} samples of class number {int(counts.argmin()) + 1}, "
                f"fewer than n_neighbors+1 = {n_neighbors + 1}"
            )
        blocks.append(rows)
    return blocks


def _per_class(count):
    return int(np.floor(_FRACTION * count))


def _check_input(X, y, n_neighbors):
    n_neighbors = check_int(n_neighbors, "n_neighbors")
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise SeqimpError("X: must be a numeric array of shape (n_samples, n_features)") from None
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise SeqimpError(f"X: must be a non-empty 2-D array, got shape {X.shape}")
    bad = ~np.isfinite(X)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise SeqimpError(f"X: NaN or infinity at row {r + 1}, column {c + 1}")
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != len(X):
        raise SeqimpError(f"y: must be 1-D with one label per row of X ({len(X)}), got shape {y.shape}")
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    labels = classes.tolist()  # Python scalars print plainly in messages
    if len(classes) < 2:
        raise SeqimpError(f"y: only one class ({labels[0]!r}); at least two classes are needed")
    short = [c for c in range(len(classes)) if _per_class(counts[c]) < n_neighbors + 1]
    if short:
        c = short[0]
        raise SeqimpError(
            f"y: class {labels[c]!r} has {counts[c]} samples; each resampled data set takes "
            f"{int(_FRACTION * 100)}% of them ({_per_class(counts[c])}), fewer than n_neighbors+1 = "
            f"{n_neighbors + 1} (every sample needs n_neighbors other samples of its class)"
        )
    constant = np.flatnonzero(np.ptp(X, axis=0) == 0)
    if len(constant):
        raise SeqimpError(f"X: feature {constant[0] + 1} is constant")
    return X, codes.astype(np.intp), classes


def _check_options(within, between, distance, n_datasets, alpha, max_exhaustive):
    within = check_choice(within, "within", _SCATTER)
    between = check_choice(between, "between", _SCATTER)
    distance = check_choice(distance, "distance", _DISTANCE)
    check_int(n_datasets, "n_datasets", minimum=2)
    check_int(max_exhaustive, "max_exhaustive")
    check_number(alpha, "alpha", low=0, high=1, low_open=True, high_open=True)
    return {"within": within, "between": between, "distance": distance}


# (low, high) of the uniform features 1-3 for clusters A, B (class 1) and C, D (class 2)
_TABLE1 = (
    ((-3.0, -2.0), (-1.0, 0.0), (-0.75, 0.25), (4.0, 5.0)),
    ((-3.0, -2.0), (-0.5, 0.5), (0.3, 1.3), (4.0, 5.0)),
    ((-3.0, -2.0), (-1.5, -0.5), (-1.0, 0.0), (4.0, 5.0)),
)


def table1_problem(n_per_cluster=600, *, n_noise=1, random_state=None):
    """Holz & Loew's sensitivity-analysis problem (their Table 1).

    Four clusters A, B (class 0) and C, D (class 1); features 1-3 uniform on
    the tabulated intervals, independently per feature, and ``n_noise``
    N(0, 1) noise features (the paper has one). Expected RFI ranks
    ``[1, 3, 2, 0]`` (+ 0 for extra noise features).

    Returns
    -------
    X : ndarray of shape (4 * n_per_cluster, 3 + n_noise)
    y : ndarray of shape (4 * n_per_cluster,), int
    """
    rng = check_random_state(random_state)
    blocks = []
    for cluster in range(4):
        cols = [rng.uniform(*_TABLE1[f][cluster], size=n_per_cluster) for f in range(3)]
        cols += [rng.standard_normal(n_per_cluster) for _ in range(n_noise)]
        blocks.append(np.column_stack(cols))
    y = np.repeat([0, 0, 1, 1], n_per_cluster)
    return np.vstack(blocks), y
