"""The solver's weight layout (paired orders in 64-byte records) against a slow reference.

The reference below places every (k, i, y) weight by the rule of the design, written
out in Python: orders (1, 2), (3, 4), ... share one record of 8 slots per (position,
k-mer of the odd order), [w_k, w_k+1 for its A extensions, padding]; records ordered by
(i, y); blocks of pairs one after the other; an odd degree's last order alone, stride 1.
"""

import numpy as np
import pytest

from seqimp.kernels._layout import (aligned_zeros, feature_address, row_addresses, solver_layout,
                                    to_standard)
from seqimp.kernels._params import feature_offsets


def reference_addresses(length, degree, base, paired=True):
    """{(k, i, y): address} and the number of slots, by the design's rule (pairing for base <= 7);
    unpaired: the wd_features columns, order by order, position by position."""
    where, start = {}, 0
    if base > 7 or not paired:
        for k in range(1, degree + 1):
            for i in range(length - k + 1):
                for y in range(base ** k):
                    where[k, i, y] = start
                    start += 1
        return where, start
    for k in range(1, degree + 1, 2):
        for i in range(length - k + 1):
            for y in range(base ** k):
                if k == degree:                       # unpaired last order
                    where[k, i, y] = start
                    start += 1
                    continue
                where[k, i, y] = start
                if i + k + 1 <= length:               # the (k+1)-mers at i extend y
                    for c in range(base):
                        where[k + 1, i, y * base + c] = start + 1 + c
                start += 8
    return where, start


CASES = [(9, 4, 4), (9, 5, 4), (6, 1, 4), (7, 3, 2), (5, 2, 20)]


@pytest.mark.parametrize("length,degree,base", CASES)
def test_addresses_are_a_bijection_onto_the_used_slots(length, degree, base):
    layout = solver_layout(length, degree, base)
    ref, size = reference_addresses(length, degree, base)
    assert layout.size == size and layout.paired == (base <= 7 and degree > 1)
    got = {(k, i, y): feature_address(layout.table, base, k, i, y) for (k, i, y) in ref}
    assert got == ref
    addresses = np.array(list(got.values()))
    p = int(feature_offsets(length, degree, base)[-1])
    assert len(ref) == p                                  # every feature once ...
    assert len(np.unique(addresses)) == p                 # ... at its own slot ...
    assert addresses.min() >= 0 and addresses.max() < layout.size   # ... inside the vector (bias after it)
    if layout.paired:   # each record of an odd order starts a cache line (vector aligned to 64 bytes)
        assert all(a % 8 == 0 for (k, _, _), a in got.items() if k % 2 == 1 and k < degree)


@pytest.mark.parametrize("paired", [True, False], ids=["paired", "standard"])
@pytest.mark.parametrize("length,degree,base", CASES)
def test_row_addresses_are_those_of_the_row_kmers(length, degree, base, paired):
    rng = np.random.default_rng(length * degree + base)
    layout = solver_layout(length, degree, base, paired=paired)
    ref, size = reference_addresses(length, degree, base, paired)
    assert layout.size == size
    nnz = sum(length - k + 1 for k in range(1, degree + 1))
    for x in rng.integers(0, base, (20, length)).astype(np.uint8):
        buf = np.empty(nnz, dtype=np.int64)
        scratch = np.full(length + 3, 7, dtype=np.int64)   # left-over values must not leak in
        row_addresses(x, layout.table, degree, base, buf, scratch)
        want = [ref[k, i, sum(int(c) * base ** (k - 1 - t) for t, c in enumerate(x[i:i + k]))]
                for k in range(1, degree + 1) for i in range(length - k + 1)]
        np.testing.assert_array_equal(buf, want)


@pytest.mark.parametrize("serial_below", [0, 1 << 62])   # the parallel gather, then the one-thread one
@pytest.mark.parametrize("length,degree,base", CASES)
def test_to_standard_equals_gathering_feature_by_feature(length, degree, base, serial_below, monkeypatch):
    from seqimp.kernels import _layout

    monkeypatch.setattr(_layout, "SERIAL_GATHER_BELOW", serial_below)
    layout = solver_layout(length, degree, base)
    ref, _ = reference_addresses(length, degree, base)
    w = np.random.default_rng(1).normal(size=layout.size + 1)
    coef, bias = to_standard(w, layout)
    offsets = feature_offsets(length, degree, base)
    want = np.empty(int(offsets[-1]))
    for (k, i, y), a in ref.items():
        want[offsets[k - 1] + i * base ** k + y] = w[a]
    np.testing.assert_array_equal(coef, want)
    assert bias == w[-1]


def test_aligned_zeros_start_on_a_cache_line():
    for n in (1, 7, 1000, 12345):
        a = aligned_zeros(n)
        assert a.shape == (n,) and a.dtype == np.float64 and not a.any()
        assert a.ctypes.data % 64 == 0 and a.flags.c_contiguous


def test_degree_8_at_141_nt_grows_the_vector_by_about_60_percent():
    """The figure docs/training-at-scale.md quotes: 94 MB of weights become about 150 MB inside the solver."""
    layout = solver_layout(141, 8, 4)
    p = int(feature_offsets(141, 8, 4)[-1])
    assert 8 * p / 1e6 == pytest.approx(94.0, abs=0.5)
    assert 8 * layout.size / 1e6 == pytest.approx(151.1, abs=0.5)
    assert solver_layout(141, 8, 20).size == int(feature_offsets(141, 8, 20)[-1])   # protein: standard layout


@pytest.mark.parametrize("length,degree,base", [(40, 6, 4), (30, 5, 4), (25, 3, 20)])
def test_to_standard_hands_back_the_solver_vector_as_it_gathers(length, degree, base, monkeypatch):
    """``release=True`` on a vector with pages of its own: the same coefficients as without, and the
    solver's vector handed back to the system (reads 0 afterwards, but for its last page)."""
    import mmap

    from seqimp.kernels import _layout

    monkeypatch.setattr(_layout, "OWN_PAGES_FROM", 1)
    monkeypatch.setattr(_layout, "RELEASE_BYTES", 3 * mmap.PAGESIZE)
    layout = solver_layout(length, degree, base)
    w = aligned_zeros(layout.size + 1)
    w[:] = np.random.default_rng(2).normal(size=w.size)
    want, want_bias = to_standard(w.copy(), layout)
    coef, bias = to_standard(w, layout, release=True)
    np.testing.assert_array_equal(coef, want)
    assert bias == want_bias
    assert np.count_nonzero(w[:layout.size]) < mmap.PAGESIZE // 8     # all but the last, partly used page
    big = aligned_zeros(1 << 20)
    assert isinstance(big.base, memoryview) and big.ctypes.data % mmap.PAGESIZE == 0 and not big.any()
