"""The positional route of the motif search: seeds from a POIM's candidates (:func:`poim_motifs`:
the peaks of its differential POIM, PWMs fitted to them), then the ending every route shares
(:func:`~._run.refined_run`); the POIM of a WD model trained on a run's sequences
(:func:`trained_poim`), which the first round and each later one explain."""

from __future__ import annotations

import logging
from dataclasses import replace

from ..._utils.heap import release_free_heap, tables_outside_heap
from ...background._poim_background import make_background
from ...errors import SeqimpError
from ...importance._poim_job import check_job, compute_importance
from ...io._labelled import LabelledSequences
from ...options import MotifOptions
from ...training import train_classifier
from ._run import MotifRun, empty_sites, empty_stats, motif_matches, refined_run, with_database_loaded

__all__ = ["poim_motifs", "trained_poim", "with_full_tables", "no_motifs_reason"]

logger = logging.getLogger(__name__)


def trained_poim(data, *, model, background, importance, random_state, progress, held_out=None, duals=None):
    """The POIM of a WD model trained on encoded positives vs negatives (the job checked first).

    The importance comes from a model trained on *all* sequences; with ``model.test_fraction > 0``
    a second model, trained on the rest of a stratified split, only gives the held-out metrics
    (``result.meta["metrics"]``), unless ``held_out`` holds them already.

    Parameters
    ----------
    data : LabelledSequences
        Positives and negatives, codes of shape (n, L) each.
    model : ModelOptions
        ``degree``, ``shifts``, ``C``, ``test_fraction``.
    background : BackgroundOptions
        The background the POIM is computed against.
    importance : ImportanceOptions
        ``max_order`` (default the degree) and ``max_memory`` (training and POIM).
    random_state : int or None
        The held-out split and the solver.
    progress : bool or None
        Progress bars of the training and the POIM levels.
    held_out : dict, optional
        The held-out metrics of the model choice (``n_test``, ``accuracy``, ``auroc``), reused;
        its ``alpha_start`` (:func:`seqimp.training.train_classifier`, ``keep_start``) starts the
        fit on all sequences.
    duals : dict, optional
        The dual variables carried from fit to fit (the rounds' models, trained on the same
        sequences but for the erased sites): ``duals["alpha"]``, shape (n,), where present,
        starts the fit on all sequences and is replaced by that fit's. Only the start: the
        optimum is the same, fewer passes reach it.

    Returns
    -------
    POIMResult or StreamedPOIM
        ``poim[k-1]``, ``firm[k-1]`` of shape (L-k+1, 4**k) for k = 1..max_order.
    """
    length = data.length
    max_order = importance.order(model.degree)
    check_job(length, degree=model.degree, max_order=max_order, background_order=background.order,
              max_memory=importance.max_memory)
    release_free_heap()  # the last round's free blocks back to the system (seqimp._utils.heap)
    X, y = data.labelled()
    info = None if held_out is None else dict(held_out)  # the held-out metrics when the caller has them already
    if info is None and model.test_fraction > 0:  # held-out accuracy only; the importance comes from all sequences
        _w, info = train_classifier(X, y, model=model, random_state=random_state, progress=progress,
                                    max_memory=importance.max_memory, weights=False, keep_start=True)
    start = None if info is None else info.pop("alpha_start", None)
    if duals is not None and duals.get("alpha") is not None:
        start = duals["alpha"]
    weights, _all = train_classifier(X, y, model=replace(model, test_fraction=0.0), random_state=random_state,
                                     progress=progress, max_memory=importance.max_memory, alpha_init=start,
                                     keep_start=duals is not None)
    if duals is not None:
        duals["alpha"] = _all.pop("alpha_start")
    bg, text = make_background(background.kind, positive=data.positive, negative=data.negative,
                               fasta=background.fasta, length=length, order=background.order,
                               positional=background.positional)
    logger.info(f"computing POIM and FIRM up to order {max_order} ({text})")
    with tables_outside_heap():  # the tables and the levels' arrays returned whole when freed
        result = compute_importance(weights, bg, max_order=max_order, max_memory=importance.max_memory,
                                    progress=progress)
    if info is not None:
        result.meta = dict(result.meta or {}, metrics={k: info[k] for k in ("n_test", "accuracy", "auroc")})
    return result


