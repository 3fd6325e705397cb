"""``seqimp motifs`` as a library function: a POIM (given, loaded or computed here) or a trained
model -> motifs -> sites -> matches -> files (:func:`run_motifs`); the same search on a notebook's
POIM or model, no files (:func:`find_motifs`).

>>> from seqimp.options import ModelOptions                                      # doctest: +SKIP
>>> from seqimp.pipeline import run_motifs                                       # doctest: +SKIP
>>> run = run_motifs("motifs", positive=pos, negative=neg, model=ModelOptions(degree=6))  # doctest: +SKIP
>>> run.table()                                                                  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from pathlib import Path

from ..errors import SeqimpError
from ..importance import load_poim
from ..importance._poim_job import compute_importance
from ..io._labelled import encode_labelled
from ..motifs.search._attribution_route import attribution_run
from ..motifs.search._gkm_route import gkm_motifs
from ..motifs.search._padding import drop_sites_in_padding
from ..motifs.search._poim_route import poim_motifs
from ..motifs.search._rounds import PARKED_POIM
from ..motifs.search._run import MotifRun, with_database_loaded
from ..motifs.search._trained_search import trained_motifs
from ..options import BackgroundOptions, ImportanceOptions, ModelOptions, MotifOptions, OutputOptions
from ..training._classifier import recorded_seed
from ..training._model_choice import check_kind
from ._motif_files import figures_ahead, update_report, write_attribution_run, write_motif_run

__all__ = ["run_motifs", "find_motifs"]

logger = logging.getLogger(__name__)


def run_motifs(out, *, poim=None, positive=None, negative=None, model=ModelOptions(),
               background=BackgroundOptions(), importance=ImportanceOptions(), motifs=MotifOptions(),
               output=OutputOptions(), random_state=None, sequences=None, attributions=None) -> MotifRun:
    """Find the motifs a model relies on and write them into the folder ``out``.

    Starts from a POIM (``poim``) or trains a WD classifier on ``positive`` vs ``negative``
    and computes its POIM. The importance comes from a model trained on *all* sequences;
    with ``model.test_fraction > 0`` a second model, trained on the rest of a stratified
    split, only reports held-out accuracy and auROC, so the motifs do not depend on the split.
    Then the POIM's motifs: :func:`seqimp.motifs.discover_motifs`, refinement and sites on
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
    (:func:`~seqimp.pipeline._motif_files.update_report`).

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
        ``kind``, ``degree``, ``shifts``, ``C``, ``test_fraction``, ``word_length`` and
        ``informative`` (the gkm model); used only without ``poim``.
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
    sequences, attributions : ndarray of shape (n, 4, L) or (n, L, 4), optional
        Instead of the above: one-hot sequences and any model's hypothetical contributions
        (TF-MoDISco's inputs; :func:`find_motifs`). Writes motifs.meme, motifs.tsv, seqlets.tsv,
        motif_cwms.npz, motifs.json, logos/, matches.tsv (with a database) and report.html.

    Returns
    -------
    MotifRun

    Notes
    -----
    Progress lines go to the ``seqimp`` logger (:mod:`logging`, level INFO).
    """
    if importance.full_tables:
        raise SeqimpError("full_tables: run_motifs keeps its POIM in motifs_poim.npz; full tables are run_poim's")
    random_state = 0 if random_state is None else random_state
    kind = check_kind(model.kind, model.shifts)
    if poim is not None and kind == "gkm":
        raise SeqimpError("model kind 'gkm' trains a gapped-k-mer model on the sequences; it does not start "
                          "from a POIM (leave out the POIM, or use kind 'auto' or 'wd')")
    motifs = with_database_loaded(motifs)
    if sequences is not None or attributions is not None:  # any model's attributions: no training, no POIM
        run = attribution_run(sequences, attributions, options=motifs, random_state=random_state)
        write_attribution_run(out, run, database=motifs.database, fmt=output.fmt)
        return run
    # records of any lengths padded to one (seqimp.io._any_length.pad_records)
    padded = getattr(positive, "record_lengths", None)
    if padded is not None and poim is None:
        if kind in ("wd", "wds"):
            raise SeqimpError(f"model kind {kind!r} reads positions, and the records have lengths {padded.min()} to "
                              f"{padded.max()}: cut windows of one width (seqimp.io._any_length.centred_windows) "
                              "or use kind 'gkm' or 'auto' (the position-free model)")
        model, kind = replace(model, kind="gkm"), "gkm"
    data = encode_labelled(positive, negative, "dna", unknown=True)
    if (data.positive is None) != (data.negative is None):
        raise SeqimpError("give both positive and negative sequences (or neither, with a POIM)")
    if poim is None and data.positive is None:
        raise SeqimpError("positive and negative sequences are required (or start from a POIM)")
    common = dict(model=model, background=background, importance=importance, motifs=motifs, output=output,
                  random_state=random_state, negatives=data.described.get("negative"), padded=padded)
    if poim is not None:
        result = load_poim(poim) if isinstance(poim, (str, os.PathLike)) else poim
        run = poim_motifs(result, data, options=motifs, match=True, random_state=random_state)
        return _finish(out, run, trained=False, **common)
    try:
        run = trained_motifs(data, model=model, background=background, importance=importance, motifs=motifs,
                             random_state=random_state, progress=output.progress, park=out,
                             on_first_round=lambda first: figures_ahead(out, first, measure=motifs.measure,
                                                                        fmt=output.fmt))  # drawn while round 2 searches
        positional = run.parameters["model_route"]["route"] != "gkm"  # the gkm route computes no POIM
        return _finish(out, run, trained=True, with_poim=positional, **common)
    finally:  # the parked POIM: moved into place as motifs_poim.npz by the files' writer, else not left behind
        (Path(out) / PARKED_POIM).unlink(missing_ok=True)


def _finish(out, run, *, trained, motifs, output, random_state, with_poim=None, negatives=None, padded=None, **_):
    """The seed, ``trained`` and where the negatives came from recorded (with records padded to one
    length: the sites in the padding left out, and counted), the files written, a ``seqimp poim``
    folder's report updated."""
    run.parameters.update(seed=recorded_seed(random_state), trained=trained, negatives=negatives,
                          candidates_tested=run.tested)
    if padded is not None:  # records padded with shuffles of themselves: no site is reported in the padding
        drop_sites_in_padding(run, padded)
    run.files = write_motif_run(out, run, database=motifs.database, measure=motifs.measure, fmt=output.fmt,
                                with_poim=trained if with_poim is None else with_poim, homer=motifs.homer)
    update_report(out, run)
    return run


def find_motifs(result_or_model=None, positive=None, negative=None, *, database=None, strand="given", random_state=0,
                sequences=None, attributions=None) -> MotifRun:
    """The motifs of a POIM or a trained model on a notebook's sequences: the search of
    :func:`run_motifs` (refinement and sites on the sequences, the enriched motifs, matches to
    ``database``), without training, explaining away or files.

    Parameters
    ----------
    result_or_model : POIMResult, StreamedPOIM, WDClassifier, PositionalWeights or GKMClassifier
        A POIM (:func:`seqimp.poim`), or a fitted positional model (its exact POIM is computed
        here, up to its degree, against an order-0 background fitted on ``negative``), or a
        fitted gapped-k-mer model (its seeds from l-mer weights and attributions).
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L)
        DNA sequences of the model's length: the motifs' sites are counted in them.
    database : path-like, str or MotifDatabase, optional
        Known motifs to match against: a motif file, or a JASPAR release by name (``"JASPAR2024"``,
        with the optional ``jaspar`` extra).
    strand : {"given", "both"}, default="given"
        Where sites are looked for: the given strand only, or either strand (``seqimp motifs`` and
        ``MotifOptions`` default to "both"; this signature is kept as published).
    random_state : int, default=0
        The seed of the composition controls (recorded in ``parameters``).
    sequences, attributions : ndarray of shape (n, 4, L) or (n, L, 4), optional
        Instead of a model: one-hot sequences (A C G T) and any model's hypothetical
        contributions, TF-MoDISco's inputs: seqlets clustered into motifs with their CWMs
        (:mod:`seqimp.motifs._attribution_motifs`; ``run.found``, ``run.seqlet_table()``).

    Returns
    -------
    MotifRun
        ``.motifs`` (strongest first), ``.stats``, ``.sites``, ``.matches`` (None without a
        database), ``.table()``; shows itself as HTML in a notebook.

    Examples
    --------
    >>> res = seqimp.poim(clf.positional_weights(), bg, 6)                       # doctest: +SKIP
    >>> run = seqimp.find_motifs(res, pos, neg, database="JASPAR2024")           # doctest: +SKIP
    >>> run.table()                                                              # doctest: +SKIP
    """
    from ..background import MarkovBackground
    from ..importance import POIMResult, StreamedPOIM
    from ..kernels import GKMClassifier, PositionalWeights, WDClassifier

    options = MotifOptions(database=database, strand=strand)
    if sequences is not None or attributions is not None:
        return attribution_run(sequences, attributions, options=options, random_state=random_state)
    data = encode_labelled(positive, negative, "dna", unknown=True)
    if not data.both:
        raise SeqimpError("find_motifs: give the positive and the negative sequences (lists of strings, "
                          "SequenceSets or code arrays); the motifs' sites are counted in them")
    model = result_or_model
    if isinstance(model, GKMClassifier):
        if not hasattr(model, "dual_coef_"):
            raise SeqimpError("find_motifs: the GKMClassifier is not fitted; call .fit(X, y) first")
        run = gkm_motifs(model, data, options=options, random_state=random_state)
    else:
        if isinstance(model, WDClassifier):
            if not hasattr(model, "classes_"):
                raise SeqimpError("find_motifs: the WDClassifier is not fitted; call .fit(X, y) first")
            model = model.positional_weights()
        if isinstance(model, PositionalWeights):
            if model.length != data.length:
                raise SeqimpError(f"find_motifs: the model scores sequences of length {model.length}, the "
                                  f"sequences have length {data.length}")
            background = MarkovBackground(order=0).fit(data.negative)
            model = compute_importance(model, background, max_order=model.degree)
        if not isinstance(model, (POIMResult, StreamedPOIM)):
            raise SeqimpError("find_motifs: result_or_model must be a POIM (seqimp.poim) or a fitted WDClassifier, "
                              f"PositionalWeights or GKMClassifier, got {type(result_or_model).__name__}")
        run = poim_motifs(model, data, options=options, random_state=random_state)
    run.parameters["seed"] = recorded_seed(random_state)
    return run
