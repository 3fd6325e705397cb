"""Sampled POIM/FIRM for any sequence scorer, and its reduction to one value per position.

The exact engine (:mod:`seqimp.importance`) needs a linear positional model. FIRM itself needs
only a score function s and a background distribution of sequences, so here it is
estimated by Monte Carlo for any ``score_fn``: a callable taking an encoded ``(n, L)``
uint8 array (A=0, C=1, G=2, T=3) and returning ``n`` real scores.

Estimator (see ``docs/sampled.md`` for the argument)
----------------------------------------------------
Each background sample i is a vector of uniforms U_i, shared by every k-mer z, start j and
order k (common random numbers). For every (j, z) it is turned into a sequence y_i(z, j)
drawn *exactly* from ``P(X | X[j:j+k] = z)``: for an order-0 background this is the
background sample x_i with z planted at j; for a Markov chain of order D >= 1 the flanks
are redrawn from the chain conditioned on z (forward to the right, the reversed chain to
the left) with the same uniforms, so they coincide with x_i a few symbols away from the
window (:mod:`seqimp.background._conditional`). With ``pi(z) = P(X[j:j+k] = z)`` the per-sample values

    v_i(z) = s(y_i(z, j)) - sum_z' pi(z') s(y_i(z', j))

average to ``Q(z, j) = E[s | z at j] - E[s]`` without bias (the second term estimates E[s]
from the same rows, so the flank noise shared by all z cancels), and their spread gives
the standard error. FIRM follows from the same estimate:
``FIRM = (E[s | z at j] - E[s | z not at j]) sqrt(pi (1-pi)) = Q sqrt(pi / (1 - pi))``,
because ``E[s | z not at j] = (E[s] - pi E[s | z at j]) / (1 - pi)``.
"""

from __future__ import annotations

import numpy as np

from .._utils.parallel import check_n_jobs, on_client, run_batches
from .._utils.progress import progress_bar
from ..background._conditional import ChainSampler
from ..errors import SeqimpError, check_int
from ._poim_kernels import CERTAIN
from ._scorers import batch_threads, call_scorer

__all__ = ["poim_sampled", "position_summary"]

_DNA = 4


# --------------------------------------------------------------------------- helpers


