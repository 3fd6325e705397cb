"""Adversarial cases of the command line, output folders: data loss, the commit of a run's files
as one set, the lock. Every case asserts the exit status, the one ``seqimp: error:`` line and what
is on disk: a listing of the folder with checksums before and after (tests/reliability_helpers.py)."""

import errno
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from reliability_helpers import (DATA, FAST, NEG, POS, ROOT, copy, encode, full_disk, linked, listing,
                                 make_poim_folder, motifs, one_error, poim)

from seqimp.cli import _lock, _output_folder, main
from seqimp.errors import SeqimpError


@pytest.fixture(scope="module")
def poim_folder(tmp_path_factory):
    return make_poim_folder(tmp_path_factory)


# ----- output folders: data loss ----------------------------------------------------------------------

def test_encode_overwrite_refuses_a_folder_that_is_not_a_store(tmp_path, capsys):
    folder = tmp_path / "project"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    (folder / "sub" / "data.fa").write_text(">a\nACGT\n")
    before = listing(folder)
    assert encode(folder, "--overwrite") == 2
    one_error(capsys, rf"^seqimp: error: --out {folder}: holds files that are not a codes store; a store is "
                      r"written into a new or empty folder \(nothing was deleted\)$")
    assert listing(folder) == before


def test_encode_overwrite_into_the_current_folder_deletes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("pos.fa", "neg.fa"):
        (tmp_path / name).write_bytes(Path(POS if name == "pos.fa" else NEG).read_bytes())
    before = listing(tmp_path)
    assert main(["encode", "--fasta", "pos.fa", "neg.fa", "--labels", "1", "0", "--out", ".", "--overwrite"]) == 2
    one_error(capsys, r"--out \.: holds files that are not a codes store")
    assert listing(tmp_path) == before


def test_encode_overwrite_replaces_its_own_store_only(tmp_path, capsys):
    store = tmp_path / "s.codes"
    assert encode(store) == 0
    assert sorted(listing(store)) == [".seqimp-encode.json", "codes.npy", "ids.txt", "labels.npy", "meta.json"]
    first = listing(store)
    assert encode(store) == 2  # without --overwrite: refused, unchanged
    one_error(capsys, rf"--out {store}: already exists and holds a codes store \(pass --overwrite to replace it\)")
    assert listing(store) == first
    assert main(["encode", "--fasta", POS, "--out", str(store), "--overwrite", "-q"]) == 0  # no labels now
    after = listing(store)
    assert "labels.npy" not in after and after["codes.npy"] != first["codes.npy"]
    assert json.loads((store / ".seqimp-encode.json").read_text())["files"] == ["codes.npy", "ids.txt", "meta.json"]
    (store / "README").write_text("the user's note")  # a store that holds a user's file is not replaced
    before = listing(store)
    assert encode(store, "--overwrite") == 2
    one_error(capsys, r"holds files that are not a codes store")
    assert listing(store) == before


def test_encode_overwrite_replaces_a_store_of_the_library(tmp_path):
    from seqimp.io import encode_fasta_to_store, open_codes_store

    store = tmp_path / "lib.codes"
    encode_fasta_to_store([POS], store)
    assert encode(store, "--overwrite") == 0
    assert open_codes_store(store).labels is not None and len(open_codes_store(store)) == 200


def test_encode_into_a_full_disk_gives_one_line_and_leaves_the_earlier_store(tmp_path, capsys, monkeypatch):
    store = tmp_path / "s.codes"
    assert encode(store) == 0
    before = listing(store)
    monkeypatch.setattr("seqimp.io._store.os.posix_fallocate", full_disk)
    assert encode(store, "--overwrite") == 2
    one_error(capsys, rf"^seqimp: error: --out {store}: no space left on device while writing the results; "
                      rf"earlier results in {store} are unchanged$")
    assert listing(store) == before and sorted(p.name for p in tmp_path.iterdir()) == ["s.codes"]


def test_encode_library_refuses_to_replace_other_folders(tmp_path):
    from seqimp.io import encode_fasta_to_store
    from seqimp.io._store import write_codes_store

    (tmp_path / "keep.txt").write_text("x")
    before = listing(tmp_path)
    with pytest.raises(SeqimpError, match=r"holds files that are not a codes store; .*nothing was deleted"):
        encode_fasta_to_store([POS], tmp_path, overwrite=True)
    with pytest.raises(SeqimpError, match=r"holds files that are not a codes store; .*nothing was deleted"):
        write_codes_store(tmp_path, np.zeros((2, 5), np.uint8))
    assert listing(tmp_path) == before


