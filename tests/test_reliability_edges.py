"""Adversarial cases of the command line, edges: what a user meets at the edges -- a
link out of the output folder, stray stderr lines, a signal as the process exits, optional extras
in the tests, letters beyond ASCII, control characters in figures, the positives-only hint. Every
case asserts the exit status, the one line it is about and what is on disk (a listing with
checksums before and after, tests/reliability_helpers.py)."""

import io
import logging
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from reliability_helpers import DATA, FAST, NEG, POS, ROOT, copy, listing, make_poim_folder, one_error, poim

from seqimp.cli import _output_folder, main
from seqimp.cli._logging import configure


@pytest.fixture(scope="module")
def poim_folder(tmp_path_factory):
    return make_poim_folder(tmp_path_factory)


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT))


# ----- output folders: links ----------------------------------------------------------------------------

def test_no_command_writes_through_a_link_out_of_its_folder(tmp_path, capsys, poim_folder):
    out, outside = copy(poim_folder, tmp_path / "res"), tmp_path / "outside"
    outside.mkdir()
    (outside / "mine.png").write_bytes(b"the user's")
    shutil.rmtree(out / "logos")
    (out / "logos").symlink_to(outside)
    before, before_outside = listing(out), listing(outside)
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q"]) == 2
    one_error(capsys, rf"^seqimp: error: --out {re.escape(str(out))}: logos is a symbolic link to "
                      rf"{re.escape(str(outside.resolve()))}, outside the folder, where this run writes "
                      r"logos/importance_logo\.png; move it away or choose another --out \(nothing written, the "
                      r"folder is unchanged\)$")
    assert listing(out) == before and listing(outside) == before_outside
    assert poim(out) == 2  # every command: the check is the commit's
    one_error(capsys, r"--out .*: logos is a symbolic link to .*, outside the folder, where this run writes logos/")
    assert listing(out) == before and listing(outside) == before_outside
    assert (out / "logos").is_symlink()


def test_a_link_inside_the_folder_is_written_into_and_one_out_of_it_is_not_emptied(tmp_path):
    out = tmp_path / "res"
    (out / "kept").mkdir(parents=True)
    (out / "logos").symlink_to(out / "kept")
    with _output_folder.output_dir(out, "x") as stage:
        (stage / "logos").mkdir()
        (stage / "logos" / "a.png").write_text("a")
    assert (out / "kept" / "a.png").read_text() == "a" and _output_folder.owned_files(out, "x") == ["logos/a.png"]
    outside = tmp_path / "outside"  # the earlier run's logos/ became a link out: its stale file is not removed
    shutil.move(out / "kept", outside)
    (out / "logos").unlink()
    (out / "logos").symlink_to(outside)
    before, before_outside = listing(out), listing(outside)
    with pytest.raises(Exception, match=r"logos is a symbolic link to .*, outside the folder, where this run "
                                        r"removes logos/a\.png; move it away"):
        with _output_folder.output_dir(out, "x") as stage:
            (stage / "b.tsv").write_text("b")
    assert listing(out) == before and listing(outside) == before_outside


# ----- stderr under -q ----------------------------------------------------------------------------------

def test_quiet_poim_of_order_one_gives_its_reason_once_on_stdout(tmp_path, capsys):
    out = tmp_path / "res"
    assert poim(out, "--max-order", "1") == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no unprefixed 'no motifs: ...' line beside the answer
    assert captured.out.count("a POIM of order 1 only") == 1
    assert "motifs: none (a POIM of order 1 only; motif candidates are peaks at orders 2 and up (--max-order 2 " \
           "or more))\n" in captured.out
    files = listing(out)
    assert "poim.npz" in files and "motifs.tsv" not in files


def test_a_library_warning_on_stderr_starts_with_seqimp(capsys):
    configure(quiet=True)
    try:
        logging.getLogger("seqimp.motifs.known._compare").warning("the background compilation of TOMTOM failed")
        logging.getLogger("seqimp.cli").warning("seqimp: warning: said by the command")
        logging.getLogger("seqimp.pipeline").info("a step, not shown under -q")
    finally:
        configure()
    assert capsys.readouterr().err.splitlines() == ["seqimp: warning: the background compilation of TOMTOM failed",
                                                    "seqimp: warning: said by the command"]


# ----- signals ------------------------------------------------------------------------------------------

EXITING = """\
import atexit, os, signal, sys, time
from seqimp.cli import main
# SIGTERM once the command is over, while the process exits (its exit functions run)
atexit.register(lambda: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(60)))
sys.argv = ["seqimp", *sys.argv[1:]]
main()
"""


