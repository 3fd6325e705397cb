"""Reliability of the command line: output folders, interruptions, real-world input,
deterministic runs. Each case checks the exit status, the one-line message and what is on disk."""

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import main
from seqimp.cli import _output_folder
from seqimp.errors import SeqimpError
from seqimp.io._fasta import read_fasta, write_fasta
from seqimp.report._record import write_summary

DATA = Path(__file__).resolve().parent / "data"
POS, NEG = str(DATA / "planted_pos.fa"), str(DATA / "planted_neg.fa")
FAST = ["--degree", "2", "--max-order", "3", "-q"]
ROOT = Path(__file__).resolve().parent.parent


def _poim(out, *extra):
    return main(["poim", "--positive", POS, "--negative", NEG, "--out", str(out), *FAST, *extra])


def _one_error(capsys, pattern):
    """The stderr of the last run: exactly one 'seqimp: error:' line, matching ``pattern``."""
    import re

    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("seqimp: error:")]
    assert len(err) == 1, err
    assert re.search(pattern, err[0]), err[0]
    return err[0]


def _snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def _visible(folder):
    return {p.name for p in Path(folder).iterdir() if not p.name.startswith(".")}


def _hidden(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.startswith("."))


# ----- output folders -------------------------------------------------------------------------------

def test_staging_is_inside_the_output_folder_and_removed(tmp_path):
    out = tmp_path / "res"
    with _output_folder.output_dir(out, "x") as stage:
        assert stage.parent == out and stage.name == f".seqimp-staging-x-{os.getpid()}"
        assert (out / ".seqimp.lock").read_text().split()[0] == str(os.getpid())  # pid, start time
        (stage / "a.tsv").write_text("a")
    assert _hidden(out) == [".seqimp-x.json"] and (out / "a.tsv").read_text() == "a"
    assert json.loads((out / ".seqimp-x.json").read_text())["files"] == ["a.tsv"]


