"""scikit-learn estimators on the weighted-degree string kernels.

Three training routes, all unfolding exactly into :class:`~seqimp.PositionalWeights`:

* ``shifts == 0`` (``method="auto"`` picks ``"implicit"``): a linear model on the WD
  features computed on demand from the codes inside numba kernels
  (:mod:`seqimp.kernels._dcd`: dual coordinate descent for the SVM, :mod:`~seqimp.kernels._ridge`: conjugate
  gradients for ridge); memory is the codes, the weight vector and O(n) dual
  variables, nothing per non-zero. With ``client=`` it runs on a Dask cluster.
* ``method="linear"`` (shifts 0): the same linear model on the
  explicit sparse WD features (:func:`~seqimp.wd_features`). Memory and time grow
  linearly with the number of sequences: about 30 bytes per non-zero (the CSR matrix plus
  liblinear's copy), n * sum_k (L-k+1) non-zeros, i.e. ~3.2 GB per 10^5 sequences of
  length 141 at degree 8 (10^6 such sequences need ~32 GB; shorter sequences or a
  smaller degree scale down proportionally).
* ``shifts > 0`` (``"kernel"``): a kernel machine on the precomputed WDS Gram
  matrix (quadratic in the number of sequences; some thousands of sequences).

Solvers: the classifier uses the hinge-loss SVM in both routes
(:class:`~sklearn.svm.LinearSVC` with ``loss="hinge"``, liblinear's dual coordinate
descent, versus :class:`~sklearn.svm.SVC` with ``kernel="precomputed"``), so C
means the same thing in both. The regressor is ridge regression with an
unpenalised intercept in both routes (:class:`~sklearn.linear_model.Ridge` on the
features, or the same problem solved in its dual form on the centred Gram matrix),
so for ``shifts=0`` both routes fit the same model.

This module holds ``WDClassifier``; ``WDRegressor`` is in :mod:`seqimp.kernels._wd_regressor`
(importable from here too) and what both share in :mod:`seqimp.kernels._wd_base`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ..io import get_alphabet
from ..errors import SeqimpError, check_choice, check_number
from ._dcd import check_threads, dcd_svm
from ._sgd import fast_svm
from ._wd import wd_features, wd_kernel
from ._unfold import check_table_size
from ._wd_base import _PARAMS_DOC, _WDModel, _liblinear_seed

__all__ = ["WDClassifier", "WDRegressor"]

#: solver="auto" trains this many sequences or more with the fast route (fewer: the exact one).
AUTO_FAST_FROM = 50_000


class WDClassifier(ClassifierMixin, _WDModel):
    __doc__ = f"""Binary SVM on the weighted-degree (with shifts) string kernel.

    Parameters
    ----------{_PARAMS_DOC}
    C : float, default=1.0
        SVM regularisation (larger: less regularisation).
    max_iter : int, default=1000
        Iteration limit of liblinear (linear route); the kernel route runs to ``tol``.
    class_weight : dict or "balanced", optional
        Passed to the SVM.
    random_state : int, numpy Generator or None, default=None
        Seeds the coordinate order (a permutation per pass): of the implicit route directly,
        of liblinear (linear route) through an int drawn from
        ``seqimp.errors.check_random_state(random_state)``; default None = fixed seed 0.
    client : dask.distributed.Client or str, optional
        Train the implicit route on a Dask cluster (CoCoA+, see ``docs/training-at-scale.md``);
        needs the ``dask`` extra. A scheduler address (``"tcp://host:8786"``) is connected
        for the fit and closed after it, and keeps the model clonable and picklable; with a
        Client object prefer :func:`seqimp.kernels.fit_distributed`, which leaves no client
        in the model.
    n_jobs : int or None, default=None
        Implicit route, one machine: threads of the coordinate-descent passes ("dcd" and "fast";
        -1: every core the process may use, :func:`seqimp._utils.cores.available_cores`: its affinity
        mask, cgroup CPU quota, ``NUMBA_NUM_THREADS`` and ``OMP_NUM_THREADS``). None: one thread, the
        model the same bits on every run (``docs/multicore.md``, "Why one thread stays the default"). With two or
        more, each pass runs on the
        threads sharing one weight vector (:mod:`seqimp.kernels._async_dcd`); the exact route
        then finishes with one-thread passes on the weights recomputed from the dual variables,
        the fast route returns the weights of its averaged dual variables. The model is the
        same one up to the last digits, which depend on the threads' scheduling
        (``docs/multicore.md``).
    deterministic : bool, default=False
        True: one thread steps every row whatever ``n_jobs`` (the model bit for bit the same
        on every machine, thread count and run: the route of every earlier release).
    keep_best : bool or None, default=None
        "fast" on one machine with ``refit=False``: return the model of the pass that did best
        on the held-out rows (accuracy, then hinge loss) instead of the last pass's, which at
        10^7 sequences generalises worse (``docs/multicore.md``); ``best_pass_`` says which.
        None: True with ``refit=False``, False with ``refit=True`` (the slice is trained on,
        nothing is held out to choose by).
    solver : {"auto", "dcd", "fast", "sgd"}, default="auto"
        Implicit route, one machine: "dcd" solves the SVM to liblinear's stopping rule
        (``tol``; the exact route); "fast" takes the same dual coordinate descent passes on
        all rows but a validation slice and stops when the model stops changing (held-out
        hinge loss and accuracy within ``validation_tol``, relative weight change within
        ``weight_tol``, for ``patience`` passes in a row); "sgd" is averaged SGD with the
        same stopping rule. "auto" is "dcd" below 50,000 training sequences, else "fast".
        See ``docs/training-at-scale.md`` for when each is right.
    validation_fraction : float, default=0.02
        "fast"/"sgd": share of the sequences held out for the stopping rule (at most 20,000),
        drawn with ``random_state``; once the rule stops they are trained on too, in passes
        over all sequences until the weight change is within ``weight_tol`` again.
    validation_tol : float, default=1e-3
        "fast"/"sgd": largest relative change of the held-out hinge loss, and absolute change
        of the held-out accuracy, between passes that counts as settled.
    weight_tol : float, default=1e-2
        "fast"/"sgd": largest relative change of the weights over a pass that counts as settled.
    patience : int, default=2
        "fast"/"sgd": settled passes in a row before the fit stops.
    optimum_tol : float or None, default=None
        "fast" on one machine: the fit is settled only when, besides the rule above, the
        solver's iterate is within this estimated distance of the SVM's optimum, in units of
        ``||w|| / sqrt(n)`` (the distance bound of the dual objective, its remaining gain
        extrapolated from the decay of the last passes' gains;
        :class:`seqimp.kernels._sgd_rule.DistanceToOptimum`). None: not asked. Ask it when
        you need the exact fit's top positional k-mers, not only its accuracy (measured in
        ``docs/training-at-scale.md``). The Dask route does not estimate it and refuses it.
    average : float or None, default=3.0
        "fast": the model is the polynomial-decay average of the pass-end iterates (Shamir
        and Zhang 2013) with this eta >= 0: after pass t the average moves to the new iterate
        by (eta + 1) / (t + eta), so early passes are forgotten and late ones weigh most (0:
        the plain mean). The stopping rule watches the average. None: the last iterate.
        See ``docs/training-at-scale.md`` for the measured effect.
    shrink_margin : float or None, default=None
        "fast" on one machine: from pass ``SHRINK_FROM`` (3) on, skip the rows whose dual
        variable is 0 and whose margin exceeds 1 + shrink_margin, with a pass over all rows
        every ``RECHECK``-th pass and before the fit stops (``seqimp.kernels._sgd.fast_svm``). None:
        liblinear's shrinking.
    refit : bool, default=True
        "fast" on one machine: once the rule stops, train on the validation slice too
        (passes over all sequences until settled again). False: the slice stays out of
        training, the model is one of the other sequences (with a small
        ``validation_fraction``, nearly all of them).
    extrapolate : bool, default=False
        "fast" on one machine: after every pass, a line search of the dual along
        the pass's move (``seqimp.kernels._extrapolate``); the point is kept only where it
        raises the dual, so the fit stays on the same problem. Fewer passes where coordinate
        descent's gains decay slowly (10^6 sequences and more, ``docs/training-at-scale.md``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``decision_function > 0`` means ``classes_[1]``.
    method_ : {{"implicit", "linear", "kernel"}}
    length_, n_features_in_ : int
        Training sequence length L.
    coef_ : ndarray of shape (n_wd_features,)
        Implicit and linear routes: weight of each :func:`~seqimp.wd_features` column.
    support_ : ndarray of shape (n_support,)
        Kernel route: indices of the support sequences in the training set.
    support_codes_ : ndarray of shape (n_support, L), uint8
        Kernel route: the support sequences.
    dual_coef_ : ndarray of shape (n_support,) or (n_train,)
        Kernel route: signed dual coefficients y_j a_j of the support sequences; implicit
        route with solver "dcd": y_i a_i of every training sequence (0 off the support), the
        start ``fit(..., alpha_init=abs(dual_coef_))`` of a refit on nearly the same sequences.
    intercept_ : float
    n_iter_ : int
        Iterations of the solver: passes over the data on the implicit route (rounds on a
        Dask cluster), liblinear's or libsvm's count on the others.
    dual_objective_ : float
        Implicit route, "dcd" (and Dask): the SVM dual objective at the solution, a lower
        bound of the primal optimum (``primal - dual_objective_`` is the duality gap); NaN
        for "fast" and "sgd", which stop on other grounds.
    solver_ : {"dcd", "fast", "sgd", "cocoa", "cocoa-fast"}
        Implicit route: the solver that ran ("cocoa": on a Dask cluster to ``tol``;
        "cocoa-fast": on a Dask cluster with the fast route's stopping rule; "sgd" does not
        run on a cluster and means "fast" there).
    stopping_history_ : list of tuple
        "fast"/"sgd": per pass (held-out hinge loss, held-out accuracy, relative weight
        change, settled); NaN loss and accuracy in the final passes over all sequences.
    validation_rows_ : ndarray of shape (m,)
        "fast"/"sgd": the rows (0-based) held out for the stopping rule.
    converged_ : bool
        Implicit route: whether the solver's stopping rule stopped it (liblinear's rule for
        "dcd"/"cocoa", the plateau rule for "fast"/"sgd"/"cocoa-fast"), not ``max_iter``.
    n_threads_ : int
        Implicit route, one machine: the threads the coordinate-descent passes ran on.
    best_pass_ : int or None
        "fast"/"sgd" with ``keep_best``: the pass whose model was returned (1-based); None
        without.

    Notes
    -----
    The kernel is not normalised: normalising a WDS kernel makes the score
    non-linear in the positional k-mers, which would break exact unfolding.
    Only binary problems are supported (one positional weight system per model).

    Examples
    --------
    >>> clf = WDClassifier(degree=3).fit(["ACGTAC", "ACGTTT", "TTGTAC", "GGGTAC"], [1, 1, 0, 0])
    >>> w = clf.positional_weights()
    """

    def __init__(self, degree=8, shifts=0, C=1.0, *, method="auto", alphabet="dna", tol=1e-4,
                 max_iter=1000, class_weight=None, random_state=None, verbose=False, memory_budget=None,
                 client=None, n_jobs=None, solver="auto", validation_fraction=0.02, validation_tol=1e-3,
                 weight_tol=1e-2, patience=2, average=3.0, optimum_tol=None, shrink_margin=None, refit=True,
                 extrapolate=False, deterministic=False, keep_best=None):
        self.degree = degree
        self.shifts = shifts
        self.C = C
        self.method = method
        self.alphabet = alphabet
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.random_state = random_state
        self.verbose = verbose
        self.memory_budget = memory_budget
        self.client = client
        self.n_jobs = n_jobs
        self.solver = solver
        self.average = average
        self.validation_fraction = validation_fraction
        self.validation_tol = validation_tol
        self.weight_tol = weight_tol
        self.patience = patience
        self.optimum_tol = optimum_tol
        self.shrink_margin = shrink_margin
        self.refit = refit
        self.extrapolate = extrapolate
        self.deterministic = deterministic
        self.keep_best = keep_best

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y, *, alpha_init=None):
        """Train on sequences ``X`` (list of str, SequenceSet or (n, L) codes) and labels ``y``.

        ``alpha_init`` (shape (n,), optional): dual variables to start the exact dual coordinate
        descent from (the implicit route with solver "dcd"), e.g. the ``dual_coef_`` magnitudes of an
        earlier fit on nearly the same sequences; only the start, the optimum is the same."""
        y = column_or_1d(y, warn=True)
        if y.shape[0] == 0:
            raise SeqimpError("y is empty (0 samples)")
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.size < 2:
            raise SeqimpError(f"y has only one class ({classes[0]}); a classifier needs two")
        if classes.size > 2:
            raise SeqimpError("Only binary classification is supported. The type of the target "
                              f"is {type_of_target(y, input_name='y')} ({classes.size} classes).")
        check_number(self.C, "C", low=0, low_open=True)
        method = self._method()
        codes = self._fit_codes(X, y.shape[0])
        self.classes_ = classes
        yb = (y == classes[1]).astype(np.int64)
        if self.client is not None and method != "implicit":
            raise SeqimpError(f"client= trains the implicit route only; method={self.method!r} with "
                              f"shifts={self.shifts_} uses the {method} route")
        self._check_memory(codes, method)
        self.__dict__.pop("dual_coef_", None)  # a refit by another route keeps no stale dual coefficients
        if alpha_init is not None and not self.starts_from_duals(codes.shape[0]):
            raise SeqimpError("alpha_init starts the exact dual coordinate descent only (the implicit route, "
                              "solver 'dcd', no client)")
        if method == "implicit" and self.client is not None:
            from ._distributed import client_for, dcd_svm_distributed
            from ._sgd_rule import PlateauRule

            fast = self._solver(codes.shape[0]) != "dcd"
            if fast and self.optimum_tol is not None:
                raise SeqimpError("optimum_tol is estimated by the single-machine fast route only; the Dask route "
                                  "(client=) stops by validation_tol and weight_tol: set optimum_tol=None")
            if fast and (self.shrink_margin is not None or not self.refit or self.extrapolate):
                raise SeqimpError("shrink_margin, refit=False and extrapolate are options of the single-machine fast "
                                  "route; the Dask route (client=) shrinks as liblinear, trains on the slice once "
                                  "settled and does not extrapolate: set shrink_margin=None, refit=True, "
                                  "extrapolate=False")
            rule = PlateauRule(self.validation_tol, self.weight_tol, self.patience) if fast else None
            with self._step(f"distributed dual coordinate descent (CoCoA+) on {codes.shape[0]} sequences"), \
                    client_for(self.client) as client:
                sol = dcd_svm_distributed(codes, yb, client=client, degree=self.degree_, C=self.C,
                                          class_weight=self.class_weight, tol=self.tol, max_iter=self.max_iter,
                                          random_state=self.random_state, alphabet=self.alphabet_,
                                          stopping=rule, validation_fraction=self.validation_fraction,
                                          average=self.average, verbose=self.verbose)
            self.coef_ = sol.coef
            self.intercept_ = sol.intercept
            self.n_iter_ = sol.n_iter
            self.converged_ = bool(sol.converged)
            self.dual_objective_ = float("nan") if fast else sol.dual_objective
            self.solver_ = "cocoa-fast" if fast else "cocoa"
            if fast:
                self.stopping_history_ = sol.history
                self.validation_rows_ = sol.validation_rows
        elif method == "implicit" and self._solver(codes.shape[0]) == "dcd":
            self.n_threads_ = self._threads(codes.shape[0])
            with self._step(f"dual coordinate descent on {codes.shape[0]} sequences (implicit WD features)"):
                sol = dcd_svm(codes, yb, degree=self.degree_, C=self.C, class_weight=self.class_weight,
                              tol=self.tol, max_iter=self.max_iter, random_state=self.random_state,
                              alphabet=self.alphabet_, n_jobs=self.n_threads_, verbose=self.verbose,
                              alpha_init=alpha_init)
            self.coef_ = sol.coef
            self.intercept_ = sol.intercept
            self.n_iter_ = sol.n_iter
            self.converged_ = bool(sol.converged)
            self.dual_objective_ = sol.dual_objective
            self.dual_coef_ = np.where(yb == 1, 1.0, -1.0) * sol.dual_coef
            self.solver_ = "dcd"
        elif method == "implicit":
            solver = self._solver(codes.shape[0])
            self.n_threads_ = 1 if solver == "sgd" else self._threads(codes.shape[0])
            what = "averaged SGD" if solver == "sgd" else "dual coordinate descent"
            with self._step(f"{what} on {codes.shape[0]} sequences until the model stops changing"):
                sol = fast_svm(codes, yb, degree=self.degree_, C=self.C, class_weight=self.class_weight,
                               method="sgd" if solver == "sgd" else "dcd", max_iter=self.max_iter,
                               validation_fraction=self.validation_fraction, validation_tol=self.validation_tol,
                               weight_tol=self.weight_tol, patience=self.patience, optimum_tol=self.optimum_tol,
                               random_state=self.random_state, average=self.average, alphabet=self.alphabet_,
                               shrink_margin=self.shrink_margin, refit=self.refit, extrapolate=self.extrapolate,
                               n_jobs=self.n_threads_, keep_best=self.keep_best, verbose=self.verbose)
            self.coef_ = sol.coef
            self.intercept_ = sol.intercept
            self.n_iter_ = sol.n_iter
            self.converged_ = bool(sol.converged)
            self.dual_objective_ = float("nan")
            self.solver_ = solver
            self.stopping_history_ = sol.history
            self.validation_rows_ = sol.validation_rows
            self.best_pass_ = sol.best_pass
        elif method == "linear":
            check_table_size(self.length_, self.degree_, get_alphabet(self.alphabet).size)
            with self._step(f"WD features of {codes.shape[0]} sequences"):
                F = wd_features(codes, degree=self.degree_, alphabet=self.alphabet_)
            from sklearn.svm import LinearSVC  # here: sklearn.svm and .linear_model take 0.1 s to import

            svm = LinearSVC(C=self.C, loss="hinge", dual=True, tol=self.tol, max_iter=self.max_iter,
                            class_weight=self.class_weight, random_state=_liblinear_seed(self.random_state))
            with self._step(f"linear SVM (liblinear) on {F.shape[1]} features, {F.nnz} non-zeros"):
                svm.fit(F, yb)
            self.coef_ = svm.coef_.ravel().copy()
            self.intercept_ = float(svm.intercept_[0])
            self.n_iter_ = int(svm.n_iter_)
        else:
            with self._step(f"WDS Gram matrix {codes.shape[0]} x {codes.shape[0]}"):
                gram = wd_kernel(codes, degree=self.degree_, shifts=self.shifts_, alphabet=self.alphabet_)
            from sklearn.svm import SVC

            svm = SVC(C=self.C, kernel="precomputed", tol=self.tol, class_weight=self.class_weight)
            with self._step("kernel SVM (libsvm)"):
                svm.fit(gram, yb)
            self.support_ = svm.support_.copy()
            self.support_codes_ = codes[svm.support_].copy()
            self.dual_coef_ = svm.dual_coef_.ravel().copy()
            self.intercept_ = float(svm.intercept_[0])
            self.n_iter_ = int(np.max(svm.n_iter_))
        self.method_ = method
        return self

    def _threads(self, n) -> int:
        """Threads of the single-machine coordinate-descent passes for n training sequences (``n_jobs``)."""
        if not isinstance(self.deterministic, (bool, np.bool_)):
            raise SeqimpError(f"deterministic must be True or False, got {self.deterministic!r}")
        if self.n_jobs is None:
            threads = 1  # the same bits on every run (docs/multicore.md, "Why one thread stays the default")
        else:
            threads = check_threads(self.n_jobs)
        return 1 if self.deterministic else threads

    def starts_from_duals(self, n) -> bool:
        """Whether a fit on ``n`` sequences runs the exact dual coordinate descent, the route that
        ``fit(..., alpha_init=)`` starts (the implicit route, solver "dcd", no client)."""
        return self._method() == "implicit" and self.client is None and self._solver(n) == "dcd"

    def _solver(self, n) -> str:
        """The single-machine solver of the implicit route for n training sequences."""
        solver = check_choice(self.solver, "solver", ("auto", "dcd", "fast", "sgd"))
        if solver == "auto":
            return "dcd" if n < AUTO_FAST_FROM else "fast"
        return solver

    def decision_function(self, X) -> np.ndarray:
        """Signed SVM score, shape (n,); positive means ``classes_[1]``."""
        return self._raw_scores(X)

    def predict(self, X) -> np.ndarray:
        """Predicted labels, shape (n,)."""
        check_is_fitted(self, "classes_")
        return self.classes_[(self.decision_function(X) > 0).astype(np.intp)]


# WDRegressor lives in its own module; importable from here as before (and so are models pickled
# with this module's path)
from ._wd_regressor import WDRegressor  # noqa: E402
