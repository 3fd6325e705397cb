"""``seqimp motifs`` as a library function: POIM (given, loaded or trained here) -> motifs ->
sites -> matches -> files.

>>> from seqimp.pipeline import ModelOptions, run_motifs                          # doctest: +SKIP
>>> run = run_motifs("motifs", positive=pos, negative=neg, model=ModelOptions(degree=6))  # doctest: +SKIP
>>> run.table()                                                                  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace

from ..errors import SeqimpError
from ._motif_files import update_report, write_motif_run
from ._motifs import MotifRun, find_motifs, motif_matches, with_database_loaded
from ._options import BackgroundOptions, ImportanceOptions, ModelOptions, MotifOptions, OutputOptions
from ._poim_routes import check_job, compute_importance, make_background
from ._sequences import encode_sequences
from ._train import recorded_seed, train_classifier

__all__ = ["run_motifs"]

logger = logging.getLogger(__name__)


def run_motifs(out, *, poim=None, positive=None, negative=None, model=ModelOptions(),
               background=BackgroundOptions(), importance=ImportanceOptions(), motifs=MotifOptions(),
               output=OutputOptions(), random_state=None, route=None) -> MotifRun:
    """Find the motifs a model relies on and write them into the folder ``out``.

    Starts from a POIM (``poim``) or trains a WD classifier on ``positive`` vs ``negative``
    and computes its POIM. The importance comes from a model trained on *all* sequences;
    with ``model.test_fraction > 0`` a second model, trained on the rest of a stratified
    split, only reports held-out accuracy and auROC, so the motifs do not depend on the split.
    Then :func:`find_motifs`: :func:`seqimp.motifs.discover_motifs`, refinement and sites on
    the sequences (:func:`seqimp.motifs.refine_motifs`; motifs whose sites are not enriched --
    Fisher p-value above ``motifs.max_pvalue``, held-out p-value above
    ``motifs.max_held_out_pvalue`` or fewer than 5 sites -- are dropped; where none is
    enriched, none is reported and the log gives the best candidate's figures; a refined motif
    that copies a stronger one is merged into it; a motif as frequent in the positives'
    dinucleotide shuffles is flagged as composition). When the model is trained here, the
    motifs found are then explained away, round after round (up to ``motifs.rounds``): their
    sites are erased in the positives and negatives, the model is trained again and motifs
    are looked for in what is left, until a round finds no new enriched motif -- a second
    motif that the first one's importance hid comes out beside it. Last, TOMTOM matches
    against ``motifs.database`` for every motif that is not composition. When
    ``out`` holds a ``seqimp poim`` result (``summary.json``), its summary records the best
    motif and its ``report.html`` is rewritten with a motif section
    (:func:`~seqimp.pipeline.update_report`).

    Parameters
    ----------
    out : path-like
        Folder to write into (created if missing; its parent must exist): ``motifs.meme``,
        ``motifs.jaspar``, ``motifs.transfac``, ``motifs.tsv``, ``motif_candidates.tsv``,
        ``logos/`` (one logo per motif and ``importance_logo``), ``matches.tsv`` (with a
        database), ``motif_sites.tsv``/``.bed`` (with sequences: their ids are the FASTA ids
        of a SequenceSet, else ``pos1, pos2, ...``) and ``motifs_poim.npz`` (the POIM, when
        trained here; never ``poim.npz``, which is ``seqimp poim``'s).
    poim : POIMResult, StreamedPOIM or path-like, optional
        A POIM instead of training (a path is read by :func:`seqimp.load_poim`).
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L), optional
        Both or neither. Without ``poim`` they train the model; with it they only
        calibrate the PWMs by counting sites.
    model : ModelOptions
        ``degree``, ``shifts``, ``C``, ``test_fraction``; used only without ``poim``.
    background : BackgroundOptions
        The background of the POIM computed here.
    importance : ImportanceOptions
        ``max_order`` and ``max_memory`` of the POIM computed here (it is kept in
        ``motifs_poim.npz``: ``full_tables`` is :func:`run_poim`'s).
    motifs : MotifOptions
        How motifs are found, refined and matched; the database is recorded in
        ``motifs.json``. With JASPAR's class annotations, ``matches.tsv`` gets a
        ``target_class`` column.
    output : OutputOptions
        ``fmt`` of the logos and ``progress``.
    random_state : int or None
        Every random choice (default 0, recorded in ``motifs.json``).
    route : ModelRoute, optional
        The positional route chosen by :func:`~seqimp.pipeline._model_route.run_motifs_routed`:
        its held-out metrics are reused (no second held-out model) and ``motifs.json`` records it
        as ``model_route``.

    Returns
    -------
    MotifRun

    Notes
    -----
    Progress lines go to the ``seqimp`` logger (:mod:`logging`, level INFO).
    """
    from ..importance import load_poim

    if importance.full_tables:
        raise SeqimpError("full_tables: run_motifs keeps its POIM in motifs_poim.npz; full tables are run_poim's")
    random_state = 0 if random_state is None else random_state
    motifs = with_database_loaded(motifs)
    data = encode_sequences(positive, negative, "dna")
    if (data.positive is None) != (data.negative is None):
        raise SeqimpError("give both positive and negative sequences (or neither, with a POIM)")
    trained = poim is None
    if not trained:
        result = load_poim(poim) if isinstance(poim, (str, os.PathLike)) else poim
    elif data.positive is None:
        raise SeqimpError("positive and negative sequences are required (or start from a POIM)")
    else:
        result = _train_and_explain(data, model=model, background=background, importance=importance,
                                    random_state=random_state, progress=output.progress,
                                    held_out=None if route is None else route.held_out)
    run = find_motifs(result, data, options=motifs, match=not trained, random_state=random_state)
    if trained and data.positive is not None:
        result = None  # run.result holds the POIM; _explain_away may park it on disk meanwhile
        run = _explain_away(run, data, model=model, background=background, importance=importance, motifs=motifs,
                            random_state=random_state, progress=output.progress)
        run.matches = motif_matches(run, motifs)
        if not run.motifs and not model.shifts:
            logger.info("hint: a motif whose place varies along the sequences needs a model with shifts "
                        "(--shifts) or shows as position-free")
    run.parameters.update(seed=recorded_seed(random_state), trained=trained)
    if trained:
        run.parameters.update(degree=model.degree, shifts=model.shifts, C=model.C, test_fraction=model.test_fraction,
                              metrics=run.result.meta.get("metrics"))
        if route is not None:
            run.parameters["model_route"] = route.record()
    run.files = write_motif_run(out, run, database=motifs.database, measure=motifs.measure, fmt=output.fmt,
                                with_poim=trained, homer=motifs.homer)
    update_report(out, run)
    return run


def _explain_away(run, data, *, model, background, importance, motifs, random_state, progress):
    """Rounds 2, 3, ... of :func:`run_motifs` (up to ``motifs.rounds``): the sites of the motifs
    the last round reported are erased in the positives and the negatives
    (:func:`seqimp.motifs._sites.mask_sites`: random letters of the negatives' frequencies),
    the model is trained again on what is left, and motifs are looked for in its POIM
    (:func:`find_motifs`, copies of motifs already reported merged into them). Stops at the
    first round that reports no new motif. The motifs, statistics, sites and candidates of
    all rounds are joined; the POIM kept is the first round's (written to a temporary file while
    the later rounds compute theirs, and read back)."""
    import tempfile
    from pathlib import Path

    from ..importance import POIMResult

    if not run.motifs or motifs.rounds < 2:
        return run
    if not isinstance(run.result, POIMResult):  # nothing to park
        return _rounds(run, data, model=model, background=background, importance=importance, motifs=motifs,
                       random_state=random_state, progress=progress)
    with tempfile.TemporaryDirectory(prefix="seqimp-rounds-") as folder:
        # the first round's POIM waits on disk while later rounds compute theirs: one POIM in memory
        parked = Path(folder) / "round1_poim.npz"
        run.result.save(parked)
        run.result = None
        try:
            return _rounds(run, data, model=model, background=background, importance=importance, motifs=motifs,
                           random_state=random_state, progress=progress)
        finally:
            run.result = POIMResult.load(parked)


def _rounds(run, data, *, model, background, importance, motifs, random_state, progress, search=None):
    """The rounds 2, 3, ... of :func:`_explain_away`. ``search(masked, round, accepted) -> MotifRun``
    replaces a round's retraining and POIM search (the gkm route's,
    :func:`seqimp.pipeline._gkm_motifs.gkm_explain_away`)."""
    import pandas as pd

    from ..errors import check_random_state
    from ..motifs._sites import mask_sites

    accepted, new, steps = list(run.motifs), list(run.motifs), [run]
    pos, neg = data.positive.copy(), data.negative.copy()
    rng = check_random_state(random_state)
    strands = ("+", "-") if motifs.strand == "both" else ("+",)
    for number in range(2, motifs.rounds + 1):
        if not new:
            break
        step = steps[-1]
        for m in new:
            row = step.stats[step.stats["name"] == m.name].iloc[0].to_dict()
            n_pos, n_neg = mask_sites(m, row, pos, neg, step.sites[step.sites["motif"] == m.name], strands=strands,
                                      random_state=rng)
            logger.info(f"explaining {m.name} ({m.consensus}) away: its sites erased in {n_pos} positives and "
                        f"{n_neg} negatives")
        masked = replace(data, positive=pos, negative=neg)
        if search is not None:
            step = search(masked, number, accepted)
        else:
            result = _train_and_explain(masked, model=replace(model, test_fraction=0.0), background=background,
                                        importance=importance, random_state=random_state, progress=progress)
            step = find_motifs(result, masked, options=motifs, round=number, accepted=accepted, match=False,
                               random_state=random_state)
        step.result = result = None  # only the first round's POIM is kept
        new = list(step.motifs)
        accepted += new
        steps.append(step)
        logger.info(f"round {number}: {len(new)} new motif(s)" + ("" if new else "; nothing more is enriched, done"))
    if len(steps) == 1:
        return run
    run.motifs = accepted
    run.stats = pd.concat([s.stats for s in steps if len(s.stats)] or [run.stats], ignore_index=True)
    run.sites = pd.concat([s.sites for s in steps if len(s.sites)] or [run.sites], ignore_index=True)
    run.candidates = pd.concat([s.candidates for s in steps], ignore_index=True)
    run.parameters["rounds_run"] = len(steps)
    return run


def _train_and_explain(data, *, model, background, importance, random_state, progress, held_out=None):
    """The POIM of a WD model trained on encoded positives vs negatives (``data``, job checked first)."""
    length = data.length
    max_order = importance.order(model.degree)
    check_job(length, degree=model.degree, max_order=max_order, background_order=background.order,
              max_memory=importance.max_memory)
    X, y = data.labelled()
    info = held_out  # the held-out metrics when the caller has them already
    if info is None and model.test_fraction > 0:  # held-out accuracy only; the importance comes from all sequences
        _w, info = train_classifier(X, y, model=model, random_state=random_state, progress=progress,
                                    max_memory=importance.max_memory)
    weights, _all = train_classifier(X, y, model=replace(model, test_fraction=0.0), random_state=random_state,
                                     progress=progress, max_memory=importance.max_memory)
    bg, text = make_background(background.kind, positive=data.positive, negative=data.negative,
                               fasta=background.fasta, length=length, order=background.order,
                               positional=background.positional)
    logger.info(f"computing POIM and FIRM up to order {max_order} ({text})")
    result = compute_importance(weights, bg, max_order=max_order, max_memory=importance.max_memory, progress=progress)
    if info is not None:
        result.meta = dict(result.meta or {}, metrics={k: info[k] for k in ("n_test", "accuracy", "auroc")})
    return result
