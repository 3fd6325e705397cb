"""The motifs a run reports (seqimp.motifs.select_motifs): the enrichment thresholds, copies
merged, the fallback when no motif is enriched and the names renumbered, on hand-built
refinements."""

import logging

import numpy as np
import pandas as pd
import pytest

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, MotifSites, select_motifs

NAN = float("nan")


def _refined(rows):
    """A MotifSites of motifs given as ``(name, consensus, start, sites, p_value,
    held_out_p_value)``, strongest first; every motif has one site row per site."""
    motifs, stats, sites = [], [], []
    for name, consensus, start, n, p, held in rows:
        motifs.append(Motif.from_consensus(name, consensus, purity=0.9, start=start, sites=n))
        stats.append({"name": name, "sites": n, "positives": 100, "fraction_positive": n / 100, "negative_sites": 1,
                      "fraction_negative": 0.01, "p_value": p, "plus_strand": 1.0, "threshold": 3.0,
                      "held_out_sites": n // 2, "held_out_negative_sites": 1, "held_out_p_value": held})
        sites += [(name, i, f"pos{i + 1}", start, "+", 5.0) for i in range(n)]
    return MotifSites(motifs, pd.DataFrame(stats),
                      pd.DataFrame(sites, columns=["motif", "sequence", "id", "position", "strand", "score"]))


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name.startswith("seqimp")]


def test_a_motif_needs_enough_sites_and_both_p_values_at_most_the_levels(caplog):
    refined = _refined([("candidate1", "TTGACA", 10, 5, 1e-3, 0.05),     # every level reached exactly: kept
                        ("candidate2", "GGGCCC", 30, 4, 1e-9, 1e-9),     # 4 sites
                        ("candidate3", "TATAAT", 50, 40, 2e-3, 1e-9),    # p above 1e-3
                        ("candidate4", "CACGTG", 70, 40, 1e-9, 0.06),    # held out p above 0.05
                        ("candidate5", "GATAAG", 90, 40, 1e-9, NAN)])    # no held-out test
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(refined)
    assert [m.consensus for m in kept.motifs] == ["TTGACA"]
    messages = _messages(caplog)
    assert messages == [
        ("candidate2 (GGGCCC at 30): sites in 4 positives (p = 1.0e-09), 2 positives against 1 negatives held out "
         "(p = 1.0e-09); not reported"),
        ("candidate3 (TATAAT at 50): sites in 40 positives (p = 0.002), 20 positives against 1 negatives held out "
         "(p = 1.0e-09); not reported"),
        ("candidate4 (CACGTG at 70): sites in 40 positives (p = 1.0e-09), 20 positives against 1 negatives held out "
         "(p = 0.06); not reported"),
        ("candidate5 (GATAAG at 90): sites in 40 positives (p = 1.0e-09), 20 positives against 1 negatives held out "
         "(p = nan); not reported")]
    looser = select_motifs(refined, max_pvalue=1e-2, max_held_out_pvalue=0.1, min_sites=4)
    assert [m.consensus for m in looser.motifs] == ["TTGACA", "GGGCCC", "TATAAT", "CACGTG"]


def test_kept_motifs_are_renamed_in_their_order_with_their_stats_and_sites():
    refined = _refined([("candidate3", "TTGACA", 10, 6, 1e-9, 1e-9),
                        ("candidate1", "GGGCCC", 30, 7, 1.0, 1.0),       # dropped
                        ("candidate2", "TATAAT", 50, 8, 1e-9, 1e-9)])
    kept = select_motifs(refined)
    assert [(m.name, m.consensus, m.start, m.sites) for m in kept.motifs] == [("motif1", "TTGACA", 10, 6),
                                                                              ("motif2", "TATAAT", 50, 8)]
    np.testing.assert_array_equal(kept.motifs[1].pwm, refined.motifs[2].pwm)
    assert list(kept.stats["name"]) == ["motif1", "motif2"] and list(kept.stats.index) == [0, 1]
    assert list(kept.stats["sites"]) == [6, 8]
    assert list(kept.sites["motif"]) == ["motif1"] * 6 + ["motif2"] * 8
    assert list(kept.sites.index) == list(range(14)) and list(kept.sites["position"]) == [10] * 6 + [50] * 8
    assert [m.name for m in refined.motifs] == ["candidate3", "candidate1", "candidate2"]  # not changed in place
    assert list(refined.sites["motif"].unique()) == ["candidate3", "candidate1", "candidate2"]


def test_a_copy_of_a_stronger_enriched_motif_is_merged(caplog):
    refined = _refined([("candidate1", "ATGACTCAA", 20, 50, 1e-9, 1e-9),
                        ("candidate2", "GACTCA", 24, 30, 1e-9, 1e-9),    # candidate1's GACTCA, in place
                        ("candidate3", "TATAAT", 50, 20, 1e-9, 1e-9)])
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(refined)
    assert [(m.name, m.consensus) for m in kept.motifs] == [("motif1", "ATGACTCAA"), ("motif2", "TATAAT")]
    assert list(kept.sites["motif"].unique()) == ["motif1", "motif2"] and len(kept.sites) == 70
    assert _messages(caplog) == ["candidate2 (GACTCA at 24) is a copy of motif1; merged into it"]


def test_of_two_copies_the_stronger_is_kept_in_the_place_of_the_earlier(caplog):
    # a short candidate ranked first, a whole later one (the composite element) far stronger
    refined = _refined([("candidate1", "GACTCA", 24, 30, 1e-9, 1e-8),
                        ("candidate2", "TATAAT", 50, 20, 1e-9, 1e-9),
                        ("candidate3", "ATGACTCAA", 20, 50, 1e-30, 1e-20)])  # copies candidate1, stronger
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(refined)
    assert [(m.name, m.consensus, m.start) for m in kept.motifs] == [("motif1", "ATGACTCAA", 20),
                                                                     ("motif2", "TATAAT", 50)]
    assert list(kept.stats["name"]) == ["motif1", "motif2"] and list(kept.stats["sites"]) == [50, 20]
    assert list(kept.sites["motif"]) == ["motif1"] * 50 + ["motif2"] * 20
    assert list(kept.sites["position"]) == [20] * 50 + [50] * 20
    assert _messages(caplog) == ["candidate1 (GACTCA at 24) is a copy of motif1; merged into it"]
    # the p-value first: a later copy whose sites the first took (few left, p weak) loses
    # however small its held-out p-value
    taken = _refined([("candidate1", "GACTCA", 24, 50, 1e-30, 1e-20),
                      ("candidate2", "ATGACTCAA", 20, 6, 1e-4, 1e-40)])
    assert [m.consensus for m in select_motifs(taken).motifs] == ["GACTCA"]
    # equal p-values: the smaller held-out p decides; then more sites
    tie = _refined([("candidate1", "GACTCA", 24, 30, 1e-9, 1e-9),
                    ("candidate2", "ATGACTCAA", 20, 50, 1e-9, 1e-12)])
    assert [m.consensus for m in select_motifs(tie).motifs] == ["ATGACTCAA"]
    tie = _refined([("candidate1", "GACTCA", 24, 30, 1e-9, 1e-9),
                    ("candidate2", "ATGACTCAA", 20, 50, 1e-9, 1e-9)])
    assert [m.consensus for m in select_motifs(tie).motifs] == ["ATGACTCAA"]
    tie = _refined([("candidate1", "GACTCA", 24, 50, 1e-9, 1e-9),
                    ("candidate2", "ATGACTCAA", 20, 50, 1e-9, 1e-9)])  # nothing stronger: the earlier
    assert [m.consensus for m in select_motifs(tie).motifs] == ["GACTCA"]


def test_a_copy_of_an_accepted_motif_is_merged_however_strong():
    earlier = Motif.from_consensus("motif1", "GACTCA", purity=0.9, start=24)
    refined = _refined([("round2_candidate1", "ATGACTCAA", 20, 50, 1e-30, 1e-20)])
    kept = select_motifs(refined, accepted=[earlier], first_number=2)
    assert kept.motifs == []


def test_a_copy_of_a_dropped_motif_is_kept():
    refined = _refined([("candidate1", "ATGACTCAA", 20, 50, 1e-9, 0.5),   # not enriched held out
                        ("candidate2", "GACTCA", 24, 30, 1e-9, 1e-9)])
    kept = select_motifs(refined)
    assert [(m.name, m.consensus) for m in kept.motifs] == [("motif1", "GACTCA")]


def test_a_reverse_complement_is_a_copy_with_both_strands_only():
    refined = _refined([("candidate1", "TTGACGCA", 20, 50, 1e-9, 1e-9),
                        ("candidate2", "TGCGTCAA", 20, 30, 1e-9, 1e-9)])  # its reverse complement
    assert [m.consensus for m in select_motifs(refined).motifs] == ["TTGACGCA", "TGCGTCAA"]
    assert [m.consensus for m in select_motifs(refined, strand="both").motifs] == ["TTGACGCA"]


def test_without_an_enriched_motif_none_is_reported_and_the_log_names_the_best_candidate(caplog):
    refined = _refined([("candidate1", "TTGACA", 10, 40, 1e-9, NAN),      # no held-out test: last
                        ("candidate2", "GGGCCC", 30, 40, 0.2, 0.1),
                        ("candidate3", "TATAAT", 50, 40, 0.1, 0.1),       # held out as good, better p
                        ("candidate4", "CACGTG", 70, 3, 1e-9, 1e-9)])     # 3 sites
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(refined)
    assert kept.motifs == [] and len(kept.stats) == 0 and len(kept.sites) == 0
    assert "composition" in kept.stats.columns
    messages = _messages(caplog)
    assert len(messages) == 5 and all(m.endswith("; not reported") for m in messages[:4])
    assert messages[-1] == ("no motif found: no candidate's sites are enriched (p <= 0.001, held out p <= 0.05, at "
                            "least 5 sites); the best candidate, CACGTG at 70: sites in 3 positives (p = 1.0e-09), "
                            "1 positives against 1 negatives held out (p = 1.0e-09)")

    def best():
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="seqimp"):
            assert select_motifs(refined).motifs == []
        return _messages(caplog)[-1].split("the best candidate, ")[1].split(" at ")[0]

    refined.stats.loc[3, "held_out_p_value"] = 0.5
    assert best() == "TATAAT"   # ties broken by p
    refined.stats["held_out_p_value"] = NAN
    assert best() == "TTGACA"   # NaN ties too: the first best p
    refined.stats.loc[1:3, "held_out_p_value"] = [0.5, 0.6, 0.7]
    assert best() == "GGGCCC"   # NaN after every number


