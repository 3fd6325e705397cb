"""Tests of seqimp.pipeline.run_motifs (the library form of ``seqimp motifs``) and of the
TOMTOM compile notice."""

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from seqimp._utils.tables import write_tsv

from seqimp.errors import SeqimpError
from seqimp.importance import POIMResult
from seqimp.io import read_fasta
from seqimp.motifs import Motif, implied_poim, read_motifs
from seqimp.motifs.known import _compare
from seqimp.motifs.known._compare import COMPILE_NOTICE
from seqimp.importance import load_poim
from seqimp.io._labelled import encode_labelled
from seqimp.motifs.search._poim_route import poim_motifs
from seqimp.options import ImportanceOptions, ModelOptions, MotifOptions, OutputOptions
from seqimp.pipeline import MotifRun, run_motifs, run_poim
from seqimp.pipeline._motif_files import update_report

DATA = Path(__file__).resolve().parent / "data"

# memelite warns that 8 toy targets are few for its p-values; that is expected here
pytestmark = pytest.mark.filterwarnings("ignore:tomtom was given:UserWarning")


@pytest.fixture(scope="module")
def synthetic():
    """A POIM implied by two planted motifs, TTGACA at 8 and TATAAT at 25 (1-based), L = 40."""
    truth = [Motif.from_consensus("a", "TTGACA", purity=0.9, start=8),
             Motif.from_consensus("b", "TATAAT", purity=0.9, start=25)]
    tables = implied_poim(truth, 40, 4)
    return POIMResult(tables, tables, expected_score=0.0, score_std=1.0)


@pytest.fixture(scope="module")
def planted():
    return read_fasta(DATA / "planted_pos.fa"), read_fasta(DATA / "planted_neg.fa")


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name.startswith("seqimp")]


def test_run_motifs_from_a_poim_result(tmp_path, synthetic):
    (tmp_path / "m").mkdir()
    run = run_motifs(tmp_path / "m", poim=synthetic, output=OutputOptions(fmt="svg"))
    assert isinstance(run, MotifRun) and run.result is synthetic and run.matches is None
    assert {m.consensus for m in run.motifs} == {"TTGACA", "TATAAT"}
    assert sorted(m.start for m in run.motifs) == [8, 25]
    names = sorted(str(p.relative_to(tmp_path / "m")) for p in (tmp_path / "m").rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(tmp_path / "m")) for p in run.files)
    assert {"motifs.meme", "motifs.jaspar", "motifs.transfac", "motifs.tsv", "motif_candidates.tsv",
            "logos/importance_logo.svg"} <= set(names)
    assert "motifs_poim.npz" not in names and "matches.tsv" not in names
    assert [m.consensus for m in read_motifs(tmp_path / "m" / "motifs.meme")] == [m.consensus for m in run.motifs]
    assert (tmp_path / "m" / "motifs.tsv").read_text() == write_tsv(run.table())
    assert (tmp_path / "m" / "motif_candidates.tsv").read_text() == write_tsv(run.candidates)


def test_run_motifs_trains_computes_and_counts_sites(tmp_path, planted, caplog):
    pos, neg = planted
    with caplog.at_level(logging.INFO, logger="seqimp"):
        run = run_motifs(tmp_path, positive=pos, negative=neg, model=ModelOptions(degree=3), random_state=0,
                         motifs=MotifOptions(database=DATA / "toy_motifs.transfac", top_matches=2))
    best = run.motifs[0]
    assert best.consensus == "GATTACA" and best.start == 11 and best.sites > 50
    assert run.result.max_order == 3
    np.testing.assert_array_equal(load_poim(tmp_path / "motifs_poim.npz").poim[2], run.result.poim[2])
    rows = run.matches.to_dict("records")
    assert rows[0]["query"] == best.name and rows[0]["target"] == "toy.GATTACA" and rows[0]["significant"]
    assert (tmp_path / "matches.tsv").read_text() == write_tsv(run.matches)
    assert (tmp_path / "logos" / f"{best.name}_match.png").stat().st_size > 1000  # query above target, aligned
    messages = _messages(caplog)
    assert messages[0].startswith("training a WD classifier (degree 3")
    assert "computing POIM and FIRM up to order 3 (order-0 homogeneous Markov chain fitted on the negative " \
           "sequences (100 sequences))" in messages
    assert "comparing 1 motif(s) with 8 known motifs (TOMTOM)" in messages
    assert not any("report updated" in m for m in messages)  # no 'seqimp poim' folder


def test_run_motifs_updates_a_poim_report(tmp_path, planted):
    """Motifs found later in a 'seqimp poim' folder: its summary gains the best motif and the report
    is rewritten from that summary, as 'seqimp poim' with motifs writes it in one go."""
    pos, neg = planted
    poim_run = run_poim(tmp_path, pos, neg, model=ModelOptions(degree=2), importance=ImportanceOptions(max_order=3),
                        output=OutputOptions(top=3), random_state=0)
    assert 'id="motifs"' not in (tmp_path / "report.html").read_text()
    run = run_motifs(tmp_path, poim=tmp_path / "poim.npz", positive=pos, negative=neg)
    assert run.result.max_order == poim_run.result.max_order
    assert 'id="motifs"' in (tmp_path / "report.html").read_text()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["best_motif"]["consensus"] == run.motifs[0].consensus
    assert summary["timings"] == pytest.approx(poim_run.summary["timings"])  # the earlier run's record, kept
    assert update_report(tmp_path / "logos", run) is None  # not a 'seqimp poim' folder
    together = tmp_path / "together"
    together.mkdir()
    one_go = run_poim(together, pos, neg, model=ModelOptions(degree=2), importance=ImportanceOptions(max_order=3),
                      motifs=MotifOptions(), output=OutputOptions(top=3), random_state=0)
    assert one_go.motifs.table().equals(run.table())
    assert (together / "report.html").read_text() == (tmp_path / "report.html").read_text()


