"""The ``seqimp poim`` routes as library functions: train (or load, or sample), evaluate,
explain, write.

Training and held-out evaluation are :mod:`._train`'s, the last steps (importance, files,
motifs, summary and report) :mod:`._poim_run`'s; this module adds the background, the job
checks and the routes. The command line (``seqimp train``, ``seqimp poim``, ``seqimp demo``)
only parses options and calls these functions, so every step is usable from Python:

>>> from seqimp.pipeline import ImportanceOptions, ModelOptions, run_poim             # doctest: +SKIP
>>> run = run_poim(pos, neg, "results", model=ModelOptions(degree=6),
...                importance=ImportanceOptions(max_order=8))                        # doctest: +SKIP
>>> run.result.top(10, measure="firm")                                              # doctest: +SKIP
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import SeqimpError
from ..io import SequenceSet, check_sequences, get_alphabet, require_dna
from ..scorers import call_scorer
from ._options import BackgroundOptions, ImportanceOptions, ModelOptions, OutputOptions, check_background_kind
from ._poim_run import PipelineRun, check_motif_inputs, explain_and_write, run_summary
from ._sequences import alphabet_of, encode_sequences
from ._train import evaluate, flag_chance, recorded_seed, train_classifier

__all__ = ["run_poim", "run_model", "run_sampled", "make_background", "fit_background", "check_job",
           "compute_importance", "tables_path"]

logger = logging.getLogger(__name__)


def make_background(kind="negative", *, positive=None, negative=None, fasta=None, length=None, order=0,
                    positional=False, alphabet=None):
    """The background distribution for POIM/FIRM.

    Parameters
    ----------
    kind : {"uniform", "negative", "all"}, default="negative"
        Uniform i.i.d. letters, or a Markov chain fitted on the negative sequences
        or on positives and negatives together. Ignored when ``fasta`` is given.
    positive, negative : sequences, optional
    fasta : sequences, optional
        Fit on these instead (``seqimp poim --background-fasta``).
    length : int, optional
        Needed for ``"uniform"`` (and checked against the data otherwise).
    order : int, default=0
        Markov order D.
    positional : bool, default=False
        Position-specific transition tables.
    alphabet : {"dna", "rna", "protein"}, optional
        Default: the alphabet of a SequenceSet given, else DNA.

    Returns
    -------
    background : MarkovBackground
    description : str
    """
    from ..background._markov import MarkovBackground

    alphabet = alphabet_of(alphabet, fasta, positive, negative)
    if fasta is not None:
        data, what = check_sequences(fasta, "background", alphabet), "the background FASTA"
    elif check_background_kind(kind) == "uniform":
        if length is None:
            raise SeqimpError("a uniform background needs the sequence length")
        size = get_alphabet(alphabet).size
        return (MarkovBackground.uniform(int(length), order=0, alphabet=alphabet),
                f"uniform i.i.d. letters (p = 1/{size})")
    elif kind == "negative":
        if negative is None:
            raise SeqimpError("background 'negative' needs negative sequences")
        data, what = check_sequences(negative, "negative", alphabet), "the negative sequences"
    elif kind == "all":
        parts = [check_sequences(x, n, alphabet) for x, n in ((positive, "positive"), (negative, "negative"))
                 if x is not None]
        if not parts:
            raise SeqimpError("background 'all' needs sequences")
        data, what = np.concatenate(parts), "all sequences"
    if length is not None and data.shape[1] != length:
        raise SeqimpError(f"background sequences have length {data.shape[1]}, the model expects {length}")
    bg = MarkovBackground(order=order, positional=positional, alphabet=alphabet).fit(data)
    kind_text = f"order-{order} {'position-specific' if positional else 'homogeneous'} Markov chain"
    return bg, f"{kind_text} fitted on {what} ({len(data)} sequences)"


def fit_background(options, *, positive=None, negative=None, length=None, alphabet="dna"):
    """:func:`make_background` of :class:`BackgroundOptions`, and what ``summary.json`` records of it.

    Returns
    -------
    background : MarkovBackground
    record : dict
        ``description``, ``kind`` (``"fasta"`` for ``options.fasta``), ``order`` and
        ``positional`` (0 and False for uniform letters).
    """
    bg, text = make_background(options.kind, positive=positive, negative=negative, fasta=options.fasta,
                               length=length, order=options.order, positional=options.positional, alphabet=alphabet)
    fitted = options.fasta is not None or options.kind != "uniform"
    return bg, {"description": text, "kind": "fasta" if options.fasta is not None else options.kind,
                "order": options.order if fitted else 0, "positional": bool(options.positional) and fitted}


def tables_path(out, full_tables) -> Path | None:
    """Where ``full_tables`` go: ``out/poim_tables.h5``, or None."""
    return Path(out) / "poim_tables.h5" if full_tables else None


def check_job(length, *, degree, max_order, background_order=0, max_memory=None, full_tables=None,
              alphabet_size=4) -> None:
    """Refuse a POIM job that cannot run -- ``max_order`` outside 1..L, a background order the
    length cannot carry, or memory above ``max_memory`` bytes (None: half the available RAM)
    even for the streaming engine -- before any model is trained.

    The one check of :func:`seqimp.poim`, :func:`seqimp.importance.plan_poim`, on the job's sizes.
    """
    from ..importance import plan_poim

    plan_poim(length, max_order, background_order, max_memory, degree=degree, full_tables=full_tables is not None,
              alphabet_size=alphabet_size)


def compute_importance(weights, background, *, max_order, max_memory=None, progress=False, full_tables=None):
    """Exact POIM/FIRM of a positional model within ``max_memory`` bytes: :func:`seqimp.poim`
    with ``engine="auto"``, in memory when its tables fit the budget, otherwise streamed (the
    same values, summaries kept; one log line says so); ``full_tables`` (a path, ``.h5``)
    streams and writes every order's full tables there.

    Returns
    -------
    POIMResult or StreamedPOIM
    """
    from ..importance import poim

    return poim(weights, background, max_order, max_memory=max_memory, full_tables=full_tables, progress=progress)


def run_poim(positive, negative, out, *, model=ModelOptions(), background=BackgroundOptions(),
             importance=ImportanceOptions(), motifs=None, output=OutputOptions(), random_state=None) -> PipelineRun:
    """Train a WD model, evaluate it, compute POIM/FIRM and write every output into ``out``.

    The data are encoded once and the job is checked (lengths, memory) before training.

    Parameters
    ----------
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L)
    out : path-like
        Existing folder to write into (the CLI passes a staging folder).
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
    from ._model_route import add_gkm_motifs, check_kind, choose_route, train_gkm

    data = encode_sequences(positive, negative, model.alphabet)
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
    route = choose_route(model.kind if motifs is not None else "wds" if model.shifts else "wd", shifts=model.shifts,
                         held_out=info, gkm_held_out=lambda: train_gkm(X, y, model=model, random_state=random_state,
                                                                       full=False)[1])
    if motifs is None:
        route.requested, route.reason = model.kind, "no motif step: the POIM is the positional model's"
    else:
        logger.info(f"model route: {route.route} ({route.reason})")
    summary["model_route"] = route.record()
    gkm = route.route == "gkm"
    run = explain_and_write(
        lambda: compute_importance(weights, bg, max_order=max_order, max_memory=importance.max_memory,
                                   progress=output.progress, full_tables=tables),
        f"computing POIM and FIRM up to order {max_order} for L = {length}", out, weights=weights,
        model_metadata=metadata, summary=summary, timings=timings, output=output,
        motifs=None if gkm else motifs, sequences=data, random_state=random_state)
    if gkm:  # the positional model's POIM is written; the motifs are the gkm model's
        run.motifs = add_gkm_motifs(out, run.summary, data, model=model, options=motifs, route=route,
                                    fmt=output.fmt, random_state=random_state)
        run.files += [f for f in run.motifs.files if f not in run.files]
    return run


def run_model(weights, out, *, metadata=None, positive=None, negative=None, background=BackgroundOptions(),
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
    data = encode_sequences(positive, negative, weights.alphabet.name)
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


def run_sampled(score_fn, out, *, source="score function", positive=None, negative=None,
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
    from ..importance._sampled import poim_sampled

    for x in (positive, negative, background.fasta):
        if isinstance(x, SequenceSet):
            require_dna(x.alphabet, "the sampled POIM")
    data = encode_sequences(positive, negative, "dna")
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