def test_motifs_from_its_own_poim_keeps_its_input(tmp_path):
    out = tmp_path / "m"
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 0
    npz = (out / "motifs_poim.npz").read_bytes()
    assert motifs(out, "--poim", str(out / "motifs_poim.npz")) == 0
    assert (out / "motifs_poim.npz").read_bytes() == npz  # the input is never a stale output
    assert "motifs_poim.npz" in _output_folder.owned_files(out, "motifs")
    assert not (out / "motif_sites.tsv").exists()  # no sequences: no sites, the earlier ones removed


def test_an_input_written_again_is_kept_and_one_that_would_change_is_refused(tmp_path, capsys):
    out = tmp_path / "res"
    assert poim(out, "--no-motifs") == 0
    model = (out / "model.npz").read_bytes()
    assert main(["poim", "--model-file", str(out / "model.npz"), "--background", "uniform", "--out", str(out),
                 "--max-order", "2", "-q"]) == 0  # the same model, written again byte for byte: kept
    assert (out / "model.npz").read_bytes() == model and "model.npz" in _output_folder.owned_files(out, "poim")
    table = out / "top_oligomers.tsv"
    before = listing(out)
    with pytest.raises(Exception, match=rf"^--out {out}: top_oligomers\.tsv is an input of this run and would be "
                                        r"replaced by its output; choose another --out \(nothing written\)$"):
        with _output_folder.output_dir(out, "poim", inputs=[table]) as stage:
            (stage / "top_oligomers.tsv").write_text("another table\n")
    assert listing(out) == before


def test_motifs_owns_logos_file_by_file(tmp_path, poim_folder):
    out = copy(poim_folder, tmp_path / "res")
    (out / "logos" / "my_notes.txt").write_text("the user's")
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 0
    assert (out / "logos" / "my_notes.txt").read_text() == "the user's"
    owned = _output_folder.owned_files(out, "motifs")
    assert any(name.startswith("logos/") for name in owned) and "logos" not in owned


def test_motifs_does_not_rewrite_a_report_and_summary_it_does_not_own(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "summary.json").write_text('{"my": "own summary"}\n')
    (out / "report.html").write_text("<p>my report</p>\n")
    before = listing(out)
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 0
    after = listing(out)
    assert {k: after[k] for k in before} == before and "motifs.tsv" in after


def test_a_users_file_with_an_output_name_is_never_replaced(tmp_path, capsys):
    out = tmp_path / "m"
    out.mkdir()
    (out / "motifs.tsv").write_text("my own table\n")
    before = listing(out)
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 2
    one_error(capsys, rf"^seqimp: error: --out {out}: motifs\.tsv was not written by seqimp; move it away or "
                      r"choose another --out \(nothing written, the folder is unchanged\)$")
    assert listing(out) == before


def test_a_file_of_another_command_is_not_taken_over(tmp_path, capsys):
    out = tmp_path / "res"
    with _output_folder.output_dir(out, "poim") as stage:
        (stage / "report.html").write_text("poim's")
        (stage / "motifs.tsv").write_text("poim's motifs")
    before = listing(out)
    with pytest.raises(Exception, match=rf"^--out {out}: report\.html belongs to an earlier 'seqimp poim' run; move "
                                        r"it away or choose another --out \(nothing written, the folder is unchanged\)$"):
        with _output_folder.output_dir(out, "scan") as stage:
            (stage / "report.html").write_text("scan's")
            (stage / "scan.tsv").write_text("hits")
    assert listing(out) == before
    with _output_folder.output_dir(out, "motifs") as stage:  # motif files are one set: they change owner
        (stage / "motifs.tsv").write_text("the motifs command's")
    assert _output_folder.owned_files(out, "motifs") == ["motifs.tsv"]
    assert _output_folder.owned_files(out, "poim") == ["report.html"]


def test_full_disk_while_adding_motifs_to_a_poim_folder_leaves_it_exactly(tmp_path, capsys, monkeypatch,
                                                                           poim_folder):
    out = copy(poim_folder, tmp_path / "res")
    before = listing(out)
    monkeypatch.setattr("seqimp.pipeline._motif_files.write_report", full_disk)
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 2
    one_error(capsys, rf"^seqimp: error: --out {out}: no space left on device while writing the results; "
                      rf"earlier results in {out} are unchanged$")
    assert listing(out) == before


