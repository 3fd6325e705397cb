"""The l-mer weights of an LS-GKM model, as the motif seeds of the gkm route read a
GKMClassifier's (:func:`seqimp.motifs._gkm_seeds.lmer_seeds`).

An LS-GKM model keeps support vectors, not per-base attributions; its l-mer weights are its scores
of every l-mer on its own (``gkmpredict`` on all l-mers, the table deltaSVM reads;
:func:`seqimp.importance._deltasvm.lmer_weights`), plus ``rho`` so that the weights carry no
intercept. :class:`LSGKMLmers` offers them under the names ``lmer_seeds`` reads
(``word_length``, ``reverse_complement``, ``lmer_scores()``). About a second for the 4**10
l-mers of a linear kernel (``-t 0..2``, ``4``); the RBF kernels score each against every support
vector.
"""

from __future__ import annotations

import numpy as np

from ...errors import SeqimpError


class LSGKMLmers:
    """An :class:`~seqimp.kernels.gkm._lsgkm_model.LSGKMModel` seen as its l-mer weights.

    Parameters
    ----------
    model : LSGKMModel
    """

    def __init__(self, model):
        from ._lsgkm_model import LSGKMModel

        if not isinstance(model, LSGKMModel):
            raise SeqimpError(f"LSGKMLmers: an LSGKMModel is needed, got {type(model).__name__}")
        self.model = model
        self.word_length = model.l
        self.reverse_complement = model.reverse_complement
        self._scores = None

    def lmer_scores(self):
        """The model's score of every l-mer plus ``rho``, shape (4**l,), by l-mer index (first letter most
        significant), computed once."""
        if self._scores is None:
            from ...importance._deltasvm import lmer_weights

            l = self.word_length
            self._scores = lmer_weights(self.model, np.arange(4 ** l, dtype=np.int64), l) + self.model.rho
        return self._scores
