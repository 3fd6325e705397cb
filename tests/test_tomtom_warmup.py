"""TOMTOM's background compilation (seqimp.motifs.known._compare.tomtom_warmup): started only when a run
will compare with a database and the kernels are not cached; awaited by database_matches; a failed
compilation falls back to compiling in the run's process; no process outlives the block, also when
the run is interrupted. No test depends on timing: the background command is replaced by tiny
Python commands, except the one that checks the warm-up's call has the types of seqimp's own."""

import logging
import sys
from pathlib import Path

import pytest

import seqimp.motifs.known._compare as compare
from seqimp.motifs import load_database, read_motifs
from seqimp.motifs.known._compare import WAIT_NOTICE, database_matches, tomtom_warmup

DATA = Path(__file__).resolve().parent / "data"


def _command(monkeypatch, code):
    monkeypatch.setattr(compare, "tomtom_compiled", lambda: False)
    monkeypatch.setattr(compare, "_warmup_command", lambda: [sys.executable, "-c", code])


def test_not_started_without_a_database_or_when_compiled(monkeypatch):
    _command(monkeypatch, "raise SystemExit(1)")
    with tomtom_warmup(False) as warmup:
        assert warmup.process is None and warmup.wait() is False
    monkeypatch.setattr(compare, "tomtom_compiled", lambda: True)
    with tomtom_warmup(True) as warmup:
        assert warmup.process is None
    assert compare._WARMUPS == []


def test_started_when_needed_and_awaited_by_the_match(monkeypatch, caplog):
    _command(monkeypatch, "import time; time.sleep(0.5)")
    db = load_database(DATA / "toy_motifs.meme")
    motifs = read_motifs(DATA / "toy_motifs.meme")[:1]
    with caplog.at_level(logging.INFO, logger="seqimp.motifs.known._compare"):
        with tomtom_warmup(True) as warmup:
            assert warmup.process is not None and warmup.process.poll() is None  # still sleeping
            with pytest.warns(UserWarning):  # memelite: fewer than 25 targets
                database_matches(motifs, db)
            assert warmup.process.returncode == 0  # the match waited for it
            assert warmup.wait() is True  # once done, asking again does not wait or log again
    assert sum(r.getMessage() == WAIT_NOTICE for r in caplog.records) == 1
    assert compare._WARMUPS == []


def test_failed_warmup_falls_back_to_compiling_in_process(monkeypatch, caplog):
    db = load_database(DATA / "toy_motifs.meme")
    motifs = read_motifs(DATA / "toy_motifs.meme")[:2]
    with pytest.warns(UserWarning):
        alone = database_matches(motifs, db)
    _command(monkeypatch, "import sys; sys.stderr.write('numba says no\\n'); sys.exit(3)")
    with caplog.at_level(logging.INFO, logger="seqimp.motifs.known._compare"):
        with tomtom_warmup(True) as warmup:
            with pytest.warns(UserWarning):
                matches = database_matches(motifs, db)
            assert warmup.wait() is False
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert len(failed) == 1
    assert failed[0] == ("the background compilation of TOMTOM failed (exit 3: numba says no); "
                         "compiling it in this process")
    assert matches.equals(alone)


def test_an_interrupted_run_leaves_no_process(monkeypatch):
    _command(monkeypatch, "import time; time.sleep(60)")
    with pytest.raises(KeyboardInterrupt):
        with tomtom_warmup(True) as warmup:
            assert warmup.process.poll() is None
            raise KeyboardInterrupt
    assert warmup.process.poll() is not None  # terminated and reaped, not left running
    assert compare._WARMUPS == []


def test_warmup_compiles_the_kernel_seqimp_calls():
    """The warm-up's tiny call and a real comparison need one compiled TOMTOM kernel between
    them (same argument types): what the background process caches is what the run loads."""
    compare._warm_up()
    tomtom = sys.modules["memelite.tomtom"]._tomtom
    motifs = read_motifs(DATA / "toy_motifs.meme")
    with pytest.warns(UserWarning):
        compare.compare_motifs(motifs[:2], motifs, n_decoys=2)
    assert len(tomtom.signatures) == 1


@pytest.mark.parametrize("argv, jaspar, needed", [
    (["--no-db"], True, False),                             # no match: nothing to compile
    (["--db", str(DATA / "toy_motifs.meme")], False, True),  # a database named
    ([], True, True),                                       # JASPAR through pyjaspar
    ([], False, False),                                     # no database at all: the demo says how to get one
])
def test_demo_starts_the_warmup_only_when_it_will_match(monkeypatch, tmp_path, argv, jaspar, needed):
    import seqimp.cli.demo as demo
    import seqimp.motifs.known._jaspar as jaspar_module
    from seqimp.cli import main

    asked = []
    monkeypatch.setattr(jaspar_module, "pyjaspar_available", lambda: jaspar)
    monkeypatch.setattr(compare, "tomtom_warmup", lambda need: asked.append(need) or compare.TomtomWarmup(False))
    monkeypatch.setattr(demo, "_run", lambda args: 0)  # the condition only, not a whole demo
    assert main(["demo", "--out", str(tmp_path / "out"), *argv]) == 0
    assert asked == [needed]
