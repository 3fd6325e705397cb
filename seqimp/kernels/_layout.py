"""Where the implicit SVM solver keeps each WD weight: orders paired in 64-byte records.

A coordinate step of :mod:`._dcd` reads and writes one weight per positional k-mer
of a sequence, k = 1..K. At degree 8 the weights (94 MB at L = 141) do not fit in any
cache, and in the standard layout of :func:`~seqimp.wd_features` (block k, position i,
k-mer y at ``offsets[k-1] + i A^k + y``) every order k >= 5 costs a cache miss per
position.

The (k+1)-mer ``y A + c`` at position i extends the k-mer ``y`` there. For an alphabet
of A letters with 1 + A <= 8 (DNA and RNA: A = 4), the solver stores orders k and k+1
(k = 1, 3, 5, ...) in one record per (i, y) of 8 floats, a 64-byte cache line::

    [w_k(i, y), w_k+1(i, yA + 0), ..., w_k+1(i, yA + A - 1), 0 ...]

records ordered by (i, y), with the weight vector aligned to 64 bytes: the k-mer and the
(k+1)-mer of a sequence at a position share one line, so orders 5..8 miss half as often.
For an odd degree the last order has no partner and keeps stride 1. Padding slots (and
the slots of the (k+1)-mers at i = L - k, which do not exist) are never addressed, so
they stay 0 and ``||w||`` is that of the standard layout. A larger alphabet (protein,
A = 20) keeps the standard layout: a record of 1 + A floats spans three lines whatever
the padding, so pairing would only grow the vector.

The layout is a table ``lay`` of shape (3, K), int64: for order k, ``lay[0, k-1]`` is
the start of its block of records, ``lay[1, k-1]`` the record stride, ``lay[2, k-1]`` 1
when order k is the partner (slots 1..A) of order k-1 and 0 when it leads (slot 0).
The standard layout is the table (offsets, 1, 0): one kernel serves both.
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass

import numba
import numpy as np

from ._params import feature_offsets
from ._unknown import has_unknown

__all__ = ["SolverLayout", "solver_layout", "row_addresses", "feature_address", "to_standard", "aligned_zeros"]

#: Record stride of paired orders, in float64 slots: one 64-byte cache line.
RECORD = 8
_LINE = 64

#: Pair orders where the alphabet allows it. Benchmarks and tests set it to False to run
#: the solver on the standard layout (the same numbers at other addresses).
PAIRING = True


@dataclass(frozen=True)
class SolverLayout:
    """Addresses of the WD weights inside the solver (see the module docstring)."""

    table: np.ndarray       # (3, degree) int64: block start, record stride, partner flag per order
    size: int               # slots, padding included (the bias goes at index ``size``)
    offsets: np.ndarray     # the standard layout, feature_offsets(length, degree, base)
    length: int
    degree: int
    base: int

    @property
    def paired(self) -> bool:
        return bool(self.table[2].any())


def solver_layout(length, degree, base, paired=None) -> SolverLayout:
    """The layout of the solver's weights for sequences of ``length``: paired where ``paired`` (None:
    :data:`PAIRING`) and a record of 1 + ``base`` floats fits in a cache line, else the standard layout."""
    offsets = feature_offsets(length, degree, base)
    if not ((PAIRING if paired is None else paired) and 1 + base <= RECORD):
        table = np.stack([offsets[:-1], np.ones(degree, np.int64), np.zeros(degree, np.int64)])
        return SolverLayout(table.astype(np.int64), int(offsets[-1]), offsets, length, degree, base)
    table = np.zeros((3, degree), dtype=np.int64)
    start = 0
    for k in range(1, degree + 1, 2):
        records = (length - k + 1) * base ** k
        if k < degree:
            table[:, k - 1] = start, RECORD, 0
            table[:, k] = start, RECORD, 1
            start += RECORD * records
        else:                    # odd degree: the last order alone, stride 1
            table[:, k - 1] = start, 1, 0
            start += records
    return SolverLayout(table, start, offsets, length, degree, base)


@numba.njit(cache=True, nogil=True, inline="always")
def row_addresses(x, lay, degree, base, buf, kmer):
    """Addresses of the non-zeros of phi(x) into ``buf`` (order k, then position); True when x holds
    no unknown symbol (every positional k-mer is a feature), False when some k-mers were left out.

    The one column-of-a-k-mer rule: with the standard table these are the columns of
    :func:`~seqimp.wd_features`; with the paired table, the solver's addresses.
    Order by order: ``kmer`` (int64 scratch of at least ``len(x)``) holds the index of the
    (k-1)-mer at every position and becomes that of the k-mer, ``y_k(i) = A y_(k-1)(i) + x[i+k-1]``,
    so the positions of one order are independent of each other and the loop vectorises
    (DNA: shifts instead of products). An address is :func:`_address`'s rule, with a
    partner's record ``i A^(k-1) + y_(k-1)(i)`` and slot ``1 + x[i+k-1]``.

    ``buf`` (:func:`row_buffers`) has a region of ``L - k + 1`` slots per order, then ``degree`` counts:
    ``buf[len(buf) - degree + k - 1]`` is the number of order k's addresses at the start of its region
    (:func:`row_count`). A k-mer that covers an unknown symbol (code >= ``base``: N and the other
    ambiguity letters) is no feature of the row: its address is not written and the count is smaller
    (:func:`_known_addresses`), so the dot product, the update and ``||phi||^2`` of the row leave it out.
    """
    if has_unknown(x, base):
        _known_addresses(x, lay, degree, base, buf, kmer)
        return False
    length = x.shape[0]
    tail = buf.shape[0] - degree
    kmer[:length] = 0
    start = 0
    width = 1                      # A^(k-1)
    for k in range(1, degree + 1):
        block, stride, partner = lay[0, k - 1], lay[1, k - 1], lay[2, k - 1]
        n_k = length - k + 1
        buf[tail + k - 1] = n_k
        if base == 4 and (stride == 1 or stride == RECORD):
            shift = 0 if stride == 1 else 3      # RECORD = 2**3 slots
            if partner:
                for i in range(n_k):
                    c = np.int64(x[i + k - 1])
                    prev = kmer[i]
                    kmer[i] = (prev << 2) | c
                    buf[start + i] = block + (((np.int64(i) << (2 * k - 2)) | prev) << shift) + 1 + c
            else:
                for i in range(n_k):
                    y = (kmer[i] << 2) | np.int64(x[i + k - 1])
                    kmer[i] = y
                    buf[start + i] = block + (((np.int64(i) << (2 * k)) | y) << shift)
        elif partner:
            for i in range(n_k):
                c = np.int64(x[i + k - 1])
                prev = kmer[i]
                kmer[i] = prev * base + c
                buf[start + i] = block + (i * width + prev) * stride + 1 + c
        else:
            for i in range(n_k):
                y = kmer[i] * base + np.int64(x[i + k - 1])
                kmer[i] = y
                buf[start + i] = block + (i * width * base + y) * stride
        width *= base
        start += n_k
    return True


@numba.njit(cache=True, nogil=True)
def _known_addresses(x, lay, degree, base, buf, kmer):
    """:func:`row_addresses` of a row that holds an unknown symbol: the addresses of the k-mers that cover
    none, packed at the start of each order's region, and their counts. ``kmer[i] = -1`` marks a position
    whose (k-1)-mer covers an unknown symbol; the k-mer there, which covers it too, is skipped."""
    length = x.shape[0]
    tail = buf.shape[0] - degree
    kmer[:length] = 0
    start = 0
    width = 1
    for k in range(1, degree + 1):
        block, stride, partner = lay[0, k - 1], lay[1, k - 1], lay[2, k - 1]
        n_k = length - k + 1
        kept = 0
        for i in range(n_k):
            prev = kmer[i]
            c = np.int64(x[i + k - 1])
            if prev < 0 or c >= base:
                kmer[i] = -1
                continue
            y = prev * base + c
            kmer[i] = y
            if partner:
                buf[start + kept] = block + (i * width + prev) * stride + 1 + c
            else:
                buf[start + kept] = block + (i * width * base + y) * stride
            kept += 1
        buf[tail + k - 1] = kept
        width *= base
        start += n_k


@numba.njit(cache=True, nogil=True, inline="always")
def row_buffers(length, degree):
    """Scratch of :func:`row_addresses` for rows of ``length``: ``(buf, kmer)``, int64 arrays of
    ``sum_k (length - k + 1)`` addresses plus ``degree`` counts, and ``length`` k-mer indices."""
    nnz = 0
    for k in range(1, degree + 1):
        nnz += length - k + 1
    return np.empty(nnz + degree, dtype=np.int64), np.empty(length, dtype=np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def row_count(buf, degree, k):
    """The number of order ``k``'s addresses that :func:`row_addresses` wrote into ``buf`` (its features of order k)."""
    return buf[buf.shape[0] - degree + k - 1]


