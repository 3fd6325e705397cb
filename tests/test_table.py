import numpy as np
import pytest

from seqimp._tables import Table


def test_table_columns_rows_tsv(tmp_path):
    t = Table({"rank": [1, 2], "oligomer": ["GT", "AG"], "poim": [0.5, np.nan]})
    assert len(t) == 2 and t.columns == ["rank", "oligomer", "poim"]
    assert list(t.rows())[0] == {"rank": 1, "oligomer": "GT", "poim": 0.5}
    text = t.to_tsv(tmp_path / "t.tsv")
    assert text == "rank\toligomer\tpoim\n1\tGT\t0.5\n2\tAG\tnan\n"
    assert (tmp_path / "t.tsv").read_text() == text
    assert len(t[:1]) == 1 and "oligomer" in t and "GT" in repr(t)


def test_table_rejects_ragged():
    with pytest.raises(ValueError, match=r"differ in length: \[1, 2\]"):
        Table({"a": [1], "b": [1, 2]})


def test_top_n_equals_a_stable_full_sort():
    from seqimp._tables import top_n

    rng = np.random.default_rng(0)
    for size in (1, 2, 7, 50, 1000):
        for values in (rng.normal(size=size), rng.integers(0, 4, size).astype(float),  # many ties
                       np.r_[np.full(size, -np.inf)], np.abs(rng.normal(size=size)) * (rng.random(size) < 0.5)):
            expected = np.argsort(-values, kind="stable")
            for n in (0, 1, 3, size // 2, size, size + 5):
                np.testing.assert_array_equal(top_n(values, n), expected[:n])
