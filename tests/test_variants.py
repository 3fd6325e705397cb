"""Variant effects: exact deltas (WD, WDS, gkm, a Python scorer) against re-scoring both windows,
deltaSVM's rule from explicit gapped-k-mer weights, the SNV null, and ``seqimp variants`` end to
end: planted sites rank first, the contract columns, and every refused input."""

import gzip
import os
import re
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from seqimp.cli import main
from seqimp.errors import SeqimpError
from seqimp.importance._variant_table import alt_window
from seqimp.importance._variants import base_importance, deltasvm_sums, empirical_p_values, snv_null, variant_effects
from seqimp.io._vcf import read_vcf
from seqimp.kernels import GKMClassifier, PositionalWeights, WDClassifier

pytest.importorskip("pyfaidx", reason="the genome extra: pip install 'seqimp[genome]'")

LETTERS = "ACGT"
SITE = "TGACTCA"


def _random_variants(rng, codes, n, *, indels=True, flank=0):
    """(window, offset, ref, alt) of n random substitutions (and indels, up to 6 nt, when asked)."""
    m, length = codes.shape
    out = []
    for i in range(n):
        w = int(rng.integers(m))
        kind = i % 4 if indels else 0
        if kind in (0, 1):  # substitution
            off = int(rng.integers(length))
            a = int(codes[w, off])
            out.append((w, off, LETTERS[a], LETTERS[(a + 1 + int(rng.integers(3))) % 4]))
        elif kind == 2:  # deletion: anchor + up to 6 bases
            d = int(rng.integers(1, 7))
            off = int(rng.integers(length - d - 1))
            ref = "".join(LETTERS[c] for c in codes[w, off:off + d + 1])
            out.append((w, off, ref, ref[0]))
        else:  # insertion
            off = int(rng.integers(length))
            ref = LETTERS[codes[w, off]]
            out.append((w, off, ref, ref + "".join(rng.choice(list(LETTERS), int(rng.integers(1, 7))))))
    return out