def poim_motifs(result, sequences=None, *, options=MotifOptions(), round=1, accepted=(), match=True,
                random_state=None) -> MotifRun:
    """The motif search on a POIM already computed: no training, nothing written.

    :func:`seqimp.motifs.discover_motifs` on ``result``; with sequences, :func:`refined_run` on
    its candidates; TOMTOM matches against ``options.database``
    (:func:`seqimp.motifs.database_matches`) for every motif that is not composition.

    Parameters
    ----------
    result : POIMResult or StreamedPOIM
        ``result.poim[k-1]`` of shape (L-k+1, 4**k); the orders with full tables are used
        (:func:`with_full_tables`).
    sequences : LabelledSequences, optional
        From :func:`seqimp.io._labelled.encode_labelled`: positives and negatives (both or neither), codes of
        shape (n, L) with L the POIM's length, encoded once by the caller. Where the positives are genomic windows
        (``sequences.coords``) ``motif_sites.bed`` is in genome coordinates.
    options : MotifOptions
    round : int, default=1
        The round of explaining away (:func:`~seqimp.pipeline.run_motifs`): candidates are
        named ``candidate1, ...`` in round 1, ``round2_candidate1, ...`` later; the motifs
        kept are numbered on from ``accepted``.
    accepted : sequence of Motif
        Motifs reported in earlier rounds: a copy of one is merged into it.
    match : bool, default=True
        Match the motifs to ``options.database`` here (the caller matches them all at the end
        of several rounds).
    random_state : int or None
        The seed of the composition controls (dinucleotide shuffles of the positives).

    Returns
    -------
    MotifRun
        Without ``files``; ``parameters`` hold the motif options (the caller adds the seed).
    """
    from .. import discover_motifs
    from ..known._database import database_info

    options = with_database_loaded(options)
    strand = options.strand
    sequences = LabelledSequences(None, None) if sequences is None else sequences
    pos, neg = sequences.positive, sequences.negative
    if (pos is None) != (neg is None):
        raise SeqimpError("give both positive and negative sequences (or neither, with a POIM)")
    if pos is not None and pos.shape[1] != result.length:
        raise SeqimpError(f"positive sequences have length {pos.shape[1]}, but the POIM describes sequences "
                          f"of length {result.length}")
    result = with_full_tables(result)
    fit_order = min(options.fit_order, result.max_order)
    parameters = {"min_width": options.min_width, "max_width": options.max_width,
                  "position_origin": options.position_origin, "strand": strand, "fpr": options.fpr,
                  "max_pvalue": options.max_pvalue,
                  "max_held_out_pvalue": options.max_held_out_pvalue, "measure": options.measure,
                  "fit_order": fit_order, "max_motifs": options.max_motifs, "min_score": options.min_score,
                  "rounds": options.rounds, "database": database_info(options.database)}
    logger.info(f"finding motifs in a POIM of length {result.length}, orders 1..{result.max_order}"
                + (f" (round {round}, the sites of {len(accepted)} motif(s) explained away)" if round > 1 else ""))
    reason = no_motifs_reason(result)
    if reason is not None and pos is not None:  # nothing to refine: "no motif" is an answer
        logger.info(f"no motif found: {reason}")
        return MotifRun([], None, _no_candidates(), result=result, stats=empty_stats(),
                        sites=empty_sites(), parameters=dict(parameters, noise_level=float("nan")))
    prefix = "candidate" if round == 1 else f"round{round}_candidate"
    found = discover_motifs(result, max_motifs=options.max_motifs, measure=options.measure,
                            orders=range(1, fit_order + 1), min_score=options.min_score,
                            strand="both" if strand == "both" else "given", prefix=prefix,
                            max_length=options.max_width)
    motifs = _widened(found.motifs, options.min_width, result.length)
    if accepted:
        motifs = _without_copies(motifs, accepted, round)
    candidates = found.candidates.assign(round=round)
    parameters["noise_level"] = found.noise
    if pos is not None and not motifs:  # every candidate a copy of a motif reported: nothing to refine
        return MotifRun([], None, candidates, result=result, stats=empty_stats(), sites=empty_sites(),
                        parameters=parameters)
    if pos is not None:
        logger.info(f"refining {len(motifs)} candidate(s) on the sequences (EM, strand {strand}) and finding sites")
        return refined_run(motifs, sequences, options, candidates=candidates, result=result, parameters=parameters,
                           round=round, accepted=accepted, match=match, random_state=random_state,
                           max_length=options.max_width, min_length=options.min_width,
                           max_held_out_pvalue=options.max_pvalue)  # a candidate failing p is not refitted
    # no sequences to count sites in: the POIM's motifs, named in their order
    motifs = [replace(m, name=f"motif{n}") for n, m in enumerate(motifs, start=len(accepted) + 1)]
    run = MotifRun(motifs, None, candidates, result=result, parameters=parameters)
    if match:
        run.matches = motif_matches(run, options)
    return run


