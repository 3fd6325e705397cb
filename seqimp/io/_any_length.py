"""FASTA records of any lengths made into the equal-length sequences the motif search takes.

Two ways, as ``seqimp motifs`` offers them (docs/motifs.md, "Sequences of any lengths"):

- :func:`centred_windows`: the central ``width`` letters of every record (records shorter than
  ``width`` are left out), for the positional model, whose positions then count from the
  window's first letter;
- :func:`pad_records`: every record kept whole and padded at its 3' end to the longest
  record's length with dinucleotide shuffles of itself, for the position-free (gkm) model.
  The padding keeps the record's own letter and dinucleotide composition and holds no motif
  but by chance; :class:`PaddedSequences` keeps each record's own length, so that no site
  is reported in the padding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SeqimpError, check_int, check_random_state
from ._alphabet import INVALID, get_alphabet, symbol_bytes
from ._fasta import SequenceSet, _read_records
from ._shuffle import dinucleotide_shuffle

__all__ = ["PaddedSequences", "read_any_length", "centred_windows", "pad_records"]


@dataclass(eq=False)
class PaddedSequences(SequenceSet):
    """Records padded to one length (:func:`pad_records`); ``record_lengths[i]`` is record
    ``i``'s own length (letters beyond it are padding)."""

    record_lengths: np.ndarray | None = None


def read_any_length(path, alphabet="dna", on_invalid="error"):
    """``(ids, codes, source, skipped)`` of a FASTA file of any lengths: ``codes`` a list of
    uint8 arrays; symbols outside ``alphabet`` are an error naming the record and position, or
    (``on_invalid="skip"``) drop the record."""
    alpha = get_alphabet(alphabet)
    path, ids, seqs, skipped = _read_records(path, alpha, on_invalid)
    codes = []
    for rid, seq in zip(ids, seqs):
        x = alpha.lut[np.frombuffer(symbol_bytes(seq), np.uint8)]
        bad = np.flatnonzero(x == INVALID)
        if bad.size:
            raise SeqimpError(f"{path}: record {rid!r}: invalid symbol {seq[bad[0]]!r} at position {bad[0] + 1} "
                              f"(alphabet {alpha.name}); drop such records with --skip-invalid")
        codes.append(x.astype(np.uint8))
    if not any(c.size for c in codes):
        raise SeqimpError(f"{path}: sequences are empty")
    return ids, codes, str(path), skipped


def centred_windows(ids, codes, width, *, alphabet="dna", source=None) -> tuple[SequenceSet, int]:
    """The central ``width`` letters of every record (0-based start ``(length - width) // 2``) as a
    SequenceSet, and the number of records shorter than ``width``, left out."""
    width = check_int(width, "width")
    keep = [i for i, c in enumerate(codes) if c.size >= width]
    if not keep:
        raise SeqimpError(f"{source or 'sequences'}: no record has {width} letters or more (the longest has "
                          f"{max(c.size for c in codes)}); give a smaller --width")
    rows = np.empty((len(keep), width), dtype=np.uint8)
    for r, i in enumerate(keep):
        start = (codes[i].size - width) // 2
        rows[r] = codes[i][start:start + width]
    return SequenceSet(rows, [ids[i] for i in keep], alphabet, source), len(codes) - len(keep)


def pad_records(sets, *, alphabet="dna", random_state=None) -> list:
    """Pad the records of every set in ``sets`` (``(ids, codes, source)``, codes a list of uint8
    arrays) to the longest record of all of them, each with dinucleotide shuffles of itself
    (one random generator seeded by ``random_state``, the sets in order), as
    :class:`PaddedSequences`."""
    rng = check_random_state(random_state)
    longest = max(c.size for _ids, codes, _src in sets for c in codes)
    out = []
    for ids, codes, source in sets:
        rows = np.empty((len(codes), longest), dtype=np.uint8)
        for r, x in enumerate(codes):
            rows[r, :x.size] = x
            filled = x.size
            while filled < longest:
                fill = dinucleotide_shuffle(x[None, :], alphabet=alphabet, random_state=rng)[0] if x.size > 1 else x
                if fill.size == 0:
                    raise SeqimpError(f"{source}: record {ids[r]!r} is empty")
                take = min(fill.size, longest - filled)
                rows[r, filled:filled + take] = fill[:take]
                filled += take
        lengths = np.array([c.size for c in codes], dtype=np.int64)
        out.append(PaddedSequences(rows, list(ids), alphabet, source, record_lengths=lengths))
    return out
