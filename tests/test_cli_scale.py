"""``seqimp encode``, ``seqimp train --dask-*`` and the sampled ``seqimp poim --dask-*/--n-jobs`` (issue 16),
in-process through main()."""

from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import main
from seqimp.io import open_codes_store, read_fasta
from seqimp.pipeline import load_model

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
    lock = tmp_path / ".train.codes.seqimp.lock"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(f"{other.pid}\n")
        assert main(["encode", "--fasta", POS, NEG, "--labels", "1", "0", "--out", str(out), "-q"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"seqimp: error: --out {out}: another seqimp run (pid {other.pid})")
        assert not out.exists() and lock.exists()
    finally:
        other.kill()
        other.wait()
    # the other run is gone: its lock is taken over, the store written, the lock removed
    assert main(["encode", "--fasta", POS, NEG, "--labels", "1", "0", "--out", str(out), "-q"]) == 0
    assert open_codes_store(out).codes.shape == (200, 30) and not lock.exists()


def test_train_with_shifts_refuses_dask(tmp_path, capsys):
    assert main(["train", "--positive", POS, "--negative", NEG, "--model-out", str(tmp_path / "m.npz"),
                 "--degree", "2", "--shifts", "1", "--dask-workers", "2"]) == 2
    assert "--dask-workers/--dask-scheduler train WD models with --shifts 0 only" in capsys.readouterr().err


def test_train_unreachable_scheduler_is_one_line(tmp_path, capsys):
    pytest.importorskip("distributed")
    assert main(["train", "--positive", POS, "--negative", NEG, "--model-out", str(tmp_path / "m.npz"),
                 "--degree", "2", "--dask-scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("seqimp: error:") and "127.0.0.1:9" in err[0]
    assert not (tmp_path / "m.npz").exists()


def test_train_on_two_local_dask_workers_matches_one_process(tmp_path, capsys):
    pytest.importorskip("distributed")
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
    pytest.importorskip("distributed")
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