def test_later_rounds_number_on_and_merge_copies_of_accepted_motifs(caplog):
    earlier = Motif.from_consensus("motif1", "ATGACTCAA", purity=0.9, start=20)
    refined = _refined([("round2_candidate1", "GACTCA", 24, 30, 1e-9, 1e-9),   # motif1's GACTCA, in place
                        ("round2_candidate2", "TATAAT", 50, 20, 1e-9, 1e-9)])
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(refined, first_number=2, accepted=[earlier])
    assert [(m.name, m.consensus) for m in kept.motifs] == [("motif2", "TATAAT")]
    assert _messages(caplog) == ["round2_candidate1 (GACTCA at 24) is a copy of motif1; merged into it"]
    caplog.clear()
    refined.stats["held_out_p_value"] = [1e-9, 0.5]
    with caplog.at_level(logging.INFO, logger="seqimp"):
        assert select_motifs(refined, first_number=2, accepted=[earlier]).motifs == []
    last = _messages(caplog)[-1]  # the best candidate is one that is not a copy
    assert last.startswith("no further motif: no candidate's sites are enriched") and "candidate, TATAAT at 50" in last
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="seqimp"):
        assert select_motifs(_refined([("round2_candidate1", "GACTCA", 24, 30, 1e-9, 1e-9)]), first_number=2,
                             accepted=[earlier]).motifs == []
    assert _messages(caplog)[-1] == "no further motif: every candidate copies a motif already reported"


