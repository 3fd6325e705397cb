"""When a fit may stop: the model stopped changing on a validation slice and in its weights.

:class:`PlateauRule` is the stopping rule of the fast SVM route (:mod:`._sgd`). After each
pass it is told three numbers:

* the held-out hinge loss (mean over a validation slice the solver does not train on),
* the held-out accuracy on that slice,
* the relative change of the weights over the pass, ``||w_t - w_(t-1)|| / ||w_t||``,

and the fit stops once, for ``patience`` passes in a row, the loss changed by at most
``validation_tol`` relative to the previous pass, the accuracy by at most ``validation_tol``
(absolute) and the weights by at most ``weight_tol``. A pass where any of them moves more
resets the count, so a rule that sees a plateau stops on it, and one that does not keeps
going (up to ``max_iter`` passes).

:func:`validation_split` picks the slice (seeded, recorded) and :func:`validation_scores`
scores it on the solver's weight vector.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from ..errors import SeqimpError, check_int, check_number
from ._layout import _dot_buf
from ._implicit import solver_line
from ._layout import aligned_zeros, row_addresses, row_buffers

__all__ = ["DistanceToOptimum", "HeldOutStop", "IterateAverage", "PlateauRule", "combine_into", "validation_scores",
           "validation_split"]


@dataclass
class PlateauRule:
    """Stop when held-out loss, held-out accuracy and the weights have settled (module docstring).

    Parameters
    ----------
    validation_tol : float, default=1e-3
        Largest relative change of the held-out hinge loss and absolute change of the
        held-out accuracy between two passes that counts as settled.
    weight_tol : float, default=1e-2
        Largest relative change of the weights over a pass that counts as settled.
    patience : int, default=2
        Settled passes in a row needed to stop.
    min_passes : int, default=2
        Passes before the rule may stop at all (the first pass has nothing to compare to).
    optimum_tol : float or None, default=None
        Largest estimated distance of the solver's iterate to the optimum of the SVM problem,
        in units of ``||w|| / sqrt(n)`` (:class:`DistanceToOptimum`), that counts as settled;
        None: not asked.

    Attributes
    ----------
    history : list of tuple
        ``(loss, accuracy, weight_change, settled)`` per pass.
    """

    validation_tol: float = 1e-3
    weight_tol: float = 1e-2
    patience: int = 2
    min_passes: int = 2
    optimum_tol: float | None = None
    history: list = field(default_factory=list)

    def __post_init__(self):
        self.validation_tol = check_number(self.validation_tol, "validation_tol", low=0)
        self.weight_tol = check_number(self.weight_tol, "weight_tol", low=0)
        self.patience = check_int(self.patience, "patience")
        self.min_passes = check_int(self.min_passes, "min_passes")
        if self.optimum_tol is not None:
            self.optimum_tol = check_number(self.optimum_tol, "optimum_tol", low=0)

    def changes(self, loss, accuracy):
        """``(relative loss change, absolute accuracy change)`` against the previous pass (inf on the first)."""
        if not self.history:
            return np.inf, np.inf
        prev_loss, prev_acc = self.history[-1][0], self.history[-1][1]
        rel = abs(loss - prev_loss) / max(abs(prev_loss), 1e-300)
        return rel, abs(accuracy - prev_acc)

    def update(self, loss, accuracy, weight_change, distance=0.0) -> bool:
        """Record a pass; True when the fit should stop after it. ``distance``: the estimated
        distance to the optimum (:class:`DistanceToOptimum`), asked only with ``optimum_tol``."""
        d_loss, d_acc = self.changes(loss, accuracy)
        settled = (d_loss <= self.validation_tol and d_acc <= self.validation_tol
                   and weight_change <= self.weight_tol
                   and (self.optimum_tol is None or distance <= self.optimum_tol))
        self.history.append((float(loss), float(accuracy), float(weight_change), bool(settled)))
        run = 0
        for entry in reversed(self.history):
            if not entry[3]:
                break
            run += 1
        return len(self.history) >= self.min_passes and run >= self.patience


def validation_split(n, validation_fraction, max_validation, rng):
    """``(train rows, validation rows)``, both sorted int64: a random slice of ``validation_fraction``
    of the n rows (at most ``max_validation``, at least 1), drawn from ``rng``."""
    validation_fraction = check_number(validation_fraction, "validation_fraction", low=0, high=1, low_open=True,
                                       high_open=True)
    max_validation = check_int(max_validation, "max_validation")
    m = min(max(1, round(validation_fraction * n)), max_validation)
    if n - m < 2:
        raise SeqimpError(f"solver='fast' holds out a validation slice and needs at least 3 sequences, got {n}; "
                          "use solver='dcd'")
    held = np.sort(rng.choice(n, size=m, replace=False)).astype(np.int64)
    mask = np.ones(n, dtype=bool)
    mask[held] = False
    return np.flatnonzero(mask).astype(np.int64), held


@numba.njit(cache=True, parallel=True)
def _scores_on_layout(codes, w, lay, sqb, degree, base, out):
    """``w.phi(x) + b`` of every row (the k-mers that cover an unknown symbol left out, :func:`row_addresses`)."""
    p = w.shape[0] - 1
    length = codes.shape[1]
    for r in numba.prange(codes.shape[0]):
        buf, kmer = row_buffers(length, degree)
        row_addresses(codes[r], lay, degree, base, buf, kmer)
        out[r] = _dot_buf(buf, w, sqb, degree, length) + w[p]


def validation_scores(codes, w, lay, sqb, degree, base) -> np.ndarray:
    """Decision values ``w.phi(x) + b`` of the rows of ``codes`` (n, L) on the solver's vector ``w``
    (layout table ``lay``, bias last), shape (n,)."""
    out = np.empty(codes.shape[0])
    _scores_on_layout(codes, w, lay, sqb, degree, base, out)
    return out


class HeldOutStop:
    """The stopping rule of a fit on the solver's weight vector, pass by pass (single machine or Dask).

    Holds the validation slice (:func:`validation_split`), scores it after every pass and asks
    ``rule``. Once the rule stops, with ``refit`` the slice joins the training rows and the fit
    goes on until the relative weight change of a pass is <= ``rule.weight_tol`` again.

    Parameters
    ----------
    X : ndarray of shape (n, L), uint8
    yb : ndarray of shape (n,)
        Labels 0/1.
    rule : PlateauRule
    validation_fraction, max_validation
        As in :func:`validation_split`.
    rng : numpy Generator
    layout : SolverLayout
        The solver's weight layout (:mod:`._layout`).
    sqb : ndarray of shape (degree,)
        sqrt(beta_k).
    refit : bool
    name : str
        What the per-pass lines call the solver.

    Attributes
    ----------
    train, held : ndarray of int64
        Sorted training and validation rows.
    history : list of tuple
        Per pass: (held-out hinge loss, held-out accuracy, weight change, settled); NaN loss and
        accuracy for the passes over all rows.
    refitting : bool
        Whether the slice has joined the training rows.
    """

    def __init__(self, X, yb, rule, validation_fraction, max_validation, rng, layout, sqb, *, refit=True, name="DCD"):
        self.rule, self.layout, self.sqb, self.refit, self.name = rule, layout, sqb, bool(refit), name
        self.train, self.held = validation_split(X.shape[0], validation_fraction, max_validation, rng)
        self.Xv = np.ascontiguousarray(X[self.held])
        self.sv = np.where(yb[self.held] == 1, 1.0, -1.0)
        self.n = X.shape[0]
        self.history = []
        self.refitting = False

    def _distance_text(self, distance) -> str:
        """The per-pass line's distance to the optimum ("" when not asked or not estimated)."""
        if self.rule.optimum_tol is None or distance is None:
            return ""
        return f", distance to the optimum {distance:.3g} (tol {self.rule.optimum_tol:g})"

    def after_pass(self, it, model, change, seconds, verbose, distance=None) -> str:
        """Record pass ``it`` of weights ``model`` (solver layout, bias last) that moved by ``change``
        (relative), its iterate an estimated ``distance`` from the optimum (:class:`DistanceToOptimum`,
        None: not estimated); returns "go on", "refit" (train on every row from now on) or "stop"."""
        rule = self.rule
        if self.refitting:
            if distance is None:
                settled = change <= rule.weight_tol
                why = f"weight change {change:.3g} (tol {rule.weight_tol:g})"
            else:                   # with optimum_tol: the distance on the problem of all rows
                settled = distance <= rule.optimum_tol
                why = f"weight change {change:.3g}{self._distance_text(distance)}"
            self.history.append((np.nan, np.nan, float(change), bool(settled)))
            solver_line(verbose, f"{self.name} pass {it} (all rows): {why}, {seconds:.2f} s")
            return "stop" if settled else "go on"
        lay = self.layout
        scores = validation_scores(self.Xv, model, lay.table, self.sqb, lay.degree, lay.base)
        loss = float(np.mean(np.maximum(0.0, 1.0 - self.sv * scores)))
        acc = float(np.mean((scores > 0) == (self.sv > 0)))
        d_loss, d_acc = rule.changes(loss, acc)
        if distance is None:
            distance = np.inf
        # with refit, the distance is asked on the problem of all rows (after the slice joins), not here:
        # the slice joins as soon as the held-out figures settle, while the passes still have far to go,
        # so that the optimum's move by the joining rows merges into that way instead of adding to it
        stop = rule.update(loss, acc, change, 0.0 if self.refit else distance)
        self.history.append(rule.history[-1])
        solver_line(verbose, f"{self.name} pass {it}: held-out hinge loss {loss:.6g} (change {d_loss:.2g}), accuracy "
                             f"{acc:.4f} (change {d_acc:.2g}; tol {rule.validation_tol:g}), weight change "
                             f"{change:.3g} (tol {rule.weight_tol:g}){self._distance_text(distance)}, {seconds:.2f} s")
        if not stop:
            return "go on"
        if not self.refit:
            return "stop"
        until = (f"weight change is <= {rule.weight_tol:g}" if rule.optimum_tol is None else
                 f"estimated distance to the optimum is <= {rule.optimum_tol:g}")
        solver_line(verbose, f"{self.name}: settled on the held-out rows; passes over all {self.n:,} rows until the "
                             f"{until}")
        self.refitting = True
        return "refit"


