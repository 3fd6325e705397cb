"""``seqimp encode``, ``seqimp train --dask-*`` and the sampled ``seqimp poim --dask-*/--n-jobs``,
in-process through main()."""

from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import main
from seqimp.io import open_codes_store, read_fasta
from seqimp.training import load_model

DATA = Path(__file__).parent / "data"
POS, NEG = str(DATA / "planted_pos.fa"), str(DATA / "planted_neg.fa")


def test_encode_writes_a_store_that_round_trips_the_fasta(tmp_path, capsys):
    out = tmp_path / "train.codes"
    assert main(["encode", "--fasta", POS, NEG, "--labels", "1", "0", "--out", str(out), "-q"]) == 0
    assert "200 sequences of length 30 written to" in capsys.readouterr().out
    store = open_codes_store(out)
    pos, neg = read_fasta(POS), read_fasta(NEG)
    np.testing.assert_array_equal(np.asarray(store.codes), np.vstack([pos.codes, neg.codes]))
    np.testing.assert_array_equal(np.asarray(store.labels), np.r_[np.ones(len(pos)), np.zeros(len(neg))])


def test_encode_bad_labels_is_one_line(tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["encode", "--fasta", POS, NEG, "--labels", "1", "x", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("seqimp: error: --labels: expected one number per FASTA file")
    assert not out.exists()


def test_encode_refuses_a_store_another_run_is_writing(tmp_path, capsys):
    import subprocess
    import sys

    out = tmp_path / "train.codes"
    lock = out / ".seqimp.lock"  # the store folder's own lock, as every output folder has
    out.mkdir()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(f"{other.pid}\n")
        assert main(["encode", "--fasta", POS, NEG, "--labels", "1", "0", "--out", str(out), "-q"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"seqimp: error: --out {out}: another seqimp run (pid {other.pid})")
        assert sorted(p.name for p in out.iterdir()) == [".seqimp.lock"]
    finally:
        other.kill()
        other.wait()
    # the other run is gone: its lock is taken over, the store written, the lock removed
    assert main(["encode", "--fasta", POS, NEG, "--labels", "1", "0", "--out", str(out), "-q"]) == 0
    assert open_codes_store(out).codes.shape == (200, 30) and not lock.exists()


def _fasta(path, records):
    path.write_text("".join(f">{i}\n{s}\n" for i, s in records))
    return str(path)


@pytest.fixture
def split_stores(tmp_path):
    """Train/test FASTA (first 80 / last 20 records of each class) and their codes stores."""
    files = {}
    for name, src in (("pos", POS), ("neg", NEG)):
        lines = Path(src).read_text().split()                 # two lines per record
        recs = [(lines[i][1:], lines[i + 1]) for i in range(0, len(lines), 2)]
        files[name] = _fasta(tmp_path / f"{name}_train.fa", recs[:80]), _fasta(tmp_path / f"{name}_test.fa", recs[80:])
    stores = []
    for part in (0, 1):
        out = tmp_path / ("train.codes" if part == 0 else "test.codes")
        assert main(["encode", "--fasta", files["pos"][part], files["neg"][part], "--labels", "1", "0",
                     "--out", str(out), "-q"]) == 0
        stores.append(str(out))
    return files, stores


def test_train_on_a_store_equals_the_fasta_route_and_evaluates_the_test_store(tmp_path, capsys, split_stores):
    from seqimp import WDClassifier

    (train, test), pos, neg = split_stores[1], split_stores[0]["pos"], split_stores[0]["neg"]
    assert main(["train", "--codes", train, "--test-codes", test, "--degree", "3",
                 "--model-out", str(tmp_path / "store.npz"), "-q"]) == 0
    assert "held-out sequences" in capsys.readouterr().out
    assert main(["train", "--positive", pos[0], "--negative", neg[0], "--degree", "3", "--test-fraction", "0",
                 "--model-out", str(tmp_path / "fasta.npz"), "-q"]) == 0
    (a, meta), (b, _) = load_model(tmp_path / "store.npz"), load_model(tmp_path / "fasta.npz")
    # the same rows in the same order (positives, then negatives) and the same seed: the same model
    for ta, tb in zip(a.tables, b.tables):
        np.testing.assert_allclose(ta, tb, rtol=0, atol=1e-12)
    assert a.bias == pytest.approx(b.bias, abs=1e-12)
    tr, te = open_codes_store(train), open_codes_store(test)
    ref = WDClassifier(degree=3, random_state=0).fit(np.asarray(tr.codes), np.asarray(tr.labels))
    scores = ref.decision_function(np.asarray(te.codes))
    assert meta["codes"] == train and meta["test_codes"] == test and meta["n_train"] == 160
    assert meta["n_test"] == 40
    assert meta["accuracy"] == pytest.approx(np.mean((scores > 0) == (np.asarray(te.labels) == 1)), abs=1e-12)
    # without a test store: trained on every row, no held-out figures
    assert main(["train", "--codes", train, "--degree", "3", "--model-out", str(tmp_path / "all.npz")]) == 0
    assert "no held-out accuracy or auROC without --test-codes" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    (["--test-fraction", "0.3"], r"--test-fraction 0\.3 with --codes: a split would copy the store's rows into memory"),
    (["--positive", POS], r"--codes is the training data; it does not go with --positive"),
    (["--test-codes", "{tmp}/pos_train.fa"], r"not a codes store \(no meta\.json\)"),
    (["--degree", "40"], r"--degree 40 exceeds the sequence length 30"),
])
def test_train_on_a_store_bad_input_is_one_line(tmp_path, capsys, split_stores, extra, message):
    import re

    train = split_stores[1][0]
    extra = [e.replace("{tmp}", str(tmp_path)) for e in extra]
    assert main(["train", "--codes", train, "--model-out", str(tmp_path / "m.npz")] + extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(message, err[0]), err
    assert not (tmp_path / "m.npz").exists()


def test_train_store_labels_are_checked(tmp_path, capsys):
    out = tmp_path / "nolabels.codes"
    assert main(["encode", "--fasta", POS, "--out", str(out), "-q"]) == 0
    assert main(["train", "--codes", str(out), "--model-out", str(tmp_path / "m.npz")]) == 2
    assert "the store has no labels (seqimp encode --labels 1 0)" in capsys.readouterr().err
    assert main(["train", "--test-codes", str(out), "--positive", POS, "--negative", NEG,
                 "--model-out", str(tmp_path / "m.npz")]) == 2
    assert "--test-codes goes with --codes" in capsys.readouterr().err


def test_train_refuses_a_fit_over_max_memory_before_allocating(tmp_path, capsys):
    assert main(["train", "--positive", POS, "--negative", NEG, "--degree", "3", "--max-memory", "10K",
                 "--model-out", str(tmp_path / "m.npz"), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    # 160 training sequences (0.2 held out): weights 8 (q + 1) + 8 p bytes, 40 bytes per sequence
    assert len(err) == 1 and err[0].startswith("seqimp: error: the implicit route on 160 sequences of length 30 at "
                                               "degree 3 needs about 46.3 KiB (weight vectors 40.1 KiB, per-sequence "
                                               "solver variables 6.25 KiB), more than memory_budget (10 KiB); use a "
                                               "smaller degree"), err
    assert "seqimp encode" in err[0] and not (tmp_path / "m.npz").exists()
    assert main(["train", "--positive", POS, "--negative", NEG, "--degree", "3", "--max-memory", "1G",
                 "--model-out", str(tmp_path / "m.npz"), "-q"]) == 0


def test_train_with_shifts_refuses_dask(tmp_path, capsys):
    assert main(["train", "--positive", POS, "--negative", NEG, "--model-out", str(tmp_path / "m.npz"),
                 "--degree", "2", "--shifts", "1", "--dask-workers", "2"]) == 2
    assert "--dask-workers/--dask-scheduler train WD models with --shifts 0 only" in capsys.readouterr().err


def test_train_unreachable_scheduler_is_one_line(tmp_path, capsys):
    pytest.importorskip("distributed", reason="needs distributed: pip install '.[dask]'")
    assert main(["train", "--positive", POS, "--negative", NEG, "--model-out", str(tmp_path / "m.npz"),
                 "--degree", "2", "--dask-scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("seqimp: error:") and "127.0.0.1:9" in err[0]
    assert not (tmp_path / "m.npz").exists()


def test_train_on_two_local_dask_workers_matches_one_process(tmp_path, capsys):
    pytest.importorskip("distributed", reason="needs distributed: pip install '.[dask]'")
    common = ["train", "--positive", POS, "--negative", NEG, "--degree", "3", "--test-fraction", "0", "-q"]
    assert main(common + ["--model-out", str(tmp_path / "one.npz")]) == 0
    assert main(common + ["--model-out", str(tmp_path / "dask.npz"), "--dask-workers", "2"]) == 0
    (one, _), (two, meta) = load_model(tmp_path / "one.npz"), load_model(tmp_path / "dask.npz")
    assert meta["dask_workers"] == 2
    X = np.vstack([read_fasta(POS).codes, read_fasta(NEG).codes])
    a, b = one.score(X), two.score(X)
    # CoCoA+ converges to the same optimum within the solver tolerance (docs/training-at-scale.md)
    assert np.corrcoef(a, b)[0, 1] > 0.999
    assert np.mean(np.sign(a) == np.sign(b)) > 0.98


def test_sampled_poim_on_two_local_dask_workers_writes_the_same_files(tmp_path, capsys):
    pytest.importorskip("distributed", reason="needs distributed: pip install '.[dask]'")
    scorer = tmp_path / "motif_scorer.py"   # imported by the worker processes from its path
    scorer.write_text("import numpy as np\nMOTIF = np.array([2, 0, 3, 3, 0, 1, 0])\n"
                      "def score(X):\n    return (X[:, 10:17] == MOTIF).sum(axis=1).astype(float)\n")
    common = ["poim", "--no-motifs", "--scorer", f"{scorer}:score", "--positive", POS, "--negative", NEG,
              "--max-order", "2", "--n-samples", "30", "-q", "--format", "svg"]
    assert main(common + ["--out", str(tmp_path / "one")]) == 0
    assert main(common + ["--out", str(tmp_path / "dask"), "--dask-workers", "2"]) == 0
    assert main(common + ["--out", str(tmp_path / "loky"), "--n-jobs", "2"]) == 0
    for name in ("poim.npz", "top_oligomers.tsv"):
        one = (tmp_path / "one" / name).read_bytes()
        assert (tmp_path / "dask" / name).read_bytes() == one and (tmp_path / "loky" / name).read_bytes() == one
    assert main(["poim", "--positive", POS, "--negative", NEG, "--out", str(tmp_path / "x"), "--n-jobs", "2"]) == 2
    assert "--n-jobs/--dask-workers/--dask-scheduler spread the batches of the sampled route" in \
        capsys.readouterr().err
    assert not (tmp_path / "x").exists()
