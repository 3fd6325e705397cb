"""Labelled sequences: a run's positive and negative sequences, encoded once.

:func:`encode_labelled` checks and encodes what a run is given (strings, SequenceSets, code
arrays) into one :class:`LabelledSequences`; training, the background, the summary and the motif step
all read that object, so no step encodes or checks the sequences again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SeqimpError
from ._alphabet import get_alphabet
from ._check import check_sequences
from ._fasta import SequenceSet

__all__ = ["LabelledSequences", "encode_labelled", "alphabet_of", "source_of"]


def alphabet_of(alphabet, *data) -> str:
    """``alphabet`` as a name, or (None) the alphabet of the first SequenceSet among ``data``, else DNA."""
    if alphabet is not None:
        return get_alphabet(alphabet).name
    return next((x.alphabet.name for x in data if isinstance(x, SequenceSet)), "dna")


@dataclass(frozen=True, eq=False)
class LabelledSequences:
    """Positive and negative sequences of one length, encoded.

    Attributes
    ----------
    positive, negative : ndarray of shape (n, L), uint8, or None
        The codes (None where not given).
    alphabet : str
        Alphabet name.
    ids : list of str or None
        The positives' ids (FASTA ids, window names) where they came as a SequenceSet.
    coords : DataFrame or None
        The positives' genome coordinates where they are genomic windows
        (:class:`seqimp.io._genome.GenomicWindows`).
    described : dict
        Where the sequences came from and how many there are: ``positive``/``negative``
        (file names where known), ``n_positive``/``n_negative`` and ``skipped`` records.
    """

    positive: np.ndarray | None
    negative: np.ndarray | None
    alphabet: str = "dna"
    ids: list | None = None
    coords: object = None
    described: dict = field(default_factory=dict)

    @property
    def length(self) -> int | None:
        """The common length L, or None without sequences."""
        codes = self.positive if self.positive is not None else self.negative
        return None if codes is None else int(codes.shape[1])

    @property
    def both(self) -> bool:
        """Whether both classes are given."""
        return self.positive is not None and self.negative is not None

    def labelled(self):
        """One (n, L) array of the positives then the negatives, and their 0/1 labels (int64)."""
        X = np.concatenate([self.positive, self.negative])
        y = np.concatenate([np.ones(len(self.positive), dtype=np.int64), np.zeros(len(self.negative), dtype=np.int64)])
        return X, y

    def record(self, length=None) -> dict:
        """The ``data`` entry of ``summary.json``: the length (``length``, default L) and :attr:`described`."""
        return {"length": self.length if length is None else length, **self.described}


def encode_labelled(positive=None, negative=None, alphabet=None, *, unknown=False) -> LabelledSequences:
    """Check and encode a run's sequences once.

    Parameters
    ----------
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L), optional
    alphabet : {"dna", "rna", "protein"}, optional
        Default: the alphabet of a SequenceSet given, else DNA.
    unknown : bool, default=False
        Whether the caller reads the unknown code (N, ambiguity letters), as
        :func:`~seqimp.io._check.check_sequences`.

    Returns
    -------
    LabelledSequences

    Raises
    ------
    SeqimpError
        LabelledSequences that :func:`seqimp.io._check.check_sequences` refuses, or positives and negatives
        of different lengths.
    """
    alphabet = alphabet_of(alphabet, positive, negative)
    pos = None if positive is None else check_sequences(positive, "positive", alphabet, unknown=unknown)
    neg = None if negative is None else check_sequences(negative, "negative", alphabet, unknown=unknown)
    if pos is not None and neg is not None and pos.shape[1] != neg.shape[1]:
        raise SeqimpError(f"positive sequences have length {pos.shape[1]} but negative ones {neg.shape[1]}; "
                          "positional methods need one common length")
    described = {}
    for name, x, codes in (("positive", positive, pos), ("negative", negative, neg)):
        if codes is not None:
            described[name] = source_of(x, f"{name} sequences")
            described[f"n_{name}"] = int(len(codes))
            if isinstance(x, SequenceSet):
                described.setdefault("skipped", {})[name] = {
                    "records": int(x.skipped),
                    "reason": "symbols outside the alphabet and its ambiguity codes, dropped by --skip-invalid"}
    ids = list(positive.ids) if pos is not None and hasattr(positive, "ids") else None
    return LabelledSequences(pos, neg, alphabet, ids=ids, coords=getattr(positive, "coords", None), described=described)


def source_of(x, fallback) -> str:
    """The file a SequenceSet was read from, else ``fallback``."""
    return x.source if isinstance(x, SequenceSet) and x.source else fallback