def test_out_dot_works(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _poim(".") == 0
    assert {"poim.npz", "model.npz", "summary.json", "report.html"} <= _visible(tmp_path)
    assert _hidden(tmp_path) == [".seqimp-poim.json"]  # no staging folder, no lock


def test_unwritable_out_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    out = tmp_path / "ro"
    out.mkdir()
    monkeypatch.setattr(_output_folder.os, "access", lambda path, mode: False)  # tests may run as root
    assert _poim(out) == 2
    _one_error(capsys, rf"^seqimp: error: --out {out}: folder is not writable$")
    assert list(out.iterdir()) == []


def test_a_command_replaces_its_own_outputs_as_a_whole(tmp_path):
    out = tmp_path / "res"
    (tmp_path / "res").mkdir()
    (out / "mine.txt").write_text("the user's")
    assert _poim(out) == 0
    assert (out / "poim_order3.png").exists()
    assert _poim(out, "--max-order", "2", "--format", "svg") == 0
    names = _visible(out)
    assert not any(n.endswith(".png") for n in names)  # stale figures of the earlier run are gone
    assert {"poim_order1.svg", "poim_order2.svg", "mine.txt"} <= names and "poim_order3.svg" not in names


def test_motifs_never_replaces_the_poim_of_seqimp_poim(tmp_path, capsys):
    out = tmp_path / "res"
    assert _poim(out) == 0
    before = (out / "poim.npz").read_bytes()
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 0
    assert (out / "poim.npz").read_bytes() == before
    assert (out / "motifs_poim.npz").exists() and (out / "motifs.tsv").exists()
    assert 'id="motifs"' in (out / "report.html").read_text()
    assert _hidden(out) == [".seqimp-motifs.json", ".seqimp-poim.json"]
    # a new 'seqimp poim --no-motifs' does not show the earlier run's motifs in its new report
    assert _poim(out, "--max-order", "2", "--no-motifs") == 0
    assert 'id="motifs"' not in (out / "report.html").read_text()
    assert (out / "motifs.tsv").exists()  # the motifs command's files are its own
    # 'seqimp poim' with its motifs makes motifs.tsv again: the file changes owner, motifs_poim.npz does not
    assert _poim(out) == 0
    poim_files = json.loads((out / ".seqimp-poim.json").read_text())["files"]
    motif_files = json.loads((out / ".seqimp-motifs.json").read_text())["files"]
    assert "motifs.tsv" in poim_files and "motifs.tsv" not in motif_files and motif_files == ["motifs_poim.npz"]
    assert 'id="motifs"' in (out / "report.html").read_text() and (out / "motifs_poim.npz").exists()


def test_a_second_run_into_a_locked_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "res"
    out.mkdir()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (out / ".seqimp.lock").write_text(f"{other.pid}\n")
        assert _poim(out) == 2
        _one_error(capsys, rf"--out {out}: another seqimp run \(pid {other.pid}\) is writing into this folder")
        assert _visible(out) == set() and (out / ".seqimp.lock").exists()
    finally:
        other.kill()
        other.wait()
    # the lock of a process that is gone is stale: taken over, and removed at the end
    assert _poim(out) == 0
    assert "poim.npz" in _visible(out) and not (out / ".seqimp.lock").exists()


def test_disk_full_names_the_users_folder_and_keeps_earlier_results(tmp_path, capsys, monkeypatch):
    import errno

    out = tmp_path / "res"
    assert _poim(out) == 0
    before = _snapshot(out)

    def full(path, summary):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("seqimp.pipeline._poim_run.write_summary", full)
    assert _poim(out, "--max-order", "2") == 2
    line = _one_error(capsys, rf"^seqimp: error: --out {out}: no space left on device while writing the results; "
                              rf"earlier results in {out} are unchanged$")
    assert "staging" not in line
    assert _snapshot(out) == before


def test_errors_name_the_output_folder_not_the_staging_one(tmp_path):
    out = tmp_path / "res"
    with pytest.raises(SeqimpError, match=rf"^{out}/x\.tsv: cannot write$"):
        with _output_folder.output_dir(out, "x") as stage:
            raise SeqimpError(f"{stage}/x.tsv: cannot write")
    assert not out.exists()  # created for this run, removed again


def test_model_out_folder_is_refused_before_training(tmp_path, capsys):
    assert main(["train", "--positive", POS, "--negative", NEG, "--model-out", str(tmp_path)]) == 2
    _one_error(capsys, rf"--model-out {tmp_path}: is a folder; give a file name such as .*model\.npz")


# ----- interruptions ---------------------------------------------------------------------------------

SLOW_SCORER = """\
import pathlib, time
def slow(X):
    pathlib.Path({marker!r}).write_text("scoring")
    for _ in range(1200):  # short sleeps: Python acts on a signal between them, even one
        time.sleep(0.1)    # that the kernel handed to another thread (numba's, OpenMP's)
    return X.sum(axis=1).astype(float)
def fast(X):
    return (X == 2).sum(axis=1).astype(float)
"""


@pytest.mark.parametrize("sig, status, name", [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")])
def test_signal_mid_run_removes_staging_keeps_results_and_a_rerun_works(tmp_path, sig, status, name):
    out, marker = tmp_path / "res", tmp_path / "scoring.flag"
    scorer = tmp_path / "scorers.py"
    scorer.write_text(SLOW_SCORER.format(marker=str(marker)))
    args = [sys.executable, "-m", "seqimp", "poim", "--no-motifs", "--positive", POS, "--negative", NEG,
            "--out", str(out), "--max-order", "2", "--n-samples", "50", "-q"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    first = subprocess.run(args + ["--scorer", f"{scorer}:fast"], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    before = _snapshot(out)
    # a shell's background job runs with SIGINT ignored, and a child inherits that: give the
    # run the default disposition, so that Python installs its KeyboardInterrupt handler
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(args + ["--scorer", f"{scorer}:slow"], env=env, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    deadline = time.monotonic() + 120
    while not marker.exists():  # the run is inside its output folder, scoring
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended before scoring"
        time.sleep(0.05)
    assert any(p.name.startswith(".seqimp-staging-") for p in out.iterdir())
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status
    assert err.strip().splitlines() == [f"seqimp: poim interrupted by {name}; nothing written, earlier results "
                                        f"in {out} unchanged"]
    assert _snapshot(out) == before  # no staging folder, no lock, earlier results as they were
    again = subprocess.run(args + ["--scorer", f"{scorer}:fast"], env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert _hidden(out) == [".seqimp-poim.json"]


# ----- real-world input ------------------------------------------------------------------------------

def test_nan_weights_are_refused_with_one_line(tmp_path, capsys):
    table = np.zeros((10, 4))
    table[3, 2] = np.nan
    model = tmp_path / "nan.npz"
    np.savez(model, table_1=table, bias=0.0, alphabet="dna", kind="PositionalWeights")
    out = tmp_path / "res"
    assert main(["poim", "--model-file", str(model), "--background", "uniform", "--out", str(out)]) == 2
    _one_error(capsys, rf"^seqimp: error: {model}: the order-1 table holds nan at position 4 \(1-based\); "
                       r"weights must be finite numbers$")
    assert not out.exists()


@pytest.mark.parametrize("arrays, message", [
    (dict(table_1=np.zeros((5, 4)), bias=0.0, alphabet="dna", format_version=99), r"format version 99 is newer"),
    (dict(table_1=np.zeros((5, 4)), bias=0.0, alphabet="klingon"), r"unknown alphabet 'klingon'"),
    (dict(table_1=np.zeros((5, 4)), bias=0.0, alphabet="dna", kind="POIMResult"), r"holds a POIMResult"),
    (dict(table_1=np.zeros((5, 4)), table_3=np.zeros((3, 64)), bias=0.0, alphabet="dna"), r"without gaps"),
    (dict(table_1=np.array([{"a": 1}], dtype=object), bias=0.0, alphabet="dna"), r"not a seqimp model file"),
    (dict(table_1=np.zeros((5, 4)), bias=0.0, alphabet="dna",
          metadata=json.dumps({"degree": 3})), r"the metadata says degree 3 but the weights have 1"),
])
def test_model_files_are_validated_without_pickle(tmp_path, capsys, arrays, message):
    model = tmp_path / "m.npz"
    np.savez(model, **arrays)
    assert main(["poim", "--model-file", str(model), "--background", "uniform", "--out", str(tmp_path / "o")]) == 2
    _one_error(capsys, rf"seqimp: error: {model}: .*{message}")


def test_summary_json_is_always_valid_json(tmp_path):
    path = tmp_path / "summary.json"
    write_summary(path, {"auroc": float("nan"), "x": [np.float64(np.inf), 1.5], "n": np.int64(3)})

    def refuse(name):
        raise AssertionError(f"invalid JSON constant {name}")

    assert json.loads(path.read_text(), parse_constant=refuse) == {"auroc": None, "x": [None, 1.5], "n": 3}


def test_fasta_through_a_pipe_and_process_substitution(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    text = Path(POS).read_text()
    for data in (text.encode(), gzip.compress(text.encode())):
        run = subprocess.run([sys.executable, "-m", "seqimp", "inspect", "/dev/stdin"], input=data, env=env,
                             capture_output=True)
        assert run.returncode == 0, run.stderr
        assert b"records:     " in run.stdout and b"length:      30" in run.stdout
    if Path("/bin/bash").exists():
        gz = tmp_path / "p.fa.gz"
        gz.write_bytes(gzip.compress(text.encode()))
        run = subprocess.run(["/bin/bash", "-c", f"{sys.executable} -m seqimp inspect <(zcat {gz})"], env=env,
                             capture_output=True, text=True)
        assert run.returncode == 0 and "length:      30" in run.stdout, run.stderr


def test_n_codes_are_unknown_bases_and_other_letters_name_record_and_position(tmp_path, capsys):
    seqs = read_fasta(POS).sequences()
    seqs[4] = seqs[4][:6] + "N" + seqs[4][7:]
    seqs[9] = seqs[9][:2] + "Z" + seqs[9][3:]
    pos = tmp_path / "n.fa"
    write_fasta(pos, seqs)
    out = tmp_path / "res"
    assert main(["poim", "--positive", str(pos), "--negative", NEG, "--out", str(out), *FAST]) == 2
    _one_error(capsys, r"n\.fa: record 'seq10': invalid symbol 'Z' at position 3 .*; N or IUPAC codes "
                       r"\(NRYSWKMBDHV\) are read as unknown; drop records with other symbols with --skip-invalid")
    assert main(["inspect", str(pos)]) == 0
    shown = capsys.readouterr().out
    assert f"unknown:     1 base (N or IUPAC codes) in 1 of {len(seqs)} records; read as unknown" in shown
    assert f"other symbols: Z=1 in 1 of {len(seqs)} records" in shown
    assert main(["poim", "--positive", str(pos), "--negative", NEG, "--out", str(out), "--skip-invalid",
                 *FAST]) == 0
    summary = json.loads((out / "summary.json").read_text())
    skipped = summary["data"]["skipped"]
    assert skipped["positive"]["records"] == 1 and "--skip-invalid" in skipped["positive"]["reason"]
    assert skipped["negative"]["records"] == 0
    assert summary["data"]["n_positive"] == len(seqs) - 1  # the record with N is kept


def test_header_only_and_odd_bytes_and_duplicate_ids(tmp_path, capsys):
    empty = tmp_path / "h.fa"
    empty.write_text(">a\n>b\n")
    assert main(["inspect", str(empty)]) == 2
    _one_error(capsys, r"h\.fa: the records hold no sequence \(headers only\)")
    odd = tmp_path / "odd.fa"
    odd.write_bytes(b">a\nAC\xe9T\n>b\nACGT\n")
    assert main(["poim", "--positive", str(odd), "--negative", NEG, "--out", str(tmp_path / "o")]) == 2
    _one_error(capsys, r"record 'a': invalid symbol byte 0xe9 at position 3")
    assert main(["inspect", str(odd)]) == 0
    assert "other symbols: 0xe9=1 in 1 of 2 records" in capsys.readouterr().out
    dup = tmp_path / "dup.fa"
    dup.write_text(">a\nACGT\n>a\nACGA\n")
    assert main(["inspect", str(dup)]) == 0
    captured = capsys.readouterr()
    assert "1 record(s) repeat an earlier record id (first: 'a')" in captured.err
    assert "duplicate ids: 1 records repeat an earlier record id" in captured.out


def test_identical_classes_are_named_and_flagged(tmp_path, capsys):
    copy = tmp_path / "copy.fa"
    copy.write_bytes(Path(POS).read_bytes())
    out = tmp_path / "res"
    assert main(["poim", "--positive", POS, "--negative", str(copy), "--out", str(out), *FAST]) == 0
    err = capsys.readouterr().err
    assert "warning: the two classes are identical (the same 100 sequences)" in err
    assert "close to chance" not in err
    metrics = json.loads((out / "summary.json").read_text())["metrics"]
    assert metrics["chance_level"] is True and metrics["warning"].startswith("the two classes are identical")
    assert "the two classes are identical" in (out / "report.html").read_text()


@pytest.mark.parametrize("extra, message", [
    (["--C", "inf"], r"argument --C: must be a number in \(0, inf\), got inf"),
    (["--C", "nan"], r"argument --C: must be a number in \(0, inf\), got nan"),
    (["--seed", str(2**63)], r"argument --seed: must be an integer in \[0, 9223372036854775807\]"),
    (["--seed", "-1"], r"argument --seed: must be an integer in \[0, "),
    (["--max-memory", "1K"], r"needs about [\d.]+ [KMG]iB \(\d+ bytes\), more than --max-memory 1 KiB \(1024 bytes\); "
                             r"raise --max-memory or lower --max-order$"),
    (["--max-memory", "100"], r"needs about [\d.]+ [KMG]iB \(\d+ bytes\), more than --max-memory 100 B \(100 bytes\); "
                              r"raise --max-memory or lower --max-order$"),  # option names only, no max_memory=
])
def test_option_values_give_one_line(tmp_path, capsys, extra, message):
    out = tmp_path / "res"
    assert _poim(out, *extra) == 2
    line = _one_error(capsys, message)
    assert "0.00 GiB" not in line and "degree" not in line
    assert not out.exists()


def test_min_score_nan_is_refused(tmp_path, capsys):
    assert main(["motifs", "--poim", "x.npz", "--out", str(tmp_path / "m"), "--min-score", "nan"]) == 2
    _one_error(capsys, r"argument --min-score: must be a number in \[0, 1\], got nan")


def test_a_huge_seed_is_accepted_and_recorded(tmp_path):
    out = tmp_path / "res"
    assert _poim(out, "--seed", str(2**32)) == 0
    assert json.loads((out / "summary.json").read_text())["parameters"]["seed"] == 2**32


def test_a_scorer_that_raises_gives_one_line_naming_it(tmp_path, capsys):
    scorer = tmp_path / "bad.py"
    scorer.write_text("def boom(X):\n    raise RuntimeError('model weights not found\\nsecond line')\n")
    out = tmp_path / "res"
    assert main(["poim", "--scorer", f"{scorer}:boom", "--positive", POS, "--negative", NEG, "--out", str(out),
                 "-q"]) == 2
    _one_error(capsys, rf"^seqimp: error: --scorer '{scorer}:boom' raised RuntimeError: model weights not found$")
    assert not out.exists()


# ----- deterministic by default ----------------------------------------------------------------------

def _without_timings(snapshot):
    snapshot = dict(snapshot)
    summary = json.loads(snapshot.pop("summary.json"))
    assert set(summary["timings"]) == {"train", "poim", "outputs"}
    del summary["timings"]
    return snapshot, summary


def test_poim_twice_gives_byte_identical_files(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert main(["poim", "--positive", POS, "--negative", NEG, "--out", str(out), *FAST, "--format", "svg"]) == 0
    files_a, summary_a = _without_timings(_snapshot(a))
    files_b, summary_b = _without_timings(_snapshot(b))
    assert files_a.keys() == files_b.keys() and "model.npz" in files_a
    assert [name for name in files_a if files_a[name] != files_b[name]] == []
    assert summary_a == summary_b and summary_a["parameters"]["seed"] == 0  # the default seed, recorded


def test_motifs_twice_gives_byte_identical_files(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "3",
                     "--format", "pdf", "-q"]) == 0
    files_a, files_b = _snapshot(a), _snapshot(b)
    assert files_a.keys() == files_b.keys() and "motifs_poim.npz" in files_a
    assert [name for name in files_a if files_a[name] != files_b[name]] == []


def test_npz_files_hold_no_wall_clock():
    import zipfile

    from seqimp._utils.npz import FIXED_DATE, save_npz

    with pytest.raises(ValueError, match="Object arrays cannot be saved when allow_pickle=False"):
        save_npz(Path(os.devnull).with_name("null") if False else "/tmp/_seqimp_obj.npz",
                 {"x": np.array([{}], dtype=object)})
    path = save_npz("/tmp/_seqimp_fixed.npz", {"x": np.arange(3)})
    with zipfile.ZipFile(path) as zf:
        assert [info.date_time for info in zf.infolist()] == [FIXED_DATE]
    with np.load(path, allow_pickle=False) as data:
        np.testing.assert_array_equal(data["x"], [0, 1, 2])


def test_empty_inputs_in_the_api_are_called_empty():
    from seqimp import MarkovBackground, wd_kernel
    from seqimp.training import train_model
    from seqimp.tabular import firm, permutation_importance

    with pytest.raises(SeqimpError, match=r"^X: no sequences$"):
        MarkovBackground().fit([])
    with pytest.raises(SeqimpError, match=r"^X: no sequences$"):
        wd_kernel([], [], degree=2)
    with pytest.raises(SeqimpError, match=r"^positive: no sequences$"):
        train_model([], [])
    with pytest.raises(SeqimpError, match=r"^X: no samples \(empty, shape \(0,\)\)"):
        firm(lambda A: A.sum(1), [])
    with pytest.raises(SeqimpError, match=r"^X: no samples \(empty"):
        permutation_importance(lambda A: A.sum(1), [], [])


def test_a_saved_model_no_better_than_chance_says_so(tmp_path, capsys):
    from seqimp.kernels import PositionalWeights
    from seqimp.training import save_model

    model = tmp_path / "flat.npz"
    save_model(model, PositionalWeights([np.zeros((30, 4))]), {"auroc": 0.51, "degree": 1, "length": 30})
    out = tmp_path / "res"
    assert main(["poim", "--model-file", str(model), "--background", "uniform", "--out", str(out), "-q"]) == 0
    assert "warning: the model is close to chance (auROC 0.510 < 0.6" in capsys.readouterr().err
    metrics = json.loads((out / "summary.json").read_text())["metrics"]
    assert metrics["chance_level"] is True and "close to chance" in metrics["warning"]
