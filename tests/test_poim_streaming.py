"""Streaming exact POIM (``seqimp.poim(..., engine="stream")``) against the in-memory
engine and brute-force enumeration, the one result interface, and reproducible files.

Tolerances: 1e-10 absolute against the in-memory engine (same recursions, other summation
order: differences are rounding, about 1e-15) and 1e-9 against enumeration over all 4**L
sequences; results of different block sizes must be bit-identical.
"""

import numpy as np
import pytest

from seqimp import MarkovBackground, poim
from seqimp.errors import SeqimpError
from seqimp.importance import StreamedPOIM, load_poim, plan_poim
from seqimp.importance._poim_plan import streaming_bytes

from test_poim import background_case, brute_force, random_weights

TOL = 1e-10


def expected_top(ref, n, measure, order=None):
    """The ranking of POIMResult.top from the in-memory tables directly: each order's top ``n``
    by |measure| (NaN skipped, ties by position then index), merged by |measure| with ties by
    order, position, index. Returns (orders, 0-based positions, k-mer indices, |values|)."""
    ks, pos, idx, key = [], [], [], []
    for k in (range(1, ref.max_order + 1) if order is None else [order]):
        table = ref.poim[k - 1] if measure == "poim" else ref.firm[k - 1]
        flat = np.abs(table).ravel()
        flat = np.where(np.isnan(flat), -np.inf, flat)
        best = np.argsort(-flat, kind="stable")[: min(n, int(np.isfinite(flat).sum()))]
        ks.append(np.full(best.size, k))
        pos.append(best // table.shape[1])
        idx.append(best % table.shape[1])
        key.append(flat[best])
    ks, pos, idx, key = (np.concatenate(a) for a in (ks, pos, idx, key))
    sel = np.lexsort((idx, pos, ks, -key))
    return ks[sel], pos[sel], idx[sel], key[sel]


def assert_matches_in_memory(res, ref, n, strict=True):
    """``strict``: the same oligomers in the same order; else (exact ties broken by rounding, as
    under a chain with certain positions) the same ranked values, each entry's values those of
    the in-memory tables at its (order, position, oligomer)."""
    K = ref.max_order
    assert res.max_order == K and res.length == ref.length
    np.testing.assert_allclose(res.maximal, ref.maximal, rtol=0, atol=TOL)
    np.testing.assert_allclose(res.differential, ref.differential, rtol=0, atol=TOL)
    assert res.expected_score == pytest.approx(ref.expected_score, abs=TOL)
    assert res.score_std == pytest.approx(ref.score_std, abs=TOL)
    for k in range(1, K + 1):
        table = np.abs(ref.poim[k - 1])
        rows = np.flatnonzero(~np.all(np.isnan(table), axis=1))
        want = np.nanargmax(table[rows], axis=1)
        np.testing.assert_array_equal(res.maximal_argmax[k - 1][rows], want)
        if k <= 4:
            np.testing.assert_allclose(res.poim[k - 1], ref.poim[k - 1], rtol=0, atol=TOL)
            np.testing.assert_allclose(res.firm[k - 1], ref.firm[k - 1], rtol=0, atol=TOL)
        else:
            assert res.poim[k - 1] is None
    for measure in ("poim", "firm"):
        for order in [None] + list(range(1, K + 1)):
            got = res.top(n, measure, order=order)
            ks, pos, idx, key = expected_top(ref, n, measure, order)
            assert list(got.columns) == ["rank", "oligomer", "order", "position", "poim", "firm"]
            np.testing.assert_array_equal(got["rank"].to_numpy(), np.arange(1, len(ks) + 1))
            np.testing.assert_allclose(np.abs(got[measure].to_numpy()), key, rtol=0, atol=TOL)
            for row in got.itertuples():     # each entry's values are the in-memory ones at its place
                z = _index(row.oligomer)
                np.testing.assert_allclose([row.poim, row.firm], [ref.poim[row.order - 1][row.position - 1, z],
                                                                  ref.firm[row.order - 1][row.position - 1, z]],
                                           rtol=0, atol=TOL)
            if strict:                        # and the very same oligomers in the same order
                np.testing.assert_array_equal(got["order"].to_numpy(), ks)
                np.testing.assert_array_equal(got["position"].to_numpy() - 1, pos)
                np.testing.assert_array_equal([_index(o) for o in got["oligomer"]], idx)


CASES = [
    # kind, background order, degree, max_order, length, block
    ("uniform", 0, 2, 6, 14, 3),
    ("positional", 0, 3, 7, 16, 4),
    ("homogeneous", 0, 4, 3, 12, 5),          # max_order below the degree
    ("homogeneous", 1, 3, 6, 15, 2),
    ("positional", 1, 2, 5, 13, 1),
    ("positional", 2, 3, 7, 16, 3),
    ("homogeneous", 2, 1, 5, 12, 4),          # background order above the degree
    ("positional", 2, 2, 2, 11, 2),           # max_order = background order
    ("sparse", 1, 3, 6, 13, 3),               # impossible oligomers: NaN POIM, FIRM 0
    ("degenerate", 1, 2, 5, 12, 2),           # certain positions: FIRM 0
    ("homogeneous", 3, 2, 6, 12, 3),
]


@pytest.mark.parametrize("kind,order,degree,max_order,length,block", CASES)
def test_streaming_matches_in_memory_engine(kind, order, degree, max_order, length, block):
    rng = np.random.default_rng([order, degree, max_order, length])
    weights = random_weights(rng, length, degree)
    bg = background_case(rng, kind, order, length)[0]
    ref = poim(weights, bg, max_order)
    res = poim(weights, bg, max_order, engine="stream", top_n=40, block=block)
    assert_matches_in_memory(res, ref, 40, strict=kind != "degenerate")
    summary = StreamedPOIM.from_result(ref, top_n=40)      # the in-memory result summarised
    assert_matches_in_memory(summary, ref, 40)


@pytest.mark.parametrize("kind,order,degree,max_order,length", [
    ("positional", 0, 2, 5, 7), ("homogeneous", 1, 3, 6, 8), ("positional", 2, 2, 5, 7),
    ("positional", 2, 1, 4, 7), ("sparse", 1, 2, 4, 7)])
def test_streaming_matches_enumeration(kind, order, degree, max_order, length):
    rng = np.random.default_rng([7, order, degree, length])
    weights = random_weights(rng, length, degree)
    bg, initial, trans = background_case(rng, kind, order, length)
    poims, firms, maximal, differential, es, sd = brute_force(weights.tables, weights.bias, initial, trans, length,
                                                             max_order)
    res = poim(weights, bg, max_order, engine="stream", top_n=25, block=2)
    np.testing.assert_allclose(res.maximal, maximal, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.differential, differential, rtol=0, atol=1e-9)
    assert res.expected_score == pytest.approx(es, abs=1e-9)
    assert res.score_std == pytest.approx(sd, abs=1e-9)
    for k in range(1, max_order + 1):
        if k <= 4:
            np.testing.assert_allclose(res.poim[k - 1], poims[k - 1], rtol=0, atol=1e-9)
            np.testing.assert_allclose(res.firm[k - 1], firms[k - 1], rtol=0, atol=1e-9)
        for measure, tables in (("poim", poims), ("firm", firms)):
            got = res.top(25, measure, order=k)
            table = tables[k - 1]
            vals = table[got["position"].to_numpy() - 1, [_index(z) for z in got["oligomer"]]]
            np.testing.assert_allclose(got[measure].to_numpy(), vals, rtol=0, atol=1e-9)
            flat = np.sort(np.abs(table[np.isfinite(table)]))[::-1][: len(got)]
            np.testing.assert_allclose(np.abs(got[measure].to_numpy()), flat, rtol=0, atol=1e-9)


def _index(kmer):
    from seqimp import kmer_index

    return kmer_index(kmer)


def test_block_size_does_not_change_results():
    rng = np.random.default_rng(3)
    weights = random_weights(rng, 20, 3)
    bg = background_case(rng, "positional", 2, 20)[0]
    results = [poim(weights, bg, 7, engine="stream", top_n=30, block=b) for b in (1, 2, 5, 7, 18)]
    first = results[0]
    for other in results[1:]:
        for k in range(7):
            np.testing.assert_array_equal(other.maximal[k], first.maximal[k])
            np.testing.assert_array_equal(other.maximal_argmax[k], first.maximal_argmax[k])
            for s in ("poim", "firm"):
                for f, v in first.tops[s][k].items():
                    np.testing.assert_array_equal(other.tops[s][k][f], v)
        for k in range(4):
            np.testing.assert_array_equal(other.poim[k], first.poim[k])
            np.testing.assert_array_equal(other.firm[k], first.firm[k])
        np.testing.assert_array_equal(other.differential, first.differential)
        assert other.expected_score == first.expected_score and other.score_std == first.score_std


def test_thread_count_does_not_change_results():
    import numba

    rng = np.random.default_rng(9)
    weights = random_weights(rng, 18, 3)
    bg = background_case(rng, "homogeneous", 1, 18)[0]
    two = poim(weights, bg, 6, engine="stream", top_n=30, block=6)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = poim(weights, bg, 6, engine="stream", top_n=30, block=6)
    finally:
        numba.set_num_threads(before)
    for k in range(6):
        np.testing.assert_array_equal(one.maximal[k], two.maximal[k])
        for s in ("poim", "firm"):
            for f, v in two.tops[s][k].items():
                np.testing.assert_array_equal(one.tops[s][k][f], v)
    assert one.score_std == two.score_std


def test_budget_refusal_names_bytes_and_option():
    rng = np.random.default_rng(4)
    weights = random_weights(rng, 30, 3)
    fixed, per = streaming_bytes(30, 6, 1, 3, top_n=100)
    with pytest.raises(SeqimpError, match=rf"even one position per block needs about [\d.]+ (?:B|[KMGT]iB) \({fixed + per} bytes\), "
                                          rf"more than max_memory=[\d.]+ (?:B|[KMGT]iB) \({fixed + per - 1} bytes\); "
                                          r"raise max_memory \(--max-memory\)"):
        poim(weights, MarkovBackground.uniform(order=1), 6, engine="stream", top_n=100, max_memory=fixed + per - 1)
    res = poim(weights, MarkovBackground.uniform(order=1), 6, engine="stream", top_n=100, max_memory=fixed + 3 * per)
    assert res.meta["block"] == 3
    with pytest.raises(SeqimpError, match="a block of 9 positions needs about"):
        plan_poim(30, 6, 1, fixed + 3 * per, degree=3, top_n=100, block=9)


def test_plan_switches_to_streaming_above_the_budget():
    small = plan_poim(200, 6, 1, 8 << 30, degree=6)
    assert not small.streaming and small.engine == "memory" and small.block == 0
    assert small.bytes_needed == small.bytes_in_memory and "in memory" in small.describe()
    assert plan_poim(200, 6, 1, 8 << 30, degree=6, full_tables=True).streaming     # full tables are streamed
    assert plan_poim(200, 6, 1, 8 << 30, degree=6, engine="stream").block == 128
    big = plan_poim(1000, 12, 2, 4 << 30, degree=8)
    assert big.streaming and big.bytes_needed <= 4 << 30 and big.bytes_in_memory > 4 << 30
    assert "streaming blocks of 128 positions" in big.describe()
    with pytest.raises(SeqimpError, match=r"poim with max_order=12 needs about [\d.]+ GiB, more than max_memory=4 GiB; "
                                          r"the largest max_order that fits is \d+$"):
        plan_poim(1000, 12, 2, 4 << 30, degree=8, engine="memory")
    assert plan_poim(100, 4, 0, "4G").budget == 4 << 30  # sizes as the command line takes them
    with pytest.raises(SeqimpError, match="max_memory must be a size such as 4G, 500M, 1.5GiB or a number of bytes"):
        plan_poim(100, 4, 0, "4 lots")


def test_save_load_and_loader_detects_both_kinds(tmp_path):
    rng = np.random.default_rng(5)
    weights = random_weights(rng, 12, 3)
    bg = background_case(rng, "homogeneous", 1, 12)[0]
    res = poim(weights, bg, 6, engine="stream", top_n=20)
    res.save(tmp_path / "s")
    back = load_poim(tmp_path / "s")
    assert isinstance(back, StreamedPOIM)
    assert back.max_order == 6 and back.length == 12 and back.alphabet.name == res.alphabet.name
    for k in range(6):
        np.testing.assert_array_equal(back.maximal[k], res.maximal[k])
        np.testing.assert_array_equal(back.maximal_argmax[k], res.maximal_argmax[k])
    np.testing.assert_array_equal(back.differential, res.differential)
    assert back.top(20).equals(res.top(20)) and len(res.top(3)) == 18     # 3 rows for each of 6 orders
    assert back.top(5, "poim", order=6).equals(res.top(5, "poim", order=6))
    assert back.poim[4] is None and np.array_equal(back.poim[3], res.poim[3])
    assert back.maximal_oligomers(2)[0] == res.maximal_oligomers(2)[0]
    ref = poim(weights, bg, 3)
    ref.save(tmp_path / "full.npz")
    assert type(load_poim(tmp_path / "full.npz")).__name__ == "POIMResult"
    np.savez(tmp_path / "other.npz", x=np.zeros(2))
    with pytest.raises(SeqimpError, match="not a POIM result file"):
        load_poim(tmp_path / "other.npz")
    with pytest.raises(SeqimpError, match="only the top 20 positional oligomers per order were kept"):
        res.top(21, order=2)
    with pytest.raises(SeqimpError, match=r"order must lie in 1\.\.6"):
        res.top(3, order=7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_full_tables_written_to_hdf5(tmp_path, dtype):
    h5py = pytest.importorskip("h5py")
    rng = np.random.default_rng(6)
    weights = random_weights(rng, 13, 3)
    bg = background_case(rng, "sparse", 1, 13)[0]
    ref = poim(weights, bg, 6)
    res = poim(weights, bg, 6, engine="stream", top_n=10, block=4, full_tables=tmp_path / "t.h5", full_tables_dtype=dtype)
    tol = 1e-6 if dtype == "float32" else TOL
    with h5py.File(tmp_path / "t.h5", "r") as fh:
        assert fh.attrs["max_order"] == 6
        for k in range(1, 7):
            assert fh[f"poim/{k}"].dtype == np.dtype(dtype)
            np.testing.assert_allclose(fh[f"poim/{k}"][...], ref.poim[k - 1], rtol=tol, atol=tol)
            np.testing.assert_allclose(fh[f"firm/{k}"][...], ref.firm[k - 1], rtol=tol, atol=tol)
    assert res.max_order == 6


def test_input_errors():
    rng = np.random.default_rng(8)
    weights = random_weights(rng, 8, 2)
    with pytest.raises(SeqimpError, match="top_n must be an integer >= 0"):
        poim(weights, None, 2, engine="stream", top_n=-1)
    with pytest.raises(SeqimpError, match=r"max_order must lie in 1\.\.8"):
        poim(weights, None, 9)
    with pytest.raises(SeqimpError, match="full_tables_dtype must be"):
        poim(weights, None, 2, full_tables="x.h5", full_tables_dtype="int8")
    res = poim(weights, None, 3, engine="stream", top_n=0)
    assert len(res.top(0)) == 0


def test_kmer_rows_pick_the_heatmap_kmers_and_fill_kept_entries():
    rng = np.random.default_rng(11)
    weights = random_weights(rng, 16, 3)
    bg = background_case(rng, "homogeneous", 1, 16)[0]
    ref = poim(weights, bg, 6)
    res = poim(weights, bg, 6, engine="stream", top_n=60, block=4)
    for k in (5, 6):
        kmers, values = res.kmer_rows(k, n=5)
        table = ref.poim[k - 1]
        strength = np.nanmax(np.abs(table), axis=0)
        want = np.sort(np.argsort(-strength, kind="stable")[:5])     # poim_heatmap's choice of rows
        np.testing.assert_array_equal(kmers, want)
        known = np.isfinite(values)
        assert known.sum() >= 5
        np.testing.assert_allclose(values[known], table[:, kmers].T[known], rtol=0, atol=TOL)


def test_streamed_result_offers_the_interface_of_poim_result():
    """table(order, measure) where kept, one clear line where not; standardized() as POIMResult's."""
    rng = np.random.default_rng(12)
    weights = random_weights(rng, 12, 3)
    bg = background_case(rng, "homogeneous", 1, 12)[0]
    ref = poim(weights, bg, 6)
    res = poim(weights, bg, 6, engine="stream", top_n=20)
    for k in range(1, 5):
        np.testing.assert_allclose(res.table(k, "firm"), ref.table(k, "firm"), rtol=0, atol=TOL)
    with pytest.raises(SeqimpError, match=r"^order 5 tables are not kept: a streamed POIM keeps full tables for "
                                          r"k <= 4; rerun with full_tables=PATH \(--full-tables\)"):
        res.table(5)
    with pytest.raises(SeqimpError, match=r"^order must lie in 1\.\.6 \(the result's max_order\), got 0$"):
        res.table(0, "firm")
    std, ref_std = poim(weights, bg, 6, engine="stream", top_n=20, standardize=True), ref.standardized()
    assert std.standardized_ and not res.standardized_
    np.testing.assert_allclose(std.maximal, ref_std.maximal, rtol=0, atol=TOL)
    np.testing.assert_allclose(std.table(3), ref_std.table(3), rtol=0, atol=TOL)
    np.testing.assert_allclose(std.top(5)["firm"], ref_std.top(5)["firm"], rtol=0, atol=TOL)


def test_two_full_tables_runs_write_the_same_bytes(tmp_path, monkeypatch):
    """The same command twice gives byte-identical poim.npz and poim_tables.h5, whatever RAM is
    free at the time (the default budget is not recorded) and however late it runs (HDF5
    datasets record no times)."""
    import hashlib
    import time
    from pathlib import Path

    from seqimp._utils import sizes as _sizes
    from seqimp.cli import main

    data = Path(__file__).resolve().parent / "data"
    digests = []
    for run, free in enumerate((3 << 30, 5 << 30 | 12345)):
        monkeypatch.setattr(_sizes, "available_memory", lambda free=free: free)
        out = tmp_path / f"run{run}"
        assert main(["poim", "--no-motifs", "--positive", str(data / "planted_pos.fa"), "--negative",
                     str(data / "planted_neg.fa"), "--out", str(out), "--full-tables", "--degree", "2",
                     "--max-order", "5", "--background-order", "1", "--seed", "0", "-q"]) == 0
        digests.append({name: hashlib.sha256((out / name).read_bytes()).hexdigest()
                        for name in ("poim.npz", "poim_tables.h5")})
        time.sleep(1.1)                                          # HDF5 times have one-second resolution
    assert digests[0] == digests[1]
    meta = load_poim(tmp_path / "run0" / "poim.npz").meta
    assert meta["max_memory"] is None and meta["block"] is None
