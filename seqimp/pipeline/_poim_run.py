"""The ``seqimp poim`` runs as library functions -- train (:func:`run_poim`), load
(:func:`run_model`) or sample (:func:`run_sampled`), evaluate, explain, write -- and the steps
every one ends with (:func:`explain_and_write`): compute the importance, write the result files
and (with motif options) the motifs, then ``summary.json`` and the report, once each, from the
summary in memory. The command line (``seqimp train``, ``seqimp poim``, ``seqimp demo``) only
parses options and calls these functions, so every step is usable from Python:

>>> from seqimp.options import ImportanceOptions, ModelOptions                        # doctest: +SKIP
>>> from seqimp.pipeline import run_poim                                             # doctest: +SKIP
>>> run = run_poim("results", pos, neg, model=ModelOptions(degree=6),
...                importance=ImportanceOptions(max_order=8))                        # doctest: +SKIP
>>> run.result.top(10, measure="firm")                                              # doctest: +SKIP
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import __version__
from .._utils.renamed import out_first
from ..background._poim_background import fit_background
from ..errors import SeqimpError
from ..importance._poim_job import check_job, compute_importance
from ..importance._scorers import call_scorer
from ..io import SequenceSet, get_alphabet
from ..io._check import check_sequences
from ..io._labelled import encode_labelled
from ..io._strand import require_dna
from ..kernels import PositionalWeights
from ..motifs.search._gkm_route import gkm_motifs
from ..motifs.search._poim_route import no_motifs_reason, poim_motifs, with_full_tables
from ..motifs.search._run import with_database_loaded
from ..options import BackgroundOptions, ImportanceOptions, ModelOptions, OutputOptions
from ..report import write_report
from ..report._record import add_file_sizes, json_ready, versions, write_summary
from ..training import choose_model, train_classifier, train_gkm
from ..training._classifier import evaluate, flag_chance, recorded_seed
from ..training._model_choice import check_kind, gkm_parameters
from ._motif_files import motif_summary, write_motif_run
from ._outputs import tables_path, top_oligomers, write_result_files

__all__ = ["PipelineRun", "run_poim", "run_model", "run_sampled", "explain_and_write", "run_summary",
           "check_motif_inputs", "check_out_folder", "add_motifs", "gkm_motif_files"]

logger = logging.getLogger(__name__)


@dataclass
class PipelineRun:
    """What :func:`~seqimp.pipeline.run_poim` (and the other ``run_*`` routes) produced.

    Attributes
    ----------
    weights : PositionalWeights or None
        The unfolded model (None for external scorers).
    result : POIMResult or StreamedPOIM
        ``result.poim[k-1]``, ``result.firm[k-1]`` of shape (L-k+1, 4**k).
    summary : dict
        Everything written to ``summary.json`` (JSON values: NaN and infinities as None).
    files : list of Path
        Files written, in the output folder.
    motifs : MotifRun or None
        The motifs found with ``motifs=MotifOptions(...)``; None without motif options or when
        the POIM holds no motif candidate.
    """

    weights: PositionalWeights | None
    result: object
    summary: dict
    files: list = field(default_factory=list)
    motifs: object = None

    def __repr__(self) -> str:
        from ..report._display import pipeline_run_repr

        return pipeline_run_repr(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: metrics, the POIM's figures and best oligomers, the motifs with logos."""
        from ..report._display import pipeline_run_html

        return pipeline_run_html(self)


def check_out_folder(out) -> Path:
    """``out`` as a Path to an existing folder, or a SeqimpError naming the cause and the fix."""
    out = Path(out)
    if not out.is_dir():
        cause = "is a file, not a folder" if out.exists() else "no such folder"
        raise SeqimpError(f"out {out}: {cause}; the run functions write into an existing folder: create it "
                          f"first (Path(out).mkdir(parents=True, exist_ok=True)) or give another")
    return out


def run_summary(title, command, parameters, data, metrics, background) -> dict:
    """The start of ``summary.json``: title, command, parameters, data, metrics and background."""
    return {"title": title or "seqimp POIM report", "command": command, "parameters": parameters,
            "data": data, "metrics": metrics, "background": background}


