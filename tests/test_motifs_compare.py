"""TOMTOM matches through memelite: q-values, the toy database, JASPAR 2024, bad input; trimming,
the information floor, decoys, and the MEME tomtom 5.5.8 reference (../shared/data/tomtom_reference).

memelite compiles its TOMTOM kernel on first use (tens of seconds on a cold numba cache),
so every test here passes motifs in one layout and the kernel compiles once.
"""

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, compare_motifs, read_motifs
from seqimp.motifs._motif import information_content
from seqimp.motifs.known._compare import best_matches, bh_qvalues, trim_uninformative
from seqimp.motifs.known._compare import NO_MATCH, UNINFORMATIVE, _tomtom, gumbel_sf, make_decoys, meme_pseudocount
from seqimp._utils.tables import write_tsv

from oracle_tomtom import tomtom_slow

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(os.environ.get("SEQIMP_SHARED_DATA",  # ../shared/data beside the repo
                             Path(os.path.abspath(__file__)).parents[1].parent / "shared" / "data"))
JASPAR = SHARED / "jaspar" / "JASPAR2024_CORE_vertebrates_non-redundant_pfms_transfac.txt"
REFERENCE = SHARED / "tomtom_reference"
COLUMNS = ["query", "target", "target_description", "p_value", "q_value", "e_value", "calibrated_p", "calibrated_q",
           "significant", "offset", "overlap", "strand", "query_from", "query_to"]


def test_bh_qvalues_against_definition():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=(3, 17)) ** 3
    q = bh_qvalues(p)
    for row, qrow in zip(p, q):
        n = len(row)
        for i in range(n):  # q_i = min over p_j >= p_i of p_j n / rank_j
            ranks = np.array([np.sum(row <= row[j]) for j in range(n)])
            want = min(1.0, min(row[j] * n / ranks[j] for j in range(n) if row[j] >= row[i]))
            assert abs(qrow[i] - want) < 1e-12


def test_toy_database_finds_the_planted_factor():
    db = read_motifs(DATA / "toy_motifs.meme")
    rng = np.random.default_rng(1)
    gattaca = db[0].pwm
    query = Motif("found", 0.7 * gattaca[1:6] + 0.3 * rng.dirichlet(np.ones(4), 5))  # a noisy inner part
    ebox_rc = Motif("ebox_rc", db[1].pwm[::-1, ::-1])
    with warnings.catch_warnings():  # memelite may warn that 8 targets are few for its p-values
        warnings.simplefilter("ignore", UserWarning)
        table = compare_motifs([query, ebox_rc], db, top=3, min_ic=0.0, trim_ic=0.0)
    assert list(table.columns) == COLUMNS
    table = table[table["target"] != ""].reset_index(drop=True)  # the matches, not the verdict rows
    first = {row["query"]: row for row in reversed(table.to_dict("records"))}
    assert first["found"]["target"] == "toy.GATTACA" and first["found"]["strand"] == "+"
    assert first["found"]["overlap"] == 5
    assert first["ebox_rc"]["target"] == "toy.EBOX"
    assert np.all(table["q_value"] >= table["p_value"]) and np.all(table["q_value"] <= 1)
    np.testing.assert_allclose(table["e_value"], table["p_value"] * len(db))


def test_jaspar_self_match():
    if not JASPAR.exists():
        pytest.skip("shared JASPAR 2024 file is not present")
    db = read_motifs(JASPAR)
    arnt = db[0]
    table = compare_motifs([arnt], db, top=5)
    assert table["significant"][0]
    assert table["target"][0] == "MA0004.1" and table["q_value"][0] < 1e-6
    assert table["p_value"][0] == table["p_value"].min()


def test_bad_input():
    db = read_motifs(DATA / "toy_motifs.jaspar")
    with pytest.raises(SeqimpError, match="motif database is empty"):
        compare_motifs(db[:1], [])
    with pytest.raises(SeqimpError, match="no motifs to compare"):
        compare_motifs([], db)


