"""The adversarial catalogue of issue 29, by kind: output folders, inputs that lie, faults,
determinism. Every case asserts the exit status, the one ``seqimp: error:`` line (or the
warning) and what is on disk: a listing of the folder with checksums before and after."""

import errno
import hashlib
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import _lock, _output_folder, main
from seqimp.errors import SeqimpError

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
    from seqimp.io import encode_fasta_to_store, write_codes_store

    (tmp_path / "keep.txt").write_text("x")
    before = listing(tmp_path)
    with pytest.raises(SeqimpError, match=r"holds files that are not a codes store; .*nothing was deleted"):
        encode_fasta_to_store([POS], tmp_path, overwrite=True)
    with pytest.raises(SeqimpError, match=r"holds files that are not a codes store; .*nothing was deleted"):
        write_codes_store(tmp_path, np.zeros((2, 5), np.uint8))
    assert listing(tmp_path) == before


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


def test_an_input_written_again_is_kept_and_one_that_would_change_is_refused(tmp_path, capsys):
    out = tmp_path / "res"
    assert poim(out, "--no-motifs") == 0
    model = (out / "model.npz").read_bytes()
    assert main(["poim", "--model", str(out / "model.npz"), "--background", "uniform", "--out", str(out),
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
    out = _copy(poim_folder, tmp_path / "res")
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
    counted = _copy(poim_folder, tmp_path / "count")
    moves = []
    monkeypatch.setattr(_output_folder._Transaction, "move", lambda self, a, b: (moves.append(b), real(self, a, b)))
    assert poim(counted, "--max-order", "2", "--format", "svg", "--no-motifs") == 0  # files replaced, removed
    assert len(moves) > 20
    for fail_at in (1, len(moves) // 2, len(moves)):
        out = _copy(poim_folder, tmp_path / f"at{fail_at}")
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
    out = _copy(poim_folder, tmp_path / "res")
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
    out = _copy(poim_folder, tmp_path / "res")

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
    out, marker = _copy(poim_folder, tmp_path / "res"), tmp_path / "marker"
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
    """Issue 30 item 4: README's 'seqimp motifs --poim results/poim.npz --out results' replaces
    the whole motif set (no sites of motifs that no longer exist) and the report links only
    files that are there."""
    out = _copy(poim_folder, tmp_path / "res")
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


# ----- inputs that lie: genomes, BED, tables ------------------------------------------------------------

def _genome(path, records, width=60):
    with open(path, "w") as fh:
        for name, seq in records:
            fh.write(f">{name} test\n" + "".join(seq[i:i + width] + "\n" for i in range(0, len(seq), width)))
    return path


def _random_dna(n, seed):
    return "".join(np.random.default_rng(seed).choice(list("ACGT"), size=n))


@pytest.mark.parametrize("change, problem", [
    ("longer", r"record 'chr1': it no longer ends after 1,000 bases \(longer or re-wrapped\?\)"),
    ("last_longer", r"record 'chr2': it no longer ends after 700 bases \(longer or re-wrapped\?\)"),
    ("rewrapped", r"record 'chr1': its lines are no longer 60 bases long \(re-wrapped\?\)"),
])
def test_a_stale_fai_is_refused_with_one_line(tmp_path, capsys, change, problem):
    pytest.importorskip("pyfaidx")
    from seqimp.io import open_genome

    chr1, chr2 = _random_dna(1000, 1), _random_dna(700, 2)
    genome = _genome(tmp_path / "g.fa", [("chr1", chr1), ("chr2", chr2)])
    open_genome(genome).close()  # builds g.fa.fai
    fai = genome.with_name("g.fa.fai")
    built = fai.stat().st_mtime
    records = {"longer": [("chr1", chr1 + "ACGT" * 10), ("chr2", chr2)],
               "last_longer": [("chr1", chr1), ("chr2", chr2 + "ACGTA")],
               "rewrapped": [("chr1", chr1), ("chr2", chr2)]}[change]
    _genome(genome, records, width=50 if change == "rewrapped" else 60)
    os.utime(genome, (built - 100, built - 100))  # older than its index: pyfaidx keeps the index
    bed = tmp_path / "p.bed"
    bed.write_text("chr1\t100\t140\nchr2\t300\t340\n")
    before = listing(tmp_path)
    assert main(["poim", "--positive-bed", str(bed), "--genome", str(genome), "--width", "20",
                 "--negatives", "shuffle", "--out", str(tmp_path / "res"), *FAST]) == 2
    one_error(capsys, rf"^seqimp: error: --genome {genome}: its index {fai} does not match the FASTA \({problem}\); "
                      rf"the FASTA changed after the index was built: delete {fai} and run again")
    assert listing(tmp_path) == before


def test_a_current_fai_passes_the_check(tmp_path):
    pytest.importorskip("pyfaidx")
    from seqimp.io import open_genome
    from seqimp.io._genome import index_mismatch

    for width, newline in ((60, "\n"), (7, "\n"), (60, "\r\n")):
        genome = tmp_path / f"g{width}{len(newline)}.fa"
        text = "".join(f">{n}\n" + "".join(s[i:i + width] + newline for i in range(0, len(s), width))
                       for n, s in (("a", _random_dna(120, 3)), ("b", _random_dna(61, 4)), ("c", _random_dna(7, 5))))
        genome.write_bytes(text.encode())
        fa = open_genome(genome)
        assert index_mismatch(genome, fa.faidx.index) is None
        assert fa["b"][0:61] == text.split(">b\n")[1].split(">")[0].replace(newline, "")
        fa.close()


def test_bed_chromosomes_without_chr_warn_even_with_quiet(tmp_path, capsys):
    pytest.importorskip("pyfaidx")
    genome = _genome(tmp_path / "g.fa", [("chr1", _random_dna(1000, 1)), ("chr2", _random_dna(700, 2))])
    bed = tmp_path / "p.bed"
    bed.write_text("".join(f"chr1\t{s}\t{s + 40}\n" for s in range(50, 900, 30))
                   + "".join(f"2\t{s}\t{s + 40}\n" for s in range(50, 600, 30)))
    out = tmp_path / "res"
    assert main(["poim", "--positive-bed", str(bed), "--genome", str(genome), "--width", "20", "--negatives",
                 "shuffle", "--out", str(out), "--no-motifs", *FAST]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "'chr' prefix" in line]
    assert warnings == [f"seqimp: warning: {bed}: 1 chromosome name(s) are not in the genome, which names them "
                        f"with the 'chr' prefix (e.g. '2' is 'chr2' there); their regions are dropped; rename "
                        f"them: awk 'BEGIN{{OFS=\"\\t\"}} !/^(#|track|browser)/{{$1=\"chr\"$1}} 1' {bed} > "
                        "renamed.bed"]


def test_a_fasta_with_a_utf8_byte_order_mark_is_read(tmp_path, capsys):
    fasta = tmp_path / "bom.fa"
    fasta.write_bytes(b"\xef\xbb\xbf" + Path(POS).read_bytes())
    assert main(["inspect", str(fasta)]) == 0
    assert "records:     100" in capsys.readouterr().out


def test_width_beyond_every_chromosome_is_refused_before_allocating(tmp_path, capsys):
    pytest.importorskip("pyfaidx")
    genome = _genome(tmp_path / "g.fa", [("chr1", _random_dna(1000, 1))])
    bed = tmp_path / "p.bed"
    bed.write_text("chr1\t100\t140\n")
    assert main(["poim", "--positive-bed", str(bed), "--genome", str(genome), "--width", "1000000000000",
                 "--negatives", "shuffle", "--out", str(tmp_path / "res"), *FAST]) == 2
    one_error(capsys, r"^seqimp: error: --width 1,000,000,000,000: longer than every chromosome of the genome "
                      r"\(the longest, 'chr1', has 1,000 bases\)$")
    assert not (tmp_path / "res").exists()


def _table(tmp_path, values, name="t.tsv"):
    seqs = [_random_dna(12, i) for i in range(len(values))]
    path = tmp_path / name
    path.write_text("sequence\tvalue\n" + "".join(f"{s}\t{v}\n" for s, v in zip(seqs, values)))
    return path


def test_table_labels_are_decided_once(tmp_path):
    from seqimp.io import read_sequence_table

    mixed = read_sequence_table(_table(tmp_path, ["0", "1", "1.0", "0.0", "1"] * 4), sequence_column="sequence",
                                value_column="value")
    assert mixed.binary and mixed.classes == ("0", "1") and mixed.labels.tolist() == [0, 1, 1, 0, 1] * 4
    with pytest.warns(UserWarning, match=r"holds only the two values 2\.5 and 7; training a regressor on them "
                                         r"\(write them as 0 and 1 to train a classifier\)"):
        two = read_sequence_table(_table(tmp_path, ["2.5", "7", "7.0"] * 4, "two.tsv"), sequence_column="sequence",
                                  value_column="value")
    assert not two.binary


@pytest.mark.parametrize("values, message", [
    (["3.5"] * 12, r"column 'value' holds the one value 3\.5 in every row; there is nothing to learn"),
    (["1e300", "2", "3"] * 4, r"line 2: value '1e300' in column 'value' is beyond \+-1e\+100, too large to train "
                              r"on; rescale the column"),
    (["1", "inf", "3"] * 4, r"line 3: value 'inf' in column 'value' is missing or not finite"),
])
def test_table_values_that_cannot_be_learnt_are_refused(tmp_path, capsys, values, message):
    table = _table(tmp_path, values)
    out = tmp_path / "res"
    assert main(["poim", "--table", str(table), "--value-column", "value", "--out", str(out), *FAST]) == 2
    one_error(capsys, rf"^seqimp: error: --table {table}: {message}")
    assert not out.exists()


# ----- inputs that lie: model and POIM files -----------------------------------------------------------

def _npz(path, **arrays):
    from seqimp._npz import save_npz

    save_npz(path, arrays)
    return path


def _bomb(path, name, shape, others):
    """An .npz whose entry ``name`` declares ``shape`` (float64) and holds that many zero bytes, deflated."""
    import io
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key, value in others.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(value))
            zf.writestr(f"{key}.npy", buffer.getvalue())
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": shape})
        with zf.open(f"{name}.npy", "w", force_zip64=True) as fh:
            fh.write(header.getvalue())
            left, zeros = int(np.prod(shape)) * 8, bytes(1 << 20)
            while left:
                fh.write(zeros[:min(left, 1 << 20)])
                left -= min(left, 1 << 20)
    return path


@pytest.mark.parametrize("make, message", [
    (lambda p: _npz(p, sparse_1_shape=np.array([20, 4]), sparse_1_index=np.array([-1, 3]),
                    sparse_1_value=np.array([1.0, 2.0]), bias=0.0, alphabet="dna"),
     r"the order-1 table is damaged \(sparse index -1 outside 0\.\.79\)"),  # values: read, then refused
    (lambda p: _npz(p, table_1=np.zeros((20, 4)), table_2=np.zeros((20, 16)), bias=0.0, alphabet="dna"),
     r"the order-2 table has shape \(20, 16\); a model of sequences of length 20 needs \(19, 16\); the file was "
     r"altered"),
    (lambda p: _npz(p, table_1=np.zeros((20, 4)), bias=0.0, alphabet="dna",
                    metadata=np.array("[" * 200_000 + "]" * 200_000)),
     r"its metadata is nested 200000 levels deep, more than the 64 a seqimp file holds"),
    (lambda p: _npz(p, table_1=np.zeros((20, 4)), bias=0.0, alphabet="dna", metadata=np.array("x" * (2 << 20))),
     r"its metadata entry is <U2097152, not a JSON string of at most 1,048,576 characters"),
    (lambda p: _bomb(p, "table_2", (19, 2 ** 16), dict(table_1=np.zeros((20, 4)), bias=0.0, alphabet="dna")),
     r"the order-2 table has shape \(19, 65536\); a model of sequences of length 20 needs \(19, 16\)"),
])
def test_model_files_that_lie_are_refused_with_one_line(tmp_path, capsys, monkeypatch, make, message):
    model = make(tmp_path / "m.npz")
    if "sparse index" not in message and "nested" not in message:  # these need the values; the rest, headers only
        monkeypatch.setattr("seqimp.kernels._weights.PositionalWeights.load",
                            lambda *a: pytest.fail("arrays read before the header check"))
    before = listing(tmp_path)
    assert main(["poim", "--model", str(model), "--background", "uniform", "--out", str(tmp_path / "o")]) == 2
    one_error(capsys, rf"^seqimp: error: {model}: {message}")
    assert listing(tmp_path) == before


def test_a_sparse_index_of_minus_one_is_refused_by_the_library(tmp_path):
    from seqimp.errors import SeqimpError
    from seqimp.kernels import PositionalWeights

    model = _npz(tmp_path / "m.npz", sparse_1_shape=np.array([20, 4]), sparse_1_index=np.array([-1]),
                 sparse_1_value=np.array([1.0]), bias=0.0, alphabet="dna")
    with pytest.raises(SeqimpError, match=r"the order-1 table is damaged \(sparse index -1 outside 0\.\.79\)"):
        PositionalWeights.load(model)


def test_a_poim_file_larger_than_memory_is_refused_before_reading(tmp_path, capsys, monkeypatch, poim_folder):
    monkeypatch.setattr("seqimp._sizes._free_ram", lambda: 1 << 16)
    out = tmp_path / "m"
    assert motifs(out, "--poim", str(poim_folder / "poim.npz")) == 2
    one_error(capsys, rf"^seqimp: error: --poim {poim_folder / 'poim.npz'}: its arrays take [\d.]+ [KM]iB once read "
                      r"\(.*\), more than the 64 KiB of memory available$")
    assert not out.exists()


def test_npz_headers_read_shapes_without_inflating(tmp_path):
    from seqimp._npz import npz_headers

    bomb = _bomb(tmp_path / "b.npz", "big", (2 ** 14, 1024), {"small": np.arange(3)})
    assert bomb.stat().st_size < 1 << 20  # 128 MiB of zeros, deflated
    headers = npz_headers(bomb)
    assert headers["big"][0] == (2 ** 14, 1024) and headers["small"][0] == (3,)


# ----- faults: options beyond range, low memory ----------------------------------------------------------

def test_position_origin_beyond_int64_is_one_line(tmp_path, capsys):
    out = tmp_path / "res"
    assert poim(out, "--position-origin", str(2 ** 70)) == 2
    one_error(capsys, r"^seqimp: error: argument --position-origin: must be an integer in "
                      r"\[-1000000000000000, 1000000000000000\], got 1180591620717411303424")
    assert not out.exists()


def test_a_tiny_max_memory_is_one_line_in_the_options_words(tmp_path, capsys):
    out = tmp_path / "res"
    assert poim(out, "--max-memory", "0.0000001") == 2
    line = one_error(capsys, r"^seqimp: error: argument --max-memory: expected a size such as 4G, 500M, 1\.5GiB or a "
                             r"number of bytes, got '0\.0000001'")
    assert "max_memory" not in line
    assert not out.exists()


def test_running_out_of_memory_mid_run_is_one_line_and_leaves_the_folder(tmp_path, capsys, monkeypatch, poim_folder):
    out = _copy(poim_folder, tmp_path / "res")
    before = listing(out)

    def exhausted(*_args, **_kwargs):
        raise MemoryError("Unable to allocate 12.0 GiB for an array with shape (40000, 40000)")

    monkeypatch.setattr("seqimp.pipeline._poim_run.write_summary", exhausted)
    assert poim(out, "--no-motifs") == 2
    one_error(capsys, r"^seqimp: error: out of memory \(Unable to allocate 12\.0 GiB")
    assert listing(out) == before  # no staging folder, no lock


def _limited(limit):
    import resource

    def preexec():
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    return preexec


def test_a_memory_limit_below_the_floor_is_one_line_and_leaves_nothing(tmp_path):
    out = tmp_path / "res"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("OPENBLAS_NUM_THREADS", None)
    run = subprocess.run([sys.executable, "-m", "seqimp", "poim", "--positive", POS, "--negative", NEG, "--out",
                          str(out), *FAST], env=env, capture_output=True, text=True, timeout=120,
                         preexec_fn=_limited(400 << 20))
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == ["seqimp: error: the memory limit (ulimit -v) is 400 MiB; seqimp needs at "
                                       "least 1 GiB of address space to load its numerical libraries; raise the "
                                       "limit (ulimit -v) and run again; nothing was written"]
    assert not out.exists()


def test_under_a_memory_limit_budgets_and_blas_threads_follow_it():
    code = ("import os, seqimp.cli; from seqimp._sizes import available_memory; "
            "print(os.environ['OPENBLAS_NUM_THREADS'], available_memory() < 3 << 30)")
    run = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         capture_output=True, text=True, timeout=120, preexec_fn=_limited(3 << 30))
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1", "True"]


# ----- determinism and scorers --------------------------------------------------------------------------

def test_match_logos_are_byte_identical_across_reruns(tmp_path):
    for fmt in ("svg", "pdf"):
        runs = []
        for name in ("a", "b"):
            out = tmp_path / f"{fmt}{name}"
            assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q",
                         "--db", str(DATA / "toy_motifs.meme"), "--format", fmt]) == 0
            runs.append(listing(out))
        matched = [n for n in runs[0] if n.endswith(f"_match.{fmt}")]
        assert matched, sorted(runs[0])
        assert runs[0] == runs[1]


