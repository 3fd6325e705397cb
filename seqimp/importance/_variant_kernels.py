"""numba kernels of exact variant effects (:mod:`seqimp.importance._variants`).

WD/WDS models (positional weights ``W_k[i, y]``): a substitution at position p changes exactly
the positional k-mers that cover it, ``k`` of them per order, so its effect is
``sum_k sum_{i=p-k+1..p} W_k[i, alt k-mer] - W_k[i, ref k-mer]``: ``degree (degree + 1) / 2``
pairs of look-ups, whatever the window length.

gkm models (gapped-k-mer weights ``w_f``, :mod:`seqimp.kernels.gkm._kernel`): a substitution changes the
gapped k-mers whose informative columns hold it, in the ``l`` l-mers that cover it on each
strand: ``C(l-1, k-1)`` per l-mer. The unnormalised score changes by the weights gained minus
those lost (deltaSVM's rule, Lee et al. 2015); the normalised score also needs the new
``||phi||^2``, which the same changes give exactly from the window's counts:
``(c + 1)^2 - c^2 = 2c + 1`` for a gapped k-mer gained, ``-2c + 1`` for one lost, applied one at a
time to a count vector of the window (so repeats and the two strands are counted exactly), then
undone.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..kernels._unknown import has_unknown, known_symbol

__all__ = []


@njit(cache=True)
def _unknown_in(seq, t, width, skip):
    """Whether ``seq[t:t + width]`` holds an unknown base (code > 3: N) at a position other than ``skip``."""
    for j in range(t, t + width):
        if j != skip and seq[j] > 3:
            return True
    return False


@njit(cache=True)
def _wd_one(row, tables, degree, length, p, b, track, check):
    """Effect of letter ``b`` at position ``p`` of one window (codes ``row``) on a WD model:
    ``(delta, k, start, sign, change)`` of the positional k-mer whose weight changes most
    (``sign`` -1: the ref k-mer lost, +1: the alt k-mer gained; ``change`` its signed effect).
    ``check`` (the window holds an unknown base, N): a k-mer that covers one is no feature, so the
    ref k-mers that cover an N and the alt k-mers that cover one elsewhere than ``p`` change nothing."""
    ref_known = row[p] <= 3
    a = known_symbol(row[p], 4)
    total = 0.0
    bk, bs, bsign, bchange, babs = 0, 0, 0, 0.0, -1.0
    for k in range(1, degree + 1):
        table = tables[k - 1]
        lo = max(0, p - k + 1)
        hi = min(p, length - k)
        mask = (np.int64(1) << (2 * k)) - 1
        idx = np.int64(0)
        for j in range(lo, lo + k - 1):  # the first k - 1 letters; each start adds one (a rolling index)
            idx = idx * 4 + known_symbol(row[j], 4)
        for i in range(lo, hi + 1):
            idx = ((idx << 2) | known_symbol(row[i + k - 1], 4)) & mask
            if check and _unknown_in(row, i, k, p):
                continue
            aidx = idx + ((np.int64(b) - a) << (2 * (k - 1 - (p - i))))
            wr = table[i, idx] if ref_known else 0.0
            wa = table[i, aidx]
            total += wa - wr
            if track:
                if abs(wr) > babs:
                    bk, bs, bsign, bchange, babs = k, i, -1, -wr, abs(wr)
                if abs(wa) > babs:
                    bk, bs, bsign, bchange, babs = k, i, 1, wa, abs(wa)
    return total, bk, bs, bsign, bchange


@njit(cache=True, parallel=True)
def _wd_snvs(codes, tables, degree, win, pos, alt, delta, top):
    """``delta[v]`` of substitution ``v`` (window ``win[v]``, position ``pos[v]``, letter ``alt[v]``)
    and its most changed positional k-mer in ``top[v] = (k, start, sign)``, ``delta``'s twin
    ``top_change`` in the last column as float: see :func:`_wd_one`."""
    length = codes.shape[1]
    for v in prange(win.size):
        row = codes[win[v]]
        d, k, s, sign, change = _wd_one(row, tables, degree, length, pos[v], alt[v], True, has_unknown(row, 4))
        delta[v] = d
        top[v, 0] = k
        top[v, 1] = s
        top[v, 2] = sign
        top[v, 3] = change


@njit(cache=True, parallel=True)
def _wd_all_snvs(codes, tables, degree, out):
    """Every substitution of every window: ``out[w, 3 p + j]`` for the j-th other letter at p (NaN at an
    unknown base, which has no three other letters)."""
    length = codes.shape[1]
    for w in prange(codes.shape[0]):
        row = codes[w]
        check = has_unknown(row, 4)
        for p in range(length):
            if row[p] > 3:
                for j in range(3):
                    out[w, 3 * p + j] = np.nan
                continue
            j = 0
            for b in range(4):
                if b == row[p]:
                    continue
                out[w, 3 * p + j] = _wd_one(row, tables, degree, length, p, b, False, check)[0]
                j += 1


@njit(cache=True)
def _lmer_code(row, t, l):
    code = np.int64(0)
    for j in range(t, t + l):
        code = code * 4 + known_symbol(row[j], 4)
    return code


@njit(cache=True)
def _window_features(row, rrow, l, left, right, rc, feats, check):
    """The window's gapped k-mer occurrences (both strands with ``rc``: + strand windows, then the
    reverse complement's) into ``feats``; returns their number. ``check``: the window holds an unknown
    base, and the l-mers that cover one are skipped."""
    length = row.shape[0]
    shift = 2 * (l - l // 2)
    rmask = (np.int64(1) << shift) - 1
    n = 0
    for s in range(2 if rc else 1):
        seq = row if s == 0 else rrow
        for t in range(length - l + 1):
            if check and _unknown_in(seq, t, l, -1):
                continue
            code = _lmer_code(seq, t, l)
            a, r = code >> shift, code & rmask
            for c in range(left.shape[1]):
                feats[n] = left[a, c] + right[r, c]
                n += 1
    return n


@njit(cache=True)
def _window_counts(feats, n, w, counts):
    """Count the occurrences ``feats[:n]`` (:func:`_window_features`) into ``counts``; returns
    ``(<phi, w>, ||phi||^2)``."""
    dot = 0.0
    for i in range(n):
        counts[feats[i]] += 1.0
        dot += w[feats[i]]
    sq = 0.0
    for i in range(n):
        sq += counts[feats[i]]
    return dot, sq


@njit(cache=True)
def _clear_counts(feats, n, counts):
    for i in range(n):
        counts[feats[i]] = 0.0


@njit(cache=True)
def _scratch(n_features, length, l, with_col, left):
    """One thread's scratch of the SNV kernels: the window's counts, the log of a substitution's
    count changes (:func:`_gkm_one`) and the window's occurrences (:func:`_window_features`)."""
    return (np.zeros(n_features), np.empty(2 * 2 * l * with_col.shape[1], dtype=np.int64),
            np.empty(2 * max(length - l + 1, 0) * left.shape[1], dtype=np.int64))


