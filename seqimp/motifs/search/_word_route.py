"""The route of the motif search without a model: seeds from the words most enriched in the
positives (:func:`seqimp.motifs.word_seeds`), then the ending every route shares
(:func:`~._run.refined_run`: a few EM iterations and the PWM tuned at the site threshold,
sites, selection). A positional run's later rounds take it where the retrained model finds
nothing new (:func:`~._rounds.poim_rounds`): a motif at a jittered place on either strand,
that the first motif's importance hid, can leave the retrained WD model near chance while its
words stand out in the counts."""

from __future__ import annotations

import logging

from ._run import MotifRun, empty_sites, empty_stats, refined_run, with_database_loaded

__all__ = ["word_motifs"]

logger = logging.getLogger(__name__)


def word_motifs(sequences, *, options, round=1, accepted=(), random_state=None) -> MotifRun:
    """The motifs seeded by enriched words (module docstring) on ``sequences``; seeds that copy a
    motif of ``accepted`` are not refined, and a refined motif that copies one is merged into it.
    Seeds are named ``word1, ...`` (``round<r>_word1, ...`` after round 1), their rows in
    ``candidates``; no TOMTOM matches (the caller matches).

    Parameters
    ----------
    sequences : LabelledSequences
        Positives and negatives (codes, a row per sequence).
    options : MotifOptions
        Strand, fpr, p-value cuts, ``max_motifs`` (default 3 seeds).
    round : int, default=1
        The round of explaining away.
    accepted : sequence of Motif
        Motifs reported in earlier rounds.
    random_state : int or None
        The seed of the composition controls.

    Returns
    -------
    MotifRun
        Position-free motifs, ``result`` None.
    """
    from .. import word_seeds
    from .._gkm_seeds import EM_ITERATIONS
    from .._word_seeds import WORD_MAX_PVALUE
    from ..known._database import database_info

    options = with_database_loaded(options)
    strand = "both" if options.strand == "both" else "given"
    seeds, candidates = word_seeds(sequences.positive, sequences.negative, strand=strand,
                                   max_motifs=options.max_motifs or 3, exclude=accepted, round=round)
    parameters = {"strand": options.strand, "fpr": options.fpr, "max_pvalue": options.max_pvalue,
                  "max_held_out_pvalue": options.max_held_out_pvalue, "max_motifs": options.max_motifs,
                  "database": database_info(options.database)}
    if not seeds:
        logger.info(f"no word is enriched in the positives beyond the motifs found (Bonferroni p <= {WORD_MAX_PVALUE:g})"
                    + (f" (round {round})" if round > 1 else ""))
        return MotifRun([], None, candidates, result=None, stats=empty_stats(), sites=empty_sites(),
                        coords=sequences.coords, parameters=parameters)
    logger.info(f"{len(seeds)} seed(s) from the words most enriched in the positives: "
                + ", ".join(candidates["word"]) + (f" (round {round})" if round > 1 else "")
                + f"; refining them on the sequences (EM, strand {options.strand}, then tuned at the site threshold)")
    return refined_run(seeds, sequences, options, candidates=candidates, result=None, parameters=parameters,
                       round=round, accepted=accepted, match=False, random_state=random_state,
                       max_iter=EM_ITERATIONS, tune=True,
                       max_held_out_pvalue=options.max_pvalue)  # a seed failing p is not refitted