@numba.njit(cache=True, parallel=True)
def combine_into(out, a, v, b, z, d):
    """``out`` <- ``a out + b v + d z``, elementwise; returns (||new - old||^2, ||new||^2, ||v||^2).

    The sums are taken over 64 fixed chunks and then added in order, so they (and the
    stopping decisions) do not depend on the number of threads.
    """
    n = v.shape[0]
    chunks = 64
    size = (n + chunks - 1) // chunks
    parts = np.zeros((chunks, 3))
    for ch in numba.prange(chunks):
        diff = 0.0
        norm = 0.0
        vv = 0.0
        for q in range(ch * size, min(n, (ch + 1) * size)):
            new = a * out[q] + b * v[q] + d * z[q]
            delta = new - out[q]
            diff += delta * delta
            norm += new * new
            vv += v[q] * v[q]
            out[q] = new
        parts[ch, 0] = diff
        parts[ch, 1] = norm
        parts[ch, 2] = vv
    diff = 0.0
    norm = 0.0
    vv = 0.0
    for ch in range(chunks):
        diff += parts[ch, 0]
        norm += parts[ch, 1]
        vv += parts[ch, 2]
    return diff, norm, vv


class IterateAverage:
    """The model a fast fit watches and returns: the last iterate, or the polynomial-decay average of the
    pass-end iterates (Shamir and Zhang 2013).

    After pass t the average moves to the new iterate by ``(eta + 1) / (t + eta)`` (``eta = None``: by 1, the
    last iterate). The dual variables enter w linearly and their box is convex, so an average of
    dual-feasible iterates is the w of dual-feasible variables: a model of the same SVM problem.

    Parameters
    ----------
    size : int
        Length of the solver's weight vector (bias last).
    eta : float or None
        The decay; 0 is the plain mean of all passes, larger forgets early passes faster.

    Attributes
    ----------
    model : ndarray of shape (size,)
        The current average (64-byte aligned, solver layout).
    passes : int
        Iterates averaged so far.
    iterate_norm2 : float
        ``||w||^2`` of the last iterate averaged in (computed in the same sweep).
    weight : float
        The share by which the last update moved the average to the iterate (the dual variables of the
        average move by the same share).
    """

    def __init__(self, size, eta):
        self.eta = None if eta is None else check_number(eta, "average", low=0)
        self.model = aligned_zeros(size)
        self.passes = 0
        self.iterate_norm2 = 0.0
        self.weight = 1.0

    def update(self, w) -> float:
        """Average in the pass-end iterate ``w``; returns the relative change of the model,
        ``||new - old|| / ||new||`` (inf when the model is 0)."""
        self.passes += 1
        c = 1.0 if self.eta is None else (self.eta + 1.0) / (self.passes + self.eta)
        self.weight = c
        diff2, norm2, self.iterate_norm2 = combine_into(self.model, 1.0 - c, w, c, w, 0.0)
        return float(np.sqrt(diff2 / norm2)) if norm2 > 0 else np.inf


