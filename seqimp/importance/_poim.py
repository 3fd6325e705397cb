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

This module is the one front door, :func:`poim`: it checks the inputs, plans the memory once
(:func:`~seqimp.importance._poim_plan.plan_poim`) and runs one of two engines that share their
recursions (:mod:`seqimp.importance._poim_levels`): in memory
(:mod:`seqimp.importance._poim_memory`, every table, a
:class:`~seqimp.importance._result.POIMResult`) or streamed in blocks of start positions
(:mod:`seqimp.importance._poim_stream`, summaries, a
:class:`~seqimp.importance._poim_summary.StreamedPOIM`). Both results share one interface
(:class:`~seqimp.importance._result.BasePOIMResult`).
"""

from __future__ import annotations

import logging

from ..errors import SeqimpError
from ._poim_plan import plan_poim

__all__ = ["poim"]

logger = logging.getLogger(__name__)


def _as_weights(model_or_weights):
    from ..kernels import PositionalWeights

    obj = model_or_weights
    if not isinstance(obj, PositionalWeights):
        if not hasattr(obj, "positional_weights"):
            raise SeqimpError("poim: model_or_weights must be a PositionalWeights or have .positional_weights() "
                              f"(got {type(obj).__name__})")
        obj = obj.positional_weights()
        if not isinstance(obj, PositionalWeights):
            raise SeqimpError(f"poim: positional_weights() returned {type(obj).__name__}, not PositionalWeights")
    return obj


def _check_inputs(model_or_weights, background, max_order):
    """``(PositionalWeights, fitted MarkovBackground, max_order)`` of a POIM job, checked."""
    from ..background import MarkovBackground

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
    return weights, background, int(max_order)      # its range is checked with the plan


def poim(model_or_weights, background=None, max_order=None, *, engine="auto", max_memory=None, full_tables=None,
         full_tables_dtype="float32", top_n=1000, block=None, progress=None, standardize=False):
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
    engine : {"auto", "memory", "stream"}, default="auto"
        "memory": every table of every order (a :class:`POIMResult`); "stream": blocks of start
        positions in bounded memory, summaries kept (a :class:`StreamedPOIM`); "auto": in
        memory when its estimate fits ``max_memory`` (and neither ``full_tables`` nor ``block``
        is given), else streamed. The numbers agree to rounding (1e-12 relative).
    max_memory : int or str, optional
        Bytes the computation may use (``"4G"``, ``"500M"`` or a number; default: half the RAM
        available now). The need is estimated before anything large is allocated
        (:func:`~seqimp.importance.plan_poim`): over the budget, ``engine="memory"`` refuses
        naming the estimate and the largest ``max_order`` that fits, and the streaming engine
        refuses when not even one position per block fits.
    full_tables : str or path, optional
        Stream, and write every POIM and FIRM table to this HDF5 file (datasets ``poim/<k>``,
        ``firm/<k>`` of shape (L-k+1, A**k), chunked by rows; NaN where impossible).
    full_tables_dtype : {"float32", "float64"}, default="float32"
    top_n : int, default=1000
        Streaming: positional oligomers kept per order and per measure (``|POIM|`` and ``|FIRM|``).
    block : int, optional
        Streaming: start positions per block (default: the largest that fits, at most 128).
        Results do not depend on it.
    progress : bool or None, default=None
        A progress bar on stderr (levels in memory, blocks streamed); None: for work over 2 s
        unless the ``seqimp`` logger's level is above INFO (:mod:`seqimp._utils.progress`).
    standardize : bool, default=False
        Divide POIM and FIRM by the standard deviation of s(X) (see :meth:`POIMResult.standardized`).

    Returns
    -------
    POIMResult or StreamedPOIM
        Both offer ``top(n, measure, order)``, ``maximal`` and ``differential`` of shape
        (max_order, L), ``table(order, measure)`` of shape (L-k+1, A**k) (a streamed result keeps
        the tables of k <= 4), ``expected_score`` = E[s(X)] and ``score_std`` = sd of s(X).
        A POIMResult has ``poim[k-1]``, ``firm[k-1]`` for every order.

    Notes
    -----
    Exact for every Markov order; the work is O(sum_n A**n * L) over n = 1..max(K, degree, D),
    by the recursions described in ``docs/poim.md`` (no per-window sum over overlapping windows).
    Oligomers of probability 0 get NaN POIM and 0 FIRM; FIRM is 0 where the probability is 1
    (to within 1e-12). A streamed result's ``meta`` records ``max_memory`` and the block only
    when ``max_memory`` (or ``block``) was given, so its file does not depend on the free RAM.
    """
    from ._poim_memory import poim_in_memory
    from ._poim_stream import poim_in_blocks

    weights, background, max_order = _check_inputs(model_or_weights, background, max_order)
    plan = plan_poim(weights.length, max_order, background.order, max_memory, degree=weights.degree, engine=engine,
                     top_n=top_n, full_tables=full_tables is not None, block=block,
                     alphabet_size=weights.alphabet.size, background_length=background.length)
    if plan.streaming:
        logger.info(plan.describe())
        given = max_memory is not None
        result = poim_in_blocks(weights, background, max_order, plan, top_n=int(top_n), full_tables=full_tables,
                                full_tables_dtype=full_tables_dtype, progress=progress,
                                recorded_budget=plan.budget if given else None,
                                recorded_block=plan.block if given or block is not None else None)
    else:
        result = poim_in_memory(weights, background, max_order, progress=progress)
    return result.standardized() if standardize else result