def test_a_dropped_motif_whose_sites_a_kept_one_took_names_it_by_its_final_name(caplog):
    refined = _refined([("candidate2", "CCTTATCT", 40, 600, 1e-200, 1e-200),
                        ("candidate1", "AGATAAGG", 40, 6, 0.9, 1e-100)])
    refined.stats["taken_sites"] = [0, 590]
    refined.stats["taken_by"] = ["", "candidate2"]
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(refined)
    assert [m.name for m in kept.motifs] == ["motif1"]
    assert _messages(caplog) == [
        "candidate1 (AGATAAGG at 40): sites in 6 positives (p = 0.9), 3 positives against 1 negatives held out "
        "(p = 1.0e-100); 590 of its sites are sites of motif1, which took them; not reported"]


def test_a_motif_as_frequent_in_the_shuffled_positives_is_composition(caplog):
    refined = _refined([("candidate1", "TTGACA", 10, 40, 1e-9, 1e-9), ("candidate2", "ATTATTTTA", 30, 40, 1e-9, 1e-9)])
    refined.stats["shuffled_sites"] = [1, 35]
    refined.stats["log10_composition_p_value"] = [-12.0, -0.4]
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(refined)
    assert list(kept.stats["composition"]) == [False, True]
    assert _messages(caplog) == ["motif2 (ATTATTTTA at 30) is composition, not a motif: sites in 40 positives and 35 "
                                 "of their dinucleotide shuffles (p = 0.4); no database match is offered"]


