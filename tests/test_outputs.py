"""Tests of seqimp.pipeline._outputs: the merged top table and model files."""

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.pipeline._outputs import top_oligomers
from seqimp.training import load_model, save_model
from seqimp.importance import POIMResult
from seqimp.kernels import PositionalWeights

KMERS2 = [a + b for a in "ACGT" for b in "ACGT"]


def test_top_oligomers_is_the_top_n_of_every_order_sorted_by_abs_firm():
    rng = np.random.default_rng(3)
    poim = [rng.normal(size=(6 - k + 1, 4 ** k)) for k in (1, 2)]
    firm = [rng.normal(size=t.shape) for t in poim]
    firm[1][2, 7] = np.nan
    res = POIMResult(poim, firm, expected_score=0.0, score_std=1.0)
    table = top_oligomers(res, 3)
    # brute force over every entry
    entries = []
    for k, (p, f) in enumerate(zip(poim, firm), start=1):
        kmers = "ACGT" if k == 1 else KMERS2
        cand = [(abs(f[j, z]), kmers[z], k, j + 1, p[j, z], f[j, z]) for j in range(f.shape[0])
                for z in range(f.shape[1]) if not np.isnan(f[j, z])]
        entries += sorted(cand, key=lambda e: -e[0])[:3]
    entries.sort(key=lambda e: -e[0])
    assert list(table["rank"]) == [1, 2, 3, 4, 5, 6]
    assert list(table["oligomer"]) == [e[1] for e in entries]
    assert list(table["order"]) == [e[2] for e in entries]
    assert list(table["position"]) == [e[3] for e in entries]
    np.testing.assert_array_equal(table["poim"], [e[4] for e in entries])
    np.testing.assert_array_equal(table["firm"], [e[5] for e in entries])


def test_model_file_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    weights = PositionalWeights([rng.normal(size=(30 - k + 1, 4 ** k)) for k in (1, 2)], bias=0.5)
    path = tmp_path / "m.npz"
    save_model(path, weights, {"degree": 2, "note": "x"})
    loaded, meta = load_model(path)
    assert meta == {"degree": 2, "note": "x"}
    X = rng.integers(0, 4, size=(20, 30))
    np.testing.assert_array_equal(loaded.score(X), weights.score(X))
    np.testing.assert_array_equal(PositionalWeights.load(path).score(X), weights.score(X))  # plain reader
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz"]  # no staging file left
    with pytest.raises(SeqimpError, match=r"must end in .npz"):
        save_model(tmp_path / "m.bin", weights)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(SeqimpError, match=r"junk.npz: not a seqimp model file"):
        load_model(tmp_path / "junk.npz")
    (tmp_path / "empty.npz").write_bytes(b"")
    with pytest.raises(SeqimpError, match=r"empty.npz: not a seqimp model file"):
        load_model(tmp_path / "empty.npz")
    with pytest.raises(SeqimpError, match=r"nope.npz: no such file"):
        load_model(tmp_path / "nope.npz")


def test_add_file_sizes_measures_again_and_forgets_what_is_gone(tmp_path):
    from seqimp.report._record import add_file_sizes

    (tmp_path / "logos").mkdir()
    (tmp_path / "kept.tsv").write_text("abc")
    (tmp_path / "logos" / "new.png").write_bytes(b"12345")
    earlier = {"title": "t", "files": {"bytes": {"kept.tsv": 1, "logos/gone.png": 7}, "total": 8}}
    summary = add_file_sizes(earlier, tmp_path, [tmp_path / "logos" / "new.png", tmp_path / "kept.tsv"])
    assert summary["files"] == {"bytes": {"kept.tsv": 3, "logos/new.png": 5}, "total": 8}
    assert summary["title"] == "t" and earlier["files"]["bytes"]["logos/gone.png"] == 7  # a new dict
