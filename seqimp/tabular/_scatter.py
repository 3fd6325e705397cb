"""Scatter matrices, extraction and kNN error for Relative Feature Importance.

Private building blocks of :mod:`seqimp.tabular._rfi` (Holz & Loew). Everything
here works on already validated arrays: ``X`` float64 of shape
``(n_samples, n_features)`` and ``y`` integer class codes ``0..n_classes-1``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import Bunch

from ..errors import SeqimpError

__all__ = []

# exponent alpha of the Fukunaga-Mantock boundary weight (see docs/rfi.md for the choice)
WEIGHT_EXPONENT = 4
# relative size below which a pivot of the within-class scatter counts as zero
_SINGULAR_TOL = 1e-10


def metric_coordinates(X, distance):
    """Coordinates in which the neighbour search uses plain Euclidean distance.

    ``"euclidean"`` standardises every feature to unit total variance (so the
    result does not depend on measurement units); ``"mahalanobis"`` whitens
    with the total covariance of ``X`` (Cholesky factor).
    """
    centred = X - X.mean(axis=0)
    if distance == "euclidean":
        sd = centred.std(axis=0)
        return centred / np.where(sd > 0, sd, 1.0)
    cov = np.atleast_2d(np.cov(centred, rowvar=False))
    sd = np.sqrt(np.diag(cov))
    pivots = np.linalg.eigvalsh(cov / np.outer(sd, sd)) if np.all(sd > 0) else np.zeros(1)
    try:
        if pivots[0] <= _SINGULAR_TOL * pivots[-1]:
            raise np.linalg.LinAlgError
        chol = scipy.linalg.cholesky(cov, lower=True)
    except np.linalg.LinAlgError:
        raise SeqimpError(
            "X: the total covariance is singular, so the Mahalanobis distance is undefined "
            "(a feature is constant or a linear combination of others); drop it or use "
            "distance='euclidean'"
        ) from None
    return scipy.linalg.solve_triangular(chol, centred.T, lower=True).T


def class_neighbours(Z, y, n_classes, k):
    """k nearest neighbours of every sample inside and outside its own class.

    One :class:`~sklearn.neighbors.NearestNeighbors` index per class, queried
    by every sample: for members of the class it yields the own-class
    neighbours (the sample itself removed), for the others candidates for
    the out-of-class neighbours, of which the k nearest over all other
    classes are kept (the k nearest of a union lie among the k nearest of
    each part).

    Returns
    -------
    Bunch with
        within : ndarray of shape (n_samples, k), int
            Own-class neighbours (indices into ``Z``), nearest first.
        between : ndarray of shape (n_samples, k), int
            Out-of-class neighbours, nearest first.
        d_within, d_between : ndarray of shape (n_samples,)
            Distance to the k-th own-class and k-th out-of-class neighbour.
    """
    return block_class_neighbours(Z, y, n_classes, k, [np.arange(len(Z))], depth=k + 1)[0]


def block_class_neighbours(Z, y, n_classes, k, blocks, *, depth=None):
    """:func:`class_neighbours` of ``Z[rows]`` for each ``rows`` in ``blocks``.

    One search on all of ``Z`` serves every block: each sample's ``depth``
    nearest neighbours per class (default ``2k + 8``, at least ``k + 1``) are filtered to the
    members of the block, and the rare samples left with fewer than k are
    searched again inside the block. Exact: the k nearest members of a
    block are the first k members in the full-data neighbour list.

    Parameters
    ----------
    blocks : list of ndarray of int
        Sorted row indices of each block.

    Returns
    -------
    list of Bunch (one per block), fields as in :func:`class_neighbours`
    with indices local to the block (positions in ``rows``).
    """
    depth = 2 * k + 8 if depth is None else max(depth, k + 1)
    searches = []
    for c in range(n_classes):
        members = np.flatnonzero(y == c)
        dist, ind = NearestNeighbors(n_neighbors=min(depth, len(members))).fit(Z[members]).kneighbors(Z)
        searches.append((dist, members[ind]))
    return [_restrict(Z, y, k, rows, searches) for rows in blocks]


def _first_members(dist, ind, ok, k):
    """The first k entries per row where ``ok``; also whether each row had k of them."""
    order = np.argsort(~ok, axis=1, kind="stable")[:, :k]
    enough = np.take_along_axis(ok, order, axis=1).all(axis=1)
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1), enough


def _restrict(Z, y, k, rows, searches):
    m = len(rows)
    n_classes = len(searches)
    pos = np.full(len(Z), -1, dtype=np.intp)
    pos[rows] = np.arange(m)
    yb = y[rows]
    within = np.empty((m, k), dtype=np.intp)
    d_within = np.empty(m)
    cand_i = np.zeros((m, n_classes, k), dtype=np.intp)
    cand_d = np.full((m, n_classes, k), np.inf)
    for c, (dist, ind) in enumerate(searches):
        ind = ind[rows]
        d_k, i_k, enough = _first_members(dist[rows], ind, (pos[ind] >= 0) & (ind != rows[:, None]), k)
        i_k = pos[i_k]
        short = np.flatnonzero(~enough)
        if len(short):  # list too shallow: search the block's class members directly
            local = np.flatnonzero(yb == c)
            dd, ii = NearestNeighbors().fit(Z[rows[local]]).kneighbors(
                Z[rows[short]], n_neighbors=min(k + 1, len(local))
            )
            ii = local[ii]
            d_k[short], i_k[short], _ = _first_members(dd, ii, ii != short[:, None], k)
        inside = yb == c
        within[inside] = i_k[inside]
        d_within[inside] = d_k[inside, -1]
        cand_i[~inside, c] = i_k[~inside]
        cand_d[~inside, c] = d_k[~inside]
    cand_i = cand_i.reshape(m, -1)
    cand_d = cand_d.reshape(m, -1)
    order = np.argsort(cand_d, axis=1, kind="stable")[:, :k]
    between = np.take_along_axis(cand_i, order, axis=1)
    d_between = np.take_along_axis(cand_d, order, axis=1)[:, -1]
    return Bunch(within=within, between=between, d_within=d_within, d_between=d_between)


def boundary_weights(d_within, d_between, exponent=None):
    """Fukunaga–Mantock weight in its multi-class (out-of-class mixture) form.

    ``w = min(d_w**a, d_b**a) / (d_w**a + d_b**a)`` with ``d_w``/``d_b`` the
    distances to the k-th own-class and k-th out-of-class neighbour and
    ``a = WEIGHT_EXPONENT``: 1/2 on the class boundary, falling like
    ``(d_w/d_b)**a`` away from it. 1/2 when both distances are 0.
    """
    a = WEIGHT_EXPONENT if exponent is None else exponent
    # scale first so that large exponents cannot overflow or underflow
    top = np.maximum(d_within, d_between)
    safe = np.where(top > 0, top, 1.0)
    p_w = (d_within / safe) ** a
    p_b = (d_between / safe) ** a
    w = np.minimum(p_w, p_b) / np.where(top > 0, p_w + p_b, 1.0)
    return np.where(top > 0, w, 0.5)


def _weighted_outer(D, w, n):
    return (D * w[:, None]).T @ D / n


def scatter_matrices(X, y, n_classes, *, n_neighbors, within, between, distance, neighbours=None):
    """Within- and between-class scatter of ``X`` (eqs. 3–6 or parametric forms).

    ``neighbours`` (a :func:`class_neighbours` result for ``X``) skips the
    neighbour search, e.g. when it came from :func:`block_class_neighbours`.

    Returns
    -------
    S_w, S_b : ndarray of shape (n_features, n_features)
    """
    n = len(X)
    counts = np.bincount(y, minlength=n_classes)
    prior = counts / n
    means = np.stack([X[y == c].mean(axis=0) for c in range(n_classes)])
    if within == "nonparametric" or between == "nonparametric":
        nb = neighbours
        if nb is None:
            nb = class_neighbours(metric_coordinates(X, distance), y, n_classes, n_neighbors)
        w = boundary_weights(nb.d_within, nb.d_between)
    if within == "nonparametric":
        S_w = _weighted_outer(X - X[nb.within].mean(axis=1), w, n)
    else:
        S_w = sum(
            prior[c] * np.atleast_2d(np.cov(X[y == c], rowvar=False)) for c in range(n_classes)
        )
    if between == "nonparametric":
        S_b = _weighted_outer(X - X[nb.between].mean(axis=1), w, n)
    else:
        D = means - prior @ means
        S_b = (D * prior[:, None]).T @ D
    return S_w, S_b


def extract(S_w, S_b, features):
    """Solve ``S_b v = lambda S_w v`` for the extracted features.

    The problem is solved on the scatter matrices scaled to unit diagonal of
    ``S_w`` (numerically safer and the coordinates WAWS is measured in).

    Parameters
    ----------
    S_w, S_b : ndarray of shape (d, d)
    features : sequence of int
        Original (0-based) feature numbers, for error messages.

    Returns
    -------
    Bunch with
        eigenvalues : ndarray of shape (d,)
            Ascending, clipped at 0.
        transform : ndarray of shape (d, d)
            Columns are the eigenvectors in original units, normalised so
            that ``transform.T @ S_w @ transform`` is the identity.
        components : ndarray of shape (d, d)
            The same eigenvectors in within-class standardised units, each
            column scaled to unit Euclidean length.
    """
    scale = np.sqrt(np.clip(np.diag(S_w), 0.0, None))
    zero = scale <= _SINGULAR_TOL * scale.max()
    if zero.any():
        raise SeqimpError(
            f"X: the within-class scatter of feature(s) {[int(f) + 1 for f in np.asarray(features)[zero]]} "
            "is zero (constant within classes); drop them before computing relative feature importance"
        )
    outer = np.outer(scale, scale)
    sw = S_w / outer
    sb = S_b / outer
    pivots = np.linalg.eigvalsh(sw)
    if pivots[0] <= _SINGULAR_TOL * pivots[-1]:
        raise SeqimpError(
            f"X: the within-class scatter matrix of features [{', '.join(str(f + 1) for f in features)}] "
            "is singular "
            "(some feature is a linear combination of others within classes); drop "
            "redundant features"
        )
    lam, U = scipy.linalg.eigh(sb, sw)
    lam = np.clip(lam, 0.0, None)
    return Bunch(
        eigenvalues=lam,
        transform=U / scale[:, None],
        components=U / np.linalg.norm(U, axis=0),
    )


def waws(eigenvalues, components):
    """Weighted absolute weight size of every original feature.

    ``sum_m (lambda_m / sum(lambda)) * |u_fm|`` over the extracted features m.

    Returns
    -------
    ndarray of shape (d,)
    """
    total = eigenvalues.sum()
    if total <= 0:
        return np.zeros(len(eigenvalues))
    return np.abs(components) @ (eigenvalues / total)


def knn_error(Z, y, n_classes, k):
    """Leave-one-out error rate of the k-nearest-neighbour vote on ``Z``.

    Ties go to the nearer class: the q-th neighbour (0-based) adds
    ``1 + 2**-(q+1)`` to its class, fractions that never outweigh a whole
    vote but favour the class whose first neighbour is nearest.
    """
    dist, ind = NearestNeighbors(n_neighbors=k + 1).fit(Z).kneighbors(Z)
    _, ind, _ = _first_members(dist, ind, ind != np.arange(len(Z))[:, None], k)
    labels = y[ind]
    vote = 1.0 + 0.5 ** np.arange(1, k + 1)
    score = np.zeros((len(Z), n_classes))
    rows = np.arange(len(Z))
    for q in range(k):
        score[rows, labels[:, q]] += vote[q]
    return float(np.mean(score.argmax(axis=1) != y))

