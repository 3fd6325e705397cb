"""``GKMClassifier``: a hinge-loss SVM on the gapped-k-mer kernel, trained on the explicit
gapped-k-mer features (:mod:`seqimp.kernels.gkm._kernel`).

The gkm kernel is an inner product of gapped-k-mer count vectors, so the SVM is linear in
those counts: one dense weight per gapped k-mer (``C(l, k) * 4**k`` of them; 860,160 for the
default l = 10, k = 6) replaces the support-vector expansion. It is trained by dual coordinate
descent (the hinge-loss dual of liblinear: Hsieh et al. 2008) with the features recomputed from
the codes at every visit -- nothing is stored per sequence but its norm, so memory is the weight
vector, whatever the number of sequences, and a pass costs ``2 (L - l + 1) C(l, k)`` look-ups per
sequence. The bias is a constant feature (value ``bias``), so it is regularised, as liblinear's
``-B``; LS-GKM (libsvm) leaves it free. With ``normalize`` (the default, as gkm-SVM and LS-GKM),
every feature vector has unit length, so the model is LS-GKM's ``-t 0`` kernel.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ...errors import SeqimpError, check_int, check_number, check_random_state
from ._kernel import (GkmTables, _attributions, _scores, _squared_norms, _weights_of,
                   buffer_rows, check_lengths, mirror_weights, n_chunks, ragged_codes)
from ._dcd import dcd_pass
from ._lmers import lmer_scores

__all__ = ["GKMClassifier"]

#: ``||phi(x)||^2`` of the sequences seen so far, per ``(l, k, reverse_complement)`` and sequence
#: (its codes as bytes: exact, no hashing): a motif run computes the norms of the same sequences
#: for the held-out fit, the fit on all of them, their attributions and every round of explaining
#: away (where only the sequences with erased sites differ). Emptied when its keys pass
#: :data:`NORM_CACHE_BYTES`.
_NORMS: dict = {}
_NORM_BYTES: dict = {}  # the bytes of the keys in each table of _NORMS
NORM_CACHE_BYTES = 32 << 20
#: The type of the weights the passes read and add to. float32: a pass reads and writes half the
#: bytes (on 2,000 sequences of 200 nt, l = 10, k = 6, two threads: 0.20 s a pass instead of
#: 0.45 s; a thread's share of the weights then stays in its core's second-level cache). Their
#: rounding (about 1e-7 relative a step) only moves the coordinate steps, far below the stopping
#: tolerance; the fitted ``coef_`` is rebuilt in float64 from the final dual variables.
RUNNING_DTYPE = np.float32
#: Ranges of column choices the weights of dual variables are summed over (at least one per
#: thread): a range's weights (14 choices of 32 KB at l = 10, k = 6) stay in a core's cache while
#: every row adds to them. On 2,000 x 200 nt, two threads: 0.15-0.21 s with 8 ranges, 0.29-0.32 s
#: with 2; the same bits for any number (each weight gets its additions in row order).
WEIGHT_CHUNKS = 8


def squared_norms(codes, offsets, tables, rc) -> np.ndarray:
    """``||phi(x_i)||^2`` of every sequence of ``codes``/``offsets`` (:func:`~seqimp.kernels.gkm._kernel.ragged_codes`),
    shape (n,): those of sequences met before from :data:`_NORMS`, the others computed
    (:func:`~seqimp.kernels.gkm._kernel._squared_norms`) and remembered."""
    params = (tables.word_length, tables.informative, bool(rc))
    table = _NORMS.setdefault(params, {})
    bounds = list(zip(offsets[:-1].tolist(), offsets[1:].tolist()))
    keys = [codes[a:b].tobytes() for a, b in bounds]
    sq = np.array([table.get(key, np.nan) for key in keys], dtype=np.float64)
    miss = np.flatnonzero(np.isnan(sq))
    if miss.size:
        sub_codes = np.concatenate([codes[bounds[i][0]:bounds[i][1]] for i in miss])
        sub_offsets = np.zeros(miss.size + 1, dtype=np.int64)
        np.cumsum(np.diff(offsets)[miss], out=sub_offsets[1:])
        sq[miss] = _squared_norms(sub_codes, sub_offsets, tables.word_length, tables.left_t, tables.right_t, bool(rc),
                                  tables.n_features, n_chunks(miss.size), buffer_rows(sub_offsets, tables.word_length),
                                  *tables.kept_choices(bool(rc)))
        size = _NORM_BYTES.get(params, 0) + int(sub_codes.size)
        if size > NORM_CACHE_BYTES:
            table.clear()
            size = int(sub_codes.size)
        table.update((keys[i], float(sq[i])) for i in miss)
        _NORM_BYTES[params] = size
    return sq


class GKMClassifier(ClassifierMixin, BaseEstimator):
    """Binary SVM on the gapped-k-mer (gkm-SVM) or k-mer spectrum kernel, position-free.

    Parameters
    ----------
    word_length : int, default=10
        l: the length of the words (gkm-SVM's ``-l``), at most 16.
    informative : int, default=6
        k: informative columns of a gapped k-mer (``-k``); ``informative == word_length`` is the
        k-mer spectrum kernel.
    C : float, default=1.0
        SVM regularisation (larger: less regularisation).
    reverse_complement : bool, default=True
        Count both strands' gapped k-mers (gkm-SVM's default).
    normalize : bool, default=True
        Unit-length feature vectors (the normalised kernel of gkm-SVM and LS-GKM).
    bias : float, default=1.0
        Value of the constant feature whose weight is the intercept (0: no intercept).
    tol : float, default=1e-2
        Stop when the projected gradients of a pass span less than this (liblinear's rule).
    max_iter : int, default=300
        Largest number of passes; a ConvergenceWarning when reached.
    shrinking : bool, default=True
        liblinear's shrinking (Hsieh et al. 2008): a dual variable at a bound whose gradient
        pushes it further out than the last pass's projected gradients reach is left out of the
        next passes; when the others meet ``tol``, every variable is visited again and the fit
        stops only when all of them meet it (the same rule and optimum as without shrinking).
    random_state : int, numpy Generator or None, default=None
        Seeds the coordinate order (a permutation per pass); None = the fixed seed 0.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (C(l, k) * 4**k,)
        One weight per gapped k-mer, index ``c * 4**k + u`` (:mod:`seqimp.kernels.gkm._kernel`).
    intercept_ : float
        ``bias`` times the constant feature's weight.
    dual_coef_ : ndarray of shape (n,)
        ``y_i alpha_i`` of the training sequences (labels as -1/+1); non-zero for the support
        vectors.
    columns_ : ndarray of shape (C(l, k), k)
        The informative columns of each choice ``c``.
    n_iter_ : int
        Passes run.

    Examples
    --------
    >>> from seqimp.kernels import GKMClassifier                              # doctest: +SKIP
    >>> clf = GKMClassifier(word_length=8, informative=5).fit(codes, y)      # doctest: +SKIP
    >>> clf.decision_function(codes)                                          # doctest: +SKIP
    """

    def __init__(self, word_length=10, informative=6, *, C=1.0, reverse_complement=True, normalize=True, bias=1.0,
                 tol=1e-2, max_iter=300, shrinking=True, random_state=None):
        self.word_length = word_length
        self.informative = informative
        self.C = C
        self.reverse_complement = reverse_complement
        self.normalize = normalize
        self.bias = bias
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        return tags

    def _tables(self):
        return GkmTables(self.word_length, self.informative)

    def _args(self):
        return (self.tables_.word_length, self.tables_.left, self.tables_.right, bool(self.reverse_complement))

    def _args_t(self):
        """:meth:`_args` with the transposed tables (the kernels that walk choice by choice)."""
        return (self.tables_.word_length, self.tables_.left_t, self.tables_.right_t, bool(self.reverse_complement))

    def _scale(self, codes, offsets):
        """1 / ||phi(x)|| (normalised) or 1 per sequence, and ||phi(x)||^2."""
        sq = squared_norms(codes, offsets, self.tables_, self.reverse_complement)
        if not self.normalize:
            return np.ones_like(sq), sq
        # a sequence whose every l-mer covers an unknown base (N) has no gapped k-mer: phi(x) = 0, scale 0
        return np.divide(1.0, np.sqrt(sq), out=np.zeros_like(sq), where=sq > 0), sq

    def _primal(self, codes, offsets, coef, choices):
        """``sum_i coef[i] phi(x_i)`` at the column choices ``choices``, float64, shape (n_features,)."""
        w = np.zeros(self.tables_.n_features)
        if coef.any():
            _weights_of(codes, offsets, *self._args_t(), coef, w, buffer_rows(offsets, self.tables_.word_length),
                        max(n_chunks(choices.size), min(choices.size, WEIGHT_CHUNKS)), choices)
        return w

    def _codes(self, X, name="X"):
        codes, offsets = ragged_codes(X, name)
        check_lengths(offsets, self.tables_.word_length, name)
        return codes, offsets

    def fit(self, X, y, *, alpha_init=None):
        """Fit on DNA sequences ``X`` (codes (n, L), a SequenceSet, or a list of strings or code
        arrays of any lengths >= ``word_length``) and two class labels ``y`` of shape (n,).

        ``alpha_init`` (shape (n,), optional): dual variables to start the coordinate descent
        from, clipped to [0, C] -- ``abs(dual_coef_)`` of an earlier fit on some of the same (or
        nearly the same) sequences, 0 for the others; the weights are rebuilt from them. The
        problem and its optimum are the same; fewer passes reach the tolerance."""
        check_number(self.C, "C", low=0, low_open=True)
        check_number(self.bias, "bias", low=0)
        check_number(self.tol, "tol", low=0, low_open=True)
        max_iter = check_int(self.max_iter, "max_iter")
        self.tables_ = self._tables()
        codes, offsets = self._codes(X)
        y = column_or_1d(y, warn=True)
        if y.shape[0] != offsets.size - 1:
            raise SeqimpError(f"X has {offsets.size - 1} sequences but y has {y.shape[0]} labels")
        check_classification_targets(y)
        if type_of_target(y) != "binary" or np.unique(y).size != 2:
            raise SeqimpError(f"y must hold two classes, got {np.unique(y).size}")
        self.classes_ = np.unique(y)
        sign = np.where(y == self.classes_[1], 1.0, -1.0)
        scale, sq = self._scale(codes, offsets)
        bias = float(self.bias)
        qii = (sq * scale ** 2) + bias * bias
        # a row without features (every l-mer covers N) and bias 0 does not move w: any step goes to C
        qii[qii <= 0] = 1.0
        # with both strands the weights of a choice, not of its mirror (filled in at the end)
        choices, both = self.tables_.kept_choices(bool(self.reverse_complement))
        bias_w = np.zeros(1)
        alpha = np.zeros(sign.size)
        if alpha_init is not None:
            alpha_init = np.asarray(alpha_init, dtype=np.float64)
            if alpha_init.shape != alpha.shape or not np.isfinite(alpha_init).all():
                raise SeqimpError(f"alpha_init must hold {alpha.size} finite values, got shape {alpha_init.shape}")
            alpha = np.clip(alpha_init, 0.0, float(self.C))
            bias_w[0] = float((alpha * sign).sum() * bias)
        # the passes' running weights in float32 (RUNNING_DTYPE): coef_ is rebuilt from the duals
        w = self._primal(codes, offsets, alpha * sign * scale, choices).astype(RUNNING_DTYPE)
        rng = check_random_state(self.random_state)
        buf = np.empty((buffer_rows(offsets, self.tables_.word_length), 2), dtype=self.tables_.left_t.dtype)
        C = float(self.C)
        self.n_iter_ = max_iter
        n = sign.size
        active = np.arange(n, dtype=np.int64)  # the variables not shrunk
        keep = np.empty(n, dtype=np.uint8)
        pg_max_old, pg_min_old = np.inf, -np.inf
        for it in range(max_iter):
            order = active[rng.permutation(active.size)]
            pg_max, pg_min = dcd_pass(codes, offsets, sign, scale, qii, order, alpha, w, bias_w, C, bias,
                                       *self._args_t(), buf, pg_max_old, pg_min_old, keep, choices, both)
            active = order[keep[:order.size] == 1]
            if pg_max - pg_min < self.tol:
                if active.size == n:
                    self.n_iter_ = it + 1
                    break
                # the active variables meet tol: visit all again, shrinking nothing in that pass
                active = np.arange(n, dtype=np.int64)
                pg_max_old, pg_min_old = np.inf, -np.inf
                continue
            if self.shrinking:
                pg_max_old = pg_max if pg_max > 0 else np.inf
                pg_min_old = pg_min if pg_min < 0 else -np.inf
        else:
            warnings.warn(f"GKMClassifier: dual coordinate descent did not reach tol={self.tol:g} in "
                          f"max_iter={max_iter} passes; increase max_iter", ConvergenceWarning, stacklevel=2)
        w = self._primal(codes, offsets, alpha * sign * scale, choices)  # exact: sum_i y_i alpha_i phi(x_i)
        bias_w[0] = float((alpha * sign).sum() * bias)
        if self.reverse_complement:
            mirror_weights(w, self.tables_.columns, self.tables_.word_length, self.tables_.informative)
        self.coef_ = w
        self.intercept_ = float(bias_w[0] * bias)
        self.dual_coef_ = alpha * sign
        self.columns_ = self.tables_.columns
        return self

    def decision_function(self, X):
        """Signed distance to the hyperplane, shape (n,): ``<phi(x), coef_> / ||phi(x)|| + intercept_``."""
        check_is_fitted(self, "coef_")
        codes, offsets = self._codes(X)
        scale, _ = self._scale(codes, offsets)
        rows = buffer_rows(offsets, self.tables_.word_length)
        return _scores(codes, offsets, *self._args(), self.coef_, scale, rows) + self.intercept_

    def predict(self, X):
        """Class labels, shape (n,)."""
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def attributions(self, X):
        """Per-base contributions to the decision value (gkmexplain-style), one array per sequence.

        Every gapped k-mer occurrence contributes ``coef_[f] / ||phi(x)||`` to the decision
        value; the share of each of its k informative bases is a k-th of it (an occurrence on
        the reverse strand is credited to the + strand bases it covers). So the attributions of
        a sequence sum to ``decision_function(x) - intercept_`` exactly (up to rounding).

        Returns
        -------
        ndarray of shape (n, L) when all sequences have length L, else a list of 1-D arrays.
        """
        check_is_fitted(self, "coef_")
        codes, offsets = self._codes(X)
        scale, _ = self._scale(codes, offsets)
        out = np.zeros(codes.size)
        _attributions(codes, offsets, self.tables_.word_length, self.tables_.columns.astype(np.uint64),
                      self.tables_.left, self.tables_.right, bool(self.reverse_complement), self.coef_, scale, out,
                      buffer_rows(offsets, self.tables_.word_length))
        lengths = np.diff(offsets)
        if (lengths == lengths[0]).all():
            return out.reshape(lengths.size, int(lengths[0]))
        return [out[a:b] for a, b in zip(offsets[:-1], offsets[1:])]

    def gapped_kmer_weights(self):
        """``coef_`` as a table, shape (C(l, k), 4**k): row ``c`` = the choice of informative
        columns ``columns_[c]``, column = the base-4 index of the k letters there."""
        check_is_fitted(self, "coef_")
        return self.coef_.reshape(self.columns_.shape[0], 4 ** self.tables_.informative)

    def lmer_scores(self):
        """The unnormalised score ``<phi(u), coef_>`` of every l-mer ``u`` on its own (both strands with
        ``reverse_complement``), shape (4**l,), by l-mer index (the l-mer weights gkm-SVM lists).
        Refused for l > 12 (4**l scores)."""
        check_is_fitted(self, "coef_")
        if self.tables_.word_length > 12:
            raise SeqimpError(f"lmer_scores: 4**{self.tables_.word_length} l-mers are too many; word_length <= 12")
        return lmer_scores(self.tables_, self.coef_, bool(self.reverse_complement))
