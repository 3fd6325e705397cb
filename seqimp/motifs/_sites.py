"""Sites of a PWM in sequences: log-odds scores of windows, the site threshold calibrated on
the negatives, the best window of every sequence, the posterior-weighted letter counts of EM.

:func:`seqimp.motifs.refine_motifs` fits every motif's PWM (EM) and then counts its sites
with these: a sequence's score is its best log2-odds window (both strands with
``strands=("+", "-")``); it has a site when that score passes the threshold that at most a
share ``fpr`` of the negatives pass (:func:`site_threshold`, :func:`has_site`).

Codes are letter indices (0..3 for A, C, G, T; 4 for an unknown base, N or another IUPAC
code) of shape (n, L); ``starts`` are the 0-based starts of the windows searched, ``strands`` a
tuple of ``"+"``/``"-"``. A window that covers an unknown base has no score (``-inf``): it is
never a site and adds nothing to EM's counts; the reverse complement keeps an unknown base
unknown (:func:`seqimp.io._strand.reverse_complement_codes`). The window loops are
numba kernels (:func:`site_scores`, :func:`weighted_counts`); ``tests/test_motifs_discovery.py``
checks both against plain loops.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..errors import SeqimpError
from ..io import reverse_complement_codes
from ._site_rule import (_cut, _has_site, _is_site, _log_tail, _tail_kernel,  # noqa: F401 (read from here)
                         enrichment_threshold, has_site, site_rank, site_threshold, sites_passing, strict_threshold)

__all__ = ["window_letters", "site_scores", "best_site_scores", "site_threshold", "strict_threshold", "has_site", "best_windows", "weighted_counts",
           "enrichment_threshold", "WindowTerms", "em_step", "overlaps", "mask_sites"]


#: The complement of every code, the table :func:`_counts_kernel` reads: A<->T, C<->G, an
#: unknown base (4) stays unknown; indexed by a code (codes above 4 are not letters and map to
#: themselves), as :func:`seqimp.io._strand.reverse_complement_codes` complements them.
COMPLEMENT = np.array([3, 2, 1, 0] + list(range(4, 256)), dtype=np.uint8)


def window_letters(codes, starts, m, strand):
    """Letters of every window of length ``m``: shape (n, len(starts), m); the reverse
    complement for ``strand="-"`` (an unknown base stays 4)."""
    idx = starts[:, None] + np.arange(m)[None, :]
    x = codes[:, idx]
    return reverse_complement_codes(x) if strand == "-" else x


def window_letter_counts(codes, rows, starts, length, reverse):
    """Letter counts of the windows ``codes[rows[r], starts[r]:starts[r] + length]``, each read as
    its reverse complement where ``reverse[r]`` (a bool or one per window): shape (length, 4),
    int; an unknown base (4) is no letter. The seeds' occurrence PWMs and the sites' letter
    frequencies of the PWMs for scanning count their windows so."""
    rows, starts = np.asarray(rows, dtype=np.intp), np.asarray(starts, dtype=np.intp)
    windows = codes[rows[:, None], starts[:, None] + np.arange(length)]
    back = np.broadcast_to(np.asarray(reverse, dtype=bool), rows.shape)
    windows[back] = reverse_complement_codes(windows[back])
    return np.bincount((5 * np.arange(length) + windows).ravel(), minlength=5 * length).reshape(length, 5)[:, :4]


def known_codes(codes):
    """``codes`` with every unknown base (code 4 or more) read as A: for the terms of windows
    whose score is then taken as ``-inf`` anyway (a Markov background's window term of a
    window covering an unknown base is never read, and stays finite); ``codes`` itself where
    every base is known."""
    codes = np.asarray(codes)
    if codes.size and codes.max() > 3:
        return np.where(codes > 3, 0, codes).astype(codes.dtype)
    return codes


def _log_tables(pwm, log=np.log2):
    """``(plus, minus)``: ``log(pwm)`` and the log of its reverse complement, each of shape
    (m, 5), the fifth column ``-inf``: a window reading an unknown base (code 4) scores
    ``-inf`` on both strands. ``minus[m - 1 - c, x]`` is ``log(pwm[c, 3 - x])``."""
    logp = log(np.asarray(pwm, dtype=np.float64))
    m = logp.shape[0]
    plus = np.full((m, 5), -np.inf)
    minus = np.full((m, 5), -np.inf)
    plus[:, :4] = logp
    minus[:, :4] = logp[::-1, ::-1]
    return plus, minus


def _null_table(background, log=np.log2):
    """``log(background)`` with a fifth entry 0 (an unknown base: its window is ``-inf`` by the
    PWM's term already)."""
    out = np.zeros(5)
    out[:4] = log(np.asarray(background, dtype=np.float64))
    return out


def _arrays(codes, starts):
    """Codes as contiguous uint8 (the kernels read a byte per letter: half the time of intp on
    long windows) or intp as given, starts as intp, none negative: the kernels index a window's
    letters unsigned (``np.uint64(s + c)``), which numba uses without its check for a negative
    index (Python's wrap-around) -- about 1.6x faster best-window scores, the same bits."""
    codes = np.asarray(codes)
    if codes.dtype not in (np.uint8, np.intp):
        codes = codes.astype(np.uint8)
    starts = np.ascontiguousarray(starts, dtype=np.intp)
    if starts.size and starts.min() < 0:
        raise SeqimpError(f"starts: window start {int(starts.min())} is negative")
    return np.ascontiguousarray(codes), starts


@njit(cache=True, inline="always")
def _window_odds(logp, logq, lognull, codes, i, s):
    """log2-odds of sequence ``i``'s window at ``s`` on the + and the - strand, against the null;
    ``logp``, ``logq``: the PWM's and its reverse complement's log tables (:func:`_log_tables`,
    shape (m, 5): an unknown base scores -inf)."""
    m = logp.shape[0]
    null = 0.0
    plus = 0.0
    minus = 0.0
    for c in range(m):
        x = codes[i, np.uint64(s + c)]
        null += lognull[x]
        plus += logp[c, x]
        minus += logq[np.uint64(m - 1 - c), codes[i, np.uint64(s + m - 1 - c)]]  # unsigned: no wrap-around check
    return plus - null, minus - null


@njit(cache=True, parallel=True)
def _scores_kernel(logp, logq, lognull, codes, starts, n_strands, out):
    for i in prange(codes.shape[0]):
        for j in range(starts.shape[0]):
            plus, minus = _window_odds(logp, logq, lognull, codes, i, starts[j])
            out[i, j, 0] = plus
            if n_strands == 2:
                out[i, j, 1] = minus


def _letters_and_null(pwm, codes, starts, strands, background, null):
    """``(letters, null)`` of a window score's two terms: the letter frequencies each window
    letter is scored against, and the windows' Markov background term to take off afterwards
    (``null``, shape (n, len(starts), len(strands)); None for letters alone). A
    :class:`seqimp.background.SiteBackground` of order 0 is its letters; of a higher order the
    PWM's term is taken alone (letters of 1) and its :meth:`window_log2` is the ``null`` (the
    caller's ``null`` where given)."""
    if not hasattr(background, "window_log2"):  # letter frequencies
        return background, None
    if background.order == 0:
        return background.letters, None
    if null is None:
        null = background.window_log2(known_codes(codes), starts, np.asarray(pwm).shape[0], tuple(strands))
    return np.ones(4), null


#: The most bytes of window terms a :class:`WindowTerms` memo holds (64 MiB): past it, the terms
#: read longest ago are let go (computed again if read again). On the generated masked set a
#: PWM's fits read 49 distinct term arrays, 500 MiB in all, 255 MiB of them in one memo; at this
#: bound 4 of them are computed twice (6 MiB more work) and the memo holds at most 64 MiB.
MAX_TERM_BYTES = 64 * 2 ** 20


class WindowTerms:
    """A Markov background's window terms (``background.window_log2``), each computed once while
    it is held: a fit scores many PWMs of one width on the same sequences, and each score takes
    the same windows' background term off. Called as ``terms(codes, starts, m)``: the term of the
    windows of width ``m`` at ``starts`` of ``codes`` on ``strands``, shape (n, len(starts),
    len(strands)), or None where the background is letter frequencies (order 0 or an array).
    Keyed by the array's identity, the width and the starts; the arrays are held, so an
    identity is not reused while its entry lives -- the caller must not change them in place.
    At most ``max_bytes`` of terms are held (the newest entry always): past it, the entries
    read longest ago are let go, to be computed again (the same values) if read again."""

    def __init__(self, background, strands=("+", "-"), max_bytes=MAX_TERM_BYTES):
        self.background = background
        self.strands = tuple(strands)
        self.markov = hasattr(background, "window_log2") and background.order > 0
        self.max_bytes = int(max_bytes)
        self._memo = {}  # insertion order: the entry read longest ago first
        self._bytes = 0

    def __call__(self, codes, starts, m):
        if not self.markov:
            return None
        starts = np.asarray(starts, dtype=np.intp)
        key = (id(codes), int(m), starts.tobytes())
        entry = self._memo.pop(key, None)
        if entry is None:
            entry = (codes, self.background.window_log2(known_codes(codes), starts, int(m), self.strands))
            self._bytes += entry[1].nbytes
            while self._memo and self._bytes > self.max_bytes:
                self._bytes -= self._memo.pop(next(iter(self._memo)))[1].nbytes
        self._memo[key] = entry  # read last: held longest
        return entry[1]

    @property
    def nbytes(self) -> int:
        """The bytes of terms held now."""
        return self._bytes


def site_scores(pwm, codes, starts, strands, background, null=None):
    """log2-odds scores of every window and strand: shape (n, len(starts), len(strands)).

    ``log2 P(window | PWM on that strand) - log2 P(window | background)``: on the ``-`` strand
    the PWM's reverse complement reads the window; the background term is the same.
    ``pwm`` has shape (m, 4), ``background`` shape (4,) (letters independent), or a
    :class:`seqimp.background.SiteBackground` of order k: the window's background probability
    as read on each strand, every letter given the k before it in the window (``null``: that
    term where the caller has it already, ``background.window_log2(codes, starts, m, strands)``).
    A window covering an unknown base (code 4) scores ``-inf`` on both strands.
    """
    background, null = _letters_and_null(pwm, codes, starts, strands, background, null)
    codes, starts = _arrays(codes, starts)
    logp, logq = _log_tables(pwm)
    lognull = _null_table(background)
    if tuple(strands) == ("-",):  # the minus strand alone: the reverse complement on "+"
        logp, logq = logq, logp
    out = np.empty((codes.shape[0], starts.size, 2 if len(strands) == 2 else 1))
    _scores_kernel(logp, logq, lognull, codes, starts, out.shape[2], out)
    if null is not None:  # the PWM's term alone, then the Markov background's taken off
        out -= null
    return out


@njit(cache=True, parallel=True)
def _best_kernel(logp, logq, lognull, codes, starts, n_strands, null, out):
    """Every row's best window score of :func:`_scores_kernel` minus ``null[i, j, t]`` (a
    window's background term per strand; an empty array: none), without the scores' array."""
    for i in prange(codes.shape[0]):
        best = -np.inf
        for j in range(starts.shape[0]):
            plus, minus = _window_odds(logp, logq, lognull, codes, i, starts[j])
            if null.shape[0]:
                plus -= null[i, j, 0]
            if plus > best:
                best = plus
            if n_strands == 2:
                if null.shape[0]:
                    minus -= null[i, j, 1]
                if minus > best:
                    best = minus
        out[i] = best


def best_site_scores(pwm, codes, starts, strands, background, null=None):
    """``site_scores(pwm, codes, starts, strands, background, null).max(axis=(1, 2))`` without
    the (n, len(starts), len(strands)) array: every sequence's best window score, shape (n,), the
    same bits."""
    strands = tuple(strands)
    if strands not in (("+",), ("+", "-")):
        return site_scores(pwm, codes, starts, strands, background, null).max(axis=(1, 2))
    background, null = _letters_and_null(pwm, codes, starts, strands, background, null)
    codes, starts = _arrays(codes, starts)
    logp, logq = _log_tables(pwm)
    lognull = _null_table(background)
    null = np.empty((0, 0, 0)) if null is None else np.ascontiguousarray(null, dtype=np.float64)
    out = np.empty(codes.shape[0])
    _best_kernel(logp, logq, lognull, codes, starts, len(strands), null, out)
    return out


@njit(cache=True)
def _counts_kernel(post, codes, starts, m, complement, counts):
    """``counts`` of shape (m, 5): the fifth column gathers unknown bases (never read)."""
    for i in range(codes.shape[0]):
        for j in range(starts.shape[0]):
            s = starts[j]
            w = post[i, j, 0]
            if w != 0.0:
                for c in range(m):
                    counts[c, codes[i, np.uint64(s + c)]] += w
            if post.shape[2] == 2:
                w = post[i, j, 1]
                if w != 0.0:
                    for c in range(m):
                        counts[c, complement[codes[i, np.uint64(s + m - 1 - c)]]] += w


def weighted_counts(post, codes, starts, m):
    """Letter counts of the windows of length ``m`` weighted by ``post`` (shape (n,
    len(starts), n_strands), strands ``("+",)`` or ``("+", "-")``; on ``-`` the window's
    reverse complement is counted): shape (m, 4), the M-step of EM. An unknown base (code 4)
    adds to no letter (its window's posterior is 0 where it comes from :func:`site_scores`)."""
    codes, starts = _arrays(codes, starts)
    counts = np.zeros((int(m), 5))
    _counts_kernel(np.ascontiguousarray(post, dtype=np.float64), codes, starts, int(m), COMPLEMENT, counts)
    return counts[:, :4].copy()


#: rows of one EM chunk (:func:`_em_kernel`): the chunks are fixed by the number of rows alone, so
#: the sums are the same bits on any number of threads
EM_CHUNK_ROWS = 128


@njit(cache=True, parallel=True)
def _em_kernel(plus, minus, codes, starts, n_strands, gamma, counts):
    """One EM iteration of ZOOPS (:func:`em_step`): adds the posterior-weighted letter counts to
    ``counts`` and returns ``(log-likelihood, sum of the posteriors)``. ``plus[c, x]`` and
    ``minus[c, x]`` are the natural-log odds of letter ``x`` at window offset ``c`` on the + and
    on the - strand (the reverse-complemented PWM), so every letter of a window is read once;
    the - strand's counts are gathered by window offset and reverse-complemented at the end.
    Both tables have a fifth column of -inf (an unknown base): such a window has posterior 0,
    and a row without a window it can score adds ``log(1 - gamma)`` (no site) and no counts.
    Rows in chunks of :data:`EM_CHUNK_ROWS` on the threads, each chunk's sums of its own, added
    up chunk by chunk in order: the same bits on any number of threads."""
    m = plus.shape[0]
    S = starts.shape[0]
    n = codes.shape[0]
    prior = gamma / (S * n_strands)
    n_chunks = (n + EM_CHUNK_ROWS - 1) // EM_CHUNK_ROWS
    cplus = np.zeros((n_chunks, m, 5))  # the fifth column: unknown bases of windows of posterior 0
    cminus = np.zeros((n_chunks, m, 5))
    logliks = np.zeros(n_chunks)
    masses = np.zeros(n_chunks)
    for t in prange(n_chunks):
        odds = np.empty((S, 2))
        loglik = 0.0
        mass = 0.0
        for i in range(t * EM_CHUNK_ROWS, min(n, (t + 1) * EM_CHUNK_ROWS)):
            row = codes[i]
            top = -np.inf
            for j in range(S):
                s = starts[j]
                a = 0.0
                b = 0.0
                for c in range(m):
                    x = row[np.uint64(s + c)]
                    a += plus[c, x]
                    b += minus[c, x]
                odds[j, 0] = a
                odds[j, 1] = b
                if a > top:
                    top = a
                if n_strands == 2 and b > top:
                    top = b
            if top == -np.inf:  # no window without an unknown base: no site
                loglik += np.log(1.0 - gamma)
                continue
            total = 0.0
            for j in range(S):
                for k in range(n_strands):
                    e = np.exp(odds[j, k] - top) * prior
                    odds[j, k] = e
                    total += e
            den = (1.0 - gamma) * np.exp(-top) + total
            loglik += np.log(den) + top
            mass += total / den
            for j in range(S):
                s = starts[j]
                wp = odds[j, 0] / den
                if n_strands == 2:
                    wm = odds[j, 1] / den
                    for c in range(m):
                        x = row[np.uint64(s + c)]
                        cplus[t, c, x] += wp
                        cminus[t, c, x] += wm
                else:
                    for c in range(m):
                        cplus[t, c, row[np.uint64(s + c)]] += wp
        logliks[t] = loglik
        masses[t] = mass
    loglik = 0.0
    mass = 0.0
    for t in range(n_chunks):
        loglik += logliks[t]
        mass += masses[t]
        for c in range(m):
            for x in range(4):
                counts[c, x] += cplus[t, c, x] + cminus[t, m - 1 - c, 3 - x]
    return loglik, mass


def em_step(pwm, codes, starts, strands, background, gamma):
    """One EM iteration (zero or one occurrence per sequence) of a PWM over the windows at
    ``starts`` on ``strands`` (``("+",)`` or ``("+", "-")``): every place's posterior
    (prior ``gamma`` spread uniformly over the places, ``1 - gamma`` for no site) and the
    posterior-weighted letter counts (a window covering an unknown base is no place). Returns
    ``(counts of shape (m, 4), log-likelihood, sum of the posteriors)``; the same as :func:`site_scores` and :func:`weighted_counts` on the
    posteriors, in one pass without the (n, len(starts), strands) arrays."""
    codes, starts = _arrays(codes, starts)
    logp, logq = _log_tables(pwm, np.log)
    lognull = _null_table(background, np.log)
    plus = np.ascontiguousarray(logp - lognull)
    minus = np.ascontiguousarray(logq - lognull)
    counts = np.zeros((pwm.shape[0], 4))
    loglik, mass = _em_kernel(plus, minus, codes, starts, len(strands), float(gamma), counts)
    return counts, float(loglik), float(mass)


def overlaps(claimed, starts, m):
    """Which windows of length ``m`` at ``starts`` overlap a ``claimed`` position (boolean,
    shape (n, L)): boolean, shape (n, len(starts))."""
    run = np.zeros((claimed.shape[0], claimed.shape[1] + 1), dtype=np.int64)
    np.cumsum(claimed, axis=1, out=run[:, 1:])
    return run[:, starts + m] > run[:, starts]


def best_windows(pwm, codes, starts, strands, background, claimed, *, null=None):
    """Best window of every sequence: ``(score, start, strand)``, each of shape (n,): the
    log2-odds score, the 0-based start and the index into ``strands`` (the first of equal
    windows, start by start, strand by strand). Places overlapping ``claimed`` positions
    (boolean, shape (n, L), or None) are skipped. ``null``: the windows' background term, as
    :func:`site_scores` takes it."""
    scores = site_scores(pwm, codes, starts, strands, background, null)
    if claimed is not None:
        scores[overlaps(claimed, starts, pwm.shape[0])] = -np.inf
    flat = scores.reshape(len(codes), -1)
    k = flat.argmax(axis=1)
    return flat[np.arange(len(codes)), k], starts[k // len(strands)], k % len(strands)


def mask_sites(motif, stats, positive, negative, sites, *, strands=("+",), random_state=None, erase="random"):
    """Erase a refined motif's sites (explaining it away), in place: with ``erase="random"``
    their letters are replaced by letters drawn at random from the negatives' letter frequencies
    (unknown bases not counted); with ``erase="unknown"`` by the unknown code 4 (N: no base, so
    no later window, word or site reads them -- exactly "explained away", and no random draw).

    In the positives, the sites of the site table (one per positive at most); in the
    negatives, every negative's best window within the motif's search window
    (``window_start``..``window_end`` of ``stats``) that makes a site under its threshold
    (``threshold``, ``inclusive``), scored against the negatives' letter frequencies as
    :func:`seqimp.motifs.refine_motifs` scored it: on ``strands``, or on the + strand alone
    where the row's ``strand`` is ``"given"`` (a motif whose sites lie on one strand, called
    there at the threshold of the negatives' + strand).

    Parameters
    ----------
    motif : Motif
        As refined and reported (its written PWM).
    stats : dict
        The motif's row of :attr:`seqimp.motifs.MotifSites.stats`.
    positive, negative : ndarray of shape (n, L), uint8
        Changed in place.
    sites : pandas.DataFrame
        The motif's rows of the site table (``sequence`` 0-based, ``position`` 1-based).
    strands : tuple of str
        The run's strands; ``("+",)`` where ``stats["strand"]`` is ``"given"``.
    random_state : int, Generator or None
    erase : {"random", "unknown"}, default="random"

    Returns
    -------
    (int, int)
        Sites erased in the positives and in the negatives.
    """
    from ..errors import check_choice, check_random_state

    erase = check_choice(erase, "erase", ("random", "unknown"))
    rng = check_random_state(random_state)
    counts = np.bincount(negative.ravel(), minlength=5)[:4] + 1.0
    background = counts / counts.sum()
    m = motif.length
    if stats.get("strand") == "given":  # called on the + strand only, at that strand's threshold
        strands = ("+",)
    starts = np.arange(int(stats["window_start"]) - 1, int(stats["window_end"]))
    best, at, _ = best_windows(motif.pwm, negative, starts, strands, background, None)
    hit = np.flatnonzero(has_site(best, float(stats["threshold"]), bool(stats["inclusive"])))
    places = [(positive, int(i), int(p) - 1) for i, p in zip(sites["sequence"], sites["position"])]
    places += [(negative, int(i), int(at[i])) for i in hit]
    for codes, i, s in places:
        # 4: the unknown code (N)
        codes[i, s:s + m] = 4 if erase == "unknown" else rng.choice(4, size=m, p=background)
    return len(sites), len(hit)
