"""Unknown letters as the readers take them: soft-masked (lower-case) letters read as unknown
(``mask_lowercase``, as HOMER's ``-mask``), and the one log line per input file that says how
many records and letters are unknown (N, the IUPAC ambiguity codes; X, B, Z, J for protein)."""

from __future__ import annotations

import logging
from functools import lru_cache

import numpy as np

from ._alphabet import INVALID, get_alphabet

__all__ = ["lookup_table", "mask_text", "count_unknown", "log_unknown", "log_counts", "unknown_words"]

logger = logging.getLogger("seqimp.io")


@lru_cache(maxsize=None)
def lookup_table(alphabet, mask_lowercase: bool = False) -> np.ndarray:
    """The alphabet's byte -> code table; with ``mask_lowercase`` every lower-case letter that the
    alphabet reads (a symbol or an ambiguity code) maps to the unknown code, other bytes as before
    (a lower-case letter outside the alphabet stays :data:`INVALID`)."""
    alpha = get_alphabet(alphabet)
    if not mask_lowercase:
        return alpha.lut
    lut = alpha.lut.copy()
    lower = np.arange(ord("a"), ord("z") + 1)
    lut[lower[lut[lower] != INVALID]] = alpha.unknown
    lut.setflags(write=False)
    return lut


@lru_cache(maxsize=None)
def _mask_table(alphabet) -> dict:
    alpha = get_alphabet(alphabet)
    unknown = alpha.ambiguous[:1] or "N"
    return str.maketrans({c.lower(): unknown for c in alpha.symbols + alpha.ambiguous if c.lower() != c.upper()})


def mask_text(seq: str, alphabet, mask_lowercase: bool = True) -> str:
    """``seq`` with every lower-case letter of the alphabet (a symbol or ambiguity code) written as
    the unknown letter (N; X for protein); other characters unchanged. ``mask_lowercase=False``
    returns ``seq`` as it is."""
    return seq.translate(_mask_table(get_alphabet(alphabet))) if mask_lowercase else seq


def count_unknown(codes, alphabet) -> tuple[int, int]:
    """``(records, letters)``: the records holding an unknown code and the unknown codes in all, of
    a code matrix (n, L) or a list of 1-D code arrays."""
    alpha = get_alphabet(alphabet)
    rows = [codes] if isinstance(codes, np.ndarray) and codes.ndim == 1 else codes
    if isinstance(rows, np.ndarray):
        per_record = np.count_nonzero(rows >= alpha.size, axis=1) if rows.size else np.zeros(len(rows), np.int64)
    else:
        per_record = np.array([np.count_nonzero(np.asarray(x) >= alpha.size) for x in rows], dtype=np.int64)
    return int(np.count_nonzero(per_record)), int(per_record.sum())


def unknown_words(alphabet) -> tuple[str, str]:
    """``(what, letters)`` of an alphabet's unknown letters as messages name them: ``("bases",
    "N or IUPAC codes")`` for DNA and RNA, ``("residues", "X, B, Z or J")`` for protein."""
    alpha = get_alphabet(alphabet)
    if alpha.name == "protein":
        return "residues", ", ".join(alpha.ambiguous[:-1]) + f" or {alpha.ambiguous[-1]}"
    return "bases", f"{alpha.ambiguous[:1]} or IUPAC codes"


def log_unknown(source, codes, alphabet, *, masked: bool = False) -> tuple[int, int]:
    """One INFO line on the ``seqimp`` logger when ``codes`` (a code matrix or a list of 1-D code
    arrays, the records of ``source``) hold unknown letters (:func:`log_counts`); nothing
    otherwise. Returns :func:`count_unknown`."""
    records, letters = count_unknown(codes, alphabet)
    log_counts(source, len(codes), records, letters, alphabet, masked=masked)
    return records, letters


def log_counts(source, total, records, letters, alphabet, *, masked: bool = False) -> None:
    """The log line of ``records`` of ``total`` records of ``source`` holding ``letters`` unknown
    letters, e.g. ``Klf1.fa: 662 of 904 records hold unknown bases (N or IUPAC codes), 12,345
    bases in all; read as unknown``; nothing when ``letters`` is 0. ``masked``: lower-case letters
    were read as unknown (``mask_lowercase``), which the line says."""
    if letters:
        what, names = unknown_words(alphabet)
        names += ", soft-masked lower case" if masked else ""
        logger.info(f"{source}: {records:,} of {total:,} records hold unknown {what} ({names}), "
                    f"{letters:,} {what if letters > 1 else what[:-1]} in all; read as unknown")