SCORERS = """\
import sys
def exits(X):
    sys.exit(0)
def strings(X):
    return ["high"] * len(X)
def ragged(X):
    return [[1.0], [1.0, 2.0]] * (len(X) // 2)
"""


@pytest.mark.parametrize("name, message", [
    ("exits", r"--scorer '.*:exits' raised SystemExit: 0$"),
    ("strings", r"--scorer '.*:strings' returned strings, not real numbers; it must return one real score per "
                r"sequence, shape \(n,\)$"),
    ("ragged", r"--scorer '.*:ragged' returned list that is not an array of numbers"),
])
def test_scorers_that_exit_or_return_non_numbers_are_one_line(tmp_path, capsys, name, message):
    scorer = tmp_path / "scorers.py"
    scorer.write_text(SCORERS)
    out = tmp_path / "res"
    assert main(["poim", "--scorer", f"{scorer}:{name}", "--positive", POS, "--negative", NEG, "--out", str(out),
                 "--max-order", "2", "--n-samples", "20", "-q"]) == 2
    one_error(capsys, rf"^seqimp: error: {message}")
    assert not out.exists()


def test_control_characters_in_motif_names_are_escaped_on_the_terminal(tmp_path, capsys):
    db = tmp_path / "evil.meme"
    db.write_text((DATA / "toy_motifs.meme").read_text().replace("MOTIF toy.GATTACA GATTACA",
                                                                 "MOTIF toy.\x1b[2J\x1b]0;owned\x07GATTACA GATTACA"))
    out = tmp_path / "res"
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q",
                 "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "\x07" not in captured.out + captured.err
    assert "toy.\\x1b[2J\\x1b]0;owned\\x07GATTACA" in captured.out
    assert "\x1b[2J" in (out / "matches.tsv").read_text()  # the files keep the name as it is


def test_an_onnx_model_with_a_fixed_batch_of_one_scores_every_sequence(tmp_path):
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    from seqimp.scorers import OnnxScorer, onehot

    length = 6
    w = np.random.default_rng(0).integers(-8, 9, size=(4 * length, 1)).astype(np.float32) / 4
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "flat"], ["f"]), helper.make_node("MatMul", ["f", "w"], ["y"])], "fixed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, length, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])],
        [numpy_helper.from_array(np.array([1, -1], np.int64), "flat"), numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "fixed.onnx"
    path.write_bytes(model.SerializeToString())
    codes = np.random.default_rng(1).integers(0, 4, size=(5, length)).astype(np.uint8)
    scorer = OnnxScorer(path, layout="NLC")
    np.testing.assert_allclose(scorer(codes), (onehot(codes) @ w).ravel(), atol=1e-6)
