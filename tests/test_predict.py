"""``seqimp predict`` and :func:`seqimp.pipeline.run_predict`: one score per record in input order,
equal to the model's own batch scoring (WD positional weights, gkm decision function); auROC and
auPRC against labels equal scikit-learn's on the same scores; bad inputs are one line, exit 2,
nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from seqimp.cli import main
from seqimp.io import extract_windows, read_fasta
from seqimp.io._fasta import iter_fasta
from seqimp.kernels import GKMClassifier
from seqimp.options import ModelOptions
from seqimp.pipeline import run_predict
from seqimp.training import save_model, train_model

DATA = Path(__file__).parent / "data"
POS, NEG = DATA / "planted_pos.fa", DATA / "planted_neg.fa"  # 100 + 100 sequences of 30 nt


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A WD model (degree 3) and a gkm model (l 6, k 4) on the planted sequences, saved as seqimp train
    saves them."""
    from seqimp.kernels.gkm._file import save_gkm

    d = tmp_path_factory.mktemp("models")
    pos, neg = read_fasta(POS), read_fasta(NEG)
    weights, info = train_model(pos, neg, model=ModelOptions(degree=3), random_state=0, progress=False)
    save_model(d / "wd.npz", weights, {"degree": 3, "length": 30})
    X = np.vstack([pos.codes, neg.codes])
    y = np.r_[np.ones(100, dtype=int), np.zeros(100, dtype=int)]
    gkm = GKMClassifier(6, 4, random_state=0).fit(X, y)
    save_gkm(d / "gkm.npz", gkm, {"model": "gkm", "length": 30})
    return {"dir": d, "wd": d / "wd.npz", "gkm": d / "gkm.npz", "weights": weights, "gkm_model": gkm,
            "X": X, "y": y, "pos": pos, "neg": neg}


def _table(out) -> pd.DataFrame:
    return pd.read_csv(out / "predictions.tsv", sep="\t", dtype={"id": str})


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("seqimp: error: "), err
    return err[0]


def test_wd_predictions_are_the_models_scores_in_input_order(models, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["predict", "--model-file", str(models["wd"]), "--fasta", str(NEG), "--out", str(out),
                 "--batch-size", "7"]) == 0
    table = _table(out)
    assert list(table.columns[:2]) == ["id", "score"]
    assert list(table["id"]) == models["neg"].ids
    np.testing.assert_allclose(table["score"], models["weights"].score(models["neg"].codes), rtol=1e-5, atol=1e-9)
    assert {"predictions.tsv", "predictions.json", "report.html"} <= {p.name for p in out.iterdir()}
    assert not (out / "roc_pr.png").exists()  # no labels, no curves
    assert "100 sequences scored" in capsys.readouterr().out
    # the library: exactly the model's batch scoring, in chunks
    run = run_predict(tmp_path, models["wd"], models["X"][::-1], batch_size=13)
    assert np.array_equal(run.table["score"].to_numpy(), models["weights"].score(models["X"][::-1]))
    assert run.metrics == {}


def test_gkm_predictions_take_any_length(models, tmp_path):
    records = [("a", "ACGTACGTTAGCATCGATCGATCGACTAGCTAGCATCGA"), ("b", "TTACGTAAGC"), ("c", "GGGCCCATATATGCGC" * 3)]
    fasta = tmp_path / "mixed.fa"
    fasta.write_text("".join(f">{i}\n{s}\n" for i, s in records))
    out = tmp_path / "out"
    assert main(["predict", "--model-file", str(models["gkm"]), "--fasta", str(fasta), "--out", str(out), "-q"]) == 0
    table = _table(out)
    assert list(table["id"]) == ["a", "b", "c"]
    np.testing.assert_allclose(table["score"], models["gkm_model"].decision_function([s for _i, s in records]),
                               rtol=1e-5)


def test_labels_give_sklearns_auroc_and_auprc(models, tmp_path, capsys):
    """A table whose label column disagrees with the planted classes on a fifth of the rows."""
    rng = np.random.default_rng(3)
    strings = [s for f in (POS, NEG) for s in (line.strip() for line in f.read_text().splitlines())
               if s and not s.startswith(">")]
    truth = models["y"].copy()
    flip = rng.random(truth.size) < 0.2
    labels = np.where(flip, 1 - truth, truth)
    table_file = tmp_path / "t.tsv"
    table_file.write_text("sequence\tbound\n" + "".join(f"{s}\t{v}\n" for s, v in zip(strings, labels)))
    out = tmp_path / "out"
    assert main(["predict", "--model-file", str(models["wd"]), "--table", str(table_file), "--value-column", "bound",
                 "--out", str(out)]) == 0
    run = run_predict(tmp_path / ".", models["wd"], models["X"], labels=labels)
    scores = run.table["score"].to_numpy()
    metrics = json.loads((out / "predictions.json").read_text())["metrics"]
    assert metrics["auroc"] == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert 0.5 < metrics["auroc"] < 0.95  # the flipped labels: neither chance nor the planted classes
    assert metrics["auprc"] == pytest.approx(average_precision_score(labels, scores), abs=1e-12)
    assert (metrics["n_positive"], metrics["n_negative"]) == (int(labels.sum()), int(200 - labels.sum()))
    assert list(_table(out)["label"]) == list(labels)
    assert (out / "roc_pr.png").stat().st_size > 0 and "roc_pr.png" in (out / "report.html").read_text()
    assert f"auROC {metrics['auroc']:.4f}" in capsys.readouterr().out
    # --positive/--negative: the positives first, labelled 1
    out2 = tmp_path / "pair"
    assert main(["predict", "--model-file", str(models["wd"]), "--positive", str(POS), "--negative", str(NEG),
                 "--out", str(out2), "-q"]) == 0
    pair = _table(out2)
    assert list(pair["label"]) == list(models["y"])
    assert json.loads((out2 / "predictions.json").read_text())["metrics"]["auroc"] == pytest.approx(
        roc_auc_score(models["y"], pair["score"]), abs=1e-9)


