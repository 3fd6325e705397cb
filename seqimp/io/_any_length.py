"""FASTA records of any lengths made into the equal-length sequences the motif search takes.

Two ways, as ``seqimp motifs`` offers them (docs/motifs.md, "Sequences of any lengths"):

- :func:`centred_windows`: the central ``width`` letters of every record (records shorter than
  ``width`` are left out), for the positional model, whose positions then count from the
  window's first letter;
- :func:`pad_records`: every record kept whole and padded at its 3' end to the longest
  record's length with unknown letters (N), for the position-free (gkm) model. Padding is
  no sequence: no word, seed or site covers an unknown letter, so a padded record holds the
  words of the record alone; :class:`PaddedSequences` keeps each record's own length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SeqimpError, check_int
from ._alphabet import INVALID, describe_char, get_alphabet, symbol_bytes
from ._fasta import SequenceSet, _read_records, symbol_hints, with_fix
from ._unknown import log_unknown

__all__ = ["PaddedSequences", "read_any_length", "centred_windows", "pad_records"]


@dataclass(eq=False)
class PaddedSequences(SequenceSet):
    """Records padded to one length (:func:`pad_records`); ``record_lengths[i]`` is record
    ``i``'s own length (letters beyond it are padding)."""

    record_lengths: np.ndarray | None = None


def read_any_length(path, alphabet="dna", on_invalid="error", *, mask_lowercase=False):
    """``(ids, codes, source, skipped)`` of a FASTA file of any lengths: ``codes`` a list of
    uint8 arrays; N and the other ambiguity codes (lower-case letters too with
    ``mask_lowercase``) are the unknown code, counted in one log line
    (:func:`~seqimp.io._unknown.log_unknown`); other symbols outside ``alphabet`` are an error
    naming the record and position, or (``on_invalid="skip"``) drop the record."""
    alpha = get_alphabet(alphabet)
    path, ids, seqs, skipped = _read_records(path, alpha, on_invalid, mask_lowercase=mask_lowercase)
    codes = []
    for rid, seq in zip(ids, seqs):
        x = alpha.lut[np.frombuffer(symbol_bytes(seq), np.uint8)]
        bad = np.flatnonzero(x == INVALID)
        if bad.size:
            raise with_fix(f"{path}: record {rid!r}: invalid symbol {describe_char(seq[bad[0]])} at position "
                           f"{bad[0] + 1} (alphabet {alpha.name}: {alpha.symbols})", symbol_hints(seqs, alpha))
        codes.append(x.astype(np.uint8))
    if not any(c.size for c in codes):
        raise SeqimpError(f"{path}: sequences are empty")
    log_unknown(path, codes, alpha, masked=mask_lowercase)
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


def pad_records(sets, *, alphabet="dna") -> list:
    """Pad the records of every set in ``sets`` (``(ids, codes, source)``, codes a list of uint8
    arrays) to the longest record of all of them with unknown letters (N), as
    :class:`PaddedSequences`.

    Padding is no sequence: a k-mer, gapped k-mer or motif window that covers an unknown letter
    is no feature, seed or site, so a padded record holds exactly the words of the record itself."""
    alpha = get_alphabet(alphabet)
    longest = max(c.size for _ids, codes, _src in sets for c in codes)
    out = []
    for ids, codes, source in sets:
        rows = np.full((len(codes), longest), alpha.unknown, dtype=np.uint8)
        for r, x in enumerate(codes):
            if x.size == 0:
                raise SeqimpError(f"{source}: record {ids[r]!r} is empty")
            rows[r, :x.size] = x
        lengths = np.array([c.size for c in codes], dtype=np.int64)
        out.append(PaddedSequences(rows, list(ids), alpha, source, record_lengths=lengths))
    return out