class DistanceToOptimum:
    """How far dual coordinate descent's iterate still is from the optimum, estimated after every pass.

    The SVM dual ``D(a) = sum(a) - ||w(a)||^2 / 2`` is 1-strongly concave in ``w``, so every
    dual-feasible point is within ``||w - w*|| <= sqrt(2 (D* - D))`` of the optimum's weights.
    ``D*`` is unknown; coordinate descent converges linearly, so the dual's gain per pass decays
    geometrically and the gain still to come is about ``g r / (1 - r)``, with ``g`` the last
    pass's gain and ``r`` the mean ratio of successive gains over the last ``window`` passes
    (geometric mean). :meth:`update` returns that bound in units of ``||w|| / sqrt(n)``:

        distance = sqrt(2 g r / (1 - r)) / ||w|| * sqrt(n)

    ``1 / sqrt(n)`` is the scale of the statistical error of a fit on n rows: a fit whose
    optimisation error is a fixed fraction of it ranks the model's positional k-mers as the
    optimum does at every n (measured in ``docs/training-at-scale.md``). ``inf`` until
    ``window + 1`` gains are known, or while the gains do not decay (r >= 1).

    Parameters
    ----------
    n : int
        Training rows.
    window : int, default=3
        Passes over which the decay ratio is taken.

    Attributes
    ----------
    values : list of float
        The dual objective after every pass.
    """

    def __init__(self, n, window=3):
        self.n = check_int(n, "n")
        self.scale = float(np.sqrt(self.n))
        self.window = check_int(window, "window")
        self.values = []
        self.carried = None

    def rebase(self, dual, n) -> None:
        """Go on with the problem of ``n`` rows whose dual objective is now ``dual`` (the held-out rows
        joining the training rows in ``fast_svm``, once their own dual variables have been stepped):
        the gains start afresh from ``dual`` (the jump is the new rows' own, not a pass's gain) and
        the scale becomes ``sqrt(n)``. Until ``window + 1`` new gains are known, the decay ratio
        of the gains before the rebase is carried over (the rate of the same passes on a problem
        with a few more rows), so the estimate reads the first new gain at once."""
        self.carried = self._ratio(self.values)
        self.n = check_int(n, "n")
        self.scale = float(np.sqrt(self.n))
        self.values = [float(dual)]

    def update(self, dual, norm2) -> float:
        """Record the dual objective ``dual`` after a pass whose iterate has ``||w||^2 = norm2``;
        returns the estimated distance (class docstring)."""
        self.values.append(float(dual))
        r = self._ratio(self.values)
        if 2 <= len(self.values) < self.window + 2:   # too few gains since a rebase: the ratio before it
            r = self.carried
        if r is None or norm2 <= 0:
            return np.inf
        gain = self.values[-1] - self.values[-2]
        if not gain >= 0:
            return np.inf
        return float(np.sqrt(2.0 * gain * r / (1.0 - r) / norm2) * self.scale)

    def _ratio(self, values):
        """The geometric mean ratio of successive gains over the last ``window`` passes, or None
        (too few values, gains that do not decay)."""
        if len(values) < self.window + 2:
            return None
        gains = np.diff(values[-self.window - 2:])
        if not (gains[0] > 0 and gains[-1] >= 0):
            return None
        r = (gains[-1] / gains[0]) ** (1.0 / self.window)
        return r if r < 1.0 else None