def check_motif_inputs(motifs, sequences) -> None:
    """Refuse motif options (``motifs`` not None) without both classes of DNA ``sequences``, before any work."""
    if motifs is None:
        return
    if not sequences.both:
        raise SeqimpError("motifs are refined on positive and negative sequences: give both, or motifs=None")
    require_dna(sequences.alphabet, "motifs")


def explain_and_write(explain, what, out, *, summary, timings, output, weights=None, model_metadata=None,
                      motifs=None, sequences=None, random_state=None, find=None) -> PipelineRun:
    """Compute the importance (``explain()``), write every output into ``out``, then
    ``summary.json`` once (with all timings) and the report from that summary.

    Parameters
    ----------
    explain : callable
        Returns the POIMResult (or StreamedPOIM).
    what : str
        The log line before it.
    out : path-like
        Existing folder.
    summary : dict
        From :func:`run_summary`; completed here.
    timings : dict
        Seconds of the steps before; ``poim`` and ``outputs`` are added.
    output : OutputOptions
        Format, top rows, positions (``position_origin``: the ``position_label`` column and the
        figures' axes), ``windows`` (``top_oligomers.bed``), ``dropped`` (``summary["dropped"]``).
    weights, model_metadata : PositionalWeights and dict, optional
        ``model.npz`` and ``weights_vs_firm``.
    motifs : MotifOptions, optional
        Find the motifs of the POIM, refined on ``sequences`` (:class:`~seqimp.io._labelled.LabelledSequences`
        of both classes), and write them (:func:`add_motifs`); the best motif
        goes to ``summary.json``. ``random_state`` is the seed ``motifs.json`` records.
    find : callable, optional
        ``find(out) -> MotifRun``: another model's motif search, written into ``out``, instead
        of the POIM's (the gkm model's, :func:`gkm_motif_files`).
    """
    out = check_out_folder(out)
    logger.info(what)
    start = time.perf_counter()
    result = explain()
    timings["poim"] = time.perf_counter() - start
    logger.info(f"writing tables, figures and the report ({output.fmt})")
    start = time.perf_counter()
    out = Path(out)
    summary = dict(summary, expected_score=result.expected_score, score_std=result.score_std,
                   method=result.method, versions=versions())
    if output.position_origin is not None:
        summary["position_origin"] = int(output.position_origin)
    if output.dropped is not None:
        summary["dropped"] = dict(output.dropped)
    # the top of every order, sorted by |FIRM|
    best = top_oligomers(result, 1, position_origin=output.position_origin).to_dict("records")
    if any(row["order"] >= 2 for row in best):  # the headline: oligomers, not single letters
        best = [row for row in best if row["order"] >= 2]
    if best:
        summary["top_oligomer"] = best[0]
        summary["top_per_order"] = sorted(best, key=lambda row: row["order"])
    files = write_result_files(out, result, weights=weights, fmt=output.fmt, top=output.top,
                               position_labels=output.position_labels, model_metadata=model_metadata,
                               position_origin=output.position_origin, windows=output.windows)
    if (out / "poim_tables.h5").exists():
        files.append(out / "poim_tables.h5")
    timings["outputs"] = time.perf_counter() - start
    summary["timings"] = timings
    found = None
    if find is not None:
        found = find(out)
    elif motifs is not None:
        found = add_motifs(out, result, sequences, motifs, fmt=output.fmt, random_state=random_state)
    if found is not None:
        files += found.files
        summary.update(motif_summary(found))
    summary = json_ready(add_file_sizes(summary, out, files))
    write_summary(out / "summary.json", summary)
    files.append(out / "summary.json")
    files.append(write_report(out, summary=summary))
    return PipelineRun(weights, result, summary, files, found)