@numba.njit(cache=True, nogil=True, inline="always")
def row_norm2_buf(buf, sqb, degree):
    """``||phi(x)||^2 = sum_k beta_k n_k`` of the row whose addresses ``buf`` holds (n_k: its order-k features)."""
    total = 0.0
    for k in range(1, degree + 1):
        total += sqb[k - 1] * sqb[k - 1] * row_count(buf, degree, k)
    return total


@numba.njit(cache=True, nogil=True, inline="always")
def _address(lay, k, lead, own, c):
    """The address rule: a partner order's weight sits in slot 1 + ``c`` of the record ``lead``
    of the (k-1)-mer it extends; a leading order's in slot 0 of its own record ``own``
    (``own`` = i A^k + y, ``lead`` = i A^(k-1) + y // A, ``c`` = y % A)."""
    if lay[2, k - 1]:
        return lay[0, k - 1] + lead * lay[1, k - 1] + 1 + c
    return lay[0, k - 1] + own * lay[1, k - 1]


@numba.njit(cache=True, nogil=True)
def feature_address(lay, base, k, i, y):
    """Solver address of the weight of k-mer index ``y`` at 0-based position ``i`` (order ``k``)."""
    return _address(lay, k, i * base ** (k - 1) + y // base, i * base ** k + y, y % base)


@numba.njit(cache=True, inline="always")
def _gather_position(w, lay, offsets, base, k, i, out):
    """Order ``k`` at position ``i`` into ``out`` (standard layout): the addresses of
    :func:`feature_address` walked in order, a record (partner order) or a stride (leading order)
    at a time, without a power or a division per weight."""
    width = base ** k
    col = offsets[k - 1] + i * width
    block, stride = lay[0, k - 1], lay[1, k - 1]
    if lay[2, k - 1]:                     # slot 1 + c of the record of the (k-1)-mer it extends
        lead0 = i * (width // base)
        y = col
        for lead in range(width // base):
            at = block + (lead0 + lead) * stride + 1
            for c in range(base):
                out[y] = w[at + c]
                y += 1
    else:                                 # slot 0 of its own record
        at = block + i * width * stride
        for y in range(width):
            out[col + y] = w[at + y * stride]


@numba.njit(cache=True, parallel=True)
def _gather_standard(w, lay, offsets, first, last, base, length, lo, hi, out):
    """Orders ``first..last`` at the positions ``lo..hi-1`` (those each order has)."""
    for k in range(first, last + 1):
        for i in numba.prange(lo, min(hi, length - k + 1)):
            _gather_position(w, lay, offsets, base, k, i, out)


@numba.njit(cache=True)
def _gather_standard_serial(w, lay, offsets, first, last, base, length, lo, hi, out):
    for k in range(first, last + 1):
        for i in range(lo, min(hi, length - k + 1)):
            _gather_position(w, lay, offsets, base, k, i, out)


#: below this many weights :func:`to_standard` gathers on one thread: a parallel region per order
#: costs more than the gather itself on small models, and waits for every thread on a busy machine
SERIAL_GATHER_BELOW = 1 << 20


def to_standard(w, layout: SolverLayout, *, release=False):
    """``(coef, bias)``: the solver's weights ``w`` (bias last) in the :func:`~seqimp.wd_features` layout.

    Gathers feature by feature into a new array of p floats (no index array is built).
    ``release=True`` (the caller's last use of ``w``): where ``w`` is a vector of :func:`aligned_zeros`
    with pages of its own (large ones), its memory is handed back to the system as it is gathered,
    :data:`RELEASE_BYTES` at a time (the positions of a group of orders sharing records), so the two
    vectors are never both whole in memory (``w`` reads 0 there afterwards).
    """
    coef = np.empty(int(layout.offsets[-1]))
    bias = float(w[layout.size])
    gather = _gather_standard_serial if coef.shape[0] < SERIAL_GATHER_BELOW else _gather_standard
    pages = _own_pages(w) if release else None
    table, length = layout.table, layout.length
    released = 0                                         # bytes of w handed back (whole pages)
    first = 1
    for k in range(1, layout.degree + 1):
        if k < layout.degree and table[2, k]:      # order k + 1 shares order k's records
            continue
        start, per_position = int(table[0, first - 1]), int(layout.base ** first * table[1, first - 1])
        positions = length - first + 1                  # the leading order's; the partner's are among them
        step = positions if pages is None else max(1, RELEASE_BYTES // (8 * per_position))
        for lo in range(0, positions, step):
            hi = min(positions, lo + step)
            gather(w, table, layout.offsets, first, k, layout.base, length, lo, hi, coef)
            if pages is not None:          # everything below this group's position hi is gathered
                released = _release(pages, released, start + hi * per_position)
        first = k + 1
    return coef, bias


#: bytes of the solver's vector gathered between two hand-backs (:func:`to_standard`)
RELEASE_BYTES = 16 << 20


#: vectors of at least this many floats get pages of their own (:func:`aligned_zeros`)
OWN_PAGES_FROM = 1 << 20


def aligned_zeros(n) -> np.ndarray:
    """``np.zeros(n)`` starting on a 64-byte boundary (a record is then one cache line). From
    :data:`OWN_PAGES_FROM` floats on, an anonymous memory map of its own (zero pages until written),
    whose parts :func:`to_standard` can hand back."""
    if n >= OWN_PAGES_FROM:
        pages = mmap.mmap(-1, 8 * int(n), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        return np.frombuffer(pages, dtype=np.float64, count=int(n))
    raw = np.zeros(n + _LINE // 8)
    skip = (-raw.ctypes.data % _LINE) // 8
    return raw[skip:skip + n]


def _own_pages(w):
    """The memory map under ``w`` when ``w`` is a whole vector of :func:`aligned_zeros`' own pages, else None."""
    base = w.base.obj if isinstance(w.base, memoryview) else w.base
    if isinstance(base, mmap.mmap) and w.ctypes.data % mmap.PAGESIZE == 0 and w.flags.c_contiguous:
        return base
    return None


def _release(pages, released, stop):
    """Hand back the whole pages from byte ``released`` (a page boundary) up to float ``stop`` of the vector
    (they read 0 afterwards); returns the new boundary."""
    hi = 8 * stop // mmap.PAGESIZE * mmap.PAGESIZE
    if hi > released:
        pages.madvise(mmap.MADV_DONTNEED, released, hi - released)
        return hi
    return released


# One row's dot product with the weights and its update, at the row's addresses (row_addresses):
# the inner loops of every coordinate step (_dcd, _async_dcd, _sgd_rule, _extrapolate).
@numba.njit(cache=True, nogil=True, inline="always")
def _dot_split(buf, w, low, sqb, degree, length, k0):
    """``w.phi`` of one row (no bias), orders 1..k0 read from ``low`` instead (a copy of them: a thread's own,
    :mod:`._async_dcd`), order by order as one sum; the features of each order are the first
    :func:`row_count` addresses of its region."""
    total = 0.0
    start = 0
    for k in range(1, degree + 1):
        acc = 0.0
        stop = start + row_count(buf, degree, k)
        if k <= k0:
            for j in range(start, stop):
                acc += low[buf[j]]
        else:
            for j in range(start, stop):
                acc += w[buf[j]]
        total += sqb[k - 1] * acc
        start += length - k + 1
    return total


@numba.njit(cache=True, nogil=True, inline="always")
def _dot_buf(buf, w, sqb, degree, length):
    return _dot_split(buf, w, w, sqb, degree, length, 0)


@numba.njit(cache=True, nogil=True, inline="always")
def _add_buf(buf, w, c, sqb, degree, length):
    """``w += c phi`` at the addresses ``buf`` of one row (:func:`._layout.row_addresses`), without the bias."""
    start = 0
    for k in range(1, degree + 1):
        ck = c * sqb[k - 1]
        stop = start + row_count(buf, degree, k)
        for j in range(start, stop):
            w[buf[j]] += ck
        start += length - k + 1
