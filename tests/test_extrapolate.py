"""The line search of the SVM dual along a pass's move (seqimp/kernels/_extrapolate.py).

Checked against a dense transcription on the explicit WD features (wd_features): the step is
the maximiser of the dual along the move, the new dual variables are the clipped ones, and the
new weights are exactly sum_i a'_i y_i (phi_i, 1) (1e-10 absolute); a move that does not raise
the dual leaves the iterate alone.
"""

import numpy as np
import pytest

from seqimp import wd_features
from seqimp.kernels._dcd import _svm_steps, cumulative_beta
from seqimp.kernels._extrapolate import extrapolate_pass
from seqimp.kernels._implicit import implicit_layout, row_norm2
from seqimp.kernels._layout import aligned_zeros, solver_layout, to_standard


def _problem(n=300, length=12, degree=3, C=0.02, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    y = rng.random(n) < 0.5
    X[np.flatnonzero(y), 4:8] = [2, 0, 3, 3]
    y = (y ^ (rng.random(n) < 0.1)).astype(np.int64)
    _, sqb, base = implicit_layout(length, degree)
    layout = solver_layout(length, degree, base)
    return X, np.where(y == 1, 1.0, -1.0), np.full(n, C), sqb, base, layout


def _passes(X, sign, upper, sqb, base, layout, degree, count):
    """Dual variables and solver weights after each of ``count`` plain DCD passes (seeded orders)."""
    n, length = X.shape
    v, alpha, pg = aligned_zeros(layout.size + 1), np.zeros(n), np.empty(2)
    qd = row_norm2(length, degree) + 1.0
    states = []
    for p in range(count):
        order = np.random.default_rng(p).permutation(n).astype(np.int64)
        pg[:] = -np.inf, np.inf
        _svm_steps(X, sign, alpha, upper, v, layout.table, sqb, degree, base, qd, 1.0, order, 0, n, n, np.inf, -np.inf,
                   pg, cumulative_beta(degree))
        states.append((alpha.copy(), v.copy()))
    return states


def _dual(F1, sign, alpha):
    w = F1.T @ (alpha * sign)
    return alpha.sum() - 0.5 * w @ w


@pytest.mark.parametrize("passes", [2, 4])
def test_extrapolated_point_is_the_dense_line_search_projected_on_the_box(passes):
    degree = 3
    X, sign, upper, sqb, base, layout = _problem(degree=degree)
    (a0, v0), (a1, v1) = _passes(X, sign, upper, sqb, base, layout, degree, passes)[-2:]
    F1 = np.hstack([wd_features(X, degree=degree).toarray(), np.ones((X.shape[0], 1))])   # (phi_i, 1)
    # dense: the maximiser of the concave quadratic D(a1 + t d) along the pass's move d, then the
    # projection on [0, C]
    d = a1 - a0
    w1, dw = F1.T @ (a1 * sign), F1.T @ (d * sign)
    t = (d.sum() - w1 @ dw) / (dw @ dw)
    raw = a1 + t * d
    expect = np.clip(raw, 0.0, upper)
    assert t > 0 and np.any(raw != expect)                      # a real step, and the box clips some rows
    rows = np.random.default_rng(7).permutation(X.shape[0]).astype(np.int64)     # any order of the rows
    alpha, w, w_prev = a1.copy(), v1.copy(), v0.copy()
    out, step, gain, clipped = extrapolate_pass(X, sign, alpha, a0.copy(), upper, rows, w, w_prev, layout, sqb,
                                                degree, base)
    assert out is w_prev                                         # kept: the new point is in the scratch buffer
    assert step == pytest.approx(t, rel=1e-9)
    assert clipped == np.count_nonzero(raw != expect)
    np.testing.assert_allclose(alpha, expect, rtol=0, atol=1e-12)
    coef, bias = to_standard(out, layout)
    np.testing.assert_allclose(np.append(coef, bias), F1.T @ (expect * sign), rtol=0, atol=1e-10)
    assert gain == pytest.approx(_dual(F1, sign, expect) - _dual(F1, sign, a1), rel=1e-7)
    assert gain > 0


def test_a_move_that_does_not_raise_the_dual_leaves_the_iterate_alone():
    degree = 3
    X, sign, upper, sqb, base, layout = _problem(degree=degree)
    (_, _), (a1, v1), (a2, v2) = _passes(X, sign, upper, sqb, base, layout, degree, 3)
    rows = np.arange(X.shape[0], dtype=np.int64)
    # backwards along the pass (from pass 2's point towards pass 3's is uphill): the maximiser is at t < 0
    alpha, w = a1.copy(), v1.copy()
    out, step, gain, clipped = extrapolate_pass(X, sign, alpha, a2.copy(), upper, rows, w, v2.copy(), layout, sqb,
                                                degree, base)
    assert out is w and step == 0.0 and gain == 0.0 and clipped == 0
    np.testing.assert_array_equal(alpha, a1)
    np.testing.assert_array_equal(w, v1)
    # no move at all
    out, step, _, _ = extrapolate_pass(X, sign, alpha, a1.copy(), upper, rows, w, v1.copy(), layout, sqb, degree, base)
    assert out is w and step == 0.0
    np.testing.assert_array_equal(alpha, a1)


@pytest.mark.parametrize("passes", [2, 3, 4, 6])
def test_the_quick_refusal_keeps_a_step_exactly_or_leaves_the_iterate_alone(passes):
    # with the clipped rows' updates in two parts (quick_reject_rows=1), a step is either the one the
    # full evaluation keeps, bit for bit, or refused with the iterate untouched; never a lower dual
    degree = 3
    X, sign, upper, sqb, base, layout = _problem(degree=degree)
    (a0, v0), (a1, v1) = _passes(X, sign, upper, sqb, base, layout, degree, passes)[-2:]
    rows = np.arange(X.shape[0], dtype=np.int64)
    outcomes = []
    for quick in (10**9, 1):
        alpha, w = a1.copy(), v1.copy()
        out, step, gain, clipped = extrapolate_pass(X, sign, alpha, a0.copy(), upper, rows, w, v0.copy(), layout,
                                                    sqb, degree, base, quick_reject_rows=quick)
        outcomes.append((out is not w, step, gain, alpha, out.copy()))
    full, quick = outcomes
    assert full[0] and clipped > 0                                  # the full evaluation keeps a clipped step
    if quick[0]:
        assert quick[1] == full[1]
        assert quick[2] == pytest.approx(full[2], rel=1e-9, abs=1e-15)
        np.testing.assert_array_equal(quick[3], full[3])
        np.testing.assert_allclose(quick[4], full[4], rtol=0, atol=1e-12)
    else:
        assert quick[1] == 0.0 and quick[2] == 0.0
        np.testing.assert_array_equal(quick[3], a1)
