"""A fitted :class:`~seqimp.kernels.GKMClassifier` as an LS-GKM model (:func:`lsgkm_from_gkm`).

The classifier's kernel is LS-GKM's ``gkm_cnt`` (``-t 0``) with ``d = l - k``: two l-mers at
``m`` mismatches share ``C(l - m, k)`` gapped k-mers, which is LS-GKM's weight of such a pair,
and every pair that shares one has ``m <= l - k``. LS-GKM counts the + strand of one sequence
against both strands of the other, half of seqimp's both-strand count ``<phi(x) + phi(rc x),
phi(y) + phi(rc y)>``; normalised the two are equal. With ``reverse_complement=False`` it is
``norc 1``. The decision value ``sum_s dual_coef_[s] k(x, x_s) + intercept_`` is LS-GKM's with
``rho = -intercept_``. A classifier with ``normalize=False`` has no LS-GKM form (LS-GKM always
normalises), nor one with ``word_length > 12`` (LS-GKM's limit).

With the training sequences, the support vectors are those with a non-zero dual coefficient.
Without them (a model read from a file keeps only ``coef_``), the support vectors are l-mers:
the weights ``coef_`` lie in the span of the l-mers' gapped-k-mer vectors ``P`` (``coef_ = P y``
for some ``y``), so coefficients ``a`` on the l-mers with ``G (I + R) a = s / sqrt(2)`` give the
same decision values, where ``G = P^T P`` (``G[u, v] = C(l - m(u, v), k)``), ``R`` swaps an
l-mer and its reverse complement and ``s`` are the l-mer scores (``s[u] = <phi(u) + phi(rc u),
coef_>``; without reverse complements ``G a = s``). ``G`` is a convolution over the l-mers'
letters that depends only on the number of mismatches, so the Walsh-Hadamard transform solves
it (eigenvalue ``C(l - w, k - w) 4**(l - k)`` on the basis functions of weight ``w <= k``, 0
above; ``s`` has no part there). One support vector stands for an l-mer and its reverse
complement: about ``4**l / 2`` of them (524,800 lines, about 20 MB, at l = 10).
"""

from __future__ import annotations

import warnings
from math import comb

import numpy as np

from ...errors import SeqimpError
from ._kernel import check_lengths, ragged_codes
from ._lsgkm_model import LSGKMModel
from ._lsgkm_kernel import hadamard_eigenvalues, smoothed_table

__all__ = ["lsgkm_from_gkm", "MAX_LMER_EXPANSION_L"]

#: The largest word length whose l-mer support vectors (:func:`lsgkm_from_gkm` without sequences)
#: are written: ``4**l / 2`` lines.
MAX_LMER_EXPANSION_L = 10
#: Sequences the written model and the classifier both score to check the export.
CHECK_SEQUENCES = 32


def _letters(codes, offsets, rows):
    """The sequences ``rows`` as strings of ACGT."""
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)[codes]
    return [letters[offsets[i]:offsets[i + 1]].tobytes().decode("ascii") for i in rows]


def _random_sample(l):
    """:data:`CHECK_SEQUENCES` random sequences of l to 6 l letters (seed 0): the export's check."""
    rng = np.random.default_rng(0)
    return ["".join(rng.choice(list("ACGT"), size=int(n))) for n in rng.integers(l, 6 * l, CHECK_SEQUENCES)]


def _lmer_strings(l, index):
    """The l-mers of the indices ``index`` (first letter most significant), shape (n,) of str."""
    digits = (index[:, None] >> (2 * np.arange(l - 1, -1, -1))[None, :]) & 3
    return np.frombuffer(b"ACGT", dtype=np.uint8)[digits].view(f"S{l}").ravel().astype(str)


def _lmer_coefficients(model):
    """``a`` of the module docstring over the l-mers that stand for themselves and their reverse
    complements: (indices (n,), coefficients (n,) before the support vectors' norms)."""
    l, k = model.tables_.word_length, model.tables_.informative
    rc = bool(model.reverse_complement)
    s = np.asarray(model.lmer_scores(), dtype=np.float64)
    weights = np.array([float(comb(l - m, k)) for m in range(l - k + 1)])
    eigen = hadamard_eigenvalues(weights, l)
    inverse = np.zeros_like(eigen)
    inverse[:k + 1] = 1.0 / eigen[:k + 1]  # the weights w > k have eigenvalue 0: s has no part there
    b = smoothed_table(s / np.sqrt(2.0) if rc else s.copy(), inverse)
    index = np.arange(b.size, dtype=np.int64)
    if not rc:
        return index, b
    rev = np.zeros_like(index)
    for p in range(l):
        rev = (rev << 2) | (3 - ((index >> (2 * p)) & 3))
    keep = index <= rev
    coef = b[keep]
    coef[index[keep] == rev[keep]] *= 0.5  # a palindrome is its own reverse complement: counted twice
    return index[keep], coef