def test_sigterm_as_the_process_exits_says_the_results_were_written(tmp_path, poim_folder):
    out = copy(poim_folder, tmp_path / "res")
    before = listing(out)
    done = subprocess.run([sys.executable, "-c", EXITING, "motifs", "--positive", POS, "--negative", NEG, "--out",
                           str(out), "--degree", "2", "-q"], env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 143
    assert done.stderr.splitlines() == [f"seqimp: motifs interrupted by SIGTERM as it exited; the results had been "
                                        f"written to {out} before it"]
    assert done.stdout.splitlines()[-1] == f"motifs: {out}/motifs.tsv"  # what it printed is all there
    after = listing(out)
    assert after != before and after["motifs_poim.npz"] and ".seqimp-motifs.json" in after
    assert not [name for name in after if name.startswith((".seqimp-staging", ".seqimp.lock", ".seqimp-journal"))]


# ----- the tests themselves: optional extras, the browser -----------------------------------------------

WITHOUT = """\
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None  # as if its extra were not installed: importing it raises ImportError
import pytest
sys.exit(pytest.main(sys.argv[2:]))
"""


@pytest.mark.parametrize("missing, extra", [("pyjaspar", "jaspar"), ("nbclient", "test")])
def test_a_test_that_needs_an_extra_skips_naming_it(missing, extra):
    done = subprocess.run([sys.executable, "-c", WITHOUT, missing, "-q", "-rs", "-p", "no:cacheprovider",
                           str(ROOT / "tests" / "test_tutorial.py")], cwd=ROOT, env=_env(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(rf"SKIPPED \[1\] tests/test_tutorial\.py:\d+: needs {missing}: pip install '\.\[{extra}\]'",
                     done.stdout), done.stdout[-3000:]
    assert "1 passed, 1 skipped" in done.stdout


def test_the_browser_test_runs_chromium_headless_or_says_why_not(tmp_path, monkeypatch):
    import test_report_browser

    fake = tmp_path / "chromium"  # Debian's full chromium without --headless and without a display
    fake.write_text('#!/bin/sh\necho "$@" > "$(dirname "$0")/args"\n'
                    'echo "ERROR:ozone_platform_x11.cc(250)] Missing X server or \\$DISPLAY" >&2\nexit 1\n')
    fake.chmod(0o755)
    monkeypatch.setattr(test_report_browser, "BROWSERS", (str(fake),))
    (tmp_path / "page").mkdir()
    with pytest.raises(pytest.skip.Exception, match=r"chromium --headless printed no page \(exit status 1: "
                                                    r"ERROR:.*Missing X server or \$DISPLAY\)$"):
        test_report_browser.test_motifs_on_the_first_screen_and_no_table_wider_than_the_page(tmp_path / "page")
    assert "--headless" in (tmp_path / "args").read_text().split()


# ----- inputs: letters beyond ASCII ---------------------------------------------------------------------

def test_a_letter_beyond_ascii_in_a_fasta_record_is_named(tmp_path, capsys):
    lines = Path(POS).read_text().splitlines()
    lines[5] = lines[5][:9] + "é" + lines[5][10:]  # record pos3, position 10: two bytes, one letter
    bad = tmp_path / "pos.fa"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = listing(tmp_path)
    assert main(["poim", "--positive", str(bad), "--negative", NEG, "--out", str(tmp_path / "res"), *FAST]) == 2
    one_error(capsys, r"^seqimp: error: .*pos\.fa: record 'pos3': invalid symbol 'é' \(U\+00E9\) at position 10 "
                      r"\(alphabet dna: ACGT\); N or IUPAC codes \(NRYSWKMBDHV\) are read as unknown; drop records "
                      r"with other symbols with --skip-invalid$")
    assert listing(tmp_path) == before
    assert main(["inspect", str(bad)]) == 0
    assert "other symbols: é(U+00E9)=1 in 1 of 100 records (characters beyond ASCII" in capsys.readouterr().out


def test_a_letter_beyond_ascii_in_a_table_is_named_not_shown_as_a_question_mark(tmp_path, capsys):
    table = tmp_path / "t.tsv"
    table.write_text("sequence\tvalue\nACGTACGT\t1.0\nACGéACGT\t2.0\nACGTTCGT\t0.5\n", encoding="utf-8")
    before = listing(tmp_path)
    assert main(["poim", "--table", str(table), "--value-column", "value", "--out", str(tmp_path / "res"),
                 "--degree", "2", "-q"]) == 2
    line = one_error(capsys, r"^seqimp: error: --table .*t\.tsv: line 3: invalid symbol 'é' \(U\+00E9\) at "
                             r"position 4 \(alphabet dna: ACGT\)$")
    assert "?" not in line
    assert listing(tmp_path) == before


# ----- figures: control characters in names -------------------------------------------------------------

def test_control_characters_in_a_motif_name_are_shown_escaped_in_figures(tmp_path, capsys):
    db = tmp_path / "bell.meme"
    db.write_text((DATA / "toy_motifs.meme").read_text().replace("MOTIF toy.GATTACA", "MOTIF toy\x07bell"))
    out = tmp_path / "scan"
    assert main(["scan", "--db", str(db), "--fasta", POS, "--out", str(out), "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no 'Glyph 7 missing from font(s)' warning
    assert "\x07" not in captured.out and "toy\\x07bell" in captured.out  # the terminal too
    assert {"scan.tsv", "scan_positions.png", "report.html"} <= set(listing(out))


def test_a_logo_titles_a_control_character_as_an_escape_and_draws_without_warning():
    import matplotlib.pyplot as plt

    from seqimp.motifs import Motif
    from seqimp.plot import logo

    pwm = np.full((5, 4), 0.1)
    pwm[np.arange(5), [0, 1, 2, 3, 0]] = 0.7
    ax = logo(Motif("bell\x07name\x1b[31m", pwm, start=3))
    assert ax.get_title() == "bell\\x07name\\x1b[31m: ACGTA at 3"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax.figure.savefig(io.BytesIO(), format="png")
    plt.close(ax.figure)


# ----- messages: the positives-only hint ----------------------------------------------------------------

def test_positives_alone_name_negatives_shuffle_which_works(tmp_path, capsys):
    before = listing(tmp_path)
    assert main(["poim", "--positive", POS, "--out", str(tmp_path / "p")]) == 2
    one_error(capsys, r"^seqimp: error: --positive and --negative are required \(or --positive with --negatives "
                      r"shuffle, ")
    assert listing(tmp_path) == before
    out = tmp_path / "m"  # what the hint names works, and seqimp motifs takes positives alone (shuffled controls)
    assert main(["motifs", "--positive", POS, "--negatives", "shuffle", "--out", str(out), "--degree", "2",
                 "-q"]) == 0
    assert "motifs.tsv" in listing(out)
