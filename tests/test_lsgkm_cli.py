"""LS-GKM model files from and into the command line: 'seqimp train --model gkm' writing one
(--model-out NAME.model.txt[.gz], --model-format lsgkm), 'seqimp variants' scoring with one (the
delta and deltaSVM's score, against brute force), 'seqimp motifs --model-file', and the
combinations refused with one line and nothing written."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from seqimp.cli import main
from seqimp.importance._deltasvm import deltasvm_scores
from seqimp.kernels import read_lsgkm_model
from seqimp.training._model_file import load_model_file

SITE = "TGACTCAG"
L, K = 6, 3


def _random(rng, n):
    return "".join(rng.choice(list("ACGT"), n))


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Positives with SITE, random negatives (50 nt), a genome with SITE at 8 places, a VCF of SNVs in
    and beside them (and one deletion), and one fit written as .npz and as LS-GKM files."""
    d = tmp_path_factory.mktemp("lsgkm_cli")
    rng = np.random.default_rng(5)
    pos = []
    for _ in range(30):
        s = list(_random(rng, 50))
        p = int(rng.integers(0, 42))
        s[p:p + 8] = SITE
        pos.append("".join(s))
    neg = [_random(rng, 50) for _ in range(30)]
    (d / "pos.fa").write_text("".join(f">p{i}\n{s}\n" for i, s in enumerate(pos)))
    (d / "neg.fa").write_text("".join(f">n{i}\n{s}\n" for i, s in enumerate(neg)))
    genome = list(_random(rng, 2000))
    sites = list(range(150, 1900, 220))
    for s in sites:
        genome[s:s + 8] = SITE
    genome = "".join(genome)
    (d / "g.fa").write_text(">chr1\n" + "\n".join(genome[i:i + 60] for i in range(0, len(genome), 60)) + "\n")
    records = []
    for i, s in enumerate(sites):
        for off in (2, 5, -12):
            g = s + off
            alt = "ACGT"[("ACGT".index(genome[g]) + 1 + i % 3) % 4]
            records.append(f"chr1\t{g + 1}\tv{i}_{off}\t{genome[g]}\t{alt}\t.\tPASS\t.")
    records.append(f"chr1\t{sites[0] + 31}\tdel\t{genome[sites[0] + 30:sites[0] + 33]}\t{genome[sites[0] + 30]}\t.\tPASS\t.")
    (d / "v.vcf").write_text("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
                             + "\n".join(records) + "\n")
    common = ["train", "--model", "gkm", "--gkm-length", str(L), "--gkm-informative", str(K), "--positive",
              str(d / "pos.fa"), "--negative", str(d / "neg.fa"), "-q"]
    assert main(common + ["--model-out", str(d / "m.npz")]) == 0
    assert main(common + ["--model-out", str(d / "m.model.txt"), "--cv", "2"]) == 0
    assert main(common + ["--model-out", str(d / "m.model.txt.gz")]) == 0
    assert main(common + ["--model-out", str(d / "named.txt"), "--model-format", "lsgkm"]) == 0
    return {"dir": d, "pos": pos, "neg": neg, "genome": genome}


def test_train_writes_an_lsgkm_file_that_scores_as_the_gkm_model(data):
    d = data["dir"]
    gkm, kind, _ = load_model_file(d / "m.npz")
    assert kind == "gkm"
    rng = np.random.default_rng(0)
    test = data["pos"][:10] + data["neg"][:10] + [_random(rng, n) for n in (6, 20, 90, 300)]
    want = gkm.decision_function(test)
    scale = np.abs(want).max()
    for name in ("m.model.txt", "m.model.txt.gz", "named.txt"):
        model = read_lsgkm_model(d / name)
        assert (model.kernel, model.l, model.k, model.d) == ("gkm_cnt", L, K, L - K)
        assert set(model.support_vectors) <= set(data["pos"] + data["neg"])  # the training sequences
        assert np.abs(model.decision_function(test) - want).max() <= 1e-9 * scale
        lsgkm, kind, _ = load_model_file(d / name)
        assert kind == "lsgkm"
    with gzip.open(d / "m.model.txt.gz", "rt") as fh:
        assert fh.readline().split() == ["svm_type", "c_svc"]
    # --cv's files take the name without .model.txt, as gkmtrain -x names its cvpred file
    assert (d / "m.cvpred.tsv").is_file() and (d / "m.cv.json").is_file()
    assert not list(d.glob(".m.model.txt*"))  # no staging file left