def _rescored(score, codes, left, right, variants):
    """score(alt window) - score(ref window), the alt window cut by hand from the haplotype."""
    ref_rows, alt_rows = [], []
    length = codes.shape[1]
    for w, off, ref, alt in variants:
        full = "".join(LETTERS[c] for c in np.concatenate([left[w], codes[w], right[w]]))
        f = left.shape[1]
        s = f + off
        hap = full[:s] + alt + full[s + len(ref):]
        centre = f + length // 2  # the centre base keeps its place (before, after or inside the allele)
        if centre >= s + len(ref):
            centre += len(alt) - len(ref)
        elif centre >= s:
            centre = s + min(centre - s, len(alt) - 1)
        ref_rows.append(codes[w])
        alt_rows.append([LETTERS.index(ch) for ch in hap[centre - length // 2:centre - length // 2 + length]])
    return score(np.array(alt_rows, dtype=np.uint8)) - score(np.array(ref_rows, dtype=np.uint8))


@pytest.fixture(scope="module")
def windows():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 4, size=(6, 36)).astype(np.uint8)
    codes[0, 12:24] = codes[0, 0:12]  # a repeat: gapped k-mers that occur twice
    left = rng.integers(0, 4, size=(6, 8)).astype(np.uint8)
    right = rng.integers(0, 4, size=(6, 8)).astype(np.uint8)
    return codes, left, right


def test_wd_and_wds_delta_equals_rescoring(windows):
    codes, left, right = windows
    rng = np.random.default_rng(2)
    tables = [rng.normal(size=(36 - k + 1, 4 ** k)) for k in range(1, 6)]
    X = rng.integers(0, 4, size=(40, 36)).astype(np.uint8)
    y = np.r_[np.ones(20), np.zeros(20)]
    wds = WDClassifier(degree=3, shifts=2).fit(X, y)
    for model, score in ((PositionalWeights(tables, bias=0.5), None), (wds, wds.decision_function)):
        score = score or model.score
        variants = _random_variants(rng, codes, 40)
        got = variant_effects(model, codes, variants, flanks=(left, right), p_values=False)
        want = _rescored(score, codes, left, right, variants)
        np.testing.assert_allclose(got["delta"], want, rtol=0, atol=1e-10)
        np.testing.assert_allclose(got["score_ref"], score(codes[[v[0] for v in variants]]), atol=1e-10)
        np.testing.assert_allclose(got["score_alt"] - got["score_ref"], got["delta"], atol=1e-12)


@pytest.mark.parametrize("normalize, rc", [(True, True), (False, True), (True, False)])
def test_gkm_delta_equals_rescoring(windows, normalize, rc):
    codes, left, right = windows
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(40, 36)).astype(np.uint8)
    model = GKMClassifier(6, 3, normalize=normalize, reverse_complement=rc).fit(X, np.r_[np.ones(20), np.zeros(20)])
    variants = _random_variants(rng, codes, 40)
    got = variant_effects(model, codes, variants, flanks=(left, right), p_values=False)
    want = _rescored(model.decision_function, codes, left, right, variants)
    np.testing.assert_allclose(got["delta"], want, rtol=0, atol=1e-12)
    assert np.abs(got["delta"]).max() > 1e-3  # not a vacuous comparison
    snv = got["ref"].str.len() == got["alt"].str.len()
    assert (got.loc[snv, "oligomer"].str.len() > 0).all() and (got.loc[snv, "oligomer_position"] >= 1).all()


def test_python_scorer_delta_equals_rescoring(windows):
    codes, left, right = windows

    def score(X):  # nonlinear in the letters: GC pairs and a position weight
        X = np.asarray(X)
        gc = np.isin(X, (1, 2)).astype(float)
        return np.tanh((gc[:, :-1] * gc[:, 1:]).sum(axis=1) / 5.0) + 0.01 * (X * np.arange(X.shape[1])).sum(axis=1)

    variants = _random_variants(np.random.default_rng(4), codes, 24)
    got = variant_effects(score, codes, variants, flanks=(left, right), p_values=False)
    np.testing.assert_allclose(got["delta"], _rescored(score, codes, left, right, variants), atol=1e-12)
    assert (got["oligomer"] == "").all()


def _lmer_score_brute(W, columns, lmer, rc):
    """An l-mer's weight from the explicit gapped-k-mer table W (C(l,k), 4**k): every column choice."""
    def one(u):
        total = 0.0
        for c, cols in enumerate(columns):
            idx = 0
            for j in cols:
                idx = idx * 4 + LETTERS.index(u[j])
            total += W[c, idx]
        return total

    other = lmer.translate(str.maketrans("ACGT", "TGCA"))[::-1]
    return one(lmer) + (one(other) if rc else 0.0)


@pytest.mark.parametrize("normalize", [False, True])
def test_gkm_delta_is_deltasvm_rule_from_explicit_weights(normalize):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(30, 30)).astype(np.uint8)
    model = GKMClassifier(5, 3, normalize=normalize).fit(X, np.r_[np.ones(15), np.zeros(15)])
    W, columns, l = model.gapped_kmer_weights(), [tuple(c) for c in combinations(range(5), 3)], 5
    codes = X[:4]
    variants = _random_variants(rng, codes, 16, indels=False)
    rule = []
    for w, off, ref, alt in variants:  # deltaSVM: sum over the l-mers covering the variant, alt minus ref
        seq = "".join(LETTERS[c] for c in codes[w])
        mut = seq[:off] + alt + seq[off + 1:]
        rule.append(sum(_lmer_score_brute(W, columns, mut[t:t + l], True) - _lmer_score_brute(W, columns,
                                                                                              seq[t:t + l], True)
                        for t in range(max(0, off - l + 1), min(off, len(seq) - l) + 1)))
    np.testing.assert_allclose(deltasvm_sums(model, codes, variants), rule, atol=1e-12)
    got = variant_effects(model, codes, variants, p_values=False)
    if not normalize:
        np.testing.assert_allclose(got["delta"], rule, atol=1e-12)
    else:  # the same sum over the window's new norm: exactly what the model scores
        assert not np.allclose(got["delta"], rule)


