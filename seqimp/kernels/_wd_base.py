"""What the weighted-degree estimators share (:mod:`seqimp.kernels._estimators`' ``WDClassifier``,
:mod:`seqimp.kernels._wd_regressor`' ``WDRegressor``): input handling, the training routes'
choice, the memory check, scoring and unfolding into :class:`~seqimp.PositionalWeights`, and
the parameters' documentation."""

from __future__ import annotations

import contextlib
import sys
import time

import numpy as np
from sklearn.base import BaseEstimator, is_regressor
from sklearn.utils.validation import check_is_fitted

from ..io import get_alphabet
from ..errors import SeqimpError, check_choice, check_random_state
from ._implicit import check_codes, wd_scores
from ._memory import check_training_memory
from ._params import check_degree_shifts
from ._wd import wd_kernel
from ._weights import PositionalWeights

__all__ = []

_CHUNK_ENTRIES = 1 << 24  # entries of a Gram or feature block scored at once

def _liblinear_seed(random_state) -> int:
    """The int liblinear wants, drawn from the one random-state convention."""
    return int(check_random_state(random_state).integers(2**31 - 1))


class _WDModel(BaseEstimator):
    """Input handling, routes and unfolding shared by the WD estimators."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        return tags

    def _method(self):
        check_choice(self.method, "method", ("auto", "implicit", "linear", "kernel"))
        if self.method in ("implicit", "linear") and self.shifts:
            raise SeqimpError(f"method={self.method!r} needs shifts=0 (the WDS kernel has no explicit "
                              "feature map here); use method='kernel'")
        if self.method == "auto":
            return "implicit" if self.shifts == 0 else "kernel"
        return self.method

    def _check_memory(self, codes, method):
        """Refuse, before allocating, a fit whose working memory exceeds ``memory_budget``."""
        svm_solver = "dcd" if is_regressor(self) or self.client is not None else self._solver(codes.shape[0])
        check_training_memory(codes, self.degree_, get_alphabet(self.alphabet).size, method, self.memory_budget,
                              shifts=self.shifts_, problem="ridge" if is_regressor(self) else "svm",
                              solver=svm_solver, threads=1 if is_regressor(self) or self.client is not None
                              else self._threads(codes.shape[0]),
                              extrapolate=bool(getattr(self, "extrapolate", False)))

    @contextlib.contextmanager
    def _step(self, what):
        """With ``verbose``, a line on stderr before and after a training step, with its time."""
        if not self.verbose:
            yield
            return
        name = type(self).__name__
        print(f"{name}: {what} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        yield
        print(f"{name}: {what}: done in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)

    def _as_codes(self, X, alphabet):
        """Sequences -> (n, L) uint8 codes; the one place input is converted (a memory map is kept)."""
        return check_codes(X, "X", alphabet)

    def _fit_codes(self, X, n_labels):
        codes = self._as_codes(X, self.alphabet)
        if codes.shape[0] != n_labels:
            raise SeqimpError(f"X has {codes.shape[0]} sequences but y has {n_labels} labels")
        self.degree_, self.shifts_ = check_degree_shifts(self.degree, self.shifts, codes.shape[1],
                                                         what="training sequences")
        self.n_features_in_ = codes.shape[1]
        self.length_ = codes.shape[1]
        self.alphabet_ = get_alphabet(self.alphabet).name
        return codes

    def _test_codes(self, X):
        check_is_fitted(self, "intercept_")
        codes = self._as_codes(X, self.alphabet_)
        if codes.shape[1] != self.length_:
            raise SeqimpError(f"X has {codes.shape[1]} features, but {type(self).__name__} is "
                              f"expecting {self.length_} features as input (test sequences have "
                              f"length {codes.shape[1]}, training sequences {self.length_})")
        return codes

    def _raw_scores(self, X):
        codes = self._test_codes(X)
        out = np.empty(codes.shape[0])
        if self.method_ in ("implicit", "linear"):
            # matrix-free: phi(x).coef_ from the codes, parallel over rows, read in blocks of rows
            step = max(1, _CHUNK_ENTRIES // max(1, self.length_))
            for a in range(0, codes.shape[0], step):
                out[a:a + step] = wd_scores(codes[a:a + step], self.coef_, degree=self.degree_,
                                            alphabet=self.alphabet_)
        else:
            step = max(1, _CHUNK_ENTRIES // max(1, self.support_codes_.shape[0]))
            for a in range(0, codes.shape[0], step):
                G = wd_kernel(codes[a:a + step], self.support_codes_, degree=self.degree_,
                              shifts=self.shifts_, alphabet=self.alphabet_)
                out[a:a + step] = G @ self.dual_coef_
        return out + self.intercept_

    def positional_weights(self) -> PositionalWeights:
        """The fitted model as an exact linear scoring system over positional k-mers.

        Returns
        -------
        PositionalWeights
            ``tables[k-1]`` of shape (L-k+1, A**k) with
            ``positional_weights().score(X) == decision_function(X)`` (up to
            floating-point rounding), for both routes and any shift.
        """
        check_is_fitted(self, "intercept_")
        if self.method_ in ("implicit", "linear"):
            return PositionalWeights.from_wd_coef(self.coef_, self.intercept_, length=self.length_,
                                                  degree=self.degree_, alphabet=self.alphabet_)
        return PositionalWeights.from_kernel_expansion(
            self.support_codes_, self.dual_coef_, self.intercept_, degree=self.degree_,
            shifts=self.shifts_, alphabet=self.alphabet_)


_PARAMS_DOC = """
    degree : int, default=8
        Largest k-mer length K of the WD kernel, ``1 <= K <= L``.
    shifts : int, default=0
        Largest shift S of the WDS kernel, ``0 <= S < L``.
    method : {"auto", "implicit", "linear", "kernel"}, default="auto"
        Training route: "implicit" (linear model on WD features computed on demand from
        the codes, nothing stored per non-zero; needs shifts=0), "linear" (the same model
        on the explicit sparse feature matrix, solved by liblinear / sparse CG; ~30 bytes
        per non-zero) or "kernel" (precomputed Gram matrix); "auto" is "implicit" when
        shifts=0, else "kernel". See ``docs/training-at-scale.md``.
    alphabet : str or Alphabet, default="dna"
        Used to encode strings and to size the positional tables.
    tol : float, default=1e-4
        Stopping tolerance of the solver.
    verbose : bool or "log", default=False
        Print a line on stderr before and after each training step (feature map or
        Gram matrix, solver) with its time, for long fits; the implicit route also
        reports each pass (objective, and progress with ETA for passes over a second).
        ``"log"``: the same, but each pass's line at DEBUG level on the ``seqimp`` log.
    memory_budget : int, str or None, default=None
        Bytes the fit may allocate (an int, or a string such as ``"4GB"``); None is the
        memory available now (``MemAvailable``). A fit whose estimated working memory
        exceeds it is refused before allocating, with the size it needs."""