def _no_candidates():
    """The candidate table of a POIM without candidates: the columns, no row."""
    import pandas as pd

    return pd.DataFrame(columns=["rank", "oligomer", "order", "position", "score", "importance", "direction",
                                 "round"])


def with_full_tables(result, *, announce=True):
    """``result`` restricted to the orders whose full tables it holds: a streamed POIM (and the
    summaries in ``poim.npz``) keeps them for k <= 4 only, and motif candidates read whole rows.
    One log line (``announce``) says when orders are left out.

    Parameters
    ----------
    result : POIMResult or StreamedPOIM
    announce : bool, default=True

    Returns
    -------
    POIMResult or StreamedPOIM
        ``result`` itself when every order has its tables (``poim[k-1]``, ``firm[k-1]`` of shape
        (L-k+1, 4**k)), else a POIMResult of orders 1..K, K the last order with both.
    """
    from ...importance import POIMResult

    full = 0
    while full < result.max_order and result.poim[full] is not None and result.firm[full] is not None:
        full += 1
    if full == result.max_order:
        return result
    if full == 0:
        raise SeqimpError("the POIM holds no full tables (only summaries): motifs need the tables of order 1 at least")
    if announce:
        logger.info(f"motifs from POIM orders 1..{full}: the higher orders are kept as summaries only "
                    "(streaming engine or poim.npz)")
    return POIMResult(list(result.poim[:full]), list(result.firm[:full]), expected_score=result.expected_score,
                      score_std=result.score_std, alphabet=result.alphabet, method=result.method, meta=result.meta)


def no_motifs_reason(result):
    """Why ``result`` holds no motif candidates (peaks of the differential POIM at orders 2 and
    up), as a phrase for the terminal, or None when it holds some.

    Parameters
    ----------
    result : POIMResult or StreamedPOIM

    Returns
    -------
    str or None
    """
    from .. import motif_candidates

    result = with_full_tables(result, announce=False)
    if result.max_order < 2:
        return "a POIM of order 1 only; motif candidates are peaks at orders 2 and up (--max-order 2 or more)"
    if len(motif_candidates(result, 1)) == 0:
        return "the differential POIM has no positive peak"
    return None


def _without_copies(motifs, accepted, round) -> list:
    """``motifs`` without the POIM candidates that copy a motif already reported
    (:func:`seqimp.motifs._copies.same_motif`, either strand, where both are placed): a later
    round's model still holds the peaks of the motifs explained away, and their refinement would
    be merged into them. One log line names those left out."""
    from .._copies import copied_motif

    kept, copies = [], []
    for m in motifs:
        copied = copied_motif(m, accepted)
        if copied is None:
            kept.append(m)
        else:
            copies.append(f"{m.consensus} at {m.start} ({copied.name})")
    if copies:
        logger.info(f"{len(copies)} POIM candidate(s) left out as copies of motifs already reported: "
                    f"{', '.join(copies)} (round {round})")
    return kept


def _widened(motifs, min_width, length) -> list:
    """Motifs narrower than ``min_width`` with uniform columns added on both sides (right first
    when odd), within positions 1..``length``; the others as they are."""
    import numpy as np

    out = []
    for m in motifs:
        extra = min(min_width, length) - m.length
        if extra <= 0 or m.start is None:
            out.append(m)
            continue
        left = min(extra // 2, m.start - 1)
        right = min(extra - left, length - (m.start - 1 + m.length))
        left = min(extra - right, m.start - 1)
        pwm = np.vstack([np.full((left, 4), 0.25), m.pwm, np.full((right, 4), 0.25)])
        out.append(replace(m, pwm=pwm, start=m.start - left))
    return out