def test_bed_windows_default_to_the_models_width(models, tmp_path):
    rng = np.random.default_rng(0)
    (tmp_path / "g.fa").write_text(">chr1\n" + "".join(rng.choice(list("ACGT"), size=1500)) + "\n")
    (tmp_path / "p.bed").write_text("".join(f"chr1\t{s}\t{s + 40}\n" for s in range(100, 1300, 90)))
    out = tmp_path / "out"
    assert main(["predict", "--model-file", str(models["wd"]), "--positive-bed", str(tmp_path / "p.bed"),
                 "--genome", str(tmp_path / "g.fa"), "--out", str(out), "-q"]) == 0
    windows = extract_windows(tmp_path / "p.bed", tmp_path / "g.fa", 30)
    table = _table(out)
    assert list(table["id"]) == list(windows.ids)
    np.testing.assert_allclose(table["score"], models["weights"].score(windows.codes), rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("stem", ["t2_l6k4d2_gz", "t0_l6k4d2", "t3_l6k4d2_g2"])
def test_lsgkm_model_files_score_as_gkmpredict(tmp_path, stem):
    """LS-GKM's own files (plain, gzip; an RBF kernel): the scores gkmpredict printed (tests/data/lsgkm), in
    input order; the records holding N, which gkmpredict reads as A, are left out (seqimp refuses them)."""
    lsgkm = DATA / "lsgkm"
    model = next(lsgkm.glob(f"{stem}.model.txt*"))
    want = dict(line.split("\t") for line in (lsgkm / f"{stem}.pred17.txt").read_text().splitlines())
    records = [(rid, seq) for rid, seq in iter_fasta(lsgkm / "test.fa") if "N" not in seq.upper()][::-1]
    fasta = tmp_path / "test.fa"
    fasta.write_text("".join(f">{rid}\n{seq}\n" for rid, seq in records))
    out = tmp_path / "out"
    assert main(["predict", "--model-file", str(model), "--fasta", str(fasta), "--out", str(out), "-q"]) == 0
    table = _table(out)
    assert list(table["id"]) == [rid for rid, _s in records]
    np.testing.assert_allclose(table["score"], [float(want[rid]) for rid, _s in records], rtol=1e-5, atol=1e-9)
    assert json.loads((out / "predictions.json").read_text())["model"]["kind"] == "lsgkm"


@pytest.mark.parametrize("case", ["missing", "not_a_model", "lsgkm", "length", "letter", "empty"])
def test_bad_input_is_one_line_and_writes_nothing(models, tmp_path, capsys, case):
    model, fasta = str(models["wd"]), str(POS)
    if case == "missing":
        model = str(tmp_path / "nope.npz")
    elif case == "not_a_model":
        model = str(NEG)
    elif case == "lsgkm":  # an LS-GKM header with a kernel LS-GKM does not have
        model = tmp_path / "model.txt"
        model.write_text("svm_type c_svc\nkernel_type no_such_kernel\nL 10\nk 6\nd 3\nSV\n")
        model = str(model)
    elif case in ("length", "letter"):
        seq = "ACGTACGTAC" if case == "length" else "ACGTACGTACGTACGTAXGTACGTACGTAC"   # X: no DNA letter
        (tmp_path / "bad.fa").write_text(f">first\n{'ACGT' * 7}AC\n>odd\n{seq}\n")
        fasta = str(tmp_path / "bad.fa")
    elif case == "empty":
        (tmp_path / "bad.fa").write_text(">nothing\n")
        fasta = str(tmp_path / "bad.fa")
    out = tmp_path / "out"
    status = main(["predict", "--model-file", model, "--fasta", fasta, "--out", str(out)])
    line = _one_error_line(capsys)
    assert status == 2 and not out.exists(), line
    expected = {"missing": "--model-file", "not_a_model": "not a seqimp model file",
                "lsgkm": "model.txt", "length": "record odd has length 10",
                "letter": "record 'odd': invalid symbol 'X' at position 18", "empty": "--fasta"}[case]
    assert expected in line, line


def test_an_lsgkm_model_reads_other_letters_as_a_as_gkmpredict_does(tmp_path, capsys):
    """With an LS-GKM model file, a record holding N is scored with A in its place (as gkmpredict
    scores it) and one warning says so; the scores equal those of the record with A written."""
    from pathlib import Path

    model = Path(__file__).parent / "data" / "lsgkm" / "t2_l6k4d2.model.txt"
    (tmp_path / "n.fa").write_text(">r1\nTAGANTGACTCAC\n>r2\nGGGCATTTACGA\n")
    (tmp_path / "a.fa").write_text(">r1\nTAGAATGACTCAC\n>r2\nGGGCATTTACGA\n")
    for name in ("n", "a"):
        assert main(["predict", "--model-file", str(model), "--fasta", str(tmp_path / f"{name}.fa"),
                     "--out", str(tmp_path / name)]) == 0
    err = capsys.readouterr().err
    assert err.count("1 letter(s) other than ACGT in 1 record(s) (first: 'N' in record r1 at position 5) read as A") == 1
    assert (tmp_path / "n" / "predictions.tsv").read_text() == (tmp_path / "a" / "predictions.tsv").read_text()
