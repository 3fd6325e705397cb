"""seqimp.motifs.enrich_motifs: the planted factor of a planted set is found, two sets of
shuffled sequences give nothing; Fisher's p-value against scipy's fisher_exact."""

import numpy as np
import pytest
from scipy import stats

from seqimp.errors import SeqimpError
from seqimp.io import dinucleotide_shuffle
from seqimp.motifs import Motif, MotifDatabase, enrich_motifs
from seqimp.motifs.known._enrich import ENRICH_COLUMNS


def _database(seed=0, n=9):
    """A planted factor (a sharp 10-column PWM) and n random motifs of 8-12 columns."""
    rng = np.random.default_rng(seed)
    planted = Motif.from_consensus("PLANTED", "TGACTCATCA", purity=0.85, description="planted factor")
    others = [Motif(f"R{i + 1}", rng.dirichlet(np.full(4, 0.3), size=int(rng.integers(8, 13))),
                    description=f"random {i + 1}") for i in range(n)]
    return MotifDatabase([others[0], planted] + others[1:],
                         annotations={"PLANTED": {"tf_family": "fam", "tf_class": "cls"}})


def _sample(motif, rng):
    letters = [rng.choice(4, p=row) for row in motif.pwm]
    site = "".join("ACGT"[c] for c in letters)
    return site if rng.random() < 0.5 else site[::-1].translate(str.maketrans("ACGT", "TGCA"))


def planted_set(seed=0, n=60, length=80, share=0.6):
    """n positives (a share of them with a site of the planted PWM on either strand) and n
    uniform negatives, all of ``length`` nt; fixed seed."""
    rng = np.random.default_rng(seed)
    db = _database()
    planted = db[1]
    pos, neg = [], []
    for i in range(n):
        s = "".join(rng.choice(list("ACGT"), size=length))
        if i < share * n:
            at = int(rng.integers(0, length - planted.length))
            s = s[:at] + _sample(planted, rng) + s[at + planted.length:]
        pos.append(s)
        neg.append("".join(rng.choice(list("ACGT"), size=length)))
    return db, pos, neg


def test_recovers_the_planted_factor():
    db, pos, neg = planted_set()
    table = enrich_motifs(db, pos, neg)
    assert list(table.columns[:6]) == ENRICH_COLUMNS
    top = table.iloc[0]
    assert top["motif"] == "PLANTED" and top["q_value"] <= 0.01
    assert top["tf_family"] == "fam" and top["target_description"] == "planted factor"
    assert (table["q_value"].iloc[1:] > 0.05).all()
    # Fisher's one-sided p-value as scipy computes it from the 2x2 table
    a, b = top["positives_with_site"], top["negatives_with_site"]
    ref = stats.fisher_exact([[a, 60 - a], [b, 60 - b]], alternative="greater")[1]
    assert top["p_value"] == pytest.approx(ref, rel=1e-9)
    ranks = enrich_motifs(db, pos, neg, method="ranksum")
    assert ranks.iloc[0]["motif"] == "PLANTED" and ranks.iloc[0]["q_value"] <= 0.01


@pytest.mark.parametrize("method", ["fisher", "ranksum"])
def test_no_enrichment_between_two_sets_of_shuffled_sequences(method):
    db, pos, _ = planted_set()
    codes = np.array([["ACGT".index(c) for c in s] for s in pos], dtype=np.uint8)
    first = dinucleotide_shuffle(codes, random_state=1)
    second = dinucleotide_shuffle(codes, random_state=2)
    table = enrich_motifs(db, first, second, method=method)
    assert (table["q_value"] > 0.05).all(), table.head()


def test_bad_input():
    db, pos, neg = planted_set(n=4)
    with pytest.raises(SeqimpError, match="method must be one of"):
        enrich_motifs(db, pos, neg, method="t-test")
    with pytest.raises(SeqimpError, match="needs positive and negative sequences"):
        enrich_motifs(db, pos, [])


def test_no_motifs_gives_an_empty_match_table():
    """A run that found no motif, with a database: an empty matches table (the answer), no error."""
    from seqimp.motifs import database_matches

    db = MotifDatabase([Motif("a", np.full((5, 4), 0.25))], annotations={"a": {"tf_class": "c", "tf_family": "f"}})
    matches = database_matches([], db)
    assert len(matches) == 0 and list(matches.columns[:4]) == ["query", "target", "target_description",
                                                               "target_class"]
