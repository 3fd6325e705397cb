"""In-silico mutagenesis: the score change of every single-symbol substitution."""

from __future__ import annotations

import numpy as np

from .._utils.parallel import check_n_jobs, on_client, run_batches
from .._utils.progress import progress_bar
from ..errors import check_int
from ..io import get_alphabet
from ..io._check import check_sequences
from ._scorers import batch_threads, call_scorer

__all__ = ["ism"]


def _mutants(g0, g1, per, a):
    """Which substitution rows g0..g1-1 are: (sequence, mutant mask, position, shift) of each.

    Row r of a sequence: r = 0 the reference, r >= 1 position (r-1)//(a-1) with the symbol
    shifted by (r-1)%(a-1)+1 (mod a); pos and shift are given for the mutant rows only.
    """
    seq, r = np.divmod(np.arange(g0, g1), per)
    mut = r > 0
    pos, shift = np.divmod(r[mut] - 1, a - 1)
    return seq, mut, pos, shift


def _alt(symbols, shift, a):
    return (symbols.astype(np.intp) + shift + 1) % a


def _score_rows(codes, first, g0, g1, per, a, *, score_fn):
    """One batch: the scores of rows g0..g1-1, ``codes`` holding sequences ``first``.. (a pure function)."""
    seq, mut, pos, shift = _mutants(g0, g1, per, a)
    Y = codes[seq - first]
    Y[mut, pos] = _alt(Y[mut, pos], shift, a)
    return call_scorer(score_fn, Y)


def ism(score_fn, X, *, alphabet="dna", batch_size=8192, progress=False, n_jobs=None, client=None) -> np.ndarray:
    """In-silico mutagenesis: the score change of every single-symbol substitution.

    Each sequence costs exactly ``(A-1)*L + 1`` rows of ``score_fn`` (A = alphabet size:
    ``3L + 1`` for DNA): the reference and every substitution, nothing twice. Rows of
    several sequences are scored together in calls of at most ``batch_size`` rows.

    Parameters
    ----------
    score_fn : callable
        ``score_fn(codes)`` with codes of shape (m, L), uint8; returns shape (m,).
    X : list of str, SequenceSet or ndarray of shape (n, L)
    alphabet : str or Alphabet, default="dna"
    batch_size : int, default=8192
        Rows per call of ``score_fn``; one call is one batch.
    progress : bool, default=False
        Report scored rows on stderr.
    n_jobs : int or None, default=None
        Score the batches on this many :class:`joblib.Parallel` workers (processes unless a
        joblib configuration says otherwise). None: where the active joblib configuration asks
        for more than one job (``joblib.parallel_config(n_jobs=...)``, ``backend="dask"`` with a
        ``distributed.Client`` open, ``client=``) it decides; otherwise the batches run on every
        available core (:func:`seqimp._utils.cores.available_cores`) as threads of this process,
        unless the scorer says ``batches_in_threads = False`` (ONNX and torch scorers, which
        spread each batch over the cores themselves; see
        :func:`~seqimp.importance._scorers.batch_threads`). Threads gain where the scorer
        releases the GIL (numpy, numba, scikit-learn); one that holds it runs at about the speed
        of one thread. ``n_jobs=1``: one batch at a time in this thread. Each batch carries only
        the rows of the sequences it mutates; the scores are placed in batch order, so the
        result is bit-identical for every ``n_jobs`` and thread count. Worker processes need a
        picklable ``score_fn`` (see :func:`poim_sampled`).
    client : distributed.Client, optional
        Run the batches on this Dask cluster (every worker thread); the same numbers as a
        local run with the same seed.

    Returns
    -------
    ndarray of shape (n, L, A), float64
        ``[i, p, a] = s(X_i with symbol a at position p) - s(X_i)``; 0 at the reference symbol.
    """
    alpha = get_alphabet(alphabet)
    codes = check_sequences(X, "X", alpha)
    batch_size = check_int(batch_size, "batch_size")
    check_n_jobs(n_jobs)
    n, length = codes.shape
    a = alpha.size
    per = (a - 1) * length + 1
    out = np.zeros((n, length, a))
    total = n * per
    ref = np.empty(n)
    spans = [(g0, min(g0 + batch_size, total)) for g0 in range(0, total, batch_size)]

    def batches():
        for g0, g1 in spans:
            first, last = g0 // per, (g1 - 1) // per
            yield (codes[first:last + 1], first, g0, g1, per, a), g1 - g0

    with on_client(client), progress_bar(total, "ism", enabled=progress) as bar:
        results = run_batches(_score_rows, batches(), shared={"score_fn": score_fn}, n_jobs=n_jobs, bar=bar,
                              threads=batch_threads(score_fn) if len(spans) > 1 else 1)
        for (g0, g1), scores in zip(spans, results, strict=True):
            seq, mut, pos, shift = _mutants(g0, g1, per, a)
            alt = _alt(codes[seq[mut], pos], shift, a)
            # the reference row of a sequence precedes its mutants, so it was scored in this
            # batch or an earlier one: keep the references in a (n,) array as they come
            ref_rows = ~mut
            ref[seq[ref_rows]] = scores[ref_rows]
            out[seq[mut], pos, alt] = scores[mut] - ref[seq[mut]]
    return out
