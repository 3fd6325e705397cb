"""TOMTOM matches through memelite: q-values, the toy database, JASPAR 2024, bad input.

memelite compiles its TOMTOM kernel on first use (tens of seconds on a cold numba cache),
so every test here passes motifs in one layout and the kernel compiles once.
"""

import warnings
from pathlib import Path

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, bh_qvalues, compare_motifs, read_motifs

DATA = Path(__file__).resolve().parent / "data"
JASPAR = Path(__file__).resolve().parents[2] / "shared" / "data" / "jaspar" / \
    "JASPAR2024_CORE_vertebrates_non-redundant_pfms_transfac.txt"


def test_bh_qvalues_against_definition():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=(3, 17)) ** 3
    q = bh_qvalues(p)
    for row, qrow in zip(p, q):
        n = len(row)
        for i in range(n):  # q_i = min over p_j >= p_i of p_j n / rank_j
            ranks = np.array([np.sum(row <= row[j]) for j in range(n)])
            want = min(1.0, min(row[j] * n / ranks[j] for j in range(n) if row[j] >= row[i]))
            assert abs(qrow[i] - want) < 1e-12


def test_toy_database_finds_the_planted_factor():
    db = read_motifs(DATA / "toy_motifs.meme")
    rng = np.random.default_rng(1)
    gattaca = db[0].pwm
    query = Motif("found", 0.7 * gattaca[1:6] + 0.3 * rng.dirichlet(np.ones(4), 5))  # a noisy inner part
    ebox_rc = Motif("ebox_rc", db[1].pwm[::-1, ::-1])
    with warnings.catch_warnings():  # memelite may warn that 8 targets are few for its p-values
        warnings.simplefilter("ignore", UserWarning)
        table = compare_motifs([query, ebox_rc], db, top=3)
    assert list(table.columns) == ["query", "target", "target_description", "p_value", "q_value", "e_value",
                             "offset", "overlap", "strand"]
    first = {row["query"]: row for row in reversed(table.to_dict("records"))}
    assert first["found"]["target"] == "toy.GATTACA" and first["found"]["strand"] == "+"
    assert first["found"]["overlap"] == 5
    assert first["ebox_rc"]["target"] == "toy.EBOX"
    assert np.all(table["q_value"] >= table["p_value"]) and np.all(table["q_value"] <= 1)
    np.testing.assert_allclose(table["e_value"], table["p_value"] * len(db))


def test_jaspar_self_match():
    if not JASPAR.exists():
        pytest.skip("shared JASPAR 2024 file is not present")
    db = read_motifs(JASPAR)
    arnt = db[0]
    table = compare_motifs([arnt], db, top=5)
    assert table["target"][0] == "MA0004.1" and table["q_value"][0] < 1e-6
    assert table["p_value"][0] == table["p_value"].min()


def test_bad_input():
    db = read_motifs(DATA / "toy_motifs.jaspar")
    with pytest.raises(SeqimpError, match="motif database is empty"):
        compare_motifs(db[:1], [])
    with pytest.raises(SeqimpError, match="no motifs to compare"):
        compare_motifs([], db)
