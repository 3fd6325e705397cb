"""The fast SVM route: passes until the model stops changing (dual coordinate descent or averaged SGD).

:func:`fast_svm` solves the problem of :func:`~seqimp.kernels._dcd.dcd_svm` (liblinear's
hinge-loss SVM with the bias as a constant feature 1)::

    1/2 ||(w, b)||^2 + sum_i C_i max(0, 1 - y_i (w.phi_i + b))

pass by pass and stops by :class:`._sgd_rule.PlateauRule` instead of liblinear's
projected-gradient rule: a validation slice of the rows (``validation_fraction``, at most
``max_validation`` rows, drawn from ``random_state``) is left out of training, and after each
pass the held-out hinge loss and accuracy and the relative change of the weights over the
pass are compared with ``validation_tol`` and ``weight_tol``; once settled, the slice joins
the training rows and the passes go on until the weights settle again (``refit``).

``method="dcd"`` (the default; ``WDClassifier(solver="fast")``) takes the exact route's
passes: dual coordinate descent with liblinear's shrinking, the same kernel
(:func:`~seqimp.kernels._dcd._steps`). ``method="sgd"`` is averaged stochastic gradient
descent on the primal divided by n C, ``lam/2 ||(w, b)||^2 + 1/n sum_i (C_i / C) hinge_i`` with
``lam = 1 / (n C)`` (Polyak-Ruppert averaging; Bottou 2010, Xu 2011): one step per row in a
random order per pass,

    w <- (1 - eta_t lam) w + eta_t (C_i / C) y_i phi_i      (the second term only when y_i w.phi_i < 1)

with ``eta_t = eta0 / (1 + lam eta0 t)^(3/4)`` and ``eta0 = 1 / (||phi||^2 + 1)`` (the step
that moves a violated margin by about one), returning the average of the iterates from the
second pass on. Both vectors are kept in scaled form so that a step touches only the row's
weights: ``w = s v`` and ``avg = D (z + E v)`` for scalars s, D, E (the scale
``(1 - eta lam)`` multiplies s; an update of v by ``c phi`` subtracts ``E c phi`` from z, so the
average does not move; averaging in ``w`` with weight mu updates D and E only).

Memory: the codes, the solver's weight vector and the previous pass's weights (8 (q + 1)
bytes each, see :mod:`._layout`; SGD also z; ``extrapolate`` one more), the returned
coefficients and O(n) numbers.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numba
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..errors import SeqimpError, check_choice, check_number, check_random_state
from ._async_dcd import AsyncPasses, rebuild_weights
from ._dcd import (
    _add_buf,
    _dot_buf,
    _pass_bar,
    _steps,
    check_svm_problem,
    check_threads,
    cumulative_beta,
    svm_dual_objective,
    svm_start,
)
from ._extrapolate import extrapolate_pass
from ._implicit import solver_line
from ._layout import aligned_zeros, row_addresses, row_buffers, to_standard
from ._sgd_rule import DistanceToOptimum, HeldOutStop, IterateAverage, PlateauRule, combine_into

__all__ = ["FastSolution", "fast_svm"]

#: ``shrink_margin``: the first pass that shrinks by it, and every RECHECK-th pass visits all rows
SHRINK_FROM, RECHECK = 3, 8
#: passes over the held-out rows alone when they join the training rows (``refit``, one thread)
JOIN_PASSES = 3

# state slots of the scaled vectors: w = S v, avg = D (z + E v); T is the step count
_S, _D, _E, _T = 0, 1, 2, 3


@numba.njit(cache=True, nogil=True)
def _asgd_steps(codes, sign, weight, order, lo, hi, v, z, lay, sqb, degree, base, state, lam, eta0, t0):
    """ASGD steps on the rows ``order[lo:hi]``; ``state`` holds (s, D, E, t) and is updated in place. A k-mer that
    covers an unknown symbol is no feature of its row (:func:`~seqimp.kernels._layout.row_addresses`).

    Averaging starts at step ``t0`` (the average is reset to w there); before it, z is untouched.
    """
    p = v.shape[0] - 1
    length = codes.shape[1]
    buf, kmer = row_buffers(length, degree)
    s, D, E, t = state[_S], state[_D], state[_E], state[_T]
    for j in range(lo, hi):
        i = order[j]
        row_addresses(codes[i], lay, degree, base, buf, kmer)
        eta = eta0 / (1.0 + lam * eta0 * t) ** 0.75
        margin = sign[i] * s * (_dot_buf(buf, v, sqb, degree, length) + v[p])
        s *= 1.0 - eta * lam
        if margin < 1.0:
            c = eta * weight[i] * sign[i] / s           # v += c phi  <=>  w += eta weight y phi
            averaging = t > t0
            ce = -E * c
            _add_buf(buf, v, c, sqb, degree, length)
            v[p] += c
            if averaging:
                _add_buf(buf, z, ce, sqb, degree, length)
                z[p] += ce
        if t == t0:                                      # the average starts as w
            D = 1.0
            E = s
        elif t > t0:
            mu = 1.0 / (t - t0 + 1.0)
            d_new = (1.0 - mu) * D
            E = ((1.0 - mu) * D * E + mu * s) / d_new
            D = d_new
        t += 1.0
        if s < 1e-6:                                     # fold the scale into v (rare: lam is small)
            for q in range(v.shape[0]):
                v[q] *= s
            E /= s
            s = 1.0
    state[_S], state[_D], state[_E], state[_T] = s, D, E, t


def _materialize(v, z, s, D, E, averaged, out):
    """``out`` <- the SGD model (avg = D (z + E v) when ``averaged``, else w = s v); returns
    (||new - old||^2, ||new||^2, ||v||^2) with ``old`` the previous content of ``out`` (:func:`._sgd_rule.combine_into`)."""
    if averaged:
        return combine_into(out, 0.0, v, D * E, z, D)
    return combine_into(out, 0.0, v, s, v, 0.0)


def _join_held_rows(X, sign, alpha, upper, v, layout, sqb, degree, base, qd, cumbeta, held, rng):
    """``JOIN_PASSES`` passes of coordinate steps (no shrinking) over the held-out rows alone, whose dual
    variables are 0 when they join the training rows: their steps against the settled weights come first,
    so the passes over all rows that follow start near the optimum of all rows (``v``, ``alpha`` in place)."""
    rows = held.copy()
    pg = np.empty(2)
    for _ in range(JOIN_PASSES):
        rng.shuffle(rows)
        pg[0], pg[1] = -np.inf, np.inf
        a, active = 0, rows.shape[0]
        while a < active:
            a, active = _steps(X, sign, alpha, upper, v, layout.table, sqb, degree, base, qd, rows, a, active, active,
                               np.inf, -np.inf, pg, cumbeta)


@dataclass
class FastSolution:
    """Result of :func:`fast_svm`.

    Attributes
    ----------
    coef : ndarray of shape (p,)
        Weights in the :func:`~seqimp.wd_features` column layout.
    intercept : float
    n_iter : int
        Passes over the training rows.
    converged : bool
        Whether the stopping rule stopped the fit (False: ``max_iter`` passes).
    history : list of tuple
        Per pass: (held-out hinge loss, held-out accuracy, relative weight change, settled);
        the passes over all rows after the rule stopped (``refit``) have NaN loss and accuracy.
    validation_rows : ndarray of shape (m,)
        The rows held out for the stopping rule (0-based, sorted); trained on in the final
        passes when ``refit``.
    best_pass : int or None
        With ``keep_best``: the pass (1-based) whose model is returned, the best on the held-out
        rows; None without.
    """

    coef: np.ndarray
    intercept: float
    n_iter: int
    converged: bool
    history: list
    validation_rows: np.ndarray
    best_pass: int | None = None


def fast_svm(codes, y, *, degree, C=1.0, class_weight=None, method="dcd", max_iter=1000, validation_fraction=0.02,
             max_validation=20_000, validation_tol=1e-3, weight_tol=1e-2, patience=2, optimum_tol=None,
             random_state=None, refit=True, average=3.0, shrink_margin=None, extrapolate=False, alphabet="dna",
             n_jobs=None, deterministic=False, keep_best=None, verbose=False) -> FastSolution:
    """Hinge-loss linear SVM on WD features, stopped when the model stops changing.

    Solves the problem of :func:`~seqimp.kernels._dcd.dcd_svm` on all rows but a validation
    slice, pass by pass, and stops by :class:`~seqimp.kernels._sgd_rule.PlateauRule` instead
    of liblinear's projected-gradient rule.

    Parameters
    ----------
    codes : ndarray of shape (n, L), uint8 (or a read-only memory map), or sequences
    y : array-like of shape (n,)
        Labels 0/1.
    degree, C, class_weight, alphabet
        As in :func:`~seqimp.kernels._dcd.dcd_svm`: the same problem.
    method : {"dcd", "sgd"}, default="dcd"
        "dcd": the passes of dual coordinate descent with liblinear's shrinking (the exact
        route's steps on the training rows); "sgd": averaged SGD (module docstring). See ``docs/training-at-scale.md``
        for the measured comparison.
    max_iter : int, default=1000
        Largest number of passes; a ConvergenceWarning when reached without the rule stopping.
    validation_fraction : float, default=0.02
        Share of the rows held out for the stopping rule (not trained on), in (0, 1).
    max_validation : int, default=20000
        Most rows held out.
    validation_tol, weight_tol, patience, optimum_tol
        The thresholds of :class:`~seqimp.kernels._sgd_rule.PlateauRule`. ``optimum_tol``
        (``method="dcd"`` only; None: not asked): the iterate must also be within this
        estimated distance of the optimum, in units of ``||w|| / sqrt(n)``
        (:class:`~seqimp.kernels._sgd_rule.DistanceToOptimum`, from the decay of the dual
        objective's gains). With ``refit`` it is asked of the problem of all rows, after the
        slice has joined (the held-out figures decide when it joins); without, of the training
        rows.
    refit : bool, default=True
        Once the rule stops, train on the validation rows too: ``JOIN_PASSES`` passes over the
        slice alone (its dual variables start at 0), then passes over all rows until the
        relative weight change of a pass is <= ``weight_tol`` again (with ``optimum_tol``:
        until the estimated distance, its decay ratio carried over the join, is within it):
        the model is then one of all n rows, as the exact route's (the held-out slice moves the
        top positional k-mers of low order measurably, see ``docs/training-at-scale.md``).
        False keeps the slice out of training (with a small ``validation_fraction`` the
        model is one of nearly all rows, and no passes go to the optimum's move when the
        slice joins: the configuration of the benchmark's fast route).
    average : float or None, default=3.0
        ``method="dcd"``: return (and watch with the stopping rule) the polynomial-decay
        average of the pass-end iterates (Shamir and Zhang 2013) instead of the last one:
        after pass t the average moves to the new iterate by ``(eta + 1) / (t + eta)``, with
        ``eta = average >= 0`` (0: the plain mean of all passes; larger: a shorter memory).
        The average of dual-feasible iterates is dual-feasible (the dual variables enter w
        linearly and their box is convex), so the averaged model is an SVM of the same
        problem; it damps the pass-to-pass swings of the iterate, which at 10^7 sequences
        kept the held-out accuracy moving by up to 0.02 a pass. None: the last iterate.
        Ignored by ``method="sgd"``, which averages its own way.
    shrink_margin : float or None, default=None
        ``method="dcd"``: shrink harder than liblinear. From pass
        ``SHRINK_FROM`` on, a row whose dual variable is 0 and whose margin
        ``y_i f(x_i)`` exceeds ``1 + shrink_margin`` (or at its bound C_i with margin below
        ``1 - shrink_margin``) leaves the active set for the passes that follow (liblinear's
        threshold is the last pass's largest projected gradient, which lets few rows go early in
        the fit); every ``RECHECK``-th pass visits all rows again, and a stop is accepted only
        after a pass over all rows, so every row's step has been checked at the model returned.
        The passes then skip the rows that the optimum does not use (40% at 10^5, see
        ``docs/training-at-scale.md``). None: liblinear's shrinking.
    extrapolate : bool, default=False
        ``method="dcd"``: after every pass, search the dual along the pass's
        move and go on from the best point on that line, projected on the box
        (:func:`~seqimp.kernels._extrapolate.extrapolate_pass`; kept only where the dual
        rises, so every iterate is one of the same problem). Late in a fit coordinate descent
        moves along its slow directions by similar steps pass after pass, and the line search
        takes part of the way at once: fewer passes where the gains decay slowly (10^6
        sequences, ``docs/training-at-scale.md``), for one more weight vector and a few sweeps
        over the weights per pass.
    random_state : None, int or numpy Generator
        Seeds the validation slice and the row order of every pass; None is seed 0.
    n_jobs : int or None, default=None
        Threads of the "dcd" passes (None: 1), as in :func:`~seqimp.kernels._dcd.dcd_svm`: each pass
        on that many threads sharing the weights (:class:`~seqimp.kernels._async_dcd.AsyncPasses`),
        the returned model recomputed exactly from the (averaged) dual variables; its last digits
        depend on the threads' scheduling. "sgd" runs on one thread.
    deterministic : bool, default=False
        True: one thread steps every row whatever ``n_jobs`` (the model bit for bit the same on every
        machine and thread count).
    keep_best : bool or None, default=None
        Return the model of the pass with the best held-out accuracy (ties: the lower held-out hinge
        loss), not that of the last pass: a fit that goes on after its held-out accuracy peaked (10^7
        sequences: 0.898 at passes 5-16, 0.873 at the end, ``docs/multicore.md``) returns the peak.
        Needs the slice kept out (``refit=False``); None: True when ``refit`` is False. Costs one more
        weight vector.
    verbose : bool, default=False
        One line per pass (held-out hinge loss and accuracy, their changes, weight change, time).

    Returns
    -------
    FastSolution
    """
    check_choice(method, "method", ("dcd", "sgd"))
    X, yb, degree, C, _, max_iter, alpha_ = check_svm_problem(codes, y, degree, C, 1.0, max_iter, alphabet)
    if optimum_tol is not None and method != "dcd":
        raise SeqimpError("optimum_tol needs method='dcd' (it is read from the dual objective); got method='sgd'")
    rule = PlateauRule(validation_tol, weight_tol, patience, optimum_tol=optimum_tol)
    nthreads = check_threads(n_jobs)
    if deterministic or method == "sgd":
        nthreads = 1
    if shrink_margin is not None:
        shrink_margin = check_number(shrink_margin, "shrink_margin", low=0)
        if method != "dcd":
            raise SeqimpError(f"shrink_margin needs method='dcd' (it shrinks the active set of the coordinate-descent "
                              f"passes); got method='{method}'")
    n, length = X.shape
    rng = check_random_state(random_state)
    sqb, base, sign, upper, qd, layout, v, alpha = svm_start(yb, C, class_weight, length, degree, alpha_)
    name = "SGD" if method == "sgd" else "DCD (fast)"
    stopper = HeldOutStop(X, yb, rule, validation_fraction, max_validation, rng, layout, sqb, refit=refit, name=name)
    if keep_best is None:
        keep_best = not refit
    if keep_best and refit:
        raise SeqimpError("keep_best needs refit=False: once the held-out rows are trained on, no pass is held out "
                          "to choose by")
    best = None                                # (accuracy, -loss, pass) of the kept model
    n_train = stopper.train.shape[0]
    distance = DistanceToOptimum(n_train)
    shared = None
    if extrapolate and method != "dcd":
        raise SeqimpError(f"extrapolate needs method='dcd' (a line search along one pass's move); got method='{method}'")
    if extrapolate:
        v_before = aligned_zeros(v.shape[0])
        alpha_before = np.zeros_like(alpha)
    if method == "sgd":
        model = aligned_zeros(layout.size + 1)
        z = aligned_zeros(layout.size + 1)
        weight = upper / C
        lam = 1.0 / (n_train * C)
        eta0 = 1.0 / qd
        state = np.array([1.0, 1.0, 0.0, 0.0])
        t0 = float(n_train)                        # average the iterates from the second pass on
    else:
        cumbeta = cumulative_beta(degree)
        pg = np.empty(2)
        pg_max_old, pg_min_old = np.inf, -np.inf
        averager = IterateAverage(layout.size + 1, average)    # checks average
        model = averager.model
        if nthreads > 1:                       # each pass on threads sharing the weights
            shared = AsyncPasses(X, sign, alpha, upper, layout, sqb, degree, base, qd, nthreads)
            alpha_model = np.zeros_like(alpha)  # the dual variables of the averaged model
    chunk = max(4096, n_train // 50)
    order = stopper.train.copy()
    active = n_train
    converged = False
    it = 0
    while it < max_iter:
        start = time.perf_counter()
        rng.shuffle(order[:active])
        every_row = active == order.shape[0]
        if extrapolate:
            np.copyto(v_before, v)
            np.copyto(alpha_before, alpha)
        if shrink_margin is not None and it + 1 >= SHRINK_FROM:       # method "dcd", one thread (checked)
            shrink_max, shrink_min = min(pg_max_old, shrink_margin), max(pg_min_old, -shrink_margin)
        elif method == "dcd":
            shrink_max, shrink_min = pg_max_old, pg_min_old
        else:
            shrink_max = shrink_min = None
        with _pass_bar(verbose, active, f"{name} pass {it + 1}") as bar:
            if shared is not None:
                active, pg[0], pg[1] = shared.run(v, order, active, shrink_max, shrink_min, bar)
            elif method == "sgd":
                for a in range(0, active, chunk):
                    b = min(a + chunk, active)
                    _asgd_steps(X, sign, weight, order, a, b, v, z, layout.table, sqb, degree, base, state, lam, eta0,
                                t0)
                    bar.update(b - a)
            else:                              # liblinear's shrinking, as in dcd_svm
                pg[0], pg[1] = -np.inf, np.inf
                a = 0
                while a < active:
                    b, active = _steps(X, sign, alpha, upper, v, layout.table, sqb, degree, base, qd, order, a,
                                       a + chunk, active, shrink_max, shrink_min, pg, cumbeta)
                    bar.update(b - a)
                    a = b
        it += 1
        if method == "sgd":
            diff2, norm2, _ = _materialize(v, z, state[_S], state[_D], state[_E], state[_T] > t0, model)
            change = float(np.sqrt(diff2 / norm2)) if norm2 > 0 else np.inf
        else:                                  # next pass's shrinking thresholds
            pg_max_old = pg[0] if pg[0] > 0 else np.inf
            pg_min_old = pg[1] if pg[1] < 0 else -np.inf
            if extrapolate:
                kept, step, gain, clipped = extrapolate_pass(X, sign, alpha, alpha_before, upper, order, v, v_before,
                                                             layout, sqb, degree, base)
                if kept is not v:
                    v, v_before = kept, v
                solver_line(verbose, f"{name} pass {it}: extrapolated by step {step:.3g} along the pass (dual gain "
                                     f"{gain:.4g}, {clipped:,} rows clipped)")
            change = averager.update(v)
            if shared is not None:
                alpha_model += averager.weight * (alpha - alpha_model)
        to_go = None
        if rule.optimum_tol is not None:               # method "dcd" (refused with "sgd" above)
            norm2 = averager.iterate_norm2
            to_go = distance.update(svm_dual_objective(v, alpha, norm2), norm2)
        verdict = stopper.after_pass(it, model, change, time.perf_counter() - start, verbose, to_go)
        if keep_best:
            loss, acc = stopper.history[-1][:2]
            if best is None or (acc, -loss) > best[:2]:
                if best is None:
                    best_model = aligned_zeros(model.shape[0])
                    best_alpha = np.zeros(n) if shared is not None else None
                best = (acc, -loss, it)
                np.copyto(best_model, model)
                if shared is not None:
                    np.copyto(best_alpha, alpha_model)
        if shrink_margin is not None and it + 1 >= SHRINK_FROM:
            recheck = (it + 1 - SHRINK_FROM) % RECHECK == 0
            if recheck or verdict == "stop" and not every_row:
                active = order.shape[0]        # the next pass visits every row (a stop waits for one)
            if verdict == "stop" and not every_row:
                solver_line(verbose, f"{name}: settled; one more pass over every row before stopping")
                continue
        if verdict == "stop":
            converged = True
            break
        if verdict == "refit":                 # settled: train on every row until the weights settle again
            order = np.arange(n, dtype=np.int64)
            active = n
            if method == "dcd":
                pg_max_old, pg_min_old = np.inf, -np.inf
            if method == "dcd":
                _join_held_rows(X, sign, alpha, upper, v, layout, sqb, degree, base, qd, cumbeta, stopper.held, rng)
                if rule.optimum_tol is not None:
                    distance.rebase(svm_dual_objective(v, alpha), n)
    if not converged:
        warnings.warn(f"{name}: the model was still changing after max_iter={max_iter} passes (validation_tol="
                      f"{rule.validation_tol:g}, weight_tol={rule.weight_tol:g}); increase max_iter",
                      ConvergenceWarning, stacklevel=2)
    del v
    if keep_best and best is not None and best[2] != it:
        solver_line(verbose, f"{name}: returns the model of pass {best[2]}, the best on the held-out rows (accuracy "
                             f"{best[0]:.4f}), not that of the last pass {it} (accuracy {stopper.history[-1][1]:.4f})")
        model = best_model
        if shared is not None:
            alpha_model = best_alpha
    if shared is not None:            # the model exactly that of its dual variables (no addition lost to a race)
        rebuild_weights(X, sign, alpha_model, model, layout, sqb, degree, base, nthreads)
    coef, bias = to_standard(model, layout, release=True)       # the last use of the solver's vectors
    return FastSolution(coef=coef, intercept=bias, n_iter=it, converged=converged, history=stopper.history,
                        validation_rows=stopper.held, best_pass=best[2] if keep_best and best is not None else None)
