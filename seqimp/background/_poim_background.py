"""The background of a POIM/FIRM job, from a run's options: uniform letters, or a Markov chain
fitted on the negatives, on all sequences or on a FASTA (:func:`make_background`), and what
``summary.json`` records of it (:func:`fit_background`)."""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError
from ..io import get_alphabet
from ..io._check import check_sequences
from ..io._labelled import alphabet_of
from ..options import check_background_kind

__all__ = ["make_background", "fit_background"]


def make_background(kind="negative", *, positive=None, negative=None, fasta=None, length=None, order=0,
                    positional=False, alphabet=None):
    """The background distribution for POIM/FIRM.

    Unknown letters (N) are kept: the chain counts the contexts and letters that are all
    known (:meth:`MarkovBackground.fit`).

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
    from ._markov import MarkovBackground  # numba: loaded when a background is made

    alphabet = alphabet_of(alphabet, fasta, positive, negative)
    if fasta is not None:
        data, what = check_sequences(fasta, "background", alphabet, unknown=True), "the background FASTA"
    elif check_background_kind(kind) == "uniform":
        if length is None:
            raise SeqimpError("a uniform background needs the sequence length")
        size = get_alphabet(alphabet).size
        return (MarkovBackground.uniform(int(length), order=0, alphabet=alphabet),
                f"uniform i.i.d. letters (p = 1/{size})")
    elif kind == "negative":
        if negative is None:
            raise SeqimpError("background 'negative' needs negative sequences")
        data, what = check_sequences(negative, "negative", alphabet, unknown=True), "the negative sequences"
    elif kind == "all":
        parts = [check_sequences(x, n, alphabet, unknown=True) for x, n in ((positive, "positive"), (negative, "negative"))
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
    """:func:`make_background` of :class:`~seqimp.options.BackgroundOptions`, and what ``summary.json`` records of it.

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
