"""The adversarial catalogue of issue 29, by kind: output folders, inputs that lie, faults,
determinism. Every case asserts the exit status, the one ``seqimp: error:`` line (or the
warning) and what is on disk: a listing of the folder with checksums before and after."""

import errno
import hashlib
import json
import multiprocessing
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import _lock, _output_folder, main

DATA = Path(__file__).resolve().parent / "data"
POS, NEG = str(DATA / "planted_pos.fa"), str(DATA / "planted_neg.fa")
FAST = ["--degree", "2", "--max-order", "3", "-q"]
ROOT = Path(__file__).resolve().parent.parent


def listing(folder) -> dict:
    """Every file under ``folder`` (hidden ones too) with its SHA-256: the state a case compares."""
    folder = Path(folder)
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def one_error(capsys, pattern) -> str:
    """The stderr of the last run holds exactly one 'seqimp: error:' line, matching ``pattern``."""
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("seqimp: error:")]
    assert len(err) == 1, err
    assert re.search(pattern, err[0]), err[0]
    return err[0]


def poim(out, *extra):
    return main(["poim", "--positive", POS, "--negative", NEG, "--out", str(out), *FAST, *extra])


def motifs(out, *extra):
    return main(["motifs", "--out", str(out), "-q", *extra])


def encode(out, *extra):
    return main(["encode", "--fasta", POS, NEG, "--labels", "1", "0", "--out", str(out), "-q", *extra])


def full_disk(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def _linked(folder: Path) -> list:
    """The files the report links to (href="..."), relative to ``folder``."""
    return re.findall(r'href="([^"#:]+)"', (folder / "report.html").read_text())


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
    from seqimp.errors import SeqimpError
    from seqimp.io import encode_fasta_to_store

    (tmp_path / "keep.txt").write_text("x")
    with pytest.raises(SeqimpError, match=r"holds files that are not a codes store; .*nothing was deleted"):
        encode_fasta_to_store([POS], tmp_path, overwrite=True)
    assert (tmp_path / "keep.txt").read_text() == "x"


@pytest.fixture(scope="module")
def poim_folder(tmp_path_factory):
    """A 'seqimp poim' folder with its motifs and sites (copied by each case that writes into it)."""
    out = tmp_path_factory.mktemp("poim") / "res"
    assert poim(out) == 0
    return out


def _copy(folder, to):
    import shutil

    shutil.copytree(folder, to)
    return to


def test_motifs_from_its_own_poim_keeps_its_input(tmp_path):
    out = tmp_path / "m"
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 0
    npz = (out / "motifs_poim.npz").read_bytes()
    assert motifs(out, "--poim", str(out / "motifs_poim.npz")) == 0
    assert (out / "motifs_poim.npz").read_bytes() == npz  # the input is never a stale output
    assert "motifs_poim.npz" in _output_folder.owned_files(out, "motifs")
    assert not (out / "motif_sites.tsv").exists()  # no sequences: no sites, the earlier ones removed


def test_motifs_owns_logos_file_by_file(tmp_path, poim_folder):
    out = _copy(poim_folder, tmp_path / "res")
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


def test_full_disk_while_adding_motifs_to_a_poim_folder_leaves_it_exactly(tmp_path, capsys, monkeypatch,
                                                                           poim_folder):
    out = _copy(poim_folder, tmp_path / "res")
    before = listing(out)
    monkeypatch.setattr("seqimp.pipeline._motif_files.write_report", full_disk)
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 2
    one_error(capsys, rf"^seqimp: error: --out {out}: no space left on device while writing the results; "
                      rf"earlier results in {out} are unchanged$")
    assert listing(out) == before


def test_a_signal_after_the_commit_says_the_results_were_written(tmp_path, capsys, monkeypatch, poim_folder):
    out = _copy(poim_folder, tmp_path / "res")

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr("seqimp.cli.motifs.print_motifs", interrupted)
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 130
    assert capsys.readouterr().err.splitlines() == [
        f"seqimp: motifs interrupted by SIGINT; the results had been written to {out} before it"]
    assert "motifs_poim.npz" in listing(out)


def test_motifs_from_a_poim_without_sequences_leaves_a_consistent_folder(tmp_path, poim_folder):
    """Issue 30 item 4: README's 'seqimp motifs --poim results/poim.npz --out results' replaces
    the whole motif set (no sites of motifs that no longer exist) and the report links only
    files that are there."""
    out = _copy(poim_folder, tmp_path / "res")
    assert (out / "motif_sites.tsv").exists()
    poim_npz = (out / "poim.npz").read_bytes()
    assert motifs(out, "--poim", str(out / "poim.npz")) == 0
    assert (out / "poim.npz").read_bytes() == poim_npz
    assert not (out / "motif_sites.tsv").exists() and not (out / "motif_sites.bed").exists()
    motif_files = set(_output_folder.owned_files(out, "motifs"))
    poim_files = set(_output_folder.owned_files(out, "poim"))
    assert "motifs.tsv" in motif_files and not motif_files & poim_files
    assert not any(_output_folder._in_group(f, _output_folder.MOTIF_FILES) for f in poim_files)
    assert all((out / f).exists() for f in motif_files | poim_files)
    assert all((out / name).exists() for name in _linked(out))
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