def test_null_holds_every_substitution_and_p_values():
    rng = np.random.default_rng(6)
    tables = [rng.normal(size=(20 - k + 1, 4 ** k)) for k in range(1, 4)]
    weights = PositionalWeights(tables)
    codes = rng.integers(0, 4, size=(3, 20)).astype(np.uint8)
    null = snv_null(weights, codes)
    assert null.shape == (3, 60)
    for w, p in ((0, 0), (2, 19), (1, 7)):
        others = [b for b in range(4) if b != codes[w, p]]
        for j, b in enumerate(others):
            alt = codes[w].copy()
            alt[p] = b
            assert null[w, 3 * p + j] == pytest.approx(weights.score(alt[None])[0] - weights.score(codes[w][None])[0],
                                                       abs=1e-12)
    np.testing.assert_allclose(empirical_p_values([0.0, 2.0, -2.0, 5.0], [1.0, -2.0, 3.0, 0.5]),
                               [5 / 5, 3 / 5, 3 / 5, 1 / 5])
    assert snv_null(weights, codes, windows=2, random_state=0).shape == (2, 60)
    # a substitution's own delta lies in the null: its p-value is at most 1 and at least 1 / (1 + n)
    got = variant_effects(weights, codes, [(1, 7, LETTERS[codes[1, 7]], LETTERS[(codes[1, 7] + 1) % 4])])
    assert 1 / 61 <= got["p_value"][0] <= 1


def test_alt_window_recut_around_the_centre():
    window = np.array([0, 1, 2, 3, 0, 1, 2, 3, 0], dtype=np.uint8)  # centre: index 4
    left = np.array([3, 3, 3], dtype=np.uint8)
    right = np.array([2, 2, 2], dtype=np.uint8)
    # deletion of 2 bases after the centre: the right flank comes in
    assert alt_window(window, left, right, 5, "CGT", "C").tolist() == [0, 1, 2, 3, 0, 1, 0, 2, 2]
    # deletion before the centre: the window moves right by 2 in the genome, the left end pulls in
    assert alt_window(window, left, right, 1, "CGT", "C").tolist() == [3, 3, 0, 1, 0, 1, 2, 3, 0]
    # insertion after the centre pushes the right end out
    assert alt_window(window, left, right, 6, "G", "GAA").tolist() == [0, 1, 2, 3, 0, 1, 2, 0, 0]
    with pytest.raises(SeqimpError, match="off the chromosome or N"):
        alt_window(window, np.array([255, 255, 255], dtype=np.uint8), right, 1, "CGT", "C")


def test_base_importance_sums_to_the_score():
    rng = np.random.default_rng(7)
    weights = PositionalWeights([rng.normal(size=(15 - k + 1, 4 ** k)) for k in range(1, 4)], bias=0.3)
    codes = rng.integers(0, 4, size=(4, 15)).astype(np.uint8)
    np.testing.assert_allclose(base_importance(weights, codes).sum(axis=1), weights.score(codes) - 0.3, atol=1e-12)


# --- seqimp variants end to end ------------------------------------------------------------------


def _planted_genome(folder, rng):
    """Two chromosomes of random bases; chr1 carries SITE at 12 places (regions around them), the
    last one on the '-' strand (its reverse complement on '+')."""
    chr1 = list(rng.choice(list(LETTERS), 4000))
    chr2 = list(rng.choice(list(LETTERS), 1500))
    sites = [300 + 300 * i for i in range(12)]
    for s in sites:
        chr1[s:s + len(SITE)] = SITE
    chr1[sites[-1]:sites[-1] + len(SITE)] = SITE.translate(str.maketrans("ACGT", "TGCA"))[::-1]
    with open(folder / "g.fa", "w") as fh:
        fh.write(">chr1\n" + "\n".join("".join(chr1[i:i + 60]) for i in range(0, len(chr1), 60)) + "\n")
        fh.write(">chr2\n" + "\n".join("".join(chr2[i:i + 60]) for i in range(0, len(chr2), 60)) + "\n")
    return "".join(chr1), "".join(chr2), sites


def _train_wd(rng, length=40):
    """A degree-4 WD model that has learned SITE at the window centre."""
    from seqimp import encode

    pos = []
    for _ in range(150):
        s = list(rng.choice(list(LETTERS), length))
        s[17:17 + len(SITE)] = SITE
        pos.append("".join(s))
    neg = ["".join(rng.choice(list(LETTERS), length)) for _ in range(150)]
    return WDClassifier(degree=4, C=1.0).fit(encode(pos + neg), np.r_[np.ones(150), np.zeros(150)])


