"""deltaSVM's score of a substitution (Lee et al. 2015, Nat Genet 47:955; the scripts of
github:ren-lab/deltaSVM and LS-GKM's README): the sum, over the l-mers that overlap the changed base,
of ``weight(alt l-mer) - weight(ref l-mer)``, where ``weight(u)`` is the model's score of the
l-mer ``u`` on its own (deltaSVM precomputes it for every non-redundant l-mer with ``gkmpredict``
and gives an l-mer and its reverse complement the same weight, the one of the first of the two in
A < C < G < T order).

Here the weights are those of the l-mers the variants need, scored with the model when asked
(the same numbers as the table): an LS-GKM model (:class:`~seqimp.kernels.gkm._lsgkm_model.LSGKMModel`,
``gkmpredict``'s scores) or a :class:`~seqimp.kernels.GKMClassifier` (its decision function). The
l-mers are those inside the window (deltaSVM's oligo is the variant and ``l - 1`` bases either side;
a variant nearer the window's edge has fewer). An l-mer with a letter other than A, C, G, T has
weight 0 (deltaSVM's table has no entry for it). Substitutions of one base only (deltaSVM's
scripts skip the others): NaN for the rest.
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError
from ..io._check import check_sequences
from ..kernels.gkm._lsgkm_lmers import lmer_model, lmer_weights

def _canonical(lmers, l):
    """The index (first letter most significant) of each l-mer or of its reverse complement, the smaller."""
    shifts = 2 * np.arange(l - 1, -1, -1, dtype=np.int64)
    fwd = (lmers.astype(np.int64) << shifts).sum(axis=1)
    rev = ((3 - lmers[:, ::-1].astype(np.int64)) << shifts).sum(axis=1)
    return np.minimum(fwd, rev)


def deltasvm_scores(model, ref_sequences, variants) -> np.ndarray:
    """deltaSVM's score of each variant (module docstring), shape (n_variants,); NaN where it is not
    a substitution of one base.

    Parameters
    ----------
    model : LSGKMModel or fitted GKMClassifier
    ref_sequences : codes of shape (m, L) or sequences
        The reference windows.
    variants : DataFrame or (window, offset, ref, alt) tuples
        As :func:`~seqimp.importance.variant_effects`.
    """
    from ._variant_table import _snvs, _variant_table

    found = lmer_model(model)
    if found is None:
        raise SeqimpError("deltaSVM's score needs a gapped-k-mer model (GKMClassifier or an LS-GKM model)")
    l = found[0]
    codes = np.ascontiguousarray(check_sequences(ref_sequences, "ref_sequences", unknown=True),
                                dtype=np.uint8)   # an l-mer that covers N (code 4) has no weight
    table, _, _ = _variant_table(variants, codes, None)
    is_snv, index, letter = _snvs(table)
    out = np.full(len(table), np.nan)
    rows = np.flatnonzero(is_snv)
    length = codes.shape[1]
    if rows.size == 0 or length < l:
        return out
    win = table["window"].to_numpy(np.int64)[rows]
    pos = table["offset"].to_numpy(np.int64)[rows] + index[rows]
    start = pos[:, None] - np.arange(l)[None, :]  # the l-mers that hold the base: (n, l) starts
    ok = (start >= 0) & (start <= length - l)
    which, _ = np.nonzero(ok)
    start = start[ok]
    ref = codes[win[which][:, None], start[:, None] + np.arange(l)[None, :]]
    alt = ref.copy()
    alt[np.arange(alt.shape[0]), pos[which] - start] = letter[rows][which]
    both = np.concatenate([ref, alt])
    valid = (both <= 3).all(axis=1)
    canon = _canonical(np.where(both <= 3, both, 0), l)
    unique, inverse = np.unique(canon[valid], return_inverse=True)
    weights = np.zeros(both.shape[0])
    weights[valid] = lmer_weights(model, unique, l)[inverse]
    n = ref.shape[0]
    out[rows] = np.bincount(which, weights=weights[n:] - weights[:n], minlength=rows.size)
    return out