def test_trim_against_definition():
    rng = np.random.default_rng(3)
    for _ in range(20):
        pwm = rng.dirichlet(rng.choice([0.3, 1.0, 50.0], size=4), size=int(rng.integers(1, 12)))
        ic = information_content(pwm)
        lo, hi = trim_uninformative(pwm, 0.5)
        informative = [i for i in range(len(pwm)) if ic[i] >= 0.5]
        if informative:
            assert (lo, hi) == (informative[0], informative[-1] + 1)
        else:
            assert (lo, hi) == (0, 0)


def test_decoys_keep_the_column_information():
    rng = np.random.default_rng(4)
    pwm = rng.dirichlet(np.full(4, 0.5), size=9)
    decoys = make_decoys(pwm, 10, np.random.default_rng(0))
    assert len(decoys) == 10
    for d in decoys[:5]:  # column shuffles: the same columns in another order
        assert sorted(map(tuple, d)) == sorted(map(tuple, pwm))
    for d in decoys:  # letter permutations too: the multiset of column ICs is unchanged
        np.testing.assert_allclose(np.sort(information_content(d)), np.sort(information_content(pwm)), atol=1e-12)
    assert any(not np.allclose(np.sort(d, axis=1), d) for d in decoys[5:])


def test_gumbel_tail_against_scipy():
    from scipy import stats

    sample = np.random.default_rng(5).gumbel(3.0, 0.7, size=400)
    scale = np.std(sample) * np.sqrt(6) / np.pi
    loc = np.mean(sample) - np.euler_gamma * scale
    x = np.linspace(0, 12, 7)
    np.testing.assert_allclose(gumbel_sf(x, sample), stats.gumbel_r.sf(x, loc, scale), rtol=1e-9, atol=1e-300)


