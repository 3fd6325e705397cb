"""Gapped-k-mer (gkm) and k-mer spectrum kernels: explicit gapped-k-mer counts in numba.

A *gapped k-mer* of an l-mer is a choice of ``k`` of its ``l`` positions (the *informative*
columns; the other ``l - k`` are gaps) together with the letters there. The feature vector
``phi(x)`` of a DNA sequence counts every gapped k-mer of every l-mer window of ``x`` -- and,
with ``reverse_complement=True`` (gkm-SVM's default), also those of the reverse complement of
``x``. The gkm kernel (Ghandi et al. 2014; LS-GKM, Lee 2016) is ``K(x, y) = <phi(x), phi(y)>``,
normalised by default to ``K(x, y) / sqrt(K(x, x) K(y, y))``. With ``l == k`` there are no
gaps and it is the k-mer spectrum kernel (Leslie et al. 2002).

Feature index (0-based): ``c * 4**k + u``, where ``c`` numbers the ``C(l, k)`` choices of
informative columns in lexicographic order (:func:`gkm_columns`) and ``u`` is the base-4
number of the k letters there, first letter most significant (the k-mer index rule of the
package). There are ``C(l, k) * 4**k`` features; nothing is hashed, so nothing collides.

The kernels never store a sequence's features: they walk its l-mer windows, compute each
window's l-mer code (2 bits a letter) and look up the feature index of every column choice
from two tables (left and right half of the window), so a sequence costs
``2 (L - l + 1) C(l, k)`` table look-ups for a dot product with a weight vector, an update of
it, or its squared norm (counted in a dense scratch vector). Public functions validate once and
call the private ``@njit(cache=True)`` kernels, which take arrays and scalars only.
"""

from __future__ import annotations

from itertools import combinations

import numba
import numpy as np
from numba import njit, prange

from ...errors import SeqimpError
from ...io._check import check_sequences
from ...io._strand import reverse_complement_index
from ...options import MAX_FEATURES, check_gkm_params  # the (l, k) rule of ModelOptions too

__all__ = ["gkm_kernel", "spectrum_kernel", "gkm_columns", "GkmTables", "check_gkm_params", "ragged_codes",
           "MAX_FEATURES"]


def gkm_columns(word_length: int, informative: int) -> np.ndarray:
    """The ``C(l, k)`` choices of informative columns, lexicographic.

    Returns
    -------
    ndarray of shape (C(l, k), k), int64
        Row ``c`` holds the 0-based columns of choice ``c`` within the l-mer, increasing.
    """
    return np.array(list(combinations(range(word_length), informative)), dtype=np.int64).reshape(-1, informative)


class GkmTables:
    """The look-up tables of one ``(l, k)``: ``left[a, c] + right[b, c]`` is the feature index
    of column choice ``c`` in the l-mer whose left half (the first ``l // 2`` letters) has code
    ``a`` and whose right half has code ``b``.

    Attributes
    ----------
    word_length, informative : int
    columns : ndarray of shape (C(l, k), k)
    left : ndarray of shape (4**(l // 2), C(l, k)), uint32
    right : ndarray of shape (4**(l - l // 2), C(l, k)), uint32
    left_t, right_t : ndarray of shape (C(l, k), 4**(l // 2)) and (C(l, k), 4**(l - l // 2)), uint32
        The same tables transposed, a choice's row contiguous: the kernels that walk the
        windows choice by choice (the fit's pass, the weights of dual variables, the norms).
    n_features : int

    The tables and the window rows of :func:`_halves` that index them are unsigned: numba
    checks every signed index for a negative value (Python's wrap-around), an unsigned one it
    uses as it is. The fit's pass does three such look-ups per window and choice; unsigned,
    the fit on 2,000 random 200-mers takes about half the time, the same bits
    (``python scripts/bench_gkm.py --index-dtype``).
    """

    def __init__(self, word_length, informative):
        self.word_length, self.informative = check_gkm_params(word_length, informative)
        self.columns = gkm_columns(self.word_length, self.informative)
        self.n_features = self.columns.shape[0] * 4 ** self.informative
        half = self.word_length // 2
        self.left = _half_table(self.columns, 0, half, self.informative, True)
        self.right = _half_table(self.columns, half, self.word_length, self.informative, False)
        self.left_t = np.ascontiguousarray(self.left.T)
        self.right_t = np.ascontiguousarray(self.right.T)
        self._own = own_choices(self.columns, self.word_length)

    def kept_choices(self, rc) -> tuple[np.ndarray, np.ndarray]:
        """``(choices, both)`` of :func:`_squared_norm` and the fit's pass: with ``rc`` the kept
        choices of :func:`own_choices`, without every choice (``both`` all 1)."""
        if rc:
            return self._own
        n = self.columns.shape[0]
        return np.arange(n, dtype=np.int64), np.ones(n, dtype=np.uint8)