@pytest.mark.parametrize("argv, words", [
    (["--model-format", "lsgkm", "--model-out", "w.model.txt"], "needs --model gkm"),
    (["--model-out", "w.model.txt"], "must end in .npz"),
    (["--model", "gkm", "--model-format", "lsgkm", "--model-out", "w.npz"], "name it NAME.model.txt"),
    (["--model", "gkm", "--model-format", "npz", "--model-out", "w.model.txt"], "name it NAME.npz"),
])
def test_bad_combinations_exit_2_with_one_line_and_write_nothing(data, tmp_path, capsys, argv, words):
    d = data["dir"]
    argv = [a if not a.startswith("w.") else str(tmp_path / a) for a in argv]
    status = main(["train", "--positive", str(d / "pos.fa"), "--negative", str(d / "neg.fa")] + argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and words in err[0], err
    assert not list(tmp_path.iterdir())


def _brute_deltasvm(model, l, ref_seq, offset, alt):
    """deltaSVM's definition in plain Python: over the l-mers of the window overlapping ``offset``,
    weight(alt l-mer) - weight(ref l-mer), each weight the model's score of the l-mer (or of its
    reverse complement, whichever comes first in A < C < G < T order)."""
    comp = str.maketrans("ACGT", "TGCA")
    alt_seq = ref_seq[:offset] + alt + ref_seq[offset + 1:]

    def weight(u):
        return float(model.decision_function([min(u, u.translate(comp)[::-1])])[0])

    return sum(weight(alt_seq[i:i + l]) - weight(ref_seq[i:i + l])
               for i in range(max(0, offset - l + 1), min(offset, len(ref_seq) - l) + 1))


def test_variants_with_an_lsgkm_model(data, tmp_path):
    d = data["dir"]
    tables = {}
    for name in ("m.npz", "m.model.txt"):
        out = tmp_path / name
        assert main(["variants", "--model-file", str(d / name), "--vcf", str(d / "v.vcf"), "--genome",
                     str(d / "g.fa"), "--out", str(out), "--width", "40", "-q"]) == 0
        tables[name] = pd.read_csv(out / "variants.tsv", sep="\t", keep_default_na=False)
    a, b = tables["m.npz"], tables["m.model.txt"]
    assert "deltasvm" in a.columns and "deltasvm" in b.columns
    # the same model, two files: the same deltas (score_alt - score_ref) and deltaSVM scores
    np.testing.assert_allclose(b["delta"], a["delta"], atol=1e-5)
    np.testing.assert_allclose(b["delta"], b["score_alt"] - b["score_ref"], atol=1e-5)
    snv = b["id"] != "del"
    assert pd.to_numeric(b.loc[~snv, "deltasvm"], errors="coerce").isna().all()  # deltaSVM: SNVs only
    np.testing.assert_allclose(b.loc[snv, "deltasvm"].astype(float), a.loc[snv, "deltasvm"].astype(float), atol=1e-5)
    # deltaSVM's score against brute force, on the windows variants.tsv names
    model = read_lsgkm_model(d / "m.model.txt")
    genome = data["genome"]
    for row in b[snv].itertuples():
        start = int(row.window.split(":")[1].split("-")[0]) - 1
        ref_seq = genome[start:start + 40]
        want = _brute_deltasvm(model, L, ref_seq, row.pos - 1 - start, row.alt)
        assert abs(float(row.deltasvm) - want) <= 1e-5 * max(1.0, abs(want))
    # breaking the site lowers the score most
    top = b.iloc[np.argsort(-np.abs(b["delta"].to_numpy()))[:4]]
    assert top["id"].str.contains("_2|_5").all()


def test_deltasvm_scores_library_call_matches_brute_force(data):
    model = read_lsgkm_model(data["dir"] / "m.model.txt")
    rng = np.random.default_rng(3)
    windows = [_random(rng, 30) for _ in range(4)]
    variants = [(w, off, windows[w][off], "ACGT"[("ACGT".index(windows[w][off]) + 1) % 4])
                for w in range(4) for off in (0, 3, 15, 29)]
    got = deltasvm_scores(model, windows, variants)
    want = [_brute_deltasvm(model, L, windows[w], off, alt) for w, off, _ref, alt in variants]
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_motif_seeds_from_an_lsgkm_models_lmer_weights(data):
    """No per-base attributions in an LS-GKM file: the gkm route's l-mer seeds from its l-mer weights
    (every l-mer scored with the model), the same seeds as the GKMClassifier's own weights give."""
    from seqimp.io import encode
    from seqimp.kernels.gkm._lsgkm_lmers import LSGKMLmers
    from seqimp.motifs._gkm_seeds import lmer_seeds

    d = data["dir"]
    view = LSGKMLmers(read_lsgkm_model(d / "m.model.txt"))
    gkm, _, _ = load_model_file(d / "m.npz")
    scores = view.lmer_scores()
    assert scores.shape == (4 ** L,)
    # the same ranking of l-mers as the GKMClassifier's (unnormalised) l-mer scores, up to each l-mer's norm
    assert np.corrcoef(scores, gkm.lmer_scores())[0, 1] > 0.99
    seqlets = pd.DataFrame(columns=["sequence", "start", "end", "score"])
    positive = encode(data["pos"])
    seeds, candidates = lmer_seeds(view, seqlets, positive, max_motifs=2, min_z=3.0)
    assert seeds and any(w in SITE or SITE in w or w[1:-1] in SITE for w in candidates["word"]), candidates


def test_train_gkm_on_records_of_different_lengths(data, tmp_path, capsys):
    """gkmtrain takes FASTA records of any lengths; so does 'seqimp train --model gkm' (position-free)."""
    rng = np.random.default_rng(9)
    pos = [s[:int(rng.integers(30, 51))] for s in data["pos"]]
    neg = [s[:int(rng.integers(30, 51))] for s in data["neg"]]
    (tmp_path / "pos.fa").write_text("".join(f">p{i}\n{s}\n" for i, s in enumerate(pos)))
    (tmp_path / "neg.fa").write_text("".join(f">n{i}\n{s}\n" for i, s in enumerate(neg)))
    common = ["train", "--model", "gkm", "--gkm-length", str(L), "--gkm-informative", str(K), "--positive",
              str(tmp_path / "pos.fa"), "--negative", str(tmp_path / "neg.fa"), "-q"]
    assert main(common + ["--model-out", str(tmp_path / "r.model.txt"), "--cv", "2"]) == 0
    assert main(common + ["--model-out", str(tmp_path / "r.npz")]) == 0
    gkm, _, metadata = load_model_file(tmp_path / "r.npz")
    assert metadata.get("length") is None
    model = read_lsgkm_model(tmp_path / "r.model.txt")
    assert set(model.support_vectors) <= set(pos + neg)
    want = gkm.decision_function(pos + neg)
    assert np.abs(model.decision_function(pos + neg) - want).max() <= 1e-9 * np.abs(want).max()
    cv = pd.read_csv(tmp_path / "r.cvpred.tsv", sep="\t")
    assert len(cv) == len(pos) + len(neg) and set(cv["fold"]) == {1, 2}
    # N is an unknown base: the record is kept and its l-mers over N are no feature
    (tmp_path / "neg.fa").write_text("".join(f">n{i}\n{s}\n" for i, s in enumerate(neg[:-1])) + ">withN\nACGTNACGTACGTA\n")
    assert main(common + ["--model-out", str(tmp_path / "n.npz")]) == 0
    gkm_n, _, _ = load_model_file(tmp_path / "n.npz")
    assert np.isfinite(gkm_n.decision_function(["ACGTNACGTACGTA"])).all()
    # a letter that is neither a base nor an IUPAC code: one line naming the record, nothing written
    (tmp_path / "neg.fa").write_text("".join(f">n{i}\n{s}\n" for i, s in enumerate(neg[:-1])) + ">bad\nACGTZACGTACGTA\n")
    capsys.readouterr()
    assert main(common + ["--model-out", str(tmp_path / "bad.model.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'bad'" in err[0] and "'Z' at position 5" in err[0]
    assert not (tmp_path / "bad.model.txt").exists()
    # records of one length: the positional reading, whose --skip-invalid drops such a record
    (tmp_path / "eq.fa").write_text("".join(f">n{i}\n{s}\n" for i, s in enumerate(data["neg"][:-1]))
                                    + ">bad\n" + "ACGTZ" * 10 + "\n")
    assert main(["train", "--model", "gkm", "--gkm-length", str(L), "--gkm-informative", str(K), "--positive",
                 str(data["dir"] / "pos.fa"), "--negative", str(tmp_path / "eq.fa"), "--skip-invalid", "-q",
                 "--model-out", str(tmp_path / "eq.npz")]) == 0


def test_motifs_from_an_lsgkm_model_file_by_ism(tmp_path):
    """``seqimp motifs --model-file M.model.txt --positive``: the hypothetical contributions of an LS-GKM
    model by in-silico mutagenesis on the positives, and from them the planted TGACTCA (either strand)."""
    import numpy as np

    from seqimp.kernels import GKMClassifier, write_lsgkm_model

    rng = np.random.default_rng(0)
    site = np.array([3, 2, 0, 1, 3, 1, 0])  # TGACTCA
    n, length = 200, 100
    pos = rng.integers(0, 4, size=(n, length))
    for i in np.flatnonzero(rng.random(n) < 0.7):  # the site in 70 % of the positives, away from the ends
        p = int(rng.integers(10, length - 17))
        pos[i, p:p + 7] = site if rng.random() < 0.5 else 3 - site[::-1]
    neg = rng.integers(0, 4, size=(n, length))
    texts = ["".join("ACGT"[c] for c in row) for row in np.vstack([pos, neg])]
    model = GKMClassifier(word_length=7, informative=5).fit(texts, np.r_[np.ones(n), np.zeros(n)])
    write_lsgkm_model(tmp_path / "m.model.txt", model, texts)
    (tmp_path / "pos.fa").write_text("".join(f">p{i}\n{s}\n" for i, s in enumerate(texts[:n])))
    out = tmp_path / "out"
    assert main(["motifs", "--model-file", str(tmp_path / "m.model.txt"), "--positive", str(tmp_path / "pos.fa"),
                 "--out", str(out), "-q"]) == 0
    rows = (out / "motifs.tsv").read_text().splitlines()[1:]
    assert rows and any(("TGACTCA" in r.split("\t")[1] or "TGAGTCA" in r.split("\t")[1]) for r in rows), rows
    with np.load(out / "attributions.npz") as saved:
        assert saved["attributions"].shape == (n, 4, length)
