"""The position-free route of the motif search: the seeds of a gapped-k-mer (gkm) model
(:func:`seqimp.motifs.gkm_seed_motifs`: l-mer weights, attributions, seqlets), then the ending
every route shares (:func:`~._run.refined_run`: a few EM iterations and the PWM tuned at the
site threshold, sites, selection, matches)."""

from __future__ import annotations

import logging

from ...errors import SeqimpError
from ._run import MotifRun, empty_sites, empty_stats, motif_matches, refined_run, with_database_loaded

__all__ = ["gkm_motifs"]

logger = logging.getLogger(__name__)


def gkm_motifs(model, sequences, *, options, seqlet_quantile=0.9, round=1, accepted=(), match=True,
               random_state=None, seqlets=True) -> MotifRun:
    """The motifs of a fitted :class:`~seqimp.kernels.GKMClassifier` on the run's sequences:
    :func:`seqimp.motifs.gkm_seed_motifs` (attributions, seqlets, seeds), then
    :func:`~._run.refined_run` with :data:`seqimp.motifs._gkm_seeds.EM_ITERATIONS` EM iterations
    per fit and the discriminative tuning (``tune=True``).

    Parameters
    ----------
    model : GKMClassifier
        Fitted.
    sequences : LabelledSequences
        Positives and negatives (codes, a row per sequence; records of any lengths padded to one).
    options : MotifOptions
        Strand, fpr, p-value cuts, ``max_motifs`` (default 3 seeds), database.
    seqlet_quantile : float, default=0.9
        A seqlet's attribution lies above this quantile of the negatives' best windows
        (:func:`seqimp.importance.find_seqlets`).
    round, accepted, match
        As :func:`~._poim_route.poim_motifs`' (a later round of explaining away: seeds named
        ``round2_gkm1, ...``, motifs numbered on from ``accepted``, copies of them merged into
        them).
    random_state : int or None
        The seed of the composition controls.
    seqlets : bool, default=True
        False (the later rounds): seeds from the l-mer weights only and no ``result``.

    Returns
    -------
    MotifRun
        Position-free motifs; ``result`` is :func:`seqimp.importance._gkmexplain.attribution_result`;
        ``candidates`` the seeds.
    """
    from ...importance._gkmexplain import attribution_result
    from .. import gkm_seed_motifs
    from .._gkm_seeds import EM_ITERATIONS
    from ..known._database import database_info

    options = with_database_loaded(options)
    pos, neg = sequences.positive, sequences.negative
    if pos is None or neg is None:
        raise SeqimpError("the gkm motifs are refined on positive and negative sequences: give both")
    found = gkm_seed_motifs(model, pos, neg, max_motifs=options.max_motifs or 3, round=round, seqlets=seqlets,
                            seqlet_quantile=seqlet_quantile, strand=options.strand, exclude=accepted)
    parameters = {"strand": options.strand, "fpr": options.fpr, "max_pvalue": options.max_pvalue,
                  "max_held_out_pvalue": options.max_held_out_pvalue, "max_motifs": options.max_motifs,
                  "rounds": options.rounds, "seqlets": int(len(found.seqlets)),
                  "seqlet_threshold": float(found.seqlets.attrs["threshold"]),
                  "database": database_info(options.database)}
    result = (attribution_result(model, pos, found.positive_attr, found.negative_attr) if seqlets else None)
    if found.seeds:
        logger.info(f"refining {len(found.seeds)} position-free seed(s) on the sequences (EM, strand "
                    f"{options.strand}, then tuned at the site threshold)")
        # the EM stays near the model's motif: run to convergence over every start of long
        # sequences, it drifts to low-complexity stretches of the background (seqimp.motifs._gkm_seeds)
        return refined_run(found.seeds, sequences, options, candidates=found.candidates, result=result,
                           parameters=parameters, round=round, accepted=accepted, match=match,
                           random_state=random_state, max_iter=EM_ITERATIONS, tune=True,
                           max_held_out_pvalue=options.max_pvalue)  # a seed failing p is not refitted
    if seqlets:
        logger.info("no seed word is enriched in the seqlets; no gkm motif")
    else:
        logger.info(f"round {round}: no l-mer of the retrained model stands out; no further gkm motif")
    run = MotifRun([], None, found.candidates, result=result, stats=empty_stats(), sites=empty_sites(),
                   coords=sequences.coords, parameters=parameters)
    if match:
        run.matches = motif_matches(run, options)
    return run