def test_a_failure_at_any_step_of_the_commit_is_undone(tmp_path, capsys, monkeypatch, poim_folder):
    """The set is published by moves (old files aside, new ones in, the manifests last): whichever
    move fails, every earlier one is undone and the folder is byte for byte as before."""
    real = _output_folder._Transaction.move
    counted = copy(poim_folder, tmp_path / "count")
    moves = []
    monkeypatch.setattr(_output_folder._Transaction, "move", lambda self, a, b: (moves.append(b), real(self, a, b)))
    assert poim(counted, "--max-order", "2", "--format", "svg", "--no-motifs") == 0  # files replaced, removed
    assert len(moves) > 20
    for fail_at in (1, len(moves) // 2, len(moves)):
        out = copy(poim_folder, tmp_path / f"at{fail_at}")
        before = listing(out)
        calls = []

        def failing(self, a, b, fail_at=fail_at, calls=calls):
            calls.append(b)
            if len(calls) == fail_at:
                raise OSError(errno.EIO, "Input/output error")
            return real(self, a, b)

        monkeypatch.setattr(_output_folder._Transaction, "move", failing)
        assert poim(out, "--max-order", "2", "--format", "svg", "--no-motifs") == 2
        one_error(capsys, r"^seqimp: error: \[Errno 5\] Input/output error$")
        assert listing(out) == before, fail_at


KILLED_MID_COMMIT = """\
import os, sys
from seqimp.cli import _output_folder, main
real, calls = _output_folder._Transaction.move, []
def move(self, a, b):
    calls.append(b)
    if len(calls) == int(sys.argv[1]):
        os._exit(9)  # as kill -9 would: no cleanup of any kind
    return real(self, a, b)
_output_folder._Transaction.move = move
main(sys.argv[2:])
"""


def test_a_run_killed_mid_commit_is_undone_by_the_next_run(tmp_path, poim_folder):
    out = copy(poim_folder, tmp_path / "res")
    before = listing(out)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = ["poim", "--positive", POS, "--negative", NEG, "--out", str(out), *FAST, "--no-motifs", "--max-order", "2"]
    killed = subprocess.run([sys.executable, "-c", KILLED_MID_COMMIT, "12", *args], env=env, capture_output=True,
                            timeout=300)
    assert killed.returncode == 9
    assert listing(out) != before and any(p.name.startswith(".seqimp-journal-") for p in out.iterdir())
    with pytest.raises(SeqimpError, match="stop here"):
        with _output_folder.output_dir(out, "poim"):  # the next run: takes the stale lock, undoes, fails
            raise SeqimpError("stop here")
    assert listing(out) == before


def test_a_signal_after_the_commit_says_the_results_were_written(tmp_path, capsys, monkeypatch, poim_folder):
    out = copy(poim_folder, tmp_path / "res")

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr("seqimp.cli.motifs.print_motifs", interrupted)
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 130
    assert capsys.readouterr().err.splitlines() == [
        f"seqimp: motifs interrupted by SIGINT; the results had been written to {out} before it"]
    assert "motifs_poim.npz" in listing(out)


SLOW_REPORT = """\
import pathlib, sys, time
from seqimp.pipeline import _motif_files
from seqimp.cli import main
real = _motif_files.write_report
def slow(*args, **kwargs):
    pathlib.Path(sys.argv[1]).write_text("rewriting the report")
    time.sleep(3)  # SIGTERM arrives now, while the poim report is rewritten inside the commit
    return real(*args, **kwargs)
_motif_files.write_report = slow
sys.exit(main(sys.argv[2:]))
"""


def test_sigterm_while_motifs_rewrites_a_poim_report_is_told_truthfully(tmp_path, poim_folder):
    out, marker = copy(poim_folder, tmp_path / "res"), tmp_path / "marker"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", SLOW_REPORT, str(marker), "motifs", "--positive", POS,
                             "--negative", NEG, "--out", str(out), "--degree", "2", "-q"], env=env,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else ""
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert err.strip().splitlines() == [f"seqimp: motifs interrupted by SIGTERM; the results had been written to "
                                        f"{out} before it"]
    summary = json.loads((out / "summary.json").read_text())
    assert "motifs_poim.npz" in summary["files"]["bytes"]  # the report and summary of the same commit
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [".seqimp-motifs.json",
                                                                               ".seqimp-poim.json"]


