"""Ridge regression on WD features by conjugate gradients, without a feature matrix.

:func:`cg_ridge` solves ridge regression with an unpenalised intercept, the problem of
:class:`sklearn.linear_model.Ridge`, by conjugate gradients on its dual
``(Xc Xc^T + alpha I) a = y - mean(y)`` with matrix-free products (Xc: centred
features; Xc v by :mod:`._implicit`'s row dot products, Xc^T a by :func:`_rmatvec`),
then ``w = Xc^T a`` and ``b = mean(y) - mean(phi).w``. The weights stay in the
standard layout of :func:`~seqimp.wd_features`: three vectors of p floats.
"""

from __future__ import annotations

import warnings

import numba
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..errors import SeqimpError, check_int, check_number
from ..io import get_alphabet
from ._implicit import _scores, check_codes, implicit_layout, solver_line
from ._params import check_degree_shifts
from ._unknown import has_unknown, known_columns

__all__ = ["cg_ridge"]


@numba.njit(cache=True, nogil=True, inline="always")
def _add_order(x, out, off, width, base, k, length, c):
    """``out += c phi_k(x)`` (order k's features, at ``off``); a row with unknown symbols: :func:`_add_order_known`."""
    if has_unknown(x, base):
        _add_order_known(x, out, off, width, base, k, length, c)
        return
    top = width // base
    idx = 0
    for t in range(k):
        idx = idx * base + x[t]
    out[off + idx] += c
    for i in range(1, length - k + 1):
        idx = (idx - x[i - 1] * top) * base + x[i + k - 1]
        out[off + i * width + idx] += c


@numba.njit(cache=True, nogil=True)
def _add_order_known(x, out, off, width, base, k, length, c):
    """:func:`_add_order` of a row with unknown symbols: only the k-mers that cover none
    (:func:`~seqimp.kernels._implicit.known_columns`)."""
    cols = np.empty(length, dtype=np.int64)
    for j in range(known_columns(x, k, base, width, cols)):
        out[off + cols[j]] += c


@numba.njit(cache=True, parallel=True)
def _rmatvec(codes, u, offsets, sqb, degree, base, out):
    """out[:p] += sum_r u[r] phi(codes[r]); parallel over orders k (each owns its block)."""
    n, length = codes.shape
    for kk in numba.prange(degree):
        k = kk + 1
        width = base ** k
        off = offsets[kk]
        for r in range(n):
            c = u[r] * sqb[kk]
            if c == 0.0:
                continue
            _add_order(codes[r], out, off, width, base, k, length, c)


def cg_ridge(codes, y, *, degree, alpha=1.0, tol=1e-4, max_iter=None, alphabet="dna", verbose=False):
    """Ridge regression with an unpenalised intercept on WD features, matrix-free.

    Minimises ``||y - Phi w - b||^2 + alpha ||w||^2`` (the problem of
    :class:`sklearn.linear_model.Ridge`) by conjugate gradients on the dual system
    ``(Phi_c Phi_c^T + alpha I) a = y - mean(y)`` (Phi_c: features minus their means),
    each iteration one product with Phi_c^T and one with Phi_c computed from the codes.

    Parameters
    ----------
    codes : ndarray of shape (n, L), uint8 (or a memory map), or sequences
    y : array-like of shape (n,), float
    degree : int
    alpha : float, default=1.0
    tol : float, default=1e-4
        Stop when ||residual|| <= tol * ||y - mean(y)|| (scipy's ``cg`` rtol, as
        Ridge's ``sparse_cg`` solver uses ``tol``).
    max_iter : int, optional
        Largest number of CG iterations; default 10 n.
    alphabet : str or Alphabet, default="dna"
    verbose : bool, default=False
        The relative residual per iteration on stderr.

    Returns
    -------
    coef : ndarray of shape (p,)
    intercept : float
    n_iter : int
    """
    alpha_ = get_alphabet(alphabet)
    X = check_codes(codes, "X", alpha_)
    n, length = X.shape
    degree, _ = check_degree_shifts(degree, 0, length, what="training sequences")
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.shape[0] != n:
        raise SeqimpError(f"X has {n} sequences but y has {y.shape[0]} labels")
    lam = check_number(alpha, "alpha", low=0, low_open=True)
    tol = check_number(tol, "tol", low=0, low_open=True)
    max_iter = 10 * n if max_iter is None else check_int(max_iter, "max_iter")
    offsets, sqb, base = implicit_layout(length, degree, alpha_)
    p = int(offsets[-1])
    mu = np.zeros(p)
    _rmatvec(X, np.full(n, 1.0 / n), offsets, sqb, degree, base, mu)

    def xt(a):  # Phi_c^T a
        out = np.zeros(p)
        _rmatvec(X, a, offsets, sqb, degree, base, out)
        out -= mu * a.sum()
        return out

    def xv(v):  # Phi_c v
        out = np.empty(n)
        _scores(X, v, offsets, sqb, degree, base, out)
        return out - np.dot(mu, v)

    y_mean = y.mean()
    rhs = y - y_mean
    a = np.zeros(n)
    r = rhs.copy()
    d = r.copy()
    rr = np.dot(r, r)
    stop = tol * np.sqrt(np.dot(rhs, rhs))
    it = 0
    while np.sqrt(rr) > stop and it < max_iter:
        q = xv(xt(d)) + lam * d
        step = rr / np.dot(d, q)
        a += step * d
        r -= step * q
        rr_new = np.dot(r, r)
        d = r + (rr_new / rr) * d
        rr = rr_new
        it += 1
        solver_line(verbose, f"CG iteration {it}: relative residual {np.sqrt(rr) / max(stop / tol, 1e-300):.3g} "
                      f"(tol {tol:g})")
    if np.sqrt(rr) > stop:
        warnings.warn(f"conjugate gradients did not reach tol={tol:g} in {max_iter} iterations",
                      ConvergenceWarning, stacklevel=2)
    coef = xt(a)
    return coef, float(y_mean - np.dot(mu, coef)), it
