"""Sequences of different lengths for the position-free gkm model (``seqimp train --model gkm`` on
FASTA records of any lengths, as LS-GKM's gkmtrain takes them).

:class:`RaggedSequences` is a list of strings that numpy-style index arrays select from (``X[train]``,
as :func:`~seqimp.training._gkm.train_gkm` and the cross-validation split their rows), and that
:class:`~seqimp.kernels.GKMClassifier` reads as a list of sequences of any lengths.
"""

from __future__ import annotations

import numpy as np


class RaggedSequences(list):
    """A list of DNA strings of any lengths; an integer or boolean array selects a RaggedSequences."""

    def __getitem__(self, index):
        if isinstance(index, (int, np.integer)):
            return list.__getitem__(self, int(index))
        if isinstance(index, slice):
            return RaggedSequences(list.__getitem__(self, index))
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        return RaggedSequences(list.__getitem__(self, int(i)) for i in index)

    @property
    def lengths(self) -> np.ndarray:
        return np.fromiter(map(len, self), dtype=np.int64, count=len(self))
