"""An LS-GKM model in memory (:class:`LSGKMModel`): support vectors, coefficients and kernel,
scoring sequences as LS-GKM's ``gkmpredict`` does (the kernels:
:mod:`seqimp.kernels.gkm._lsgkm_kernel`; the model file: :mod:`seqimp.kernels.gkm._lsgkm`).

As LS-GKM does, a letter other than A, C, G, T (either case) in a support vector or a scored
sequence is read as A; each reading or scoring that meets one says so in one warning.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ...errors import SeqimpError
from ._lsgkm_kernel import (KERNEL_NAMES, RBF_TYPES, WEIGHTED_TYPES, all_windows, coefficient_table, cross_kernels,
                            hadamard_eigenvalues, indexed_sv_kernels, linear_scores, mismatch_masks, mismatch_weights,
                            position_weights, self_kernels, smoothed_table, window_index)

__all__ = ["LSGKMModel", "MIN_L", "MAX_L"]

#: LS-GKM's limits on the word length (``svm_check_parameter``: ``2 <= L <= 12``).
MIN_L, MAX_L = 2, 12
#: Sequences scored together by the RBF kernels (the kernel values of a batch are held at once).
RBF_BATCH_CELLS = 1 << 22

_LUT = np.zeros(256, dtype=np.uint8)
_VALID = np.zeros(256, dtype=bool)
for _i, _c in enumerate("ACGT"):
    for _b in (_c, _c.lower()):
        _LUT[ord(_b)] = _i
        _VALID[ord(_b)] = True


def _from_bytes(items, what, stacklevel=2):
    """Codes of byte strings (a letter other than ACGT read as A, with one warning).

    Returns
    -------
    codes : ndarray of shape (total,), uint8
    offsets : ndarray of shape (n + 1,), int64
    """
    lengths = np.fromiter((len(b) for b in items), dtype=np.int64, count=len(items))
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    raw = np.frombuffer(b"".join(items), dtype=np.uint8)
    bad = np.flatnonzero(~_VALID[raw])
    if bad.size:
        first = int(bad[0])
        s = int(np.searchsorted(offsets, first, side="right") - 1)
        letter = chr(raw[first])
        warnings.warn(f"{what}: {bad.size} letter(s) other than ACGT in "
                      f"{np.unique(np.searchsorted(offsets, bad, side='right')).size} sequence(s) (first: "
                      f"{letter!r} in sequence {s} at position {first - offsets[s] + 1}) read as A, as LS-GKM does",
                      stacklevel=stacklevel)
    return _LUT[raw], offsets


def _encode(X, name):
    """``X`` (a string, strings, a SequenceSet, a code array of shape (n, L) or a list of 1-D code
    arrays; codes A=0, C=1, G=2, T=3) as flat codes and offsets (:func:`_from_bytes`)."""
    if isinstance(X, (str, bytes)):
        X = [X]
    alphabet = getattr(getattr(X, "alphabet", None), "name", None)
    if alphabet is not None and hasattr(X, "codes"):  # a SequenceSet
        if alphabet != "dna":
            raise SeqimpError(f"{name}: a {alphabet} SequenceSet; LS-GKM models read DNA")
        X = np.asarray(X.codes)
    if isinstance(X, np.ndarray) and X.dtype.kind in "iub":
        if X.ndim != 2:
            raise SeqimpError(f"{name}: encoded sequences must have shape (n, L), got {X.shape}")
        if X.size and (X.min() < 0 or X.max() > 4):
            raise SeqimpError(f"{name}: codes must be 0..3 (A, C, G, T) or 4 (unknown: N), got {X.min()}..{X.max()}")
        if X.shape[0] == 0:
            raise SeqimpError(f"{name}: no sequences")
        if X.size and X.max() == 4:         # N: read as A, as gkmpredict reads it (one warning)
            r, pos = divmod(int(np.flatnonzero(X.ravel() == 4)[0]), X.shape[1])
            warnings.warn(f"{name}: {int((X == 4).sum())} unknown base(s) (first: sequence {r} at position {pos + 1}) "
                          "read as A, as LS-GKM does", stacklevel=3)
            X = np.where(X == 4, 0, X)
        offsets = np.arange(X.shape[0] + 1, dtype=np.int64) * X.shape[1]
        return np.ascontiguousarray(X, dtype=np.uint8).reshape(-1), offsets
    try:
        items = list(X)
    except TypeError:
        raise SeqimpError(f"{name}: sequences must be strings or codes, got {type(X).__name__}") from None
    if not items:
        raise SeqimpError(f"{name}: no sequences")
    if all(isinstance(s, (str, bytes)) for s in items):
        data = [s.encode("utf-8", "surrogateescape") if isinstance(s, str) else s for s in items]
        return _from_bytes(data, name, stacklevel=5)  # the caller of decision_function or kernel_matrix
    parts = []
    for i, x in enumerate(items):
        arr = np.asarray(x)
        if arr.ndim != 1 or arr.dtype.kind not in "iub" or (arr.size and (arr.min() < 0 or arr.max() > 3)):
            raise SeqimpError(f"{name}: sequence {i} is neither a string nor a 1-D array of codes 0..3")
        parts.append(arr.astype(np.uint8))
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([p.size for p in parts], out=offsets[1:])
    return np.concatenate(parts), offsets


class LSGKMModel:
    """An LS-GKM model: support vectors, their coefficients and the kernel, scoring sequences as
    ``gkmpredict`` does.

    Parameters
    ----------
    kernel : str
        LS-GKM's kernel name (:data:`~seqimp.kernels.gkm._lsgkm_kernel.KERNEL_NAMES`; its index is ``-t``).
    l, k, d : int
        Word length, informative columns, largest number of mismatches (``2 <= l <= 12``,
        ``1 <= k <= l``, ``0 <= d <= l - k``).
    support_vectors : sequence of str
        The support vectors' sequences (n_sv of them, each at least ``l`` long), their letters as
        in the file (read for the kernel as LS-GKM reads them: upper case, other than ACGT as A).
    dual_coef : array-like of shape (n_sv,)
        ``y_s alpha_s`` of each support vector.
    rho : float
        The decision value is ``sum_s dual_coef[s] k(x, sv_s) - rho``.
    reverse_complement : bool, default=True
        Both strands (LS-GKM's default; ``norc 1``, ``gkmtrain -R``, is False).
    gamma : float, optional
        The RBF kernels' ``gamma`` (``-t 3``, ``-t 5``).
    M, H : int and float, optional
        The center-weighted kernels' weight and half-life (``-t 4``, ``-t 5``).
    svm_type : str, default="c_svc"
    labels : tuple of two ints, default=(1, -1)
        A positive decision value predicts ``labels[0]``.
    path : str, optional
        The file read, for messages.

    Attributes
    ----------
    t : int
        The kernel type (``-t``).
    mismatch_weights : ndarray of shape (d + 1,)
        The weight of a pair of l-mers at ``m`` mismatches (:func:`~._lsgkm_kernel.mismatch_weights`).
    sv_norms : ndarray of shape (n_sv,)
        ``sqrt(K(sv, sv))`` of every support vector (the raw kernel).
    alphas : ndarray of shape (n_sv,)
        ``|dual_coef|``.
    """

    def __init__(self, kernel, l, k, d, support_vectors, dual_coef, rho, *, reverse_complement=True, gamma=None,
                 M=None, H=None, svm_type="c_svc", labels=(1, -1), path=None):
        if kernel not in KERNEL_NAMES:
            raise SeqimpError(f"kernel must be one of {', '.join(KERNEL_NAMES)}, got {kernel!r}")
        self.kernel, self.t = kernel, KERNEL_NAMES.index(kernel)
        self.l, self.k, self.d = int(l), int(k), int(d)
        if not (MIN_L <= self.l <= MAX_L and 1 <= self.k <= self.l and 0 <= self.d <= self.l - self.k):
            raise SeqimpError(f"LS-GKM needs 2 <= l <= 12, 1 <= k <= l and 0 <= d <= l - k; got l={l}, k={k}, d={d}")
        self.reverse_complement = bool(reverse_complement)
        self.gamma = None if gamma is None else float(gamma)
        self.M = None if M is None else int(M)
        self.H = None if H is None else float(H)
        if self.t in RBF_TYPES and (self.gamma is None or not math.isfinite(self.gamma)):
            raise SeqimpError(f"the {kernel} kernel needs a finite gamma, got {gamma!r}")
        if self.t in WEIGHTED_TYPES and (self.M is None or not 1 <= self.M <= 255 or self.H is None
                                         or not (math.isfinite(self.H) and self.H > 0)):
            raise SeqimpError(f"the {kernel} kernel needs M in 1..255 and a finite H > 0, got M={M!r}, H={H!r}")
        self.svm_type, self.labels, self.path = svm_type, tuple(labels), path
        self.rho = float(rho)
        self.support_vectors = list(support_vectors)
        self.dual_coef = np.asarray(dual_coef, dtype=np.float64).reshape(-1)
        if self.dual_coef.size != len(self.support_vectors):
            raise SeqimpError(f"{len(self.support_vectors)} support vectors but {self.dual_coef.size} coefficients")
        self.mismatch_weights = mismatch_weights(self.t, self.l, self.k, self.d)
        data = [s.encode("latin-1", "replace") if isinstance(s, str) else bytes(s) for s in self.support_vectors]
        short = [i for i, s in enumerate(data) if len(s) < self.l]
        if short:
            raise SeqimpError(f"{path or 'model'}: support vector {short[0]} has length {len(data[short[0]])}, "
                              f"shorter than L={self.l}")
        codes, offsets = _from_bytes(data, f"{path or 'model'}: support vectors", stacklevel=4) if data else \
            (np.zeros(0, np.uint8), np.zeros(1, np.int64))
        self._sv = self._windows(codes, offsets)
        self.sv_norms = np.sqrt(self._self_kernels(self._sv))
        self._table = None  # the linear kernels' smoothed table, built on first use
        self._index = None  # the RBF kernels' index of the support vectors' windows, built on first use
        self._masks = None  # and the xor masks of up to d mismatches

    @property
    def alphas(self):
        return np.abs(self.dual_coef)

    @property
    def n_support(self):
        return self.dual_coef.size

    def __repr__(self):
        extra = "".join(f", {n}={getattr(self, n)!r}" for n in ("gamma", "M", "H") if getattr(self, n) is not None)
        return (f"LSGKMModel(kernel={self.kernel!r}, l={self.l}, k={self.k}, d={self.d}{extra}, "
                f"reverse_complement={self.reverse_complement}, n_support={self.n_support})")

    # -- windows and kernels --

    def _windows(self, codes, offsets):
        """The windows of sequences: (fwd, rev, weights, window offsets), each of the first three of
        shape (n_windows,), int64 (:func:`~._lsgkm_kernel.all_windows`, :func:`~._lsgkm_kernel.position_weights`)."""
        fwd, rev, woff = all_windows(codes, offsets, self.l)
        if self.t in WEIGHTED_TYPES:
            wts = np.empty(fwd.size, dtype=np.int64)
            counts = np.diff(woff)
            for n in np.unique(counts):
                table = position_weights(int(n), self.M, self.H)
                for s in np.flatnonzero(counts == n):
                    wts[woff[s]:woff[s + 1]] = table
        else:
            wts = np.ones(fwd.size, dtype=np.int64)
        return fwd, rev, wts, woff

    def _self_kernels(self, win):
        fwd, rev, wts, woff = win
        return self_kernels(fwd, rev, wts, woff, self.reverse_complement, self.mismatch_weights, self.d)

    def _sequences(self, X, name):
        codes, offsets = _encode(X, name)
        lengths = np.diff(offsets)
        short = np.flatnonzero(lengths < self.l)
        if short.size:
            raise SeqimpError(f"{name}: sequence {short[0]} has length {lengths[short[0]]}, shorter than the "
                              f"model's L={self.l} (no l-mer)")
        return self._windows(codes, offsets)

    def kernel_matrix(self, X, Y=None):
        """LS-GKM's normalised kernel ``k(x, y)`` (with the RBF kernels ``exp(gamma (k - 1))``).

        Parameters
        ----------
        X : str, sequence of str, SequenceSet, codes of shape (n, L) or list of 1-D code arrays
            n sequences of any lengths >= l.
        Y : same, optional
            m sequences; default ``X``.

        Returns
        -------
        ndarray of shape (n, m)
        """
        wx = self._sequences(X, "X")
        wy = wx if Y is None else self._sequences(Y, "Y")
        raw = cross_kernels(wx[0], wx[2], wx[3], wy[0], wy[1], wy[2], wy[3], self.reverse_complement,
                            self.mismatch_weights, self.d)
        nx = np.sqrt(self._self_kernels(wx))
        ny = nx if Y is None else np.sqrt(self._self_kernels(wy))
        out = raw / np.outer(nx, ny)
        if self.t in RBF_TYPES:
            out = np.exp(self.gamma * (out - 1.0))
        return out

    def _linear_table(self):
        """``S`` of :func:`~._lsgkm_kernel.smoothed_table` (shape (4**l,)), built once."""
        if self._table is None:
            fwd, rev, wts, woff = self._sv
            coef = self.dual_coef / self.sv_norms if self.n_support else self.dual_coef
            table = coefficient_table(fwd, rev, wts, woff, coef, self.reverse_complement, self.l)
            self._table = smoothed_table(table, hadamard_eigenvalues(self.mismatch_weights, self.l))
        return self._table

    def decision_function(self, X):
        """``gkmpredict``'s score of every sequence: ``sum_s dual_coef[s] k(x, sv_s) - rho``.

        Parameters
        ----------
        X : str, sequence of str, SequenceSet, codes of shape (n, L) or list of 1-D code arrays
            n DNA sequences of any lengths >= l (codes A=0, C=1, G=2, T=3). gkmpredict reads at
            most 2,047 letters of a sequence; all letters are scored here.

        Returns
        -------
        ndarray of shape (n,), float64
        """
        fwd, rev, wts, woff = self._sequences(X, "X")
        sq = self._self_kernels((fwd, rev, wts, woff))
        if self.t not in RBF_TYPES:
            return linear_scores(fwd, wts, woff, sq, self._linear_table(), self.rho)
        if self._index is None:
            self._index = window_index(*self._sv, self.reverse_complement, self.l)
            self._masks = mismatch_masks(self.l, self.d)
        masks, counts = self._masks
        n = woff.size - 1
        out = np.empty(n)
        step = max(1, RBF_BATCH_CELLS // max(self.n_support, 1))
        for a in range(0, n, step):
            b = min(n, a + step)
            part = slice(woff[a], woff[b])
            K = indexed_sv_kernels(fwd[part], wts[part], woff[a:b + 1] - woff[a], *self._index, self.n_support, masks,
                                   counts, self.mismatch_weights, self.d)
            K /= np.sqrt(sq[a:b])[:, None] * self.sv_norms[None, :]
            out[a:b] = np.exp(self.gamma * (K - 1.0)) @ self.dual_coef - self.rho
        return out

    def __call__(self, codes):
        """The score function of seqimp's scorers: :meth:`decision_function` of codes (n, L)."""
        return self.decision_function(codes)

    def predict(self, X):
        """``labels[0]`` where the decision value is positive, else ``labels[1]``; shape (n,)."""
        return np.where(self.decision_function(X) > 0, self.labels[0], self.labels[1])