def _write_vcf(path, records, header=True):
    text = ("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n" if header else "") + "".join(
        "\t".join(str(x) for x in r) + ("\t.\tPASS\t.\n" if len(r) == 5 else "\n") for r in records)
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    from seqimp.training import save_model

    folder = tmp_path_factory.mktemp("variants")
    rng = np.random.default_rng(11)
    chr1, chr2, sites = _planted_genome(folder, rng)
    model = _train_wd(rng)
    save_model(folder / "model.npz", model.positional_weights(), {"degree": 4, "length": 40})
    # regions of 40 nt with SITE at 0-based 17..23 of the window (its centre, 20, inside it); the last
    # one on '-': its window is [s - 16, s + 24) (the centre base at index 20 of the reverse complement)
    with open(folder / "r.bed", "w") as fh:
        for i, s in enumerate(sites):
            strand = "-" if i == len(sites) - 1 else "+"
            fh.write(f"chr1\t{s - 17}\t{s + 23}\tpeak{i + 1}\t0\t{strand}\n")
    records, breaking = [], []
    for i, s in enumerate(sites[:-1]):  # one SNV in the site's core (it breaks it), one far from it
        g = s + 3  # the C of TGACTCA
        records.append(("chr1", g + 1, f"break{i + 1}", chr1[g], "A" if chr1[g] != "A" else "G"))
        breaking.append(f"break{i + 1}")
        h = s - 15
        records.append(("chr1", h + 1, f"far{i + 1}", chr1[h], LETTERS[(LETTERS.index(chr1[h]) + 1) % 4]))
    s = sites[-1]  # the '-' window: a deletion of 3 bases inside the site and a far SNV
    records.append(("chr1", s + 1, "del_minus", chr1[s:s + 4], chr1[s]))
    records.append(("chr1", s - 10, "far_minus", chr1[s - 11], LETTERS[(LETTERS.index(chr1[s - 11]) + 2) % 4]))
    _write_vcf(folder / "v.vcf", records)
    return {"folder": folder, "chr1": chr1, "chr2": chr2, "sites": sites, "model": model, "breaking": breaking,
            "records": records}


