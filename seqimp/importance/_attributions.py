"""Hypothetical contributions of a model on sequences (TF-MoDISco's inputs): by in-silico
mutagenesis for any model (:func:`ism_attributions`), or by gradient x input for a differentiable
one (:func:`gradient_attributions`), as TF-MoDISco's users compute them.

The gradient of the model's score with respect to its one-hot input, at every position and letter,
is mean-centred across the four letters of each position: that is the hypothetical contribution
(``hyp``); the contribution of the sequence itself is ``hyp * onehot``. For a model linear in its
one-hot input the mean-centred gradient equals the mean-centred ISM differences exactly.

A model offers its gradient through a method ``input_gradient(codes) -> (m, L, A)``:
:class:`~seqimp.scorers.TorchScorer` (autograd, batched on the module's device) and
:class:`~seqimp.scorers.ModelScorer` of a scikit-learn model that is linear in
``seqimp.scorers.onehot`` features (its ``coef_``).
"""

from __future__ import annotations

import numpy as np

from .._utils.progress import progress_bar
from ..errors import SeqimpError, check_int
from ..io._check import check_sequences

__all__ = ["ism_attributions", "gradient_attributions", "onehot_rows", "has_gradient"]


def onehot_rows(codes, size=4) -> np.ndarray:
    """One-hot (n, L, size) float32 of codes (n, L); the unknown code (``size``: N) is a row of zeros."""
    from ._onnx import onehot_layout

    return onehot_layout(np.asarray(codes), size, "NLC")


def ism_attributions(score_fn, X, *, batch_size=8192, progress=False):
    """Hypothetical contributions of a model by in-silico mutagenesis (:func:`seqimp.importance.ism`,
    batched): at every position, each letter's score change from the reference minus the mean over
    the four letters (so the observed letter's contribution is minus the mean change of mutating it).

    Parameters
    ----------
    score_fn : callable
        ``score_fn(codes)`` on codes of shape (m, L), uint8 (a scorer of :mod:`seqimp.scorers`).
    X : list of str, SequenceSet or ndarray of shape (n, L)
        DNA sequences of one length.
    batch_size : int, default=8192
        Rows per call of ``score_fn``.
    progress : bool, default=False

    Returns
    -------
    onehot : ndarray of shape (n, L, 4), float32
    hyp : ndarray of shape (n, L, 4), float64
    """
    from ._ism import ism

    codes = check_sequences(X, "X", "dna")
    delta = ism(score_fn, codes, batch_size=batch_size, progress=progress)
    return onehot_rows(codes), delta - delta.mean(axis=2, keepdims=True)


def has_gradient(model) -> bool:
    """Whether ``model`` offers ``input_gradient`` (a torch module's scorer, a linear scikit-learn model's)."""
    return callable(getattr(model, "input_gradient", None))


def gradient_attributions(model, X, *, batch_size=256, progress=False):
    """Hypothetical contributions by gradient x input.

    Parameters
    ----------
    model : object with ``input_gradient(codes)``
        :class:`~seqimp.scorers.TorchScorer` or a linear :class:`~seqimp.scorers.ModelScorer`;
        ``input_gradient`` takes codes (m, L) uint8 and returns the gradient of the score with
        respect to the one-hot input, shape (m, L, 4).
    X, progress
        As :func:`ism_attributions`; an N (the unknown code) has a one-hot row of zeros, so no
        contribution of its own, and its letters' hypothetical contributions are the gradient's.
    batch_size : int, default=256
        Sequences per call of ``input_gradient``.

    Returns
    -------
    onehot, hyp
        As :func:`ism_attributions`; ``hyp``: the gradient minus its mean over the four letters at
        each position.
    """
    if not has_gradient(model):
        raise SeqimpError(f"{getattr(model, 'source', type(model).__name__)}: the model offers no gradient "
                          "(gradient x input needs a torch module or a linear scikit-learn model); use ISM")
    codes = check_sequences(X, "X", "dna", unknown=True)
    batch_size = check_int(batch_size, "batch_size")
    n, length = codes.shape
    hyp = np.empty((n, length, 4))
    with progress_bar(n, "gradients", enabled=progress) as bar:
        for a in range(0, n, batch_size):
            block = codes[a:a + batch_size]
            grad = np.asarray(model.input_gradient(block), dtype=np.float64)
            if grad.shape != (block.shape[0], length, 4):
                raise SeqimpError(f"{getattr(model, 'source', 'the model')}: input_gradient returned shape "
                                  f"{grad.shape} for {block.shape[0]} sequences of length {length}")
            if not np.isfinite(grad).all():
                raise SeqimpError(f"{getattr(model, 'source', 'the model')}: non-finite gradients (NaN/inf) in "
                                  f"sequences {a + 1}..{a + block.shape[0]}")
            hyp[a:a + block.shape[0]] = grad - grad.mean(axis=2, keepdims=True)
            bar.update(block.shape[0])
    return onehot_rows(codes), hyp