@out_first(2)
def run_poim(out, positive, negative, *, model=ModelOptions(), background=BackgroundOptions(),
             importance=ImportanceOptions(), motifs=None, output=OutputOptions(), random_state=None) -> PipelineRun:
    """Train a WD model, evaluate it, compute POIM/FIRM and write every output into ``out``.

    The data are encoded once and the job is checked (lengths, memory) before training.

    Parameters
    ----------
    out : path-like
        Existing folder to write into (the CLI passes a staging folder). The output folder comes
        first in every ``run_*``; the old order ``run_poim(positive, negative, out)`` still works,
        with a DeprecationWarning.
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L)
    model : ModelOptions
        Degree, shifts, C, held-out share and alphabet of the WD classifier.
    background : BackgroundOptions
    importance : ImportanceOptions
        ``max_order`` (default the degree), ``max_memory`` (also bounds training:
        ``WDClassifier(memory_budget=...)``) and ``full_tables``.
    motifs : MotifOptions, optional
        Also find the motifs of the POIM and refine their sites on these (DNA) sequences, as
        ``seqimp motifs`` does (no second model): the motif files, the best motif in
        ``summary.json`` and a motif section in the report (:attr:`PipelineRun.motifs`).
    output : OutputOptions
    random_state : int or None
        The held-out split and the solver (None: the fixed seed 0; recorded as ``seed``).

    Returns
    -------
    PipelineRun

    Notes
    -----
    Progress lines go to the ``seqimp`` logger (:mod:`logging`, level INFO).
    """
    data = encode_labelled(positive, negative, model.alphabet, unknown=True)   # N: k-mers covering it are no features
    check_motif_inputs(motifs, data)
    if check_kind(model.kind, model.shifts) == "gkm" and motifs is None:
        raise SeqimpError("model kind 'gkm' finds the motifs of a gapped-k-mer model; this run has no motif step "
                          "(motifs=None)")
    X, y = data.labelled()
    length = X.shape[1]
    max_order = importance.order(model.degree)
    tables = tables_path(out, importance.full_tables)
    check_job(length, degree=model.degree, max_order=max_order, background_order=background.order,
              max_memory=importance.max_memory, full_tables=tables, alphabet_size=get_alphabet(data.alphabet).size)
    start = time.perf_counter()
    weights, info = train_classifier(X, y, model=model, random_state=random_state, progress=output.progress,
                                     alphabet=data.alphabet, max_memory=importance.max_memory)
    timings = {"train": time.perf_counter() - start}
    bg, bg_info = fit_background(background, positive=data.positive, negative=data.negative, length=length,
                                 alphabet=data.alphabet)
    metadata = {"degree": model.degree, "shifts": model.shifts, "C": model.C, "length": length,
                "alphabet": data.alphabet, "n_train": info["n_train"], "n_positive": info["n_positive"],
                "n_negative": info["n_negative"], "test_fraction": model.test_fraction,
                "seed": recorded_seed(random_state), "accuracy": info["accuracy"], "auroc": info["auroc"],
                "seqimp": __version__}
    parameters = {"degree": model.degree, "shifts": model.shifts, "max_order": max_order, "C": model.C,
                  "background": background.kind, "background_order": background.order,
                  "positional_background": background.positional, "test_fraction": model.test_fraction,
                  "seed": recorded_seed(random_state), "format": output.fmt, "top": output.top}
    metrics = {k: info[k] for k in ("n_train", "n_test", "accuracy", "auroc", "chance_level")}
    if "warning" in info:
        metrics["warning"] = info["warning"]
    summary = run_summary(output.title, "poim", parameters, data.record(), metrics, bg_info)
    choice = choose_model(model.kind if motifs is not None else "wds" if model.shifts else "wd", shifts=model.shifts,
                          held_out=info, gkm_held_out=lambda: train_gkm(X, y, model=model, random_state=random_state,
                                                                        full=False)[1])
    if motifs is None:
        choice.requested, choice.reason = model.kind, "no motif step: the POIM is the positional model's"
    else:
        logger.info(f"model route: {choice.route} ({choice.reason})")
    summary["model_route"] = choice.record()
    find = None
    if choice.route == "gkm":  # the positional model's POIM is written; the motifs are the gkm model's
        def find(folder):
            return gkm_motif_files(folder, data, model=model, options=motifs, choice=choice, fmt=output.fmt,
                                   random_state=random_state)
    return explain_and_write(
        lambda: compute_importance(weights, bg, max_order=max_order, max_memory=importance.max_memory,
                                   progress=output.progress, full_tables=tables),
        f"computing POIM and FIRM up to order {max_order} for L = {length}", out, weights=weights,
        model_metadata=metadata, summary=summary, timings=timings, output=output, motifs=motifs, sequences=data,
        random_state=random_state, find=find)