def _kmer_codes(k, base=_DNA) -> np.ndarray:
    """All k-mers as codes, shape (base**k, k), row = k-mer index (first symbol most significant)."""
    idx = np.arange(base ** k)
    return np.stack([(idx // base ** (k - 1 - t)) % base for t in range(k)], axis=1).astype(np.uint8)


# --------------------------------------------------------------------------- sampled POIM / FIRM

def _positions(positions, length) -> np.ndarray:
    if positions is None:
        return np.arange(length)
    pos = np.atleast_1d(np.asarray(positions))
    if pos.size == 0 or pos.dtype.kind not in "iu" or pos.ndim != 1:
        raise SeqimpError("positions must be a non-empty sequence of 0-based integer start positions")
    bad = pos[(pos < 0) | (pos >= length)]
    if bad.size:
        raise SeqimpError(f"positions: start {int(bad[0])} is outside 0..{length - 1} (0-based, L={length})")
    return np.unique(pos).astype(np.int64)


def _per_sample_values(S, pi):
    """v[g, z, i] = S[g, z, i] - sum_z' pi[g, z'] S[g, z', i]; its mean over samples i is Q(z, j_g)."""
    v = S - np.einsum("gz,gzi->gi", pi, S)[:, None, :]
    v[pi <= 0] = np.nan
    return v


def _block_moments(draws, k, group, pi, zc, *, score_fn, sampler):
    """One batch: the scores of samples ``draws`` conditioned on every k-mer at the starts ``group``.

    ``draws`` = (U, W, forward, backward) of a block of nb samples. Returns the mean over the
    block of the per-sample values and their sum of squared deviations, each
    (len(group), 4**k), and nb. A pure function of its arguments: the batches of
    :func:`_estimate_order` may run anywhere, in any order.
    """
    U, W, forward, backward = draws
    nb, length = U.shape
    nz = _DNA ** k
    kmers = _kmer_codes(k)
    S = np.empty((len(group), nz, nb))
    for z0 in range(0, nz, zc):
        z1 = min(nz, z0 + zc)
        Y = sampler.conditional_rows(U, W, forward, backward, group, k, kmers[z0:z1])
        S[:, z0:z1] = call_scorer(score_fn, Y.reshape(-1, length)).reshape(len(group), z1 - z0, nb)
    v = _per_sample_values(S, pi)
    bmean = v.mean(axis=2)
    return bmean, ((v - bmean[:, :, None]) ** 2).sum(axis=2), nb


def _estimate_order(score_fn, sampler, draws, k, js, pis, batch_size, bar, n_jobs, threads=1):
    """Mean and standard error of the per-sample values for order k at starts js, each (len(js), 4**k).

    The batches (a group of starts x a block of samples) are independent: they run through
    :func:`seqimp._utils.parallel.run_batches` (on ``threads`` threads where ``n_jobs`` is None and
    joblib asks for one job) and their moments are merged in batch order, so the numbers do not
    depend on ``n_jobs`` or the thread count.
    """
    U, W, forward, backward = draws
    n, length = U.shape
    nz = _DNA ** k
    zc = min(nz, batch_size)                        # k-mers per call
    m = min(n, max(1, batch_size // zc))            # samples per call
    jg = max(1, batch_size // (zc * m)) if zc == nz else 1   # start positions per call
    groups = range(0, len(js), jg)
    blocks = [slice(i0, min(n, i0 + m)) for i0 in range(0, n, m)]

    def batches():
        for g0 in groups:
            group, pi = js[g0:g0 + jg], pis[g0:g0 + jg]
            for blk in blocks:
                nb = blk.stop - blk.start
                yield ((U[blk], W[blk], forward[blk], backward[blk]), k, group, pi, zc), len(group) * nz * nb

    means = np.empty((len(js), nz))
    ses = np.empty((len(js), nz))
    results = run_batches(_block_moments, batches(), shared={"score_fn": score_fn, "sampler": sampler},
                          n_jobs=n_jobs, bar=bar, threads=threads if len(groups) * len(blocks) > 1 else 1)
    for g0 in groups:
        count, mean, m2 = 0, 0.0, 0.0
        for _ in blocks:
            # merge this block's mean and sum of squared deviations (Chan et al.)
            bmean, bm2, nb = next(results)
            delta = bmean - mean
            tot = count + nb
            mean = mean + delta * (nb / tot)
            m2 = m2 + bm2 + delta ** 2 * (count * nb / tot)
            count = tot
        means[g0:g0 + jg] = mean
        ses[g0:g0 + jg] = np.sqrt(m2 / (count - 1) / count)
    next(results, None)  # the batches' generator run to its end: joblib finishes the call instead of aborting it
    return means, ses


def poim_sampled(score_fn, background, max_order, *, length=None, n_samples=1000, batch_size=8192,
                 random_state=None, positions=None, progress=None, n_jobs=None, client=None):
    """Monte-Carlo POIM and FIRM for any score function.

    Every k-mer z (k = 1..max_order) is planted at every start j into the same
    ``n_samples`` background samples (for Markov order D >= 1 the flanks are redrawn from
    the chain conditioned on z, with the same random numbers); the estimate and its standard
    error come from the per-sample values described in the module docstring.

    Cost: ``n_samples * (1 + sum_k n_k * 4**k)`` scored sequences, ``n_k`` = number of
    starts of order k (``L - k + 1`` unless ``positions`` is given), in calls of at most
    ``batch_size`` rows (more only when one sample's ``4**k`` k-mers exceed it).

    Parameters
    ----------
    score_fn : callable
        ``score_fn(codes)`` with codes of shape (m, L), uint8 (A=0, C=1, G=2, T=3), returns
        shape (m,). Wrap models that want strings or one-hot features: see
        :func:`seqimp.scorers.load_scorer`, :func:`seqimp.scorers.sklearn_scorer`, :func:`seqimp.scorers.onehot`.
    background : MarkovBackground
        Any order D >= 0, homogeneous or position-specific.
    max_order : int
        Largest k-mer length K (may exceed what the model looks at).
    length : int, optional
        Sequence length L; required for a homogeneous background, checked against a
        position-specific one.
    n_samples : int, default=1000
        Background sequences (shared by all k-mers, starts and orders); at least 2.
    batch_size : int, default=8192
        Rows per call of ``score_fn``.
    random_state : int, Generator or None, default=None
        Seeds the background samples; the same seed gives the same numbers (default None =
        fixed seed 0).
    positions : sequence of int, optional
        0-based starts to analyse (every order k with ``j <= L-k``); other rows are NaN.
    progress : bool or None, default=None
        Report scored sequences on stderr.
    n_jobs : int or None, default=None
        Run the batches (a group of starts x a block of samples, scored in calls of at most
        ``batch_size`` rows) on this many :class:`joblib.Parallel` workers (processes unless a
        joblib configuration says otherwise). None: where the active joblib configuration asks
        for more than one job (``joblib.parallel_config(n_jobs=...)``,
        ``joblib.parallel_config(backend="dask")`` with a ``distributed.Client`` open, or
        ``client=``) it decides; otherwise the batches run on every available core
        (:func:`seqimp._utils.cores.available_cores`) as threads of this process, unless the scorer
        says ``batches_in_threads = False`` (ONNX and torch scorers, which spread each batch
        over the cores themselves). Threads gain where the scorer releases the GIL (numpy,
        numba, scikit-learn); one that holds it (plain Python loops) runs at about the speed of
        one thread -- give it ``n_jobs=N`` processes instead. ``n_jobs=1``: one batch at a time
        in this thread. The random numbers are drawn once, before any batch, and the batches'
        moments are merged in batch order: the result is bit-identical for every ``n_jobs``,
        backend and thread count.
        Process and Dask workers need a picklable ``score_fn`` (a module-level function, a
        fitted model's bound method, :class:`ModelScorer`, :class:`OnnxScorer`); an
        unpicklable one is refused in one line before any batch runs.
    client : distributed.Client, optional
        Run the batches on this Dask cluster (every worker thread); the same numbers as a
        local run with the same seed.

    Returns
    -------
    POIMResult
        ``method="sampled"``. ``poim[k-1]``, ``firm[k-1]``, ``poim_se[k-1]``,
        ``firm_se[k-1]``: float64 arrays of shape (L-k+1, 4**k) (NaN for starts not
        analysed and where the background gives the k-mer probability 0).
        ``expected_score`` and ``score_std`` are the mean and standard deviation of s over
        the ``n_samples`` background samples (one extra score call each); ``meta`` records ``n_samples``, ``score_calls``,
        ``expected_score_se``, ``positions`` and the background order.
    """
    from ._result import POIMResult

    if length is not None:
        length = check_int(length, "length")
    sampler = ChainSampler(background, length)
    length = sampler.length
    max_order = check_int(max_order, "max_order")
    if max_order > length:
        raise SeqimpError(f"max_order={max_order} exceeds the sequence length {length}")
    n = check_int(n_samples, "n_samples")
    if n < 2:
        raise SeqimpError("n_samples must be at least 2 (standard errors need two samples)")
    batch_size = check_int(batch_size, "batch_size")
    check_n_jobs(n_jobs)
    starts = _positions(positions, length)
    threads = batch_threads(score_fn)
    U, W = sampler.uniforms(n, random_state)
    forward, backward = sampler.base(U, W)
    rows = [starts[starts <= length - k] for k in range(1, max_order + 1)]
    calls = n * (1 + sum(len(r) * _DNA ** k for k, r in enumerate(rows, start=1)))
    tables = {name: [] for name in ("poim", "firm", "poim_se", "firm_se")}
    with on_client(client), progress_bar(calls, "sampled POIM: scored sequences", enabled=progress) as bar:
        plain = call_scorer(score_fn, forward)
        bar.update(n)
        for k, js in enumerate(rows, start=1):
            shape = (length - k + 1, _DNA ** k)
            for name in tables:
                tables[name].append(np.full(shape, np.nan))
            if js.size == 0:
                continue
            pis = sampler.marginals(k)[js]
            mean, se = _estimate_order(score_fn, sampler, (U, W, forward, backward), k, js, pis, batch_size, bar,
                                       n_jobs, threads)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(pis >= CERTAIN, 0.0, np.sqrt(pis / (1 - pis)))   # as the exact engine
            ratio[pis <= 0] = 0.0   # impossible k-mer: POIM undefined (NaN), FIRM 0, as the exact engine
            tables["poim"][-1][js] = mean
            tables["poim_se"][-1][js] = se
            possible = pis > 0
            tables["firm"][-1][js] = np.where(possible, mean * ratio, 0.0)
            tables["firm_se"][-1][js] = np.where(possible, se * ratio, 0.0)
    meta = {
        "n_samples": n,
        "batch_size": batch_size,
        "score_calls": int(calls),
        "expected_score_se": float(plain.std(ddof=1) / np.sqrt(n)),
        "positions": None if positions is None else [int(j) for j in starts],
        "background_order": sampler.order,
        "background_positional": bool(sampler.positional),
        "random_state": random_state if isinstance(random_state, (int, type(None))) else repr(random_state),
    }
    return POIMResult(tables["poim"], tables["firm"], expected_score=float(plain.mean()),
                      score_std=float(plain.std(ddof=1)), poim_se=tables["poim_se"],
                      firm_se=tables["firm_se"], method="sampled", meta=meta)


def position_summary(result, *, measure="firm") -> np.ndarray:
    """Per-position importance: total ``|FIRM|`` (or ``|POIM|``) of the k-mers covering each position.

    Parameters
    ----------
    result : POIMResult
        Exact or sampled.
    measure : {"firm", "poim"}, default="firm"

    Returns
    -------
    ndarray of shape (max_order, L), float64
        ``[k-1, p] = sum over starts j with j <= p <= j+k-1 and all k-mers z of |T_k[j, z]|``
        (0-based p); NaN entries are skipped, and a position none of whose covering starts was
        analysed is NaN. Sum over axis 0 for one profile across orders.
    """
    from ._result import measure_tables

    tables = measure_tables(result, measure)
    length = tables[0].shape[0]
    out = np.full((len(tables), length), np.nan)
    for k, t in enumerate(tables, start=1):
        a = np.abs(np.asarray(t))
        total = np.convolve(np.nansum(a, axis=1), np.ones(k))
        seen = np.convolve((~np.isnan(a)).any(axis=1).astype(float), np.ones(k))
        out[k - 1] = np.where(seen > 0, total, np.nan)
    return out