def test_no_motifs_select_none(caplog):
    refined = _refined([])
    refined = MotifSites([], pd.DataFrame(columns=["name", "sites", "p_value", "held_out_p_value"]), refined.sites)
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(refined)
    assert kept.motifs == [] and len(kept.stats) == 0 and len(kept.sites) == 0 and not _messages(caplog)


def test_bad_input():
    refined = _refined([("candidate1", "TTGACA", 10, 40, 1e-9, 1e-9)])
    with pytest.raises(SeqimpError, match="strands must be one of 'given', 'both', got 'plus'"):
        select_motifs(refined, strand="plus")
    refined.stats = refined.stats.drop(columns="held_out_p_value")
    with pytest.raises(SeqimpError, match=r"refined: no held-out p-values; refine with refine_motifs\(\.\.\., "
                                          r"held_out=True\)"):
        select_motifs(refined)


def test_a_candidate_no_held_out_fold_tested_is_logged_as_such(caplog):
    """A candidate whose held-out seeds, chosen on each half, were other words (``held_out_folds``
    0) is logged as not tested held out; one tested with no site held out, with its counts."""
    refined = _refined([("candidate1", "TTGACA", 10, 40, 1e-9, 1.0), ("candidate2", "CACGTG", 70, 40, 1e-9, 1.0)])
    refined.stats["held_out_sites"] = [0, 0]
    refined.stats["held_out_negative_sites"] = [0, 0]
    refined.stats["held_out_folds"] = [0, 2]
    with caplog.at_level(logging.INFO, logger="seqimp"):
        assert select_motifs(refined).motifs == []
    text = " ".join(_messages(caplog))
    assert "candidate1 (TTGACA at 10): sites in 40 positives (p = 1.0e-09), not tested held out: neither half chose " \
           "it (held-out p = 1)" in text
    assert "candidate2 (CACGTG at 70): sites in 40 positives (p = 1.0e-09), 0 positives against 0 negatives held out " \
           "(p = 1)" in text


