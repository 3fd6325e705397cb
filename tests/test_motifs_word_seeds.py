"""Seeds from words enriched in the positives (seqimp.motifs.word_seeds): the counts against
brute-force enumeration of the sequences holding each word, the p-values against scipy's Fisher
exact test, a planted word found on either strand, random sequences giving no seed, copies of
motifs already found left out."""

import itertools

import numpy as np
import pytest
from scipy import stats

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, word_seeds
from seqimp.io._strand import reverse_complement_index
from seqimp.motifs._sites import _tail_kernel
from seqimp.motifs._word_seeds import _presence


def _words(m):
    return ["".join(w) for w in itertools.product("ACGT", repeat=m)]


def _held(seqs, word, both):
    rc = word.translate(str.maketrans("ACGT", "TGCA"))[::-1]
    return sum(1 for s in seqs if word in s or (both and rc in s))


@pytest.mark.parametrize("strand", ["given", "both"])
def test_presence_counts_every_word_once_per_sequence_as_enumeration_does(strand):
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 4, (30, 12)).astype(np.uint8)
    codes[:5, 2:5] = [0, 0, 0]  # AAA twice in a row: one sequence, one count
    codes[:5, 5:8] = [0, 0, 0]
    seqs = ["".join("ACGT"[c] for c in x) for x in codes]
    canonical = np.minimum(np.arange(64), reverse_complement_index(3)) if strand == "both" else None
    counts, _fwd, _rev = _presence(codes, 3, canonical)
    expected = [_held(seqs, w, strand == "both") for w in _words(3)]
    np.testing.assert_array_equal(counts, expected)


def test_reverse_complement_indices_and_the_exact_tail():
    words = _words(4)
    comp = str.maketrans("ACGT", "TGCA")
    rc = reverse_complement_index(4)
    assert [words[j] for j in rc] == [w.translate(comp)[::-1] for w in words]
    # the one-sided tail word_seeds reads: positives holding a word among the a + b that do
    a, b = np.array([1, 3, 17, 40, 60]), np.array([5, 2, 9, 0, 3])
    exact = [stats.hypergeom.logsf(x - 1, 140, x + y, 60) for x, y in zip(a, b)]
    out = np.empty(len(a))
    _tail_kernel(a.astype(np.int64), (a + b).astype(np.int64), 140, 60, out)
    np.testing.assert_allclose(out, exact, rtol=1e-10, atol=1e-10)


def _planted(rng, n=200, L=60, word="TGACGTCAT", rate=0.3, both=True):
    pos = rng.integers(0, 4, (n, L)).astype(np.uint8)
    neg = rng.integers(0, 4, (n, L)).astype(np.uint8)
    code = np.array(["ACGT".index(c) for c in word], dtype=np.uint8)
    for i in np.flatnonzero(rng.random(n) < rate):
        j = int(rng.integers(0, L - len(code) + 1))
        pos[i, j:j + len(code)] = code if (not both or rng.random() < 0.5) else 3 - code[::-1]
    return pos, neg


def test_a_planted_word_seeds_a_position_free_motif_with_its_fisher_p_value():
    rng = np.random.default_rng(0)
    pos, neg = _planted(rng)
    seeds, table = word_seeds(pos, neg, strand="both", lengths=(8,), max_motifs=3)
    assert len(seeds) >= 1 and seeds[0].position_free and seeds[0].name == "word1"
    word = table["word"].iloc[0]
    rc = word.translate(str.maketrans("ACGT", "TGCA"))[::-1]
    assert word in "TGACGTCAT" or rc in "TGACGTCAT"
    assert "TGACGTCA" in seeds[0].consensus or "TGACGTCA" in Motif("x", seeds[0].pwm[::-1, ::-1]).consensus
    # the table's figures: sequences holding the word, and Fisher's one-sided p times the words of length 8
    pos_s = ["".join("ACGT"[c] for c in x) for x in pos]
    neg_s = ["".join("ACGT"[c] for c in x) for x in neg]
    a, b = _held(pos_s, word, True), _held(neg_s, word, True)
    assert (table["positives"].iloc[0], table["negatives"].iloc[0]) == (a, b)
    p = stats.fisher_exact([[a, len(pos) - a], [b, len(neg) - b]], alternative="greater")[1]
    n_words = (4 ** 8 + 4 ** 4) // 2
    assert table["log10_p_value"].iloc[0] == pytest.approx(np.log10(p * n_words), rel=1e-9)
    # a seed's columns: the word's occurrences on its strand, three letters on each side
    assert seeds[0].length == 8 + 6
    # the variants of the word (shifted, other lengths) seed nothing more
    more, _ = word_seeds(pos, neg, strand="both", max_motifs=3)
    assert sum("TGACGTCA" in m.consensus or "TGACGTCA" in Motif("x", m.pwm[::-1, ::-1]).consensus
               for m in more) == 1