def test_flat_query_not_compared_and_one_hot_fragment_calibrated():
    db = read_motifs(DATA / "toy_motifs.meme")
    flat = Motif("flat", np.full((8, 4), 0.25))
    padded = Motif("padded", np.vstack([np.full((2, 4), 0.25), db[0].pwm, np.full((3, 4), 0.25)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        table = compare_motifs([flat, padded], db, top=2, n_decoys=20)
    flat_rows = table[table["query"] == "flat"]
    assert len(flat_rows) == 1 and flat_rows["target_description"].iloc[0] == UNINFORMATIVE
    assert not flat_rows["significant"].any()
    padded_rows = table[(table["query"] == "padded") & (table["target"] != "")]
    assert (padded_rows["query_from"] == 3).all() and (padded_rows["query_to"] == 2 + db[0].length).all()
    assert padded_rows["target"].iloc[0] == db[0].name and padded_rows["offset"].iloc[0] == 0


def test_bad_arguments():
    db = read_motifs(DATA / "toy_motifs.meme")
    with pytest.raises(SeqimpError, match="n_decoys"):
        compare_motifs(db[:1], db, n_decoys=-1)
    with pytest.raises(SeqimpError, match="threshold"):
        compare_motifs(db[:1], db, threshold=2.0)


# -- the MEME tomtom 5.5.8 reference ---------------------------------------------------------------------------
# queries.meme (README): exact JASPAR motifs, PWMs from 40 sampled sites and 6-column core fragments are
# informative; column-shuffled, uniform, near-uniform, random one-hot and random Dirichlet PWMs are not.
INFORMATIVE = ("exact_", "sampled40_", "fragment6_")
UNINFORMATIVE_QUERIES = ("colshuffled_", "uniform_", "nearuniform_", "onehot_random_", "randomdirichlet_")


@pytest.fixture(scope="module")
def reference():
    if not REFERENCE.exists():
        pytest.skip("shared TOMTOM reference (../shared/data/tomtom_reference) is not present")
    import pandas as pd

    queries = read_motifs(REFERENCE / "queries.meme")
    db = read_motifs(REFERENCE / "JASPAR2024_CORE_vertebrates_non-redundant.meme")
    ref = pd.read_csv(REFERENCE / "tomtom_top20.tsv", sep="\t")
    return queries, db, ref, compare_motifs(queries, db, top=20)


@pytest.fixture(scope="module")
def untrimmed(reference):
    """TOMTOM alone on the matrices MEME compared: no trimming, no floor, no decoys."""
    queries, db, _ref, _table = reference
    return compare_motifs(queries, db, top=20, trim_ic=0.0, min_ic=0.0, n_decoys=0)


def _full_id(motif):  # TOMTOM's Target_ID: the MEME file's id and name joined by "_"
    return f"{motif.name}_{motif.description}" if motif.description else motif.name


def test_reference_same_best_target_on_informative_queries(reference):
    queries, db, ref, table = reference
    ids = {m.name: _full_id(m) for m in db}
    informative = [m.name for m in queries if m.name.startswith(INFORMATIVE)]
    assert len(informative) == 33
    for name in informative:
        ours = table[(table["query"] == name) & (table["target"] != "")].iloc[0]
        theirs = ref[ref["Query_ID"] == name].sort_values("p-value").iloc[0]
        assert ids[ours["target"]] == theirs["Target_ID"], name
        target = next(m for m in db if m.name == ours["target"])
        if not np.allclose(target.pwm, target.pwm[::-1, ::-1], atol=0.05):  # a palindrome aligns on both
            assert ours["strand"] == theirs["Orientation"], name
        assert ours["offset"] == theirs["Optimal_offset"], name


def _log10_differences(reference, table, queries=("",), low=0.0, high=0.01):
    """|log10 ours - log10 MEME's| over the reference rows with low <= p < high of the named queries.

    MEME computes in double precision and writes p as a C float, so a p below float's smallest
    value (1.4e-45) is written 0: ours is compared after the same rounding (0 against 0 agrees)."""
    _queries, db, ref, _table = reference
    ids = {m.name: _full_id(m) for m in db}
    ours = {(r["query"], ids[r["target"]]): r["p_value"] for r in table.to_dict("records") if r["target"]}
    diffs = []
    for r in ref.to_dict("records"):
        key = (r["Query_ID"], r["Target_ID"])
        if r["Query_ID"].startswith(queries) and low <= r["p-value"] < high and key in ours:
            mine = float(np.float32(ours[key]))
            diffs.append(0.0 if mine == 0 == r["p-value"] else
                         np.log10(max(mine, 1e-300)) - np.log10(max(r["p-value"], 1e-300)))
    return np.abs(diffs)


def test_reference_same_best_target_everywhere(reference, untrimmed):
    """All 73 queries (offsets of flat queries are ties: the informative ones are checked above)."""
    queries, db, ref, _table = reference
    ids = {m.name: _full_id(m) for m in db}
    for m in queries:
        ours = untrimmed[(untrimmed["query"] == m.name) & (untrimmed["target"] != "")].iloc[0]
        theirs = ref[ref["Query_ID"] == m.name].sort_values("p-value", kind="stable").iloc[0]
        assert ids[ours["target"]] == theirs["Target_ID"], m.name


def test_reference_p_values_agree_everywhere_below_0_01(reference, untrimmed):
    """Every query of the set (uniform and one-hot ones too), every p < 0.01, down to 1e-52."""
    diffs = _log10_differences(reference, untrimmed)
    assert len(diffs) > 900
    assert diffs.max() <= 0.3 and np.median(diffs) < 1e-4
    tail = _log10_differences(reference, untrimmed, high=1e-10)
    assert len(tail) >= 60 and tail.max() <= 0.3


def test_reference_p_values_of_the_compared_columns(reference):
    """With the default trimming the informative queries keep their columns (0.2 bit): the
    p-values of what compare_motifs reports are MEME's."""
    diffs = _log10_differences(reference, reference[3], INFORMATIVE)
    assert len(diffs) > 500 and diffs.max() <= 0.3


def test_tomtom_against_the_slow_reference():
    """memelite's kernel as _tomtom runs it against tests/oracle_tomtom.py: random PWMs, no
    pseudocount, a planted fragment found at its offset and strand."""
    rng = np.random.default_rng(7)
    targets = [rng.dirichlet(np.full(4, 0.4), size=int(rng.integers(4, 10))) for _ in range(40)]
    k = next(i for i, t in enumerate(targets) if len(t) >= 8)
    queries = [rng.dirichlet(np.full(4, 0.4), size=w) for w in (3, 5, 7)] + [targets[k][1:6][::-1, ::-1]]
    with warnings.catch_warnings():  # 40 targets: memelite warns that its p-values depend on them
        warnings.simplefilter("ignore", UserWarning)
        p, offset, overlap, strand = _tomtom(queries, targets, True, pseudocount=0.0)
    for i, q in enumerate(queries):
        slow = tomtom_slow(q, targets)
        np.testing.assert_allclose(np.log10(p[i]), np.log10([x[0] for x in slow]), atol=1e-9)
    # columns 2..6 of target k, reverse-complemented: on the target's minus strand at column len - 6
    assert int(np.argmin(p[3])) == k and strand[3, k] == 1 and overlap[3, k] == 5
    assert offset[3, k] == len(targets[k]) - 6
    assert tomtom_slow(queries[3], targets)[k][1:] == (len(targets[k]) - 6, 5, "-")


def test_slow_reference_is_meme_tomtom(reference):
    """The slow TOMTOM (with MEME's pseudocount) gives MEME's p-values and offsets for one query."""
    queries, db, ref, _table = reference
    ids = [_full_id(m) for m in db]
    query = queries[1]  # exact POU6F1: 7 columns, p down to 5.6e-23
    slow = tomtom_slow(meme_pseudocount(query.pwm, query.sites), [meme_pseudocount(m.pwm, m.sites) for m in db])
    for r in ref[ref["Query_ID"] == query.name].to_dict("records"):
        p, offset, _overlap, strand = slow[ids.index(r["Target_ID"])]
        assert abs(np.log10(p) - np.log10(r["p-value"])) < 1e-4 and offset == r["Optimal_offset"], r["Target_ID"]


def test_meme_pseudocount():
    pwm = np.array([[1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]])
    np.testing.assert_allclose(meme_pseudocount(pwm, 20), [[20.025 / 20.1] + [0.025 / 20.1] * 3, [0.25] * 4])
    np.testing.assert_allclose(meme_pseudocount(pwm, 0), meme_pseudocount(pwm, 20))  # unknown: MEME's 20 sites
    np.testing.assert_allclose(meme_pseudocount(pwm, 7, 0.0), pwm)
    with pytest.raises(SeqimpError, match="pseudocount"):
        compare_motifs([Motif("x", pwm)], [Motif("y", pwm)], pseudocount=-1)


def test_reference_decoy_calibrated_verdicts(reference):
    queries, _db, _ref, table = reference
    verdict = best_matches(table)
    for m in queries:
        row = verdict[m.name]
        if m.name.startswith(INFORMATIVE):
            assert row["significant"], m.name
        elif m.name.startswith(UNINFORMATIVE_QUERIES):
            assert not row["significant"], m.name
            flat = m.name.startswith(("uniform_", "nearuniform_"))
            assert row["target_description"] == (UNINFORMATIVE if flat else NO_MATCH), m.name
    # TOMTOM alone calls these matches (q <= 0.05): the decoys are what turns them down
    tomtom_only = table[(table["q_value"] <= 0.05) & ~table["significant"]]
    assert tomtom_only["query"].str.startswith(UNINFORMATIVE_QUERIES + ("onehot_",)).any()


def test_reference_deterministic_and_independent_of_the_other_queries(reference):
    queries, db, _ref, table = reference
    some = [queries[i] for i in (0, 33, 50, 60)]
    again = compare_motifs(some, db, top=20)
    assert write_tsv(again) == write_tsv(compare_motifs(some, db, top=20))
    for m in some:  # the same decoys for the same motif: the same calibrated p-values
        a = again[again["query"] == m.name]["calibrated_p"].to_numpy()
        b = table[table["query"] == m.name]["calibrated_p"].to_numpy()
        np.testing.assert_allclose(a, b, rtol=1e-12)
