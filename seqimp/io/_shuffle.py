"""Dinucleotide-preserving shuffles (Altschul & Erickson 1985), for shuffled negatives.

A sequence is a walk through the graph whose vertices are the letters and whose edges are
its L-1 consecutive letter pairs. Every other Eulerian walk from the same first letter
through the same multiset of edges is a sequence with exactly the same dinucleotide counts
(and the same first and last letter). Altschul & Erickson draw one uniformly: for every
letter other than the last one choose the edge it leaves by for the last time so that these
last edges form a tree into the last letter (drawn here with Wilson's loop-erased random
walk, which draws such trees uniformly), shuffle each letter's other edges, and walk.

No PyPI package qualified for reuse: ``ushuffle`` (2020) ships only a source archive that
needs a C compiler, ``dinuc-shuf`` is a single 0.1.0 beta.
"""

from __future__ import annotations

import numpy as np

from ._check import check_sequences
from ._fasta import SequenceSet
from ..errors import SeqimpError, check_int, check_random_state

__all__ = ["dinucleotide_shuffle", "shuffle_negatives"]


def dinucleotide_shuffle(X, *, alphabet="dna", random_state=None) -> np.ndarray:
    """Shuffle every sequence keeping its dinucleotide counts exactly.

    Parameters
    ----------
    X : list of str, SequenceSet or ndarray of shape (n, L)
    alphabet : str or Alphabet, default="dna"
        Works for any alphabet (dipeptide counts for protein).
    random_state : int, Generator or None
        ``None`` is the fixed default seed 0.

    Returns
    -------
    ndarray of shape (n, L), uint8
        Row i has the same first and last letter and the same count of every letter pair
        ``(x[t], x[t+1])`` as ``X[i]``; it is a uniform draw among all such sequences.

        Unknown letters (N and the other ambiguity codes, code ``alphabet.size``) stay where
        they are, and every maximal stretch of known letters between them is shuffled on its
        own: its first and last letter and the counts of its letter pairs are kept, so the
        counts of all known pairs are too, and no pair across an unknown letter is made.
    """
    from ._alphabet import get_alphabet

    alpha = get_alphabet(getattr(X, "alphabet", alphabet))
    codes = check_sequences(X, "X", alpha, unknown=True)
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2 ** 31 - 1, size=codes.shape[0]).astype(np.int64)
    out = np.empty_like(codes)
    if codes.size:
        from ._shuffle_kernel import shuffle_rows   # numba is imported on first use only

        shuffle_rows(codes, seeds, alpha.size, out)
    return out


def shuffle_negatives(positives, *, n_shuffles=1, random_state=None) -> SequenceSet:
    """Negatives made of dinucleotide-preserving shuffles of the positives.

    Parameters
    ----------
    positives : SequenceSet (or GenomicWindows)
    n_shuffles : int, default=1
        Shuffles per positive sequence.
    random_state : int, Generator or None

    Returns
    -------
    SequenceSet
        ``n_shuffles * n`` sequences, ids ``{id}_shuffle{j}`` (j = 1..n_shuffles), grouped by shuffle.
    """
    if not isinstance(positives, SequenceSet):
        raise SeqimpError("shuffle_negatives: positives must be a SequenceSet")
    n_shuffles = check_int(n_shuffles, "n_shuffles")
    rng = check_random_state(random_state)
    blocks, ids = [], []
    for j in range(1, n_shuffles + 1):
        blocks.append(dinucleotide_shuffle(positives.codes, alphabet=positives.alphabet, random_state=rng))
        ids.extend(f"{i}_shuffle{j}" for i in positives.ids)
    return SequenceSet(np.concatenate(blocks), ids, positives.alphabet, "dinucleotide shuffles")