def add_motifs(out, result, sequences, options, *, fmt="png", random_state=None):
    """The motifs of a ``seqimp poim`` run (``motifs=`` of :func:`~seqimp.pipeline.run_poim`,
    :func:`~seqimp.pipeline.run_model` and :func:`~seqimp.pipeline.run_sampled`):
    :func:`seqimp.motifs.search._poim_route.poim_motifs` on the POIM it computed (a model trained
    there, a saved model, a sampled POIM of an external scorer) and the DNA sequences of the run
    (``sequences``, no retraining), and the files of :func:`~seqimp.pipeline.run_motifs` (no ``motifs_poim.npz``:
    the folder's ``poim.npz`` is the POIM) written into ``out``. The caller records the best
    motif in ``summary.json`` and writes the report.

    ``random_state`` is the run's seed (recorded in ``motifs.json``); the motif step draws
    only the composition controls with it (dinucleotide shuffles of the positives).

    Returns None, writing nothing, when the POIM holds no motif (e.g. a model of random
    sequences: no peak of the differential POIM; a POIM of order 1 only): one log line gives
    the reason (:func:`seqimp.motifs.search._poim_route.no_motifs_reason`). The POIM's own outputs
    stand either way.
    """
    result = with_full_tables(result)
    reason = no_motifs_reason(result)
    if reason is not None:
        logger.info(f"no motifs: {reason}")  # the command prints it as its answer
        return None
    options = with_database_loaded(options)
    run = poim_motifs(result, sequences, options=options, random_state=random_state)
    run.parameters.update(seed=recorded_seed(random_state), trained=False,
                          poim="poim.npz of seqimp poim")
    run.files = write_motif_run(out, run, database=options.database, fmt=fmt, homer=options.homer)
    return run


def gkm_motif_files(out, sequences, *, model, options, choice, fmt="png", random_state=None):
    """The motifs of ``seqimp poim`` on the gkm model (:func:`run_poim` where the model choice is
    ``gkm``): train the gkm model (its held-out fit of the choice reused), find its motifs and
    write them into ``out``; ``summary.json`` and the report record them with the run's.

    Returns
    -------
    MotifRun
    """
    options = with_database_loaded(options)
    X, y = sequences.labelled()
    gkm, info = train_gkm(X, y, model=model, random_state=random_state, held_out=choice.gkm_held_out)
    run = gkm_motifs(gkm, sequences, options=options, random_state=random_state)
    run.parameters.update(gkm_parameters(model, info, choice, random_state), trained=False,
                          poim="none: the motifs are the gkm model's")
    run.files = write_motif_run(out, run, database=options.database, fmt=fmt, homer=options.homer)
    return run


@out_first(1)
def run_model(out, weights, *, metadata=None, positive=None, negative=None, background=BackgroundOptions(),
              importance=ImportanceOptions(), motifs=None, output=OutputOptions(), random_state=None) -> PipelineRun:
    """POIM/FIRM of a saved model (``seqimp poim --model``): background from a FASTA
    (``background.fasta``) or the data.

    ``positive``/``negative`` (optional) are scored for accuracy/auROC -- on the given
    sequences, which need not be held out -- and may provide the background and, with
    ``motifs``, the motifs' sites. ``metadata`` is the model's (:func:`load_model`);
    ``random_state`` is only recorded (the seed in ``motifs.json``). The options are those of
    :func:`run_poim` (``importance.max_order`` defaults to the model's degree).

    Returns
    -------
    PipelineRun
    """
    metadata = dict(metadata or {})
    length = weights.length
    max_order = importance.order(weights.degree)
    data = encode_labelled(positive, negative, weights.alphabet.name, unknown=True)
    check_motif_inputs(motifs, data)
    bg, bg_info = fit_background(background, positive=data.positive, negative=data.negative, length=length,
                                 alphabet=data.alphabet)
    metrics = {k: metadata.get(k) for k in ("n_train", "accuracy", "auroc")}
    metrics["evaluated_on"] = "held-out split at training time"
    if data.both:
        X, y = data.labelled()
        if X.shape[1] != length:
            raise SeqimpError(f"sequences have length {X.shape[1]}, the model {length}")
        metrics.update(evaluate(weights.score(X), y), evaluated_on="the given sequences (not held out)")
    flag_chance(metrics)
    parameters = {"max_order": max_order, "background_order": background.order,
                  "positional_background": background.positional, "format": output.fmt, "top": output.top,
                  "model": {k: metadata.get(k) for k in ("degree", "shifts", "C", "seed")}}
    summary = run_summary(output.title, "poim --model", parameters, data.record(length), metrics, bg_info)
    tables = tables_path(out, importance.full_tables)
    return explain_and_write(
        lambda: compute_importance(weights, bg, max_order=max_order, max_memory=importance.max_memory,
                                   progress=output.progress, full_tables=tables),
        f"computing POIM and FIRM up to order {max_order} for L = {length}", out, weights=weights,
        model_metadata=metadata, summary=summary, timings={}, output=output, motifs=motifs, sequences=data,
        random_state=random_state)