@njit(cache=True)
def _half_table(columns, lo, hi, k, with_offset):
    """Contribution of the letters in window columns ``lo..hi-1`` to each choice's feature index."""
    n_choice = columns.shape[0]
    width = hi - lo
    out = np.zeros((4 ** width, n_choice), dtype=np.uint32)
    for code in range(4 ** width):
        for c in range(n_choice):
            v = c * 4 ** k if with_offset else 0
            for j in range(k):
                col = columns[c, j]
                if lo <= col < hi:
                    letter = (code >> (2 * (hi - 1 - col))) & 3
                    v += letter * 4 ** (k - 1 - j)
            out[code, c] = v
    return out


def ragged_codes(X, name="X") -> tuple[np.ndarray, np.ndarray]:
    """DNA sequences of any lengths as one flat uint8 code array and offsets.

    Parameters
    ----------
    X : ndarray of shape (n, L), SequenceSet, or sequence of str / 1-D code arrays
        Codes A=0, C=1, G=2, T=3; a list may hold sequences of different lengths.

    Returns
    -------
    codes : ndarray of shape (total,), uint8
        N and the other ambiguity letters are the unknown code 4: the kernels leave out every
        l-mer window that covers one.
    offsets : ndarray of shape (n + 1,), int64
        Sequence ``i`` is ``codes[offsets[i]:offsets[i + 1]]``.
    """
    if isinstance(X, (list, tuple)) and len(X) and not isinstance(X[0], (int, np.integer)):
        parts = []
        for i, x in enumerate(X):
            one = x if isinstance(x, (str, bytes)) else np.asarray(x)[None, :] if np.ndim(x) == 1 else x
            try:
                parts.append(check_sequences(one, f"{name} sequence {i}", unknown=True)[0])
            except SeqimpError as exc:
                raise SeqimpError(str(exc)) from None
        lengths = np.array([p.size for p in parts], dtype=np.int64)
        codes = np.concatenate(parts).astype(np.uint8)
    else:
        arr = check_sequences(X, name, unknown=True)
        lengths = np.full(arr.shape[0], arr.shape[1], dtype=np.int64)
        codes = np.ascontiguousarray(arr).reshape(-1)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return codes, offsets


def check_lengths(offsets, word_length, name="X") -> None:
    """SeqimpError naming the first sequence shorter than the word length (it has no l-mer)."""
    lengths = np.diff(offsets)
    short = np.flatnonzero(lengths < word_length)
    if short.size:
        raise SeqimpError(f"{name}: sequence {short[0]} has length {lengths[short[0]]}, shorter than "
                          f"word_length={word_length} (no l-mer)")


# --- numba kernels ------------------------------------------------------------------------