def test_tests_say_what_became_of_every_candidate_in_their_order():
    """``tests``: one row per candidate given, in its order -- reported under its new name (and
    flagged where its sites are composition), merged into the motif it copies (a later, stronger
    copy taking the place of an earlier one; a copy of a motif reported before), left with the
    sites of a stronger motif, not tested held out (no fold), or not enriched -- with its figures."""
    from seqimp.motifs._select import OUTCOMES, TEST_COLUMNS

    refined = _refined([("candidate1", "ATGACTCAA", 20, 50, 1e-9, 1e-9),
                        ("candidate2", "GACTCA", 24, 30, 1e-12, 1e-12),   # a stronger copy: takes the place
                        ("candidate3", "TATAAT", 50, 20, 1e-9, 1e-9),
                        ("candidate4", "CACGTG", 70, 40, 1e-9, 0.06),     # held-out p above 0.05
                        ("candidate5", "GGGCCC", 80, 3, 1e-2, NAN),       # its sites taken by motif2
                        ("candidate6", "GATAAG", 90, 40, 1e-9, 1.0),      # no fold tested
                        ("candidate7", "TTGACG", 99, 30, 1e-9, 1e-9)])    # copies a motif of an earlier round
    refined.stats["log10_p_value"] = np.log10(refined.stats["p_value"])
    refined.stats["taken_sites"] = [0, 0, 0, 0, 35, 0, 0]
    refined.stats["taken_by"] = ["", "", "", "", "candidate3", "", ""]
    refined.stats["held_out_folds"] = [2, 2, 2, 2, NAN, 0, 2]
    refined.stats["log10_composition_p_value"] = [-20.0, -20.0, -1.0, -20.0, NAN, -20.0, -20.0]
    refined.stats["shuffled_sites"] = [1, 1, 15, 1, 0, 1, 1]
    earlier = Motif.from_consensus("motif1", "TTGACG", purity=0.9, start=99)
    tests = select_motifs(refined, accepted=[earlier], first_number=2).tests
    assert list(tests.columns) == TEST_COLUMNS and set(tests["outcome"]) <= set(OUTCOMES)
    assert list(tests["candidate"]) == [f"candidate{i}" for i in range(1, 8)]
    assert list(zip(tests["outcome"], tests["motif"])) == [
        ("copy", "motif2"), ("reported", "motif2"), ("reported, composition", "motif3"), ("not enriched", ""),
        ("sites of another motif", "motif3"), ("not tested held out", ""), ("copy", "motif1")]
    assert list(tests["sites"]) == [50, 30, 20, 40, 3, 40, 30]
    np.testing.assert_allclose(tests["log10_p_value"], [-9, -12, -9, -9, -2, -9, -9])
    np.testing.assert_allclose(tests["log10_held_out_p_value"], [-9, -12, -9, np.log10(0.06), NAN, 0, -9])
    assert tests["consensus"].iloc[1] == refined.motifs[1].consensus


def test_a_candidate_kept_to_its_word_copies_an_accepted_motif_only_if_that_holds_the_word():
    """G/C-rich flanks make NRF1 (GCGCATGCGC) and a GC box copies by their whole PWMs; refined
    from NRF1's word and still holding it, the candidate is NRF1, not the GC box."""
    from seqimp.motifs._copies import same_motif

    gc_box = Motif.from_consensus("motif1", "GGGGGCGGGGCCGGGG", purity=0.9, position_free=True)
    refined = _refined([("round5_gapped1", "GGGGGGCGCATGCGCGGGG", 40, 50, 1e-20, 1e-6)])
    assert same_motif(gc_box, refined.motifs[0], strand="both")  # copies by the whole PWMs
    assert select_motifs(refined, accepted=[gc_box], strand="both", first_number=2).motifs == []
    pwm = Motif.from_consensus("round5_gapped1", "GCGCAAGCGC", purity=0.97).pwm
    pwm[4:6] = 0.25  # a gapped word's seed: GCGCNNGCGC
    nrf1 = Motif("round5_gapped1", pwm)
    kept = select_motifs(refined, accepted=[gc_box], strand="both", first_number=2, words={"round5_gapped1": nrf1})
    assert [(m.name, m.consensus) for m in kept.motifs] == [("motif2", "GGGGGGCGCATGCGCGGGG")]
    assert list(kept.tests["outcome"]) == ["reported"]
    # a word the accepted motif holds too, or one the candidate no longer holds: a copy as before
    gc_word = Motif.from_consensus("round5_gapped1", "GCGGGG", purity=0.97)
    assert select_motifs(refined, accepted=[gc_box], strand="both", words={"round5_gapped1": gc_word}).motifs == []
    lost = Motif.from_consensus("round5_gapped1", "GCGCTAGCGC", purity=0.97)
    assert select_motifs(refined, accepted=[gc_box], strand="both", words={"round5_gapped1": lost}).motifs == []
