"""seqimp.find_motifs, the notebook's front door for motifs (contract): a POIM, a fitted WD model
or a fitted gkm model, and the positives and negatives as strings or SequenceSets -> a MotifRun.

Fixture: tests/data/planted_{pos,neg}.fa, 100 + 100 random 30-nt sequences; the positives carry
GATTACA at 1-based positions 11-17 (one random base replaced in ~20% of them)."""

from pathlib import Path

import numpy as np
import pytest

import seqimp
from seqimp.errors import SeqimpError

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def planted():
    return seqimp.read_fasta(DATA / "planted_pos.fa"), seqimp.read_fasta(DATA / "planted_neg.fa")


@pytest.fixture(scope="module")
def wd_model(planted):
    pos, neg = planted
    X = np.vstack([pos.codes, neg.codes])
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    return seqimp.WDClassifier(degree=4).fit(X, y)


def test_from_a_poim_with_strings_equals_the_run_of_the_pipeline(planted, wd_model):
    from seqimp.io._labelled import encode_labelled
    from seqimp.motifs.search._poim_route import poim_motifs
    from seqimp.options import MotifOptions

    pos, neg = planted
    bg = seqimp.MarkovBackground(order=0).fit(neg.codes)
    res = seqimp.poim(wd_model.positional_weights(), bg, 4)
    run = seqimp.find_motifs(res, pos.sequences(), neg.sequences())
    assert [m.consensus for m in run.motifs][:1] == ["GATTACA"]
    assert run.motifs[0].start == 11 and run.matches is None and len(run.sites)
    same = poim_motifs(res, encode_labelled(pos, neg), options=MotifOptions(strand="given"), random_state=0)
    assert [m.consensus for m in run.motifs] == [m.consensus for m in same.motifs]
    np.testing.assert_array_equal(run.motifs[0].pwm, same.motifs[0].pwm)
    assert run.parameters["seed"] == 0 and "<table" in run._repr_html_()


@pytest.mark.filterwarnings("ignore:tomtom was given")
def test_from_a_fitted_wd_model_and_with_a_database(planted, wd_model):
    pos, neg = planted
    run = seqimp.find_motifs(wd_model, pos, neg, database=DATA / "toy_motifs.meme", strand="both")
    assert run.motifs[0].consensus == "GATTACA"
    assert run.parameters["strand"] == "both"
    best = run.matches[run.matches["query"] == run.motifs[0].name].iloc[0]
    assert best["target"] == "toy.GATTACA"


def test_from_a_fitted_gkm_model(planted):
    pos, neg = planted
    X = np.vstack([pos.codes, neg.codes])
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    gkm = seqimp.GKMClassifier(7, 5).fit(X, y)
    run = seqimp.find_motifs(gkm, pos, neg, strand="both")
    assert run.motifs and run.motifs[0].position_free
    assert "GATTACA" in run.motifs[0].consensus or "TGTAATC" in run.motifs[0].consensus


def test_bad_inputs_name_what_is_wrong(planted, wd_model):
    pos, neg = planted
    with pytest.raises(SeqimpError, match="must be a POIM .* got str"):
        seqimp.find_motifs("model.npz", pos, neg)
    with pytest.raises(SeqimpError, match="WDClassifier is not fitted"):
        seqimp.find_motifs(seqimp.WDClassifier(degree=3), pos, neg)
    with pytest.raises(SeqimpError, match="give the positive and the negative"):
        seqimp.find_motifs(wd_model, pos, None)
    with pytest.raises(SeqimpError, match="length 30, the sequences have length 3"):
        seqimp.find_motifs(wd_model, ["ACG"] * 5, ["TTT"] * 5)


def test_a_later_rounds_poim_candidates_that_copy_a_reported_motif_are_not_refined(planted, wd_model, caplog):
    """Round 2 on the same POIM with GATTACA reported: its peak is left out before refinement
    (logged, not counted as a test), and where every candidate is such a copy the round reports
    nothing, without error; a reported motif unlike any candidate leaves out none."""
    import logging

    from seqimp.io._labelled import encode_labelled
    from seqimp.motifs import Motif
    from seqimp.motifs.search._poim_route import poim_motifs
    from seqimp.options import MotifOptions

    pos, neg = planted
    bg = seqimp.MarkovBackground(order=0).fit(neg.codes)
    res = seqimp.poim(wd_model.positional_weights(), bg, 4)
    data, options = encode_labelled(pos, neg), MotifOptions(strand="given", scan_pwm=False)
    first = poim_motifs(res, data, options=options, random_state=0)
    assert [m.consensus for m in first.motifs] == ["GATTACA"]
    with caplog.at_level(logging.INFO, logger="seqimp"):
        again = poim_motifs(res, data, options=options, random_state=0, round=2, accepted=first.motifs)
    assert again.motifs == [] and again.tested == 0
    assert "left out as copies of motifs already reported: GATTACA at 11 (motif1) (round 2)" in caplog.text
    pwm = np.full((6, 4), 0.01)
    pwm[:, 1] = 0.97
    other = Motif("motif1", pwm / pwm.sum(1, keepdims=True), start=20)  # CCCCCC: no candidate's copy
    kept = poim_motifs(res, data, options=options, random_state=0, round=2, accepted=[other])
    assert [m.consensus for m in kept.motifs] == ["GATTACA"] and kept.tested == first.tested