def test_motifs_from_a_poim_without_sequences_leaves_a_consistent_folder(tmp_path, poim_folder):
    """README's 'seqimp motifs --poim results/poim.npz --out results' replaces
    the whole motif set (no sites of motifs that no longer exist) and the report links only
    files that are there."""
    out = copy(poim_folder, tmp_path / "res")
    assert (out / "motif_sites.tsv").exists()
    poim_npz = (out / "poim.npz").read_bytes()
    assert motifs(out, "--poim", str(out / "poim.npz"), "--db", str(DATA / "toy_motifs.meme")) == 0  # README's line
    assert (out / "poim.npz").read_bytes() == poim_npz
    assert not (out / "motif_sites.tsv").exists() and not (out / "motif_sites.bed").exists()
    motif_files = set(_output_folder.owned_files(out, "motifs"))
    poim_files = set(_output_folder.owned_files(out, "poim"))
    assert "motifs.tsv" in motif_files and not motif_files & poim_files
    assert not any(_output_folder._in_group(f, _output_folder.MOTIF_FILES) for f in poim_files)
    assert all((out / f).exists() for f in motif_files | poim_files)
    assert all((out / name).exists() for name in linked(out))
    recorded = json.loads((out / "summary.json").read_text())["files"]["bytes"]
    assert all((out / name).exists() for name in recorded) and "motif_sites.tsv" not in recorded
    names = {p.stem.split("_")[0] for p in (out / "logos").iterdir()} - {"importance"}
    table = (out / "motifs.tsv").read_text().splitlines()
    assert names == {row.split("\t")[0] for row in table[1:]}  # the logos are those of these motifs


# ----- faults: the lock -------------------------------------------------------------------------------

def _race(folder, barrier, results):
    barrier.wait()
    try:
        _lock.take_lock(Path(folder))
        results.put("won")
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        results.put(type(exc).__name__)
    barrier.wait()  # hold the lock until both have tried


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_two_runs_taking_a_stale_lock_at_once_one_wins(tmp_path):
    ctx = multiprocessing.get_context("fork")
    for trial in range(12):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        (folder / ".seqimp.lock").write_text("999999999\n" if trial % 2 else "")  # impossible pid / empty
        if trial % 2 == 0:
            os.utime(folder / ".seqimp.lock", (0, 0))  # an old empty lock
        barrier, results = ctx.Barrier(2), ctx.Queue()
        procs = [ctx.Process(target=_race, args=(folder, barrier, results)) for _ in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(30)
        assert sorted(results.get(timeout=5) for _ in procs) == ["UserError", "won"], trial


@pytest.mark.parametrize("text, reason", [
    ("1\n", "process 1 is the system's or a container's first process"),
    ("99999999999999999999999999\n", "no process can have the id"),
    ("-5\n", "no process can have the id -5"),
    ("0\n", "no process can have the id 0"),
    ("garbage\n", "it holds 'garbage', not a process id"),
])
def test_stale_locks_are_taken_over_with_a_reason(tmp_path, caplog, text, reason):
    out = tmp_path / "res"
    out.mkdir()
    (out / ".seqimp.lock").write_text(text)
    os.utime(out / ".seqimp.lock", (0, 0))
    with caplog.at_level("INFO", logger="seqimp"):
        lock = _lock.take_lock(out)
    assert lock.read_text().split()[0] == str(os.getpid())
    assert reason in caplog.text and sorted(p.name for p in out.iterdir()) == [".seqimp.lock"]


def test_files_of_a_lock_being_taken_when_its_process_was_killed_are_cleared(tmp_path):
    out = tmp_path / "res"
    out.mkdir()
    for name in (".seqimp.lock.999999999.new", ".seqimp.lock.999999999.stale"):
        (out / name).write_text("999999999 1\n")
        os.utime(out / name, (0, 0))
    with _output_folder.output_dir(out, "x") as stage:
        (stage / "a.tsv").write_text("a")
    assert sorted(p.name for p in out.iterdir()) == [".seqimp-x.json", "a.tsv"]


def test_a_reused_pid_is_a_stale_lock_and_a_live_one_is_not(tmp_path, capsys):
    out = tmp_path / "res"
    out.mkdir()
    lock = out / ".seqimp.lock"
    lock.write_text(f"{os.getpid()} 1\n")  # our pid, but a process that started at tick 1: not us
    assert _lock.take_lock(out) == lock
    lock.unlink()
    lock.write_text(_lock.lock_text())  # a live process (this one): refused
    assert poim(out) == 2
    one_error(capsys, rf"another seqimp run \(pid {os.getpid()}\) is writing into this folder")
    assert sorted(p.name for p in out.iterdir()) == [".seqimp.lock"]
