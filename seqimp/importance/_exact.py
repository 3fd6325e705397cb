"""Positional oligomer importance: POIM, FIRM, maximal and differential POIMs.

For a linear positional scoring system s (a :class:`~seqimp.kernels.PositionalWeights`)
and a background distribution of sequences X (a :class:`~seqimp.background.MarkovBackground`),
the importance of the positional oligomer (z, j) -- "k-mer z occurs at 0-based start j" -- is

* POIM (Sonnenburg et al. 2008; FIRM paper eq. 5):
  ``Q(z, j) = E[s(X) | X[j:j+k] = z] - E[s(X)]``;
* FIRM of the binary feature (FIRM paper eq. 10, with the erratum in
  ``shared/papers/README.md``): ``(E[s | z at j] - E[s | z not at j]) * sqrt(pi (1 - pi))``
  with ``pi = P(X[j:j+k] = z)``; equivalently ``Q(z, j) * sqrt(pi / (1 - pi))``;
* maximal POIM ``q_max(k, j) = max_z |Q(z, j)|`` and differential POIM
  ``Omega(1, j) = q_max(1, j)``,
  ``Omega(k, j) = q_max(k, j) - max(q_max(k-1, j), q_max(k-1, j+1))``.

The result type, :class:`~seqimp.importance._result.POIMResult`, and the maximal and
differential POIMs live in :mod:`seqimp.importance._result`.
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError
from ._result import POIMResult, differential_poim, maximal_poim  # noqa: F401 (re-exported)

__all__ = ["poim"]


def _as_weights(model_or_weights):
    from ..kernels._weights import PositionalWeights

    obj = model_or_weights
    if not isinstance(obj, PositionalWeights):
        if not hasattr(obj, "positional_weights"):
            raise SeqimpError("poim: model_or_weights must be a PositionalWeights or have .positional_weights() "
                              f"(got {type(obj).__name__})")
        obj = obj.positional_weights()
        if not isinstance(obj, PositionalWeights):
            raise SeqimpError(f"poim: positional_weights() returned {type(obj).__name__}, not PositionalWeights")
    return obj


def check_poim_inputs(model_or_weights, background, max_order):
    """``(PositionalWeights, fitted MarkovBackground, max_order)`` of a POIM job, checked (both engines)."""
    from ..background._markov import MarkovBackground
    from ._engine import check_lengths

    weights = _as_weights(model_or_weights)
    if background is None:
        background = MarkovBackground.uniform(alphabet=weights.alphabet)
    if not isinstance(background, MarkovBackground):
        raise SeqimpError(f"poim: background must be a MarkovBackground, got {type(background).__name__}")
    background._check_fitted()
    if background.alphabet.name != weights.alphabet.name:
        raise SeqimpError(f"poim: background alphabet {background.alphabet.name} differs from the weights' "
                          f"{weights.alphabet.name}")
    max_order = weights.degree if max_order is None else max_order
    try:
        ok = not isinstance(max_order, bool) and int(max_order) == max_order
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise SeqimpError(f"max_order must be a positive integer, got {max_order!r}")
    max_order = int(max_order)
    check_lengths(weights.length, background, max_order)
    return weights, background, max_order


def poim(model_or_weights, background=None, max_order=None, *, standardize=False, max_memory=None,
         progress=False) -> POIMResult:
    """Exact POIM and FIRM of a linear positional scoring system under a Markov background.

    Parameters
    ----------
    model_or_weights : PositionalWeights or object with ``.positional_weights()``
        The score ``s(x) = bias + sum_k sum_i W_k[i, x[i:i+k]]`` on sequences of length L.
    background : MarkovBackground, optional
        Any order D >= 0, homogeneous or position-specific (then of length L). Default: uniform.
    max_order : int, optional
        Largest oligomer length K (default: the weights' degree). May exceed the degree and
        the background order.
    standardize : bool, default=False
        Divide POIM and FIRM by the standard deviation of s(X) (see :meth:`POIMResult.standardized`).
    max_memory : int, optional
        Bytes the computation may use (default: half the available RAM). The need is estimated
        before anything large is allocated; above the limit a SeqimpError names the estimate
        in GB and the largest ``max_order`` that would fit.
    progress : bool, default=False
        Report progress per level on stderr.

    Returns
    -------
    POIMResult
        ``poim[k-1]``, ``firm[k-1]`` of shape (L-k+1, 4**k); ``maximal``, ``differential`` of
        shape (max_order, L); ``expected_score`` = E[s(X)]; ``score_std`` = sd of s(X).

    Notes
    -----
    Exact for every Markov order; the work is O(sum_n A**n * L) over n = 1..max(K, degree, D),
    by the recursions described in ``docs/poim.md`` (no per-window sum over overlapping windows).
    Oligomers of probability 0 get NaN POIM and 0 FIRM; FIRM is 0 where the probability is 1
    (to within 1e-12).
    """
    from ._engine import check_memory, exact_conditional, n_levels
    from .._progress import progress_bar

    weights, background, max_order = check_poim_inputs(model_or_weights, background, max_order)
    length, degree = weights.length, weights.degree
    check_memory(weights.alphabet.size, length, degree, background.order, max_order, max_memory)
    with progress_bar(n_levels(degree, background.order, max_order), "poim levels", enabled=progress) as bar:
        poims, firms, es, var = exact_conditional(weights.tables, weights.bias, background, max_order,
                                                  progress=bar)
    meta = {"background": background.describe(), "degree": degree, "length": length}
    result = POIMResult(poims, firms, expected_score=es, score_std=float(np.sqrt(var)),
                        alphabet=weights.alphabet, method="exact", meta=meta)
    return result.standardized() if standardize else result