@njit(cache=True)
def _gkm_one(row, rrow, l, left, right, with_col, w, counts, log, p, b, rc, track, check):
    """Substitution of letter ``b`` at ``p``: ``(dN, dsq, t, c, sign, change)``: the change of
    ``<phi, w>`` and of ``||phi||^2``, and the + strand gapped k-mer whose weight changes most
    (l-mer start ``t``, column choice ``c``, ``sign`` -1 lost / +1 gained, ``change`` = ``sign * w``).
    ``counts`` holds the window's counts and is left as it was. ``check``: the window holds an unknown
    base (N); an l-mer that covers one elsewhere than ``p`` is no l-mer before or after, and one at ``p``
    loses nothing (it had no features)."""
    length = row.shape[0]
    shift = 2 * (l - l // 2)
    rmask = (np.int64(1) << shift) - 1
    dn = 0.0
    dsq = 0.0
    n_log = 0
    bt, bc, bsign, bchange, babs = 0, 0, 0, 0.0, -1.0
    for s in range(2 if rc else 1):
        seq = row if s == 0 else rrow
        q = p if s == 0 else length - 1 - p
        letter = np.int64(b) if s == 0 else 3 - np.int64(b)
        old = known_symbol(seq[q], 4)
        had = seq[q] <= 3                       # the ref l-mers had features (their base at q is known)
        for t in range(max(0, q - l + 1), min(q, length - l) + 1):
            if check and _unknown_in(seq, t, l, q):
                continue
            j = q - t
            code = _lmer_code(seq, t, l)
            acode = code + ((letter - old) << (2 * (l - 1 - j)))
            ra, rr = code >> shift, code & rmask
            aa, ar = acode >> shift, acode & rmask
            for m in range(with_col.shape[1]):
                c = with_col[j, m]
                fr = left[ra, c] + right[rr, c]
                fa = left[aa, c] + right[ar, c]
                if had:
                    dsq += 1.0 - 2.0 * counts[fr]
                    counts[fr] -= 1.0
                    dn -= w[fr]
                dsq += 2.0 * counts[fa] + 1.0
                counts[fa] += 1.0
                dn += w[fa]
                log[n_log] = fr if had else -1            # -1: nothing lost, nothing to undo
                log[n_log + 1] = fa
                n_log += 2
                if track and s == 0:
                    if had and abs(w[fr]) > babs:
                        bt, bc, bsign, bchange, babs = t, c, -1, -w[fr], abs(w[fr])
                    if abs(w[fa]) > babs:
                        bt, bc, bsign, bchange, babs = t, c, 1, w[fa], abs(w[fa])
    for i in range(0, n_log, 2):
        if log[i] >= 0:
            counts[log[i]] += 1.0
        counts[log[i + 1]] -= 1.0
    return dn, dsq, bt, bc, bsign, bchange


@njit(cache=True)
def _score(dot, sq, normalize, intercept):
    if normalize:
        if sq <= 0.0:                 # every l-mer covers an unknown base: phi = 0, the score is the intercept
            return intercept
        return dot / np.sqrt(sq) + intercept
    return dot + intercept


@njit(cache=True, parallel=True)
def _gkm_snvs(codes, rcodes, l, left, right, with_col, w, rc, normalize, intercept, n_features, bounds, pos, alt,
              score_ref, score_alt, dn_out, top, n_chunks):
    """Substitutions grouped by window: those of window ``i`` are ``bounds[i]:bounds[i + 1]`` of
    ``pos``/``alt``. ``score_ref[i]`` per window; per substitution ``score_alt``, the change of
    ``<phi, w>`` (``dn_out``, deltaSVM's sum) and the top gapped k-mer ``top[v] = (t, c, sign, change)``."""
    m, length = codes.shape
    step = (m + n_chunks - 1) // n_chunks
    for chunk in prange(n_chunks):
        counts, log, feats = _scratch(n_features, length, l, with_col, left)
        for i in range(chunk * step, min(m, (chunk + 1) * step)):
            if bounds[i] == bounds[i + 1]:
                continue
            check = has_unknown(codes[i], 4)
            n = _window_features(codes[i], rcodes[i], l, left, right, rc, feats, check)
            dot, sq = _window_counts(feats, n, w, counts)
            score_ref[i] = _score(dot, sq, normalize, intercept)
            for v in range(bounds[i], bounds[i + 1]):
                dn, dsq, t, c, sign, change = _gkm_one(codes[i], rcodes[i], l, left, right, with_col, w, counts, log,
                                                       pos[v], alt[v], rc, True, check)
                score_alt[v] = _score(dot + dn, sq + dsq, normalize, intercept)
                dn_out[v] = dn
                top[v, 0] = t
                top[v, 1] = c
                top[v, 2] = sign
                top[v, 3] = change
            _clear_counts(feats, n, counts)


@njit(cache=True, parallel=True)
def _gkm_all_snvs(codes, rcodes, l, left, right, with_col, w, rc, normalize, intercept, n_features, out, n_chunks):
    """Every substitution of every window: ``out[i, 3 p + j]`` = score change for the j-th other letter at p."""
    m, length = codes.shape
    step = (m + n_chunks - 1) // n_chunks
    for chunk in prange(n_chunks):
        counts, log, feats = _scratch(n_features, length, l, with_col, left)
        for i in range(chunk * step, min(m, (chunk + 1) * step)):
            check = has_unknown(codes[i], 4)
            n = _window_features(codes[i], rcodes[i], l, left, right, rc, feats, check)
            dot, sq = _window_counts(feats, n, w, counts)
            ref = _score(dot, sq, normalize, intercept)
            for p in range(length):
                if codes[i, p] > 3:                 # an unknown base has no three other letters
                    for j in range(3):
                        out[i, 3 * p + j] = np.nan
                    continue
                j = 0
                for b in range(4):
                    if b == codes[i, p]:
                        continue
                    dn, dsq, _t, _c, _s, _ch = _gkm_one(codes[i], rcodes[i], l, left, right, with_col, w, counts,
                                                        log, p, b, rc, False, check)
                    out[i, 3 * p + j] = _score(dot + dn, sq + dsq, normalize, intercept) - ref
                    j += 1
            _clear_counts(feats, n, counts)
