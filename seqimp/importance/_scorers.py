"""Scorers: how any model becomes a ``score_fn`` on encoded sequences.

A score function takes an encoded ``(n, L)`` uint8 array (A=0, C=1, G=2, T=3) and returns
``n`` real scores. Here: the one-hot featuriser, scikit-learn models as scorers
(:class:`ModelScorer`), loading a joblib model or a ``module:function`` scorer, the
check every batch of scores passes (:func:`call_scorer`), and how many threads may score a
scorer's batches at once (:func:`batch_threads`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

from .._utils.cores import available_cores
from ..errors import SeqimpError, check_choice
from ..io import decode, get_alphabet

__all__ = ["onehot", "load_scorer", "load_sklearn_model", "sklearn_scorer", "ModelScorer", "call_scorer",
           "batch_threads"]

_DNA = 4


def call_scorer(score_fn, Y) -> np.ndarray:
    """Score a batch and check that one finite score per sequence came back."""
    n = Y.shape[0]
    name = getattr(score_fn, "name", "score_fn")
    returned = score_fn(Y)
    try:
        raw = np.asarray(returned)
    except (TypeError, ValueError) as exc:  # ragged lists and the like
        raise SeqimpError(f"{name} returned {type(returned).__name__} that is not an array of numbers "
                          f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    if raw.dtype.kind not in "biuf":
        what = {"U": "strings", "S": "bytes", "O": "Python objects", "c": "complex numbers"}.get(raw.dtype.kind,
                                                                                            f"dtype {raw.dtype}")
        raise SeqimpError(f"{name} returned {what}, not real numbers; it must return one real score per "
                          "sequence, shape (n,)")
    out = raw.astype(np.float64)
    if out.shape in ((n, 1), (1, n)):
        out = out.reshape(n)
    if out.shape != (n,):
        raise SeqimpError(f"{name} returned shape {out.shape} for {n} sequences; "
                          "it must return one score per sequence, shape (n,)")
    bad = np.count_nonzero(~np.isfinite(out))
    if bad:
        raise SeqimpError(f"{name} returned {bad} non-finite scores (NaN/inf) for {n} sequences")
    return out


def batch_threads(score_fn) -> int:
    """Threads of this process that may score batches of ``score_fn`` at once (``n_jobs=None``).

    Every available core (:func:`seqimp._utils.cores.available_cores`), unless the scorer says
    ``batches_in_threads = False``: :class:`~seqimp.scorers.OnnxScorer` and
    :class:`~seqimp.scorers.TorchScorer` do (their runtimes spread each batch over the cores
    themselves), and so may a score function that is not safe to call from two threads at once
    (an attribute of the function: ``fn.batches_in_threads = False``). Threads gain only where
    the scorer releases the GIL while it works (numpy, numba, scikit-learn); one that holds it
    (a loop in plain Python) gets the same numbers at about the speed of one thread.
    """
    return available_cores() if getattr(score_fn, "batches_in_threads", True) else 1


def onehot(X, *, alphabet_size=_DNA, dtype=np.float64) -> np.ndarray:
    """Flattened one-hot features of encoded sequences.

    Parameters
    ----------
    X : ndarray of shape (n, L), integer codes in ``0..alphabet_size-1`` (``alphabet_size``,
        the unknown code: a row of zeros)
    alphabet_size : int, default=4
    dtype : numpy dtype, default=float64

    Returns
    -------
    ndarray of shape (n, L * alphabet_size)
        Column ``p * alphabet_size + a`` is 1 where sequence position ``p`` (0-based)
        holds symbol ``a``. Train scikit-learn models on these features to use them with
        :func:`sklearn_scorer` / :func:`load_sklearn_model` (``features="onehot"``).
    """
    from ._onnx import onehot_layout

    X = np.asarray(X)
    if X.ndim != 2:
        raise SeqimpError(f"onehot: X must have shape (n, L), got {X.shape}")
    return onehot_layout(X, alphabet_size, "NLC", dtype).reshape(X.shape[0], X.shape[1] * alphabet_size)


class ModelScorer:
    """A scikit-learn model as a ``score_fn`` on encoded sequences.

    Parameters
    ----------
    model : fitted estimator or Pipeline
    features : {"onehot", "codes", "strings"}, default="onehot"
        What the model was trained on: ``onehot(X)`` (n, 4L) floats, the raw codes (n, L),
        or a list of sequence strings (a Pipeline with its own featuriser).
    method : {"auto", "decision_function", "predict_proba", "predict"}, default="auto"
        ``auto`` uses ``decision_function`` when the model has it, else the probability of
        the second class ``predict_proba(F)[:, 1]``, else ``predict``.
    alphabet : str or Alphabet, default="dna"
    source : str, optional
        Where the model came from (a path), for messages.
    """

    _FEATURES = ("onehot", "codes", "strings")
    _METHODS = ("decision_function", "predict_proba", "predict")

    def __init__(self, model, *, features="onehot", method="auto", alphabet="dna", source=None):
        self.model, self.alphabet = model, get_alphabet(alphabet)
        self.source = source or type(model).__name__
        features = check_choice(features, "features", self._FEATURES)
        method = check_choice(method, "method", ("auto",) + self._METHODS)
        if method == "auto":
            method = next((m for m in self._METHODS if hasattr(model, m)), None)
            if method is None:
                raise SeqimpError(f"{self.source}: the model has no decision_function, predict_proba or predict")
        elif not hasattr(model, method):
            raise SeqimpError(f"{self.source}: the model has no method {method!r}")
        if method == "predict_proba" and len(getattr(model, "classes_", ())) > 2:
            raise SeqimpError(f"{self.source}: predict_proba of a {len(model.classes_)}-class model has no "
                              "single score; wrap the model in your own score function")
        self.features, self.method = features, method

    def __repr__(self) -> str:
        return f"ModelScorer({self.source}, features={self.features!r}, method={self.method!r})"

    def _features(self, X):
        if self.features == "strings":
            return decode(X, self.alphabet)
        F = onehot(X, alphabet_size=self.alphabet.size) if self.features == "onehot" else X
        want = getattr(self.model, "n_features_in_", None)
        if want is not None and want != F.shape[1]:
            raise SeqimpError(
                f"{self.source}: the model expects {want} features, but {self.features} features of "
                f"length-{X.shape[1]} sequences have {F.shape[1]}"
                + (" (train it on seqimp.scorers.onehot(X))" if self.features == "onehot" else ""))
        return F

    def __call__(self, X) -> np.ndarray:
        out = getattr(self.model, self.method)(self._features(np.asarray(X)))
        out = np.asarray(out, dtype=np.float64)
        if self.method == "predict_proba":
            out = out[:, 1]
        if out.ndim != 1:
            raise SeqimpError(f"{self.source}: {self.method} returned shape {out.shape}; one score per "
                              "sequence is needed (a multi-class model needs its own score function)")
        return out

    def input_gradient(self, X) -> np.ndarray:
        """The gradient of the score with respect to the one-hot input, (n, L, A): a model linear in
        ``onehot`` features (``coef_`` of L * A values; ``decision_function`` or ``predict``) has its
        coefficients as the gradient everywhere. The model's own scores on ``X`` (an unknown code, N, is
        a row of zeros) are checked to be ``features @ coef_ + intercept_`` (relative tolerance 1e-6):
        another model has no gradient here (SeqimpError; ISM explains it)."""
        codes = np.asarray(getattr(X, "codes", X))
        n, length = codes.shape
        a = self.alphabet.size
        coef = getattr(self.model, "coef_", None)
        usable = (self.features == "onehot" and self.method in ("decision_function", "predict")
                  and coef is not None and np.size(coef) == length * a)
        if usable:
            w = np.asarray(coef, dtype=np.float64).reshape(length * a)
            features = np.eye(a + 1, a)[codes.astype(np.intp)].reshape(n, length * a)
            expected = features @ w + float(np.ravel(getattr(self.model, "intercept_", 0.0))[0])
            got = np.asarray(getattr(self.model, self.method)(features), dtype=np.float64).reshape(-1)
            usable = got.shape == expected.shape and np.allclose(got, expected, rtol=1e-6,
                                                                 atol=1e-6 * (np.abs(expected).max() + 1e-300))
        if not usable:
            raise SeqimpError(f"{self.source}: gradient x input takes a model linear in seqimp.scorers.onehot "
                              f"features of length-{length} sequences (coef_ of {length * a} values); this one is "
                              "explained by ISM (--attribution ism)")
        return np.broadcast_to(w.reshape(1, length, a), (n, length, a)).copy()


def sklearn_scorer(model, *, features="onehot", method="auto", alphabet="dna") -> ModelScorer:
    """Wrap a fitted scikit-learn model as a ``score_fn``; see :class:`ModelScorer`."""
    return ModelScorer(model, features=features, method=method, alphabet=alphabet)


def load_sklearn_model(path, *, features="onehot", method="auto", alphabet="dna") -> ModelScorer:
    """Load a model saved with ``joblib.dump`` and wrap it as a ``score_fn``.

    Loading a joblib file runs pickle code: only load files you trust. See
    :class:`ModelScorer` for ``features`` (default: the model was trained on
    ``onehot(X)``) and ``method``.
    """
    import joblib

    path = Path(path)
    if not path.is_file():
        raise SeqimpError(f"--sklearn-model {path}: no such file")
    try:
        model = joblib.load(path)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a bad file for the user
        raise SeqimpError(f"{path}: cannot load a joblib model ({type(exc).__name__}: {exc})") from None
    return ModelScorer(model, features=features, method=method, alphabet=alphabet, source=str(path))


def load_scorer(spec: str):
    """Import a score function given as ``"module:function"`` or ``"path/to/file.py:function"``.

    The attribute may be dotted (``"pkg.mod:obj.method"``). The function must take an
    encoded ``(n, L)`` uint8 array and return ``n`` scores; a model that wants strings can
    be wrapped as ``lambda X: model(seqimp.decode(X))``, one wanting one-hot features as
    ``lambda X: model(seqimp.scorers.onehot(X))``.
    """
    if not isinstance(spec, str) or spec.count(":") < 1 or spec.endswith(":") or spec.startswith(":"):
        raise SeqimpError(f"--scorer {spec!r}: expected 'module:function' or 'file.py:function'")
    target, attr = spec.rsplit(":", 1)
    try:
        if target.endswith(".py"):
            file = Path(target)
            if not file.is_file():
                raise SeqimpError(f"--scorer {spec!r}: no such file {target}")
            name = f"_seqimp_scorer_{abs(hash(str(file.resolve())))}"
            module_spec = importlib.util.spec_from_file_location(name, file)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except SeqimpError:
        raise
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any import failure (sys.exit too), in one line
        raise SeqimpError(f"--scorer {spec!r}: cannot import {target} ({type(exc).__name__}: {exc})") from None
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise SeqimpError(f"--scorer {spec!r}: {target} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise SeqimpError(f"--scorer {spec!r}: {attr} is not callable")
    where = str(Path(target).resolve()) + ":" + attr if target.endswith(".py") else spec
    return ImportedScorer(obj, f"--scorer {spec!r}", where)


_IMPORTED = {}


def _imported(spec):
    """Unpickling an ImportedScorer: import it once per worker process, not once per batch."""
    if spec not in _IMPORTED:
        _IMPORTED[spec] = load_scorer(spec)
    return _IMPORTED[spec]


class ImportedScorer:
    """A score function loaded by :func:`load_scorer`; its exceptions (other than SeqimpError)
    become one SeqimpError line naming the ``--scorer`` spec.

    Pickled as its spec (a module name, or an absolute file path, which must then be readable
    on the workers), so joblib and Dask worker processes import the function themselves.
    """

    def __init__(self, fn, name, spec):
        self.fn, self.name, self.spec = fn, name, spec

    def __repr__(self) -> str:
        return f"ImportedScorer({self.spec!r})"

    def __reduce__(self):
        return _imported, (self.spec,)

    @property
    def batches_in_threads(self) -> bool:
        """The imported function's own say (its attribute ``batches_in_threads``; True when absent)."""
        return bool(getattr(self.fn, "batches_in_threads", True))

    def __call__(self, X):
        try:
            return self.fn(X)
        except SeqimpError:
            raise
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's code: any failure (sys.exit too)
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise SeqimpError(f"{self.name} raised {type(exc).__name__}" + (f": {detail}" if detail else "")) from exc
