"""The steps between a model and its motifs that every run shares: the background of POIM/FIRM
(:func:`make_background`, :func:`fit_background`), the job check (:func:`check_job`), the exact
POIM/FIRM within a memory budget (:func:`compute_importance`) and the POIM of a WD model trained
on a run's sequences (:func:`trained_poim`)."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import numpy as np

from .._heap import release_free_heap, tables_outside_heap
from ..errors import SeqimpError
from ..io import alphabet_of, check_sequences, get_alphabet
from ..training import train_classifier
from ._options import check_background_kind

__all__ = ["make_background", "fit_background", "check_job", "compute_importance", "tables_path", "trained_poim"]

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
    from ..background import MarkovBackground

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


def trained_poim(data, *, model, background, importance, random_state, progress, held_out=None):
    """The POIM of a WD model trained on encoded positives vs negatives (``data``, job checked
    first). The importance comes from a model trained on *all* sequences; with
    ``model.test_fraction > 0`` a second model, trained on the rest of a stratified split, only
    gives the held-out metrics (``result.meta["metrics"]``), unless ``held_out`` holds them already."""
    length = data.length
    max_order = importance.order(model.degree)
    check_job(length, degree=model.degree, max_order=max_order, background_order=background.order,
              max_memory=importance.max_memory)
    release_free_heap()  # the last round's free blocks back to the system (seqimp._heap)
    X, y = data.labelled()
    info = held_out  # the held-out metrics when the caller has them already
    if info is None and model.test_fraction > 0:  # held-out accuracy only; the importance comes from all sequences
        _w, info = train_classifier(X, y, model=model, random_state=random_state, progress=progress,
                                    max_memory=importance.max_memory, weights=False)
    weights, _all = train_classifier(X, y, model=replace(model, test_fraction=0.0), random_state=random_state,
                                     progress=progress, max_memory=importance.max_memory)
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
