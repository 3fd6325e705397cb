"""Helpers of the reliability catalogue (tests/test_reliability_folders.py and
tests/test_reliability_inputs.py): the listing with checksums a case compares before and
after, the one-error-line check, short runs of the commands, and a shared poim folder."""

import errno
import hashlib
import re
import shutil
from pathlib import Path

from seqimp.cli import main

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


def linked(folder: Path) -> list:
    """The files the report links to (href="..."), relative to ``folder``."""
    return re.findall(r'href="([^"#:]+)"', (folder / "report.html").read_text())


def copy(folder, to):
    shutil.copytree(folder, to)
    return to


def make_poim_folder(tmp_path_factory):
    """A 'seqimp poim' folder with its motifs and sites (each module's ``poim_folder`` fixture;
    copied by each case that writes into it)."""
    out = tmp_path_factory.mktemp("poim") / "res"
    assert poim(out) == 0
    return out