@out_first(1)
def run_sampled(out, score_fn, *, source="score function", positive=None, negative=None,
                background=BackgroundOptions(), importance=ImportanceOptions(), motifs=None, output=OutputOptions(),
                random_state=None) -> PipelineRun:
    """Sampled POIM/FIRM (:func:`seqimp.importance.poim_sampled`) of any scorer, with the same outputs.

    There are no model weights, so ``weights_vs_firm`` and ``model.npz`` are not written.
    ``positive``/``negative`` (optional) give auROC of the scorer on them (not held out)
    and may provide the background, the length and, with ``motifs``, the motifs' sites; so
    may ``background.fasta``. DNA only (the sampled POIM plants the 4**k DNA k-mers).
    ``importance``: ``max_order`` (default 3), ``n_samples`` and ``n_jobs`` (passed to
    :func:`~seqimp.importance.poim_sampled`; None: joblib's active configuration, e.g. a Dask
    backend; the outputs do not depend on it, so it is not recorded). ``random_state`` seeds
    the samples. ``source`` names the scorer in ``summary.json``.

    Returns
    -------
    PipelineRun
    """
    from ..importance import poim_sampled

    for x in (positive, negative, background.fasta):
        if isinstance(x, SequenceSet):
            require_dna(x.alphabet, "the sampled POIM")
    data = encode_labelled(positive, negative, "dna")
    check_motif_inputs(motifs, data)
    fasta = None if background.fasta is None else check_sequences(background.fasta, "background")
    length = next((x.shape[1] for x in (fasta, data.positive, data.negative) if x is not None), None)
    if length is None:
        raise SeqimpError("the sequence length is unknown: give sequences (positive/negative or a background FASTA)")
    max_order = importance.order(3)
    bg, bg_info = fit_background(replace(background, fasta=fasta), positive=data.positive, negative=data.negative,
                                 length=length)
    metrics = {"evaluated_on": "the given sequences (not held out)"}
    if data.both:
        X, y = data.labelled()
        metrics.update(evaluate(call_scorer(score_fn, X), y))  # checked: numbers, one per sequence
        metrics["accuracy"] = None  # no known decision threshold for an arbitrary scorer
    parameters = {"scorer": str(source), "max_order": max_order, "n_samples": importance.n_samples,
                  "background_order": background.order, "positional_background": background.positional,
                  "seed": recorded_seed(random_state), "format": output.fmt, "top": output.top}
    summary = run_summary(output.title, "poim (sampled)", parameters, data.record(length), metrics, bg_info)
    return explain_and_write(
        lambda: poim_sampled(score_fn, bg, max_order, length=length, n_samples=importance.n_samples,
                             random_state=random_state, progress=output.progress, n_jobs=importance.n_jobs),
        f"sampling POIM and FIRM up to order {max_order} for L = {length} with {importance.n_samples} "
        "background samples", out, summary=summary, timings={}, output=output, motifs=motifs, sequences=data,
        random_state=random_state)