def test_run_motifs_bad_input(tmp_path, planted, synthetic, caplog):
    pos, neg = planted
    with pytest.raises(SeqimpError, match=r"give both positive and negative sequences"):
        run_motifs(tmp_path, positive=pos)
    with pytest.raises(SeqimpError, match=r"positive and negative sequences are required"):
        run_motifs(tmp_path)
    with pytest.raises(SeqimpError, match=r"positive sequences have length 30, but the POIM describes sequences "
                                          r"of length 40"):
        run_motifs(tmp_path, poim=synthetic, positive=pos, negative=neg)
    with pytest.raises(SeqimpError, match=r"missing\.npz: no such file"):
        run_motifs(tmp_path, poim=tmp_path / "missing.npz")
    with pytest.raises(SeqimpError, match=r"^--poim DIR: is a directory, expected a POIM result file \(\.npz\)$"):
        load_poim(tmp_path, name="--poim DIR")
    (tmp_path / "not.npz").write_text(">a\nACGT\n")
    with pytest.raises(SeqimpError, match=r"^--poim x: not a POIM result file \(poim\.npz of 'seqimp poim', or a "
                                          r"saved POIMResult\)$"):
        load_poim(tmp_path / "not.npz", name="--poim x")
    with caplog.at_level(logging.INFO, logger="seqimp"):
        with pytest.raises(SeqimpError, match=r"max_order must lie in 1\.\.30"):
            run_motifs(tmp_path, positive=pos, negative=neg, model=ModelOptions(degree=3),
                       importance=ImportanceOptions(max_order=31))
    assert "training" not in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not.npz"]  # nothing written


def test_tomtom_compiled_reads_the_numba_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(_compare, "_tomtom_cache_dir", lambda: tmp_path)
    assert not _compare.tomtom_compiled()  # empty cache
    (tmp_path / "fimo.logaddexp2-16.py311.nbi").write_text("")  # another module's kernel
    assert not _compare.tomtom_compiled()
    (tmp_path / "tomtom._tomtom-2492.py311.nbi").write_text("")
    assert _compare.tomtom_compiled()
    monkeypatch.setattr(_compare, "_tomtom_cache_dir", lambda: None)
    assert _compare.tomtom_compiled()  # cannot tell: no notice


def test_the_cache_folder_is_found():
    assert isinstance(_compare._tomtom_cache_dir(), Path)  # memelite.tomtom's numba cache folder


@pytest.mark.parametrize("empty", [True, False])
def test_compile_notice_only_on_an_empty_cache(tmp_path, synthetic, monkeypatch, caplog, empty):
    (tmp_path / "cache").mkdir()
    if not empty:
        (tmp_path / "cache" / "tomtom._tomtom-1.py311.nbi").write_text("")
    monkeypatch.setattr(_compare, "_tomtom_cache_dir", lambda: tmp_path / "cache")
    with caplog.at_level(logging.INFO, logger="seqimp"):
        (tmp_path / "m").mkdir(exist_ok=True)
        run = run_motifs(tmp_path / "m", poim=synthetic, motifs=MotifOptions(database=DATA / "toy_motifs.transfac"))
    messages = _messages(caplog)
    assert (COMPILE_NOTICE in messages) == empty
    if empty:
        assert messages.count(COMPILE_NOTICE) == 1
        assert messages.index(COMPILE_NOTICE) == messages.index(
            "comparing 2 motif(s) with 8 known motifs (TOMTOM)") + 1
    assert len(run.matches) > 0


def test_motifs_not_enriched_held_out_are_dropped(synthetic, caplog):
    """The POIM shows TTGACA at 8 and TATAAT at 25; the sequences carry only TATAAT. TTGACA's
    refinement fits something to the positives, which is not enriched held out (at 1e-3: by
    chance with probability about 1e-3) and dropped. Where no motif passes (a level of 0),
    none is reported ("no motif" is an answer) and the log gives the best candidate's figures."""
    rng = np.random.default_rng(3)
    neg = rng.integers(0, 4, (120, 40)).astype(np.uint8)
    pos = rng.integers(0, 4, (120, 40)).astype(np.uint8)
    pos[:80, 24:30] = [3, 0, 3, 0, 0, 3]                      # TATAAT at 25 in 2/3 of them
    with caplog.at_level(logging.INFO, logger="seqimp"):
        run = poim_motifs(synthetic, encode_labelled(pos, neg), options=MotifOptions(max_held_out_pvalue=1e-3,
                                                                                            strand="given"))
    assert [m.consensus for m in run.motifs] == ["TATAAT"]
    stats = run.table().iloc[0]
    assert float(stats["held_out_p_value"]) < 1e-10 and run.parameters["max_held_out_pvalue"] == 1e-3
    assert stats["log10_held_out_p_value"] < -10 and stats["score"] == -stats["log10_held_out_p_value"]
    assert any("held out (p = " in m and m.endswith("; not reported") for m in _messages(caplog))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="seqimp"):
        run = poim_motifs(synthetic, encode_labelled(pos, neg), options=MotifOptions(max_held_out_pvalue=0.0))
    assert run.motifs == [] and len(run.table()) == 0 and len(run.sites) == 0
    assert run.lines() == ["no motif found: no candidate's sites are enriched in the positives and held out (the "
                           "best candidate's figures are in the log)"]
    last = _messages(caplog)[-1]
    assert last.startswith("no motif found: no candidate's sites are enriched") and "the best candidate, TATAAT" in last
