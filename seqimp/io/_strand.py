"""DNA-only operations: the reverse complement, and the one check that says DNA is needed."""

from __future__ import annotations

import functools

import numpy as np

from ._alphabet import get_alphabet
from ..errors import SeqimpError

__all__ = ["require_dna", "reverse_complement_codes", "reverse_complement_index"]


def require_dna(alphabet, what: str, *, rna_ok: bool = False):
    """The Alphabet, or one line ``{what} needs DNA sequences (got protein)``.

    ``rna_ok`` lets RNA through (four letters whose complement is defined the same way).
    """
    alpha = get_alphabet(alphabet)
    if alpha.name == "dna" or (rna_ok and alpha.name == "rna"):
        return alpha
    raise SeqimpError(f"{what} needs DNA sequences (got {alpha.name})")


def reverse_complement_codes(codes, alphabet="dna") -> np.ndarray:
    """Reverse complement of encoded DNA (or RNA) sequences, shape (n, L) or (L,).

    With A=0, C=1, G=2, T/U=3 the complement of code c is ``3 - c``; an unknown base (4, N)
    stays unknown (as does any other code above 3).
    """
    require_dna(alphabet, "the reverse complement", rna_ok=True)
    codes = np.asarray(codes, dtype=np.uint8)
    return np.ascontiguousarray(np.where(codes > 3, codes, 3 - codes).astype(np.uint8)[..., ::-1])


def reverse_complement_index(k: int) -> np.ndarray:
    """For every k-mer index (base 4, first letter most significant), the index of its reverse
    complement, shape (4**k,), int64; read only (one table per k, made once)."""
    return _reverse_complement_index(int(k))


@functools.lru_cache(maxsize=None)
def _reverse_complement_index(k):
    idx = np.arange(4 ** k, dtype=np.int64)
    out = np.zeros_like(idx)
    for p in range(k):  # letter p (most significant first) becomes letter k-1-p, complemented
        letter = (idx >> (2 * (k - 1 - p))) & 3
        out |= (3 - letter) << (2 * p)
    out.flags.writeable = False
    return out