def test_random_sequences_and_copies_of_what_was_found_give_no_seed():
    rng = np.random.default_rng(1)
    pos, neg = rng.integers(0, 4, (200, 60)).astype(np.uint8), rng.integers(0, 4, (200, 60)).astype(np.uint8)
    seeds, table = word_seeds(pos, neg)
    assert seeds == [] and len(table) == 0 and list(table.columns) == [
        "name", "word", "positives", "negatives", "log10_p_value", "round"]
    pos, neg = _planted(np.random.default_rng(0))
    found = Motif.from_consensus("motif1", "TGACGTCAT", purity=0.9)
    assert word_seeds(pos, neg, exclude=[found])[0] == []
    with pytest.raises(SeqimpError, match="2-d arrays"):
        word_seeds(pos[0], neg)
    with pytest.raises(SeqimpError, match="strand"):
        word_seeds(pos, neg, strand="minus")


def test_on_the_given_strand_the_reverse_complement_is_another_word():
    rng = np.random.default_rng(4)
    pos, neg = _planted(rng, both=False, rate=0.4)
    _seeds, given = word_seeds(pos, neg, strand="given", lengths=(8,), max_motifs=1)
    assert given["word"].iloc[0] in "TGACGTCAT"
    pos_s = ["".join("ACGT"[c] for c in x) for x in pos]
    assert given["positives"].iloc[0] == _held(pos_s, given["word"].iloc[0], False)


def test_a_later_round_names_its_seeds_for_the_round():
    pos, neg = _planted(np.random.default_rng(0))
    first, table1 = word_seeds(pos, neg, lengths=(8,), max_motifs=1)
    later, table3 = word_seeds(pos, neg, lengths=(8,), max_motifs=1, round=3)
    assert [m.name for m in first] == ["word1"] and [m.name for m in later] == ["round3_word1"]
    assert list(table1["round"]) == [1] and list(table3["name"]) == ["round3_word1"] and list(table3["round"]) == [3]
    np.testing.assert_allclose(first[0].pwm, later[0].pwm, rtol=0, atol=1e-15)  # renamed: renormalised rows


def test_word_seeds_failing_their_p_value_are_not_refitted_held_out(refined_stats):
    """The word route refits held out only the seeds whose sites pass ``max_pvalue`` in the
    positives (the others cannot be reported): the planted word is tested at the default level
    and, at a level it fails, is left untested (NaN) and not reported."""
    from seqimp.io._labelled import encode_labelled
    from seqimp.motifs.search._word_route import word_motifs
    from seqimp.options import MotifOptions

    pos, neg = _planted(np.random.default_rng(0))
    data = encode_labelled(pos, neg, "dna")
    run = word_motifs(data, options=MotifOptions(strand="both", max_motifs=1))
    assert len(run.motifs) == 1 and np.isfinite(refined_stats[-1]["held_out_p_value"]).all()
    p = float(refined_stats[-1]["p_value"].iloc[0])
    run = word_motifs(data, options=MotifOptions(strand="both", max_motifs=1, max_pvalue=p / 10))
    assert not run.motifs and refined_stats[-1]["held_out_p_value"].isna().all()
