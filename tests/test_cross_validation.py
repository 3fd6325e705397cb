""":func:`seqimp.training.cross_validate` and ``seqimp train --cv K``: stratified folds, reproducible for
a seed, every sequence scored once by the model of the other folds; the model saved is byte for byte
the one of a run without --cv; a --cv the data cannot take is one line, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from seqimp import WDClassifier
from seqimp.cli import main
from seqimp.errors import SeqimpError
from seqimp.io import read_fasta
from seqimp.options import ModelOptions
from seqimp.training import cross_validate

DATA = Path(__file__).parent / "data"
POS, NEG = DATA / "planted_pos.fa", DATA / "planted_neg.fa"  # 100 + 100 sequences of 30 nt


@pytest.fixture(scope="module")
def data():
    """The planted sequences with a fifth of the labels flipped at random: the folds' figures are not all
    1 and the classes are of unequal sizes."""
    pos, neg = read_fasta(POS), read_fasta(NEG)
    X = np.vstack([pos.codes, neg.codes])
    y = np.r_[np.ones(100, dtype=int), np.zeros(100, dtype=int)]
    y[np.random.default_rng(1).permutation(200)[:40]] ^= 1
    return X, y, pos.ids + neg.ids


def test_folds_are_stratified_and_score_every_sequence_once(data):
    X, y, ids = data
    cv = cross_validate(X, y, folds=3, model=ModelOptions(degree=2), random_state=5, ids=ids)
    table = cv.predictions
    assert list(table.columns) == ["id", "fold", "label", "score"]
    assert list(table["id"]) == ids and list(table["label"]) == list(y)   # input order
    assert sorted(table["fold"].unique()) == [1, 2, 3]
    share = y.mean()
    for k, rows in table.groupby("fold"):
        assert abs(rows["label"].sum() - share * len(rows)) <= 1, k           # class balance within one
        assert abs(len(rows) - len(y) / 3) <= 1
        row = cv.folds.set_index("fold").loc[k]
        assert row["auroc"] == pytest.approx(roc_auc_score(rows["label"], rows["score"]), abs=1e-12)
        assert row["auprc"] == pytest.approx(average_precision_score(rows["label"], rows["score"]), abs=1e-12)
        assert row["n_test"] == len(rows) and row["n_train"] == len(y) - len(rows)
    assert cv.mean_auroc == pytest.approx(cv.folds["auroc"].mean()) and 0.5 < cv.mean_auroc < 0.95
    # a fold's scores are those of the model trained on the other folds
    test = (table["fold"] == 2).to_numpy()
    ref = WDClassifier(degree=2, random_state=5).fit(X[~test], y[~test])
    np.testing.assert_allclose(table["score"][test], ref.decision_function(X[test]), rtol=1e-10, atol=1e-12)
    summary = cv.summary()
    assert summary["folds"] == 3 and summary["seed"] == 5 and summary["shuffle"] is True
    assert len(summary["per_fold"]) == 3 and summary["kind"] == "wd"


def test_folds_are_reproducible_for_a_seed_and_differ_for_another(data):
    X, y, _ids = data
    a = cross_validate(X, y, folds=4, model=ModelOptions(degree=2), random_state=0)
    b = cross_validate(X, y, folds=4, model=ModelOptions(degree=2), random_state=0)
    c = cross_validate(X, y, folds=4, model=ModelOptions(degree=2), random_state=1)
    pd.testing.assert_frame_equal(a.predictions, b.predictions)
    assert not np.array_equal(a.predictions["fold"], c.predictions["fold"])
    assert cross_validate(X, y, folds=4, model=ModelOptions(degree=2)).predictions["fold"].equals(
        a.predictions["fold"])  # None: the default seed 0


def test_gkm_folds(data):
    X, y, _ids = data
    cv = cross_validate(X, y, folds=2, model=ModelOptions(kind="gkm", word_length=6, informative=4), random_state=0)
    assert cv.parameters["kind"] == "gkm" and len(cv.folds) == 2 and 0.5 < cv.mean_auroc <= 1


@pytest.mark.parametrize("folds", [1, 0, "smaller + 1", 2.5, True])
def test_impossible_folds_are_refused(data, folds):
    X, y, _ids = data
    if folds == "smaller + 1":
        folds = int(min(y.sum(), len(y) - y.sum())) + 1
    with pytest.raises(SeqimpError, match="folds"):
        cross_validate(X, y, folds=folds, model=ModelOptions(degree=2))


def _train(tmp_path, name, *extra):
    out = tmp_path / name
    argv = ["train", "--positive", str(POS), "--negative", str(NEG), "--degree", "2", "--model-out", str(out), *extra]
    return main(argv), out


@pytest.mark.parametrize("kind", [[], ["--model", "gkm", "--gkm-length", "6", "--gkm-informative", "4"]])
def test_train_cv_writes_its_files_and_the_same_model(tmp_path, capsys, kind):
    status, plain = _train(tmp_path, "plain.npz", *kind)
    assert status == 0
    status, with_cv = _train(tmp_path, "m.npz", *kind, "--cv", "4", "--seed", "0")
    assert status == 0
    assert plain.read_bytes() == with_cv.read_bytes()    # the model of a run without --cv, byte for byte
    captured = capsys.readouterr()
    assert "4-fold cross-validation on 200 sequences: mean auROC" in captured.out
    assert captured.err.count("cross-validation fold ") == 4              # per fold in the log
    table = pd.read_csv(tmp_path / "m.cvpred.tsv", sep="\t", dtype={"id": str})
    assert list(table.columns) == ["id", "fold", "label", "score"] and len(table) == 200
    assert list(table["id"]) == read_fasta(POS).ids + read_fasta(NEG).ids
    assert list(table["label"]) == [1] * 100 + [0] * 100
    record = json.loads((tmp_path / "m.cv.json").read_text())
    assert record["folds"] == 4 and record["seed"] == 0 and len(record["per_fold"]) == 4
    assert record["mean_auroc"] == pytest.approx(np.mean([f["auroc"] for f in record["per_fold"]]))
    assert (tmp_path / "m.cv.png").stat().st_size > 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


@pytest.mark.parametrize("extra, expected", [
    (["--cv", "1"], "--cv: must be an integer >= 2"),
    (["--cv", "101"], "--cv 101: more folds than the 100 positive sequences"),
    (["--model", "gkm", "--gkm-length", "6", "--gkm-informative", "4", "--cv", "200"], "--cv 200: more folds"),
])
def test_a_cv_the_data_cannot_take_is_one_line_and_writes_nothing(tmp_path, capsys, extra, expected):
    status, out = _train(tmp_path, "m.npz", *extra)
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and err[0].startswith("seqimp: error: ") and expected in err[0], err
    assert list(tmp_path.iterdir()) == []


def test_cv_with_a_codes_store_is_refused(tmp_path, capsys):
    assert main(["train", "--codes", str(tmp_path / "store"), "--model-out", str(tmp_path / "m.npz"),
                 "--cv", "3"]) == 2
    assert "--cv 3" in capsys.readouterr().err and list(tmp_path.iterdir()) == []