def test_variants_cli_planted_site_ranks_first(planted, tmp_path, capsys):
    f = planted["folder"]
    out = tmp_path / "out"
    argv = ["variants", "--model-file", str(f / "model.npz"), "--vcf", str(f / "v.vcf"), "--genome", str(f / "g.fa"),
            "--regions", str(f / "r.bed"), "--out", str(out), "--top", "3"]
    assert main(argv) == 0
    assert "variants scored" in capsys.readouterr().out
    table = pd.read_csv(out / "variants.tsv", sep="\t", keep_default_na=False)
    assert list(table.columns[:10]) == ["chrom", "pos", "id", "ref", "alt", "window", "score_ref", "score_alt",
                                        "delta", "p_value"]
    assert "oligomer" in table.columns and len(table) == len(planted["records"])
    ranked = table.iloc[np.argsort(-np.abs(table["delta"].to_numpy()), kind="stable")]["id"].tolist()
    top = ranked[:len(planted["breaking"]) + 1]
    assert set(planted["breaking"]) <= set(top) and set(top) <= set(planted["breaking"]) | {"del_minus"}
    breaking = table[table["id"].isin(planted["breaking"])]
    assert (breaking["delta"] < 0).all() and (breaking["p_value"] < table[table["id"].str.startswith("far")][
        "p_value"].min()).all()
    # every row re-scored from the genome by hand: '+' windows as they are, the '-' window reverse-complemented
    weights = planted["model"].positional_weights()
    chr1 = planted["chr1"]
    comp = str.maketrans("ACGT", "TGCA")
    for row in table.itertuples():
        m = re.match(r"chr1:(\d+)-(\d+)(\(-\))?$", row.window)
        start, end, minus = int(m.group(1)) - 1, int(m.group(2)), bool(m.group(3))
        g = row.pos - 1
        ref_seq = chr1[start:end]
        hap = chr1[:g] + row.alt + chr1[g + len(row.ref):]
        shift = len(row.alt) - len(row.ref)
        if minus:  # the centre (index 20 on the '-' strand) is genome base end - 1 - 20, before the deletion's end
            centre = end - 1 - 20
            c_hap = centre if centre <= g else (centre + shift if centre >= g + len(row.ref)
                                                else g + min(centre - g, len(row.alt) - 1))
            alt_seq = hap[c_hap + 20 - 39:c_hap + 20 + 1].translate(comp)[::-1]
            ref_seq = ref_seq.translate(comp)[::-1]
        else:
            alt_seq = hap[start:end]
        want_ref, want_alt = weights.score([ref_seq, alt_seq])
        assert row.score_ref == pytest.approx(want_ref, abs=1e-5)
        assert row.delta == pytest.approx(want_alt - want_ref, abs=1e-5)
    for name in ("variants.bed", "variants.json", "variants_delta.png", "top_variants.png", "report.html"):
        assert (out / name).is_file()
    bed = (out / "variants.bed").read_text().splitlines()
    assert len(bed) == len(table) and bed[0].split("\t")[:4] == ["chr1", str(table["pos"][0] - 1),
                                                                 str(table["pos"][0]), table["id"][0]]
    # the same command twice: byte-identical files
    again = tmp_path / "again"
    assert main(argv[:-4] + ["--out", str(again), "--top", "3"]) == 0
    for name in ("variants.tsv", "variants.bed", "variants.json", "variants_delta.png", "top_variants.png",
                 "report.html"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_train_gkm_model_file_and_centred_windows(planted, tmp_path, capsys):
    from seqimp.kernels.gkm._file import load_gkm

    f = planted["folder"]
    rng = np.random.default_rng(12)
    pos = ["".join(rng.choice(list(LETTERS), 40)) for _ in range(60)]
    pos = [s[:10] + SITE + s[17:] for s in pos]
    neg = ["".join(rng.choice(list(LETTERS), 40)) for _ in range(60)]
    for name, seqs in (("pos.fa", pos), ("neg.fa", neg)):
        (tmp_path / name).write_text("".join(f">s{i}\n{s}\n" for i, s in enumerate(seqs)))
    gkm_path = tmp_path / "gkm.npz"
    assert main(["train", "--positive", str(tmp_path / "pos.fa"), "--negative", str(tmp_path / "neg.fa"), "--model",
                 "gkm", "--gkm-length", "6", "--gkm-informative", "4", "--model-out", str(gkm_path)]) == 0
    model, metadata = load_gkm(gkm_path)
    assert metadata["length"] == 40 and metadata["word_length"] == 6
    X = rng.integers(0, 4, size=(5, 40)).astype(np.uint8)
    from seqimp.kernels.gkm._file import save_gkm

    save_gkm(tmp_path / "again.npz", model, metadata)
    assert np.array_equal(load_gkm(tmp_path / "again.npz")[0].decision_function(X), model.decision_function(X))
    out = tmp_path / "out"
    assert main(["variants", "--model-file", str(gkm_path), "--vcf", str(f / "v.vcf"), "--genome", str(f / "g.fa"),
                 "--out", str(out)]) == 0
    table = pd.read_csv(out / "variants.tsv", sep="\t", keep_default_na=False)
    assert len(table) == len(planted["records"])
    row = table.iloc[0]  # the window centred on the first variant: 20 bases before it, 19 after
    g = int(row["pos"]) - 1
    ref_seq = planted["chr1"][g - 20:g + 20]
    alt_seq = ref_seq[:20] + row["alt"] + ref_seq[21:]
    want = model.decision_function([alt_seq, ref_seq])
    assert row["window"] == f"chr1:{g - 19}-{g + 20}"
    assert row["delta"] == pytest.approx(want[0] - want[1], abs=1e-5)
    assert (table[table["id"].isin(planted["breaking"])]["delta"] < 0).mean() >= 0.8


def test_scorer_route_needs_a_width_and_scores_centred_windows(planted, tmp_path, capsys):
    f = planted["folder"]
    (tmp_path / "gc.py").write_text("import numpy as np\n\ndef score(X):\n"
                                    "    return np.isin(np.asarray(X), (1, 2)).sum(axis=1) / 10.0\n")
    argv = ["variants", "--scorer", f"{tmp_path / 'gc.py'}:score", "--vcf", str(f / "v.vcf"), "--genome",
            str(f / "g.fa"), "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    assert "give --width" in capsys.readouterr().err
    assert main(argv + ["--width", "21"]) == 0
    table = pd.read_csv(tmp_path / "out" / "variants.tsv", sep="\t", keep_default_na=False)
    gc = {"A": 0, "T": 0, "C": 1, "G": 1}
    snv = table["ref"].str.len() == 1
    want = [(gc[a] - gc[r]) / 10.0 for r, a in zip(table.loc[snv, "ref"], table.loc[snv, "alt"])]
    np.testing.assert_allclose(table.loc[snv, "delta"], want, atol=1e-6)
    assert table["window"][0] == f"chr1:{table['pos'][0] - 10}-{table['pos'][0] + 10}"


def test_read_vcf_gzip_split_and_no_alt(tmp_path):
    path = _write_vcf(tmp_path / "v.vcf.gz", [("chr1", 5, "a", "A", "C,G"), ("chr1", 9, ".", "C", "."),
                                               ("chr2", 3, "b", "t", "tA")])
    table = read_vcf(path, split_multiallelic=True)
    assert table[["chrom", "pos", "ref", "alt", "line"]].values.tolist() == [
        ["chr1", 5, "A", "C", 3], ["chr1", 5, "A", "G", 3], ["chr2", 3, "T", "TA", 5]]
    assert table.attrs["skipped"]["no_alt"] == 1


def _bgzip(src, dst):
    from Bio import bgzf

    with bgzf.BgzfWriter(str(dst), "wb") as fh:
        fh.write(src.read_bytes())


@pytest.mark.parametrize("records, extra, message", [
    ([("chr1", "{p}", "x", "{wrong}", "A")], [], r"line 3: chr1:\d+: REF '[ACGT]' does not match the genome "
                                                 r"\(the genome has '[ACGT]'\).*--skip-mismatch"),
    ([("chr1", "{p}", "x", "{ref}", "G"), ("chr1", "abc", "y", "A", "C")], [], r"line 4: POS must be a positive "
                                                                                 r"integer, got 'abc'"),
    ([("chr1", "{p}", "x", "{ref}", "G"), ("chr1", "12")], [], r"line 4: a VCF record needs tab-separated"),
    ([("chr9", "100", "x", "A", "G")], [], r"line 3: chr9:100: chromosome 'chr9' is not in the genome"),
    ([("chr2", "100", "x", "{ref2}", "G")], ["--regions", "{bed}"], r"line 3: chr2:100: the variant lies in no "
                                                                     r"window.*--skip-outside"),
    ([("chr1", "{p}", "x", "{ref}", "G,T")], [], r"line 3: 2 ALT alleles \(G,T\).*--split-multiallelic"),
    ([("chr1", "{p}", "x", "{ref}", "<DEL>")], [], r"line 3: symbolic ALT allele '<DEL>'"),
    ([("chr1", "{p}", "x", "{ref}", "{ref}" + "A" * 55)], [], r"line 3: allele of 56 bases; seqimp scores indels "
                                                              r"of up to 50 nt"),
    ("bgzip", ["--regions", "{bed}", "--skip-outside"], r"bgzip-compressed without its index .*tabix -p vcf"),
])
def test_bad_inputs_one_line_no_output(planted, tmp_path, capsys, records, extra, message):
    f = planted["folder"]
    s = planted["sites"][0]
    g = s + 3
    ref = planted["chr1"][g]
    fill = {"p": str(g + 1), "ref": ref, "wrong": LETTERS[(LETTERS.index(ref) + 1) % 4],
            "ref2": planted["chr2"][99], "bed": str(f / "r.bed")}
    if records == "bgzip":
        vcf = tmp_path / "v.vcf.gz"
        _bgzip(f / "v.vcf", vcf)
    else:
        vcf = _write_vcf(tmp_path / "v.vcf", [tuple(str(x).format(**fill) for x in r) for r in records])
    out = tmp_path / "out"
    argv = ["variants", "--model-file", str(f / "model.npz"), "--vcf", str(vcf), "--genome", str(f / "g.fa"),
            "--out", str(out)] + [a.format(**fill) for a in extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len([line for line in err if line.startswith("seqimp: error:")]) == 1, err
    assert "Traceback" not in "\n".join(err)
    assert re.search(message, err[-1]), err[-1]
    assert not out.exists()


def test_skip_options_leave_records_out(planted, tmp_path):
    f = planted["folder"]
    g = planted["sites"][0] + 3
    ref = planted["chr1"][g]
    vcf = _write_vcf(tmp_path / "v.vcf", [("chr1", g + 1, "ok", ref, "A" if ref != "A" else "G"),
                                          ("chr1", g + 1, "bad", LETTERS[(LETTERS.index(ref) + 1) % 4], ref),
                                          ("chr2", 100, "out", planted["chr2"][99], "G" if planted["chr2"][99] != "G"
                                           else "C")])
    out = tmp_path / "out"
    assert main(["variants", "--model-file", str(f / "model.npz"), "--vcf", str(vcf), "--genome", str(f / "g.fa"),
                 "--regions", str(f / "r.bed"), "--skip-mismatch", "--skip-outside", "--out", str(out)]) == 0
    table = pd.read_csv(out / "variants.tsv", sep="\t", keep_default_na=False)
    assert table["id"].tolist() == ["ok"]


def test_indexed_vcf_through_pysam(planted, tmp_path):
    pysam = pytest.importorskip("pysam", reason="the vcf extra: pip install 'seqimp[vcf]'")
    f = planted["folder"]
    path = tmp_path / "v.vcf.gz"
    sorted_vcf = _write_vcf(tmp_path / "sorted.vcf", sorted(planted["records"], key=lambda r: r[1]))
    pysam.tabix_compress(str(sorted_vcf), str(path))
    pysam.tabix_index(str(path), preset="vcf")
    from seqimp.io import read_bed

    regions = read_bed(f / "r.bed")
    whole = read_vcf(sorted_vcf, regions=regions)
    indexed = read_vcf(path, regions=regions)
    assert len(whole) == len(planted["records"]) and indexed["line"].eq(0).all()
    assert indexed[["chrom", "pos", "id", "ref", "alt"]].equals(whole[["chrom", "pos", "id", "ref", "alt"]])
    assert os.path.exists(str(path) + ".tbi")


def test_run_variants_library_call_and_its_repr(planted, tmp_path):
    from seqimp.options import VariantOptions
    from seqimp.pipeline import run_variants

    f = planted["folder"]
    run = run_variants(tmp_path, f / "model.npz", f / "v.vcf", f / "g.fa", regions=f / "r.bed",
                       options=VariantOptions(top=0, null_windows=3), random_state=1)
    assert repr(run) == "VariantRun(rows=24, variants=24, windows=12, top='chr1:3601 TGAG>T')"
    assert run.null.shape == (3, 120) and "seqimp variants" in run._repr_html_()
    assert not (tmp_path / "top_variants.png").exists() and (tmp_path / "report.html").is_file()


@pytest.mark.parametrize("extra, message", [
    (["--model", "gkm", "--shifts", "2"], r"--shifts 2 is the WDS kernel's; --model gkm has no shifts"),
    (["--model", "wds"], r"model kind 'wds' needs shifts > 0"),
])
def test_train_model_kind_refusals(tmp_path, capsys, extra, message):
    from seqimp.datasets import demo_paths

    pos, neg = demo_paths()
    out = tmp_path / "m.npz"
    assert main(["train", "--positive", str(pos), "--negative", str(neg), "--model-out", str(out)] + extra) == 2
    assert re.search(message, capsys.readouterr().err) and not out.exists()


def test_mask_lowercase_reads_the_genome_s_soft_masked_bases_as_unknown(planted, tmp_path):
    """VariantOptions(mask_lowercase=True) on a soft-masked genome equals the genome with those bases as N
    (a window over them is kept, the k-mers covering them no feature), and differs from reading them as bases."""
    from seqimp.options import VariantOptions
    from seqimp.pipeline import run_variants

    f, chr1, s = planted["folder"], planted["chr1"], planted["sites"][0]
    masked = range(s + 10, s + 14)  # inside peak1's window, at no variant
    genomes = {}
    for name, letter in (("soft", lambda c: c.lower()), ("n", lambda c: "N")):
        seq = "".join(letter(c) if i in masked else c for i, c in enumerate(chr1))
        genomes[name] = tmp_path / f"{name}.fa"
        genomes[name].write_text(f">chr1\n{seq}\n>chr2\n{planted['chr2']}\n")
    tables = {}
    for name, genome, mask in (("masked", genomes["soft"], True), ("n", genomes["n"], False),
                               ("bases", genomes["soft"], False)):
        (tmp_path / name).mkdir()
        run_variants(tmp_path / name, f / "model.npz", f / "v.vcf", genome, regions=f / "r.bed",
                     options=VariantOptions(top=0, null_windows=3, mask_lowercase=mask))
        tables[name] = (tmp_path / name / "variants.tsv").read_text()
    assert tables["masked"] == tables["n"]
    assert tables["masked"] != tables["bases"]
