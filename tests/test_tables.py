"""Tests of seqimp._utils.tables: the TSV format, partial selection and the one oligomer ranking."""

import numpy as np
import pandas as pd
import pytest

from seqimp._utils.tables import check_order_tables, oligomer_table, top_entries, top_n, write_tsv
from seqimp.errors import SeqimpError
from seqimp.importance import POIMResult
from seqimp.io import kmer_string
from seqimp.pipeline._outputs import top_oligomers

# Written by seqimp's former Table.to_tsv (commit a4814cd) for the same data: the on-disk format
# (header, tabs, no index, %.6g floats, nan, ints, strings, trailing newline) must not change.
OLD_MIXED = ("rank\toligomer\torder\tpoim\tfirm\tsites\n"
             "1\tGATTACA\t7\t0.123457\t1.23457e+08\t3\n"
             "2\tAC\t2\tnan\t0\tNA\n"
             "3\tT\t1\t-1.5e-07\t-2\t12\n")
OLD_TOP_OLIGOMERS = ("rank\toligomer\torder\tposition\tpoim\tfirm\n"
                     "1\tGT\t2\t2\tnan\t-590500\n"
                     "2\tCA\t2\t2\t-1.102e+06\t-551000\n"
                     "3\tC\t1\t1\t-0.1324\t-374500\n"
                     "4\tA\t1\t3\t749000\t374500\n"
                     "5\tGC\t2\t3\t-397000\t-198500\n"
                     "6\tC\t1\t4\t160000\t80000\n")


def test_write_tsv_keeps_the_former_format(tmp_path):
    df = pd.DataFrame({"rank": np.array([1, 2, 3]), "oligomer": ["GATTACA", "AC", "T"],
                       "order": np.array([7, 2, 1]), "poim": [0.123456789, np.nan, -1.5e-7],
                       "firm": [123456789.0, 0.0, -2.0], "sites": np.array([3, "NA", 12], dtype=object)})
    text = write_tsv(df, tmp_path / "t.tsv")
    assert text == OLD_MIXED
    assert (tmp_path / "t.tsv").read_text() == OLD_MIXED
    assert write_tsv(df.iloc[:0]) == "rank\toligomer\torder\tpoim\tfirm\tsites\n"  # header only


def _old_format_result():
    rng = np.random.default_rng(5)
    poim = [np.round(rng.normal(size=(4 - k + 1, 4 ** k)), 3) * 10.0 ** rng.integers(-6, 7, size=(4 - k + 1, 4 ** k))
            for k in (1, 2)]
    firm = [p * 0.5 for p in poim]
    poim[1][1, 11] = np.nan
    firm[1][1, 1] = np.nan
    firm[0][0, 1] = -firm[0][2, 0]  # a tie in |FIRM|: C at 1 and A at 3
    return POIMResult(poim, firm, expected_score=0.0, score_std=1.0)


def test_top_oligomers_file_is_unchanged(tmp_path):
    res = _old_format_result()
    write_tsv(top_oligomers(res, 3), tmp_path / "top.tsv")
    assert (tmp_path / "top.tsv").read_text() == OLD_TOP_OLIGOMERS


def test_top_n_equals_a_stable_full_sort():
    rng = np.random.default_rng(0)
    for size in (1, 2, 7, 50, 1000):
        for values in (rng.normal(size=size), rng.integers(0, 4, size).astype(float),  # many ties
                       np.r_[np.full(size, -np.inf)], np.abs(rng.normal(size=size)) * (rng.random(size) < 0.5)):
            expected = np.argsort(-values, kind="stable")
            for n in (0, 1, 3, size // 2, size, size + 5):
                np.testing.assert_array_equal(top_n(values, n), expected[:n])


def _brute_force(tables, n, per_order):
    """Every non-NaN entry as (-|v|, k, position, index), sorted: the ranking by its definition."""
    per = []
    for k, t in enumerate(tables, start=1):
        entries = sorted((-abs(t[j, z]), k, j, z) for j in range(t.shape[0]) for z in range(t.shape[1])
                         if not np.isnan(t[j, z]))
        per.append(entries[:n] if per_order else entries)
    merged = sorted(e for entries in per for e in entries)
    return merged if per_order else merged[:n]


@pytest.mark.parametrize("per_order", [False, True])
def test_top_entries_equals_a_full_sort_by_definition(per_order):
    rng = np.random.default_rng(1)
    tables = [rng.integers(-3, 4, size=(7 - k + 1, 4 ** k)).astype(float) for k in (1, 2, 3)]  # many ties
    tables[1][rng.random(tables[1].shape) < 0.3] = np.nan
    for n in (0, 1, 5, 40, 10 ** 4):
        ks, pos, idx = top_entries(tables, n, per_order=per_order)
        got = [(-abs(tables[k - 1][p, z]), k, p, z) for k, p, z in zip(ks, pos, idx)]
        assert got == _brute_force(tables, n, per_order)
        assert ks.dtype == pos.dtype == idx.dtype == np.int64
    with pytest.raises(SeqimpError, match="n must be >= 0, got -1"):
        top_entries(tables, -1)


def test_oligomer_table_columns_and_values():
    rng = np.random.default_rng(2)
    tables = [rng.normal(size=(5 - k + 1, 4 ** k)) for k in (1, 2)]
    other = [2 * t for t in tables]
    df = oligomer_table(tables, 3, {"w": tables, "twice": other}, kmer_string)
    assert list(df.columns) == ["rank", "oligomer", "order", "position", "w", "twice"]
    assert df["rank"].tolist() == [1, 2, 3]
    for row in df.to_dict("records"):
        from seqimp.io import kmer_index

        z = kmer_index(row["oligomer"])
        assert tables[row["order"] - 1][row["position"] - 1, z] == row["w"]
        assert row["twice"] == 2 * row["w"]
    assert np.all(np.diff(np.abs(df["w"].to_numpy())) <= 0)


def test_check_order_tables_messages():
    good = [np.zeros((5, 4)), np.zeros((4, 16))]
    assert [t.dtype for t in check_order_tables(good, "tables", 4)] == [np.float64, np.float64]
    with pytest.raises(SeqimpError, match=r"tables must hold at least one table \(k = 1\)"):
        check_order_tables([], "tables", 4)
    with pytest.raises(SeqimpError, match=r"tables\[0\] must be 2-D \(L, 4\), got shape \(5,\)"):
        check_order_tables([np.zeros(5)], "tables", 4)
    with pytest.raises(SeqimpError, match=r"x\[1\] must have shape \(L-k\+1, 4\*\*k\) = \(4, 16\) for L=5, "
                                          r"got \(5, 16\)"):
        check_order_tables([np.zeros((5, 4)), np.zeros((5, 16))], "x", 4)
    with pytest.raises(SeqimpError, match=r"x\[0\] must have shape .* = \(6, 4\) for L=6"):
        check_order_tables([np.zeros((5, 4))], "x", 4, length=6)