@njit(cache=True)
def _halves(codes, lo, hi, l, rc, buf):
    """The left and right half codes of every l-mer window of ``codes[lo:hi]`` into ``buf``
    (unsigned ints, :class:`GkmTables`; at least ``2 (hi - lo - l + 1)`` rows of 2): row t is the + strand
    window starting at ``lo + t``; with ``rc`` row ``m + t`` is its reverse complement (m windows).
    A window that covers an unknown base (code > 3: N, an ambiguity letter) is no l-mer of the
    sequence: it is left out, the rows of the others packed (row t is then the t-th window that covers
    none, :func:`_known_starts`). Returns the rows written."""
    m = hi - lo - l + 1
    shift = 2 * (l - l // 2)
    rmask = (1 << shift) - 1
    mask = (1 << (2 * l)) - 1
    top = 2 * (l - 1)
    code = 0
    rcode = 0
    last = lo - 1                   # the last unknown base read
    kept = 0
    for p in range(lo, hi):
        b = np.int64(codes[p])
        if b > 3:
            last = p
            b = 0
        code = ((code << 2) | b) & mask
        rcode = (rcode >> 2) | ((3 - b) << top)
        t = p - lo - l + 1
        if t >= 0 and last < lo + t:
            buf[kept, 0] = code >> shift
            buf[kept, 1] = code & rmask
            if rc:
                buf[m + kept, 0] = rcode >> shift
                buf[m + kept, 1] = rcode & rmask
            kept += 1
    if rc and kept < m:             # the reverse strand's rows right after the + strand's
        for t in range(kept):
            buf[kept + t, 0] = buf[m + t, 0]
            buf[kept + t, 1] = buf[m + t, 1]
    return 2 * kept if rc else kept


@njit(cache=True)
def _known_starts(codes, lo, hi, l, starts):
    """The start (flat index) of every l-mer window of ``codes[lo:hi]`` that covers no unknown base, in
    order (the windows of :func:`_halves`' rows) into ``starts``; returns their number."""
    last = lo - 1
    kept = 0
    for p in range(lo, hi):
        if codes[p] > 3:
            last = p
        t = p - l + 1
        if t >= lo and last < t:
            starts[kept] = t
            kept += 1
    return kept


@njit(cache=True)
def _dot(buf, n, left, right, w):
    """``<phi(x), w>`` over the first ``n`` window rows of ``buf`` (occurrences with multiplicity)."""
    total = 0.0
    for t in range(n):
        a, r = buf[t, 0], buf[t, 1]
        for c in range(left.shape[1]):
            total += w[left[a, c] + right[r, c]]
    return total


@njit(cache=True)
def _strand_dot(buf, n, left, right, w, rc):
    """``<phi(x) + phi(rc(x)), w>`` over the ``n`` rows of ``buf`` (both strands with ``rc``) for
    a weight vector that is its own reverse complement (``w[f] == w[R f]``, where ``R f`` is the
    gapped k-mer ``f`` read on the other strand: its columns mirrored, its letters complemented).
    The reverse strand's rows then read the same weights as the + strand's (``<phi(rc(x)), w> =
    <phi(x), R w>``), so with ``rc`` this is twice the dot product over the first half (the +
    strand rows), at half the look-ups. Every weight vector of a model with ``rc`` is such a
    vector: it is a sum of ``phi(x) + phi(rc(x))`` (:func:`_add` adds the same amounts to ``f``
    and ``R f``, the same number of times, so they stay equal to the last bit)."""
    if rc:
        return 2.0 * _dot(buf, n // 2, left, right, w)
    return _dot(buf, n, left, right, w)


@njit(cache=True)
def _add(buf, n, left, right, w, value):
    """``w += value * phi(x)`` over the first ``n`` window rows of ``buf``."""
    for t in range(n):
        a, r = buf[t, 0], buf[t, 1]
        for c in range(left.shape[1]):
            w[left[a, c] + right[r, c]] += value


@njit(cache=True, nogil=True)
def _squared_norm(buf, n, left_t, right_t, scratch, features, rc, choices, both):
    """``||phi(x)||^2`` over the ``n`` rows of ``buf``, choice by choice: the features of a
    choice are one block of ``4**k`` (``c * 4**k + u``); as a window's feature is counted, the
    sum of squared counts grows by ``2 v + 1`` (``v``: its count so far), so the sum of a
    choice's squared counts comes in integers without a second walk, and ``scratch`` (int32,
    zeroed) is zeroed again at the features read. With ``rc`` the choices are those a
    both-strand fit keeps (:func:`own_choices`) and the counts are of both strands' windows: a
    choice that is not its own mirror (``both``) stands for its mirror too, whose counts are the
    same numbers at the features ``R f`` (``||.||^2`` of the two: twice its own); integers, so
    the same number as counting every choice. ``left_t``, ``right_t``: the half tables
    transposed (a choice's row contiguous); ``features``: scratch of ``n`` ints."""
    pair = 0
    single = 0
    for j in range(choices.size):
        c = choices[j]
        lc = left_t[c]
        rc_ = right_t[c]
        for t in range(n):
            features[t] = lc[buf[t, 0]] + rc_[buf[t, 1]]
        total = 0
        for t in range(n):
            v = scratch[features[t]]
            total += 2 * v + 1
            scratch[features[t]] = v + 1
        for t in range(n):
            scratch[features[t]] = 0
        if rc and both[j]:
            pair += total
        else:
            single += total
    return 2.0 * pair + single


def buffer_rows(offsets, l) -> int:
    """Rows of a window buffer (:func:`_halves`) for the longest sequence of ``offsets``."""
    return 2 * max(int(np.diff(offsets).max()) - l + 1, 1)


@njit(cache=True, parallel=True)
def _squared_norms(codes, offsets, l, left_t, right_t, rc, n_features, n_chunks, rows, choices, both):
    n = offsets.size - 1
    out = np.empty(n)
    step = (n + n_chunks - 1) // n_chunks
    for t in prange(n_chunks):
        scratch = np.zeros(n_features, dtype=np.int32)
        features = np.empty(rows, dtype=np.uint32)
        buf = np.empty((rows, 2), dtype=np.uint32)
        for i in range(t * step, min(n, (t + 1) * step)):
            m = _halves(codes, offsets[i], offsets[i + 1], l, rc, buf)
            out[i] = _squared_norm(buf, m, left_t, right_t, scratch, features, rc, choices, both)
    return out


@njit(cache=True, parallel=True)
def _scores(codes, offsets, l, left, right, rc, w, scale, rows):
    """``scale[i] * <phi(x_i), w>`` for every sequence (``w`` its own reverse complement with
    ``rc``: :func:`_strand_dot`)."""
    n = offsets.size - 1
    out = np.empty(n)
    for i in prange(n):
        buf = np.empty((rows, 2), dtype=np.uint32)
        m = _halves(codes, offsets[i], offsets[i + 1], l, rc, buf)
        out[i] = scale[i] * _strand_dot(buf, m, left, right, w, rc)
    return out


@njit(cache=True, parallel=True)
def _gram(xcodes, xoff, ycodes, yoff, l, left, right, rc, n_features, n_chunks, rows):
    """``<phi(x_i), phi(y_j)>`` for all pairs: ``phi(x_i)`` counted into a dense scratch, then each y walked."""
    nx, ny = xoff.size - 1, yoff.size - 1
    out = np.empty((nx, ny))
    step = (nx + n_chunks - 1) // n_chunks
    for t in prange(n_chunks):
        scratch = np.zeros(n_features)
        xbuf = np.empty((rows, 2), dtype=np.uint32)
        ybuf = np.empty((rows, 2), dtype=np.uint32)
        for i in range(t * step, min(nx, (t + 1) * step)):
            mx = _halves(xcodes, xoff[i], xoff[i + 1], l, rc, xbuf)
            _add(xbuf, mx, left, right, scratch, 1.0)
            for j in range(ny):
                my = _halves(ycodes, yoff[j], yoff[j + 1], l, rc, ybuf)
                out[i, j] = _dot(ybuf, my, left, right, scratch)
            _add(xbuf, mx, left, right, scratch, -1.0)
    return out


@njit(cache=True, parallel=True)
def _weights_of(codes, offsets, l, left_t, right_t, rc, coef, w, rows, n_chunks, choices):
    """``w += sum_i coef[i] phi(x_i)`` at the column choices ``choices`` (every choice, or the
    fit's own choices: :func:`own_choices`) over the sequences with ``coef[i] != 0`` (the weights
    of dual variables: ``coef = y alpha scale``). In parallel over ``n_chunks`` ranges of
    ``choices``: the features of different choices are different (``c * 4**k + u``), so no two
    threads write one weight; a sequence's windows are added choice by choice (a choice's
    block of weights then stays in the first-level cache; ``left_t``, ``right_t``: the tables of
    :class:`GkmTables` transposed), so each weight receives its additions in the order of the
    serial loop (sequence by sequence, window by window): the same bits."""
    n_choice = choices.size
    step = (n_choice + n_chunks - 1) // n_chunks
    for t in prange(n_chunks):
        buf = np.empty((rows, 2), dtype=np.uint32)
        lo, hi = t * step, min(n_choice, (t + 1) * step)
        for i in range(offsets.size - 1):
            if coef[i] != 0.0:
                m = _halves(codes, offsets[i], offsets[i + 1], l, rc, buf)
                value = coef[i]
                for j in range(lo, hi):
                    lc = left_t[choices[j]]
                    rc_ = right_t[choices[j]]
                    for r in range(m):
                        w[lc[buf[r, 0]] + rc_[buf[r, 1]]] += value


def mirrored_choices(columns, word_length) -> np.ndarray:
    """For every column choice ``c`` the choice of its mirrored columns (``j -> l - 1 - j``),
    shape (C(l, k),): the gapped k-mer ``f = (c, u)`` read on the other strand is ``R f =
    (mirror[c], rc(u))``, ``rc(u)`` its k letters reversed and complemented."""
    where = {tuple(c): i for i, c in enumerate(columns.tolist())}
    return np.array([where[tuple(sorted(word_length - 1 - j for j in c))] for c in columns.tolist()], dtype=np.int64)


def own_choices(columns, word_length) -> tuple[np.ndarray, np.ndarray]:
    """The column choices whose weights a both-strand fit keeps, and which of them are their own
    mirror. A weight vector of both strands is its own reverse complement (``w[f] == w[R f]``,
    :func:`_strand_dot`), so of a choice ``c`` and its mirror ``c'`` only the lower one's weights
    need to be kept: ``w[(c', u)] = w[(c, rc(u))]``. Reading both strands' windows at ``c`` gives
    the weights of both strands' windows at ``c'`` as well (the reverse strand's window at ``c``
    is ``R`` of the + strand's at ``c'``): the dot product of both strands is twice the sum over
    both strands' windows at the kept choices that are not their own mirror, plus twice the sum
    over the + strand's windows at the self-mirrored ones; an update adds at both strands' windows
    of the kept choices only -- about half the additions.

    Returns
    -------
    choices : ndarray of shape (n_own,), int64
        The kept choices (``c <= mirror[c]``), increasing.
    both : ndarray of shape (n_own,), uint8
        1 where the kept choice is not its own mirror (its dot product reads both strands' windows).
    """
    mirror = mirrored_choices(columns, word_length)
    idx = np.arange(mirror.size)
    keep = idx <= mirror
    return idx[keep].astype(np.int64), (idx[keep] < mirror[keep]).astype(np.uint8)


def mirror_weights(w, columns, word_length, informative) -> None:
    """Fill the weights of every choice above its mirror from its mirror's (``w[(c', u)] =
    w[(c, rc(u))]``, :func:`own_choices`) in place: the full, reverse-complement-symmetric vector."""
    mirror = mirrored_choices(columns, word_length)
    rcu = reverse_complement_index(informative)
    blocks = w.reshape(mirror.size, rcu.size)
    for c in np.flatnonzero(np.arange(mirror.size) > mirror):
        blocks[c] = blocks[mirror[c]][rcu]


@njit(cache=True, parallel=True)
def _attributions(codes, offsets, l, columns, left, right, rc, w, scale, out, rows):
    """gkmexplain-style: every gapped k-mer occurrence's ``scale[i] * w[f]`` split evenly over its
    k informative bases (a reverse-complement occurrence's columns mapped back to the + strand).
    With ``rc`` (``w`` its own reverse complement, :func:`_strand_dot`) the occurrence of ``R f``
    in the reverse complement of a window covers the same bases as ``f`` in the window and
    carries the same weight, so the + strand's occurrences are counted twice instead: the same
    sums at half the look-ups. ``columns``: :attr:`GkmTables.columns` as uint64 (an unsigned
    index is used without numba's check for a negative one: 0.49 s instead of 0.73 s on 2,000
    sequences of 200 nt, the same bits)."""
    n = offsets.size - 1
    n_choice, k = columns.shape
    for i in prange(n):
        buf = np.empty((rows, 2), dtype=np.uint32)
        starts = np.empty(rows, dtype=np.int64)
        lo = offsets[i]
        _halves(codes, lo, offsets[i + 1], l, rc, buf)
        windows = _known_starts(codes, lo, offsets[i + 1], l, starts)
        share = scale[i] / k * (2.0 if rc else 1.0)
        for t in range(windows):
            first = np.uint64(starts[t])  # flat index of the window's first base (unsigned, as ``columns``)
            a, r = buf[t, 0], buf[t, 1]
            for c in range(n_choice):
                v = w[left[a, c] + right[r, c]] * share
                for j in range(k):
                    out[first + columns[c, j]] += v


def n_chunks(n: int) -> int:
    """Work chunks of the parallel kernels that keep a scratch vector each: one per thread."""
    return max(1, min(int(n), numba.get_num_threads()))


# --- public functions ---------------------------------------------------------------------


def gkm_kernel(X, Y=None, *, word_length=10, informative=6, reverse_complement=True, normalize=True):
    """The gapped-k-mer kernel matrix (exact: explicit gapped-k-mer counts).

    Parameters
    ----------
    X : ndarray of shape (n, L), SequenceSet, or sequence of str / 1-D code arrays
        DNA sequences (lengths may differ in a list), each at least ``word_length`` long.
    Y : same, optional
        Default ``X``.
    word_length : int, default=10
        l, the length of the words (l-mers).
    informative : int, default=6
        k, the informative (non-gap) columns of a gapped k-mer; ``k == l`` is the spectrum kernel.
    reverse_complement : bool, default=True
        Count the gapped k-mers of both strands (gkm-SVM's default): ``phi(x) + phi(rc(x))``.
    normalize : bool, default=True
        ``K(x, y) / sqrt(K(x, x) K(y, y))`` (gkm-SVM's and LS-GKM's kernels are normalised).

    An l-mer window that covers an unknown base (N or another ambiguity letter, code 4) is no l-mer
    of the sequence: its gapped k-mers are not counted (LS-GKM's gkmtrain and gkmpredict read such a
    letter as A instead). A sequence without any l-mer of known bases has ``phi = 0``: its normalised
    row and column are 0.

    Returns
    -------
    ndarray of shape (n, m)
        With ``reverse_complement`` and not ``normalize``, twice LS-GKM's raw kernel (``-t 0``,
        ``-d l-k``), which counts the + strand of one sequence against both strands of the
        other; normalised, the two are equal.
    """
    tables = GkmTables(word_length, informative)
    xc, xo = ragged_codes(X, "X")
    check_lengths(xo, tables.word_length, "X")
    if Y is None:
        yc, yo = xc, xo
    else:
        yc, yo = ragged_codes(Y, "Y")
        check_lengths(yo, tables.word_length, "Y")
    rc = bool(reverse_complement)
    args = (tables.word_length, tables.left, tables.right, rc)
    rows = max(buffer_rows(xo, tables.word_length), buffer_rows(yo, tables.word_length))
    G = _gram(xc, xo, yc, yo, *args, tables.n_features, n_chunks(xo.size - 1), rows)
    if normalize:
        kept = tables.kept_choices(rc)
        args = (tables.word_length, tables.left_t, tables.right_t, rc)
        nx = _squared_norms(xc, xo, *args, tables.n_features, n_chunks(xo.size - 1), rows, *kept)
        ny = nx if Y is None else _squared_norms(yc, yo, *args, tables.n_features, n_chunks(yo.size - 1), rows, *kept)
        norms = np.sqrt(np.outer(nx, ny))
        # a sequence whose every l-mer covers an unknown base has phi = 0: its row and column stay 0
        np.divide(G, norms, out=G, where=norms > 0)
    return G


def spectrum_kernel(X, Y=None, *, k=6, reverse_complement=True, normalize=True):
    """The k-mer spectrum kernel: :func:`gkm_kernel` with ``word_length = informative = k``
    (contiguous k-mers, no gaps). Shapes as there."""
    return gkm_kernel(X, Y, word_length=k, informative=k, reverse_complement=reverse_complement, normalize=normalize)
