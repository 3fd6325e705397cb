"""Gradients of score functions at a point (private; used by FIRM's Taylor method).

Analytic for linear models (``coef_``) and for scikit-learn kernel SVMs
(SVC, NuSVC, SVR, NuSVR with linear, polynomial, RBF or sigmoid kernels),
whose score is ``s(x) = sum_i a_i k(x, sv_i) + b``; central differences otherwise.
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError

__all__ = ["analytic_gradient", "linear_weights", "numerical_gradient"]


def linear_weights(model, d):
    """The weight vector of a fitted linear model with one output, else ``None``."""
    coef = getattr(model, "coef_", None)
    if coef is None or callable(coef) or hasattr(model, "support_vectors_") and getattr(model, "kernel", None) != "linear":
        return None
    coef = np.asarray(coef, dtype=float)
    if coef.size != d:
        return None
    return coef.ravel()


def _svm_parts(model):
    """``(support vectors, dual coefficients, kernel, gamma, coef0, degree)`` or ``None``."""
    sv = getattr(model, "support_vectors_", None)
    dual = getattr(model, "dual_coef_", None)
    kernel = getattr(model, "kernel", None)
    if sv is None or dual is None or kernel not in ("linear", "poly", "rbf", "sigmoid"):
        return None
    dual = np.asarray(dual, dtype=float)
    if dual.shape[0] != 1:  # one-vs-one multi-class: no single score
        return None
    if hasattr(sv, "toarray"):
        sv = sv.toarray()
    return np.asarray(sv, float), dual[0], kernel, float(model._gamma), float(model.coef0), int(model.degree)


def analytic_gradient(model, x, d):
    """Analytic gradient of the model's score at ``x`` (shape (d,)), or ``None`` if unknown."""
    w = linear_weights(model, d)
    if w is not None:
        return w
    parts = _svm_parts(model)
    if parts is None:
        return None
    sv, a, kernel, gamma, coef0, degree = parts
    if kernel == "linear":
        return a @ sv
    if kernel == "rbf":
        diff = x[None, :] - sv
        k = np.exp(-gamma * np.einsum("ij,ij->i", diff, diff))
        return -2.0 * gamma * (a * k) @ diff
    dot = sv @ x
    if kernel == "poly":
        inner = degree * (gamma * dot + coef0) ** (degree - 1) if degree >= 1 else np.zeros_like(dot)
    else:  # sigmoid
        inner = 1.0 - np.tanh(gamma * dot + coef0) ** 2
    return gamma * (a * inner) @ sv


def numerical_gradient(score, x, step):
    """Central-difference gradient of ``score`` at ``x``; ``step`` of shape (d,)."""
    d = len(x)
    if np.any(step <= 0):
        raise SeqimpError("gradient: a feature is constant, so no finite-difference step can be chosen")
    pts = np.repeat(x[None, :], 2 * d, axis=0)
    pts[np.arange(d), np.arange(d)] += step
    pts[d + np.arange(d), np.arange(d)] -= step
    s = score(pts)
    return (s[:d] - s[d:]) / (2.0 * step)