def lsgkm_from_gkm(model, sequences=None) -> LSGKMModel:
    """The LS-GKM model (``gkm_cnt``, ``d = l - k``) that scores sequences as the fitted
    GKMClassifier ``model`` does (module docstring).

    Parameters
    ----------
    model : GKMClassifier
        Fitted, ``normalize=True``, ``word_length <= 12``.
    sequences : sequence of str, codes of shape (n, L) or SequenceSet, optional
        The n training sequences, in the order of ``model.dual_coef_`` (shape (n,)). Without
        them the support vectors are l-mers (``word_length <= 10``).

    Returns
    -------
    LSGKMModel
        Checked: it scores :data:`CHECK_SEQUENCES` sequences (training sequences, or random
        ones) as ``model`` does, within 1e-6 of the largest score.
    """
    if not hasattr(model, "coef_") or not hasattr(model, "tables_"):
        raise SeqimpError("write_lsgkm_model: the GKMClassifier is not fitted")
    if not model.normalize:
        raise SeqimpError("write_lsgkm_model: LS-GKM's kernels are normalised; a GKMClassifier with "
                          "normalize=False has no LS-GKM form")
    l, k = model.tables_.word_length, model.tables_.informative
    if l > 12:
        raise SeqimpError(f"write_lsgkm_model: LS-GKM reads word lengths up to 12, the model has {l}")
    rho = -float(model.intercept_)
    rc = bool(model.reverse_complement)
    dual = np.asarray(getattr(model, "dual_coef_", np.zeros(0)), dtype=np.float64)
    if sequences is not None:
        if dual.size == 0:
            raise SeqimpError("write_lsgkm_model: the model keeps no dual coefficients (read from a file); "
                              "leave sequences out")
        codes, offsets = ragged_codes(sequences, "sequences")
        check_lengths(offsets, l, "sequences")
        if offsets.size - 1 != dual.size:
            raise SeqimpError(f"write_lsgkm_model: {offsets.size - 1} sequences, but the model was fitted on "
                              f"{dual.size} (its dual_coef_)")
        rows = np.flatnonzero(dual)
        with_n = next((int(i) for i in rows if codes[offsets[i]:offsets[i + 1]].max() > 3), None)
        if with_n is not None:       # LS-GKM would read its N as A; seqimp leaves out the l-mers that cover it
            why = f"support vector {with_n} holds an unknown base (N), which LS-GKM reads as A"
            if l > MAX_LMER_EXPANSION_L:
                raise SeqimpError(f"write_lsgkm_model: {why}; the l-mer support vectors that stand in for such "
                                  f"sequences are written up to word_length {MAX_LMER_EXPANSION_L}, the model has {l}")
            warnings.warn(f"write_lsgkm_model: {why}: the model is written with l-mer support vectors instead "
                          f"(4**{l} / 2 of them), which score as it does", stacklevel=3)
            sequences = None
    if sequences is not None:
        out = LSGKMModel("gkm_cnt", l, k, l - k, _letters(codes, offsets, rows), dual[rows], rho,
                         reverse_complement=rc)
        known = np.flatnonzero([codes[a:b].max() <= 3 for a, b in zip(offsets[:-1], offsets[1:])])
        # checked on sequences without N (LS-GKM reads an N as A, seqimp leaves its l-mers out)
        sample = (_letters(codes, offsets, known[np.linspace(0, known.size - 1, min(CHECK_SEQUENCES, known.size))
                                                 .astype(int)]) if known.size else _random_sample(l))
    else:
        if l > MAX_LMER_EXPANSION_L:
            raise SeqimpError(f"write_lsgkm_model: without the training sequences the support vectors are the "
                              f"4**{l} l-mers; give the sequences (word_length {l} > {MAX_LMER_EXPANSION_L})")
        index, coef = _lmer_coefficients(model)
        out = LSGKMModel("gkm_cnt", l, k, l - k, _lmer_strings(l, index).tolist(), coef, rho, reverse_complement=rc)
        out.dual_coef = coef * out.sv_norms
        sample = _random_sample(l)
    want = model.decision_function(sample)
    got = out.decision_function(sample)
    scale = max(1.0, float(np.abs(want).max()))
    if not np.allclose(got, want, rtol=0.0, atol=1e-6 * scale):
        worst = float(np.abs(got - want).max())
        raise SeqimpError(f"write_lsgkm_model: the LS-GKM model scores differ from the GKMClassifier's by up to "
                          f"{worst:.3g}" + ("; are these the sequences it was fitted on, in order?"
                                            if sequences is not None else ""))
    return out
