"""DNA-only operations: the reverse complement, and the one check that says DNA is needed."""

from __future__ import annotations

import numpy as np

from ._alphabet import get_alphabet
from ..errors import SeqimpError

__all__ = ["require_dna", "reverse_complement_codes"]


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

    With A=0, C=1, G=2, T/U=3 the complement of code c is ``3 - c``.
    """
    require_dna(alphabet, "the reverse complement", rna_ok=True)
    codes = np.asarray(codes, dtype=np.uint8)
    return np.ascontiguousarray((3 - codes)[..., ::-1])
