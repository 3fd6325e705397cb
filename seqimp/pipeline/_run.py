"""The ``seqimp poim`` pipeline as library functions: train, evaluate, explain, write.

Training and held-out evaluation are :mod:`._train`'s; this module adds the background,
the job checks, the importance computation and the files. The command line (``seqimp train``, ``seqimp poim``, ``seqimp demo``) only parses
options and calls these functions, so every step is usable from Python:

>>> from seqimp.pipeline import run_poim                          # doctest: +SKIP
>>> run = run_poim(pos, neg, "results", degree=6, max_order=8)   # doctest: +SKIP
>>> run.result.top(10, measure="firm")                           # doctest: +SKIP
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import SeqimpError
from ..io import SequenceSet, get_alphabet, require_dna
from ..kernels import PositionalWeights
from ._outputs import top_oligomers, versions, write_result_files, write_summary
from ._train import _alphabet_of, _codes, _encode, _flag_chance, _labels, _train, evaluate, recorded_seed

__all__ = ["PipelineRun", "run_poim", "run_model", "run_sampled", "make_background", "check_job",
           "compute_importance"]

logger = logging.getLogger(__name__)

BACKGROUNDS = ("uniform", "negative", "all")

@dataclass
class PipelineRun:
    """What :func:`run_poim` produced.

    Attributes
    ----------
    weights : PositionalWeights or None
        The unfolded model (None for external scorers).
    result : POIMResult
        ``result.poim[k-1]``, ``result.firm[k-1]`` of shape (L-k+1, 4**k).
    summary : dict
        Everything written to ``summary.json``.
    files : list of Path
        Files written, in the output folder.
    """

    weights: PositionalWeights | None
    result: object
    summary: dict
    files: list = field(default_factory=list)


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

    alphabet = _alphabet_of(alphabet, fasta, positive, negative)
    if fasta is not None:
        data, what = _codes(fasta, "background", alphabet), "the background FASTA"
    elif kind == "uniform":
        if length is None:
            raise SeqimpError("a uniform background needs the sequence length")
        size = get_alphabet(alphabet).size
        return (MarkovBackground.uniform(int(length), order=0, alphabet=alphabet),
                f"uniform i.i.d. letters (p = 1/{size})")
    elif kind == "negative":
        if negative is None:
            raise SeqimpError("background 'negative' needs negative sequences")
        data, what = _codes(negative, "negative", alphabet), "the negative sequences"
    elif kind == "all":
        parts = [_codes(x, n, alphabet) for x, n in ((positive, "positive"), (negative, "negative"))
                 if x is not None]
        if not parts:
            raise SeqimpError("background 'all' needs sequences")
        data, what = np.concatenate(parts), "all sequences"
    else:
        raise SeqimpError(f"background must be one of {', '.join(BACKGROUNDS)}, got {kind!r}")
    if length is not None and data.shape[1] != length:
        raise SeqimpError(f"background sequences have length {data.shape[1]}, the model expects {length}")
    bg = MarkovBackground(order=order, positional=positional, alphabet=alphabet).fit(data)
    kind_text = f"order-{order} {'position-specific' if positional else 'homogeneous'} Markov chain"
    return bg, f"{kind_text} fitted on {what} ({len(data)} sequences)"


def _tables_path(out, full_tables):
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


def run_poim(positive, negative, out, *, degree=8, shifts=0, max_order=None, C=1.0, background="negative",
             background_order=0, positional_background=False, test_fraction=0.2, random_state=None, fmt="png",
             top=50, max_memory=None, position_labels=None, title=None, progress=False,
             motifs_dir=None, full_tables=False, alphabet=None, position_origin=None, windows=None,
             dropped=None) -> PipelineRun:
    """Train a WD model, evaluate it, compute POIM/FIRM and write every output into ``out``.

    The data are encoded once and the job is checked (lengths, memory) before training.

    Parameters
    ----------
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L)
    out : path-like
        Existing folder to write into (the CLI passes a staging folder).
    degree, shifts, C : model parameters (see :class:`seqimp.WDClassifier`)
    max_order : int, optional
        Longest oligomer analysed; default ``degree``. May exceed the degree.
    background : {"uniform", "negative", "all"}, default="negative"
    background_order : int, default=0
    positional_background : bool, default=False
    test_fraction : float, default=0.2
    random_state : int or None
    fmt : {"png", "svg", "pdf"}, default="png"
    top : int, default=50
        Rows per order in ``top_oligomers.tsv``.
    max_memory : int, optional
        Memory budget in bytes (None: half the available RAM). Jobs whose full POIM tables
        exceed it stream (:func:`compute_importance`); jobs that cannot fit even streaming
        are refused before training, and so is a training set whose fit would need more
        (``WDClassifier(memory_budget=...)``; None there: the memory available now).
    full_tables : bool, default=False
        Also write every order's full POIM and FIRM tables to ``poim_tables.h5`` (HDF5,
        float32, chunked by positions); ``poim.npz`` always holds the summaries.
    position_labels : sequence of length L, optional
        Position tick labels for the heatmaps.
    title : str, optional
        Title of ``summary.json`` and the report.
    progress : bool, default=False
        Progress bars for training and the POIM levels.
    motifs_dir : path-like, optional
        Where the report looks for ``motifs.tsv``.
    alphabet : {"dna", "rna", "protein"}, optional
        Default: the alphabet of a SequenceSet given, else DNA.
    position_origin : int, optional
        The 1-based position shown as ``+1`` (positions before it negative, no 0): adds the
        ``position_label`` column to ``top_oligomers.tsv`` and labels the figures' axes.
    windows : GenomicWindows, optional
        The positives as windows of a genome (:func:`seqimp.io.extract_windows`): adds
        ``top_oligomers.bed``, the genome coordinates of the top oligomers' hits.
    dropped : dict, optional
        Input records dropped by reason, written to ``summary.json`` as ``"dropped"``.

    Returns
    -------
    PipelineRun

    Notes
    -----
    Progress lines go to the ``seqimp`` logger (:mod:`logging`, level INFO).
    """
    max_order = degree if max_order is None else int(max_order)
    alphabet = _alphabet_of(alphabet, positive, negative)
    pos, neg = _encode(positive, negative, alphabet)
    X, y = _labels(pos, neg)
    length = X.shape[1]
    check_job(length, degree=degree, max_order=max_order, background_order=background_order, max_memory=max_memory,
              full_tables=_tables_path(out, full_tables),
              alphabet_size=get_alphabet(alphabet).size)
    start = time.perf_counter()
    weights, info = _train(X, y, degree=degree, shifts=shifts, C=C, test_fraction=test_fraction,
                           random_state=random_state, progress=progress, alphabet=alphabet, max_memory=max_memory)
    timings = {"train": time.perf_counter() - start}
    bg, bg_info = _background_for(background, positive=pos, negative=neg, fasta=None, length=length,
                                  order=background_order, positional=positional_background, alphabet=alphabet)
    metadata = {"degree": degree, "shifts": shifts, "C": C, "length": length, "alphabet": alphabet,
                "n_train": info["n_train"], "n_positive": info["n_positive"], "n_negative": info["n_negative"],
                "test_fraction": test_fraction, "seed": recorded_seed(random_state), "accuracy": info["accuracy"],
                "auroc": info["auroc"], "seqimp": __version__}
    parameters = {"degree": degree, "shifts": shifts, "max_order": max_order, "C": C, "background": background,
                  "background_order": background_order, "positional_background": positional_background,
                  "test_fraction": test_fraction, "seed": recorded_seed(random_state), "format": fmt, "top": top}
    metrics = {k: info[k] for k in ("n_train", "n_test", "accuracy", "auroc", "chance_level")}
    if "warning" in info:
        metrics["warning"] = info["warning"]
    summary = _summary(title, "poim", parameters, _data_summary(positive, negative, pos, neg, length), metrics,
                       bg_info)
    return _explain_and_write(
        lambda: compute_importance(weights, bg, max_order=max_order, max_memory=max_memory, progress=progress,
                                   full_tables=_tables_path(out, full_tables)),
        f"computing POIM and FIRM up to order {max_order} for L = {length}", out, weights=weights,
        model_metadata=metadata, summary=summary, timings=timings, fmt=fmt, top=top,
        position_labels=position_labels, motifs_dir=motifs_dir, position_origin=position_origin, windows=windows,
        dropped=dropped)


def run_model(weights, out, *, metadata=None, positive=None, negative=None, background="negative",
              background_fasta=None, background_order=0, positional_background=False, max_order=None,
              fmt="png", top=50, max_memory=None, position_labels=None, title=None, progress=False,
              motifs_dir=None, full_tables=False, position_origin=None, windows=None, dropped=None) -> PipelineRun:
    """POIM/FIRM of a saved model (``seqimp poim --model``): background from a FASTA or the data.

    ``max_memory`` and ``full_tables`` as in :func:`run_poim`.

    ``positive``/``negative`` (optional) are scored for accuracy/auROC -- on the given
    sequences, which need not be held out -- and may provide the background. The other
    parameters are those of :func:`run_poim`.

    Returns
    -------
    PipelineRun
    """
    metadata = dict(metadata or {})
    length = weights.length
    max_order = weights.degree if max_order is None else int(max_order)
    alphabet = weights.alphabet.name
    pos, neg = _encode(positive, negative, alphabet)
    bg, bg_info = _background_for(background, positive=pos, negative=neg, fasta=background_fasta,
                                  length=length, order=background_order, positional=positional_background,
                                  alphabet=alphabet)
    metrics = {k: metadata.get(k) for k in ("n_train", "accuracy", "auroc")}
    metrics["evaluated_on"] = "held-out split at training time"
    if pos is not None and neg is not None:
        X, y = _labels(pos, neg)
        if X.shape[1] != length:
            raise SeqimpError(f"sequences have length {X.shape[1]}, the model {length}")
        metrics.update(evaluate(weights.score(X), y), evaluated_on="the given sequences (not held out)")
    _flag_chance(metrics)
    summary = _summary(title, "poim --model", {"max_order": max_order, "background_order": background_order,
                       "positional_background": positional_background, "format": fmt, "top": top,
                       "model": {k: metadata.get(k) for k in ("degree", "shifts", "C", "seed")}},
                       _data_summary(positive, negative, pos, neg, length), metrics, bg_info)
    return _explain_and_write(
        lambda: compute_importance(weights, bg, max_order=max_order, max_memory=max_memory, progress=progress,
                                   full_tables=_tables_path(out, full_tables)),
        f"computing POIM and FIRM up to order {max_order} for L = {length}", out, weights=weights,
        model_metadata=metadata, summary=summary, timings={}, fmt=fmt, top=top, position_labels=position_labels,
        motifs_dir=motifs_dir, position_origin=position_origin, windows=windows, dropped=dropped)


def run_sampled(score_fn, out, *, source="score function", positive=None, negative=None, background="negative",
                background_fasta=None, background_order=0, positional_background=False, length=None, max_order=3,
                n_samples=1000, random_state=None, fmt="png", top=50, position_labels=None, title=None,
                progress=False, motifs_dir=None, position_origin=None, windows=None, dropped=None,
                n_jobs=None) -> PipelineRun:
    """Sampled POIM/FIRM (:func:`seqimp.importance.poim_sampled`) of any scorer, with the same outputs.

    There are no model weights, so ``weights_vs_firm`` and ``model.npz`` are not written.
    ``positive``/``negative`` (optional) give auROC of the scorer on them (not held out)
    and may provide the background and the length. DNA only (the sampled POIM plants
    the 4**k DNA k-mers). ``n_jobs`` is passed to :func:`~seqimp.importance.poim_sampled`
    (None: joblib's active configuration, e.g. a Dask backend); the outputs do not depend
    on it, so it is not recorded.

    Returns
    -------
    PipelineRun
    """
    from ..importance._sampled import poim_sampled

    for x in (positive, negative, background_fasta):
        if isinstance(x, SequenceSet):
            require_dna(x.alphabet, "the sampled POIM")
    pos, neg = _encode(positive, negative)
    fasta = None if background_fasta is None else _codes(background_fasta, "background")
    for x in (fasta, pos, neg):
        if length is None and x is not None:
            length = x.shape[1]
    if length is None:
        raise SeqimpError("the sequence length is unknown: give sequences (positive/negative or a background FASTA)")
    bg, bg_info = _background_for(background, positive=pos, negative=neg, fasta=fasta,
                                  length=length, order=background_order, positional=positional_background)
    metrics = {"evaluated_on": "the given sequences (not held out)"}
    if pos is not None and neg is not None:
        X, y = _labels(pos, neg)
        metrics.update(evaluate(score_fn(X), y))
        metrics["accuracy"] = None  # no known decision threshold for an arbitrary scorer
    parameters = {"scorer": str(source), "max_order": int(max_order), "n_samples": n_samples,
                  "background_order": background_order, "positional_background": positional_background,
                  "seed": recorded_seed(random_state), "format": fmt, "top": top}
    summary = _summary(title, "poim (sampled)", parameters, _data_summary(positive, negative, pos, neg, length),
                       metrics, bg_info)
    return _explain_and_write(
        lambda: poim_sampled(score_fn, bg, int(max_order), length=length, n_samples=n_samples,
                             random_state=random_state, progress=progress, n_jobs=n_jobs),
        f"sampling POIM and FIRM up to order {max_order} for L = {length} with {n_samples} background samples",
        out, summary=summary, timings={}, fmt=fmt, top=top, position_labels=position_labels,
        motifs_dir=motifs_dir, position_origin=position_origin, windows=windows, dropped=dropped)


def _background_for(kind, *, positive, negative, fasta, length, order, positional, alphabet="dna"):
    bg, text = make_background(kind, positive=positive, negative=negative, fasta=fasta, length=length,
                               order=order, positional=positional, alphabet=alphabet)
    return bg, {"description": text, "kind": "fasta" if fasta is not None else kind,
                "order": order if (fasta is not None or kind != "uniform") else 0,
                "positional": bool(positional) and (fasta is not None or kind != "uniform")}


def _summary(title, command, parameters, data, metrics, bg_info) -> dict:
    return {"title": title or "seqimp POIM report", "command": command, "parameters": parameters,
            "data": data, "metrics": metrics, "background": bg_info}


def _describe(x, fallback):
    return x.source if isinstance(x, SequenceSet) and x.source else fallback


def _data_summary(positive, negative, pos, neg, length):
    """Sources (file names where known) and sizes of the given sequences, ``pos``/``neg`` encoded."""
    data = {"length": length}
    for name, x, codes in (("positive", positive, pos), ("negative", negative, neg)):
        if codes is not None:
            data[name] = _describe(x, f"{name} sequences")
            data[f"n_{name}"] = int(len(codes))
            if isinstance(x, SequenceSet):
                data.setdefault("skipped", {})[name] = {
                    "records": int(x.skipped),
                    "reason": "symbols outside the alphabet (N, ambiguity codes), dropped by --skip-invalid"}
    return data


def _explain_and_write(explain, what, out, *, summary, timings, weights=None, model_metadata=None, fmt="png",
                       top=50, position_labels=None, motifs_dir=None, position_origin=None, windows=None,
                       dropped=None) -> PipelineRun:
    """Compute the importance (``explain()``), write every output into ``out``, then
    ``summary.json`` once (with all timings) and the report.

    ``position_origin`` (1-based position shown as +1): the ``position_label`` column and
    the figures' axes; ``windows`` (GenomicWindows of the positives): ``top_oligomers.bed``;
    ``dropped`` (dict of counts by reason): ``summary["dropped"]``.
    """
    logger.info(what)
    start = time.perf_counter()
    result = explain()
    timings["poim"] = time.perf_counter() - start
    logger.info(f"writing tables, figures and the report ({fmt})")
    start = time.perf_counter()
    out = Path(out)
    summary = dict(summary, expected_score=result.expected_score, score_std=result.score_std,
                   method=result.method, versions=versions())
    if position_origin is not None:
        summary["position_origin"] = int(position_origin)
    if dropped is not None:
        summary["dropped"] = dict(dropped)
    best = top_oligomers(result, 1, position_origin=position_origin).to_dict("records")  # the top of every order, sorted by |FIRM|
    if any(row["order"] >= 2 for row in best):  # the headline: oligomers, not single letters
        best = [row for row in best if row["order"] >= 2]
    if best:
        summary["top_oligomer"] = best[0]
        summary["top_per_order"] = sorted(best, key=lambda row: row["order"])
    files = write_result_files(out, result, weights=weights, fmt=fmt, top=top, position_labels=position_labels,
                               model_metadata=model_metadata, position_origin=position_origin, windows=windows)
    if (out / "poim_tables.h5").exists():
        files.append(out / "poim_tables.h5")
    timings["outputs"] = time.perf_counter() - start
    summary["timings"] = timings
    write_summary(out / "summary.json", summary)
    files.append(out / "summary.json")
    from ._report import write_report

    files.append(write_report(out, motifs_dir=motifs_dir))
    return PipelineRun(weights, result, summary, files)
