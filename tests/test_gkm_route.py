"""The model route of the motif runs: auto picks the gkm model on position-free signal and the
WD model on positional signal; the gkm motif step; the route's options and errors."""

import json
import logging

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.options import ModelOptions, MotifOptions
from seqimp.pipeline import run_motifs
from seqimp.training import choose_model, train_gkm
from seqimp.training._gkm import GKM_TOL, HELD_OUT_TOL
from test_gkm import planted

pytestmark = pytest.mark.filterwarnings("ignore:the model is close to chance")


def _positional(n=200, L=60, seed=0, motif="TTACGTAA", at=25):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, L)).astype(np.uint8)
    y = np.r_[np.ones(n // 2), np.zeros(n - n // 2)].astype(int)
    X[: n // 2, at:at + len(motif)] = ["ACGT".index(c) for c in motif]
    return X, y


@pytest.fixture(scope="module")
def free():
    X, y = planted(240, L=100, seed=3, share=0.6)
    return X[y == 1], X[y == 0]


@pytest.mark.parametrize("loose_from", [0, 10_000])
def test_held_out_fit_stops_at_its_own_tolerance(free, monkeypatch, loose_from):
    """The held-out gkm fit only gives the auROC and the start of the fit on all sequences: it
    stops at HELD_OUT_TOL from HELD_OUT_LOOSE_FROM training sequences on, else at GKM_TOL; the
    fit on all, which the motifs come from, at GKM_TOL."""
    import seqimp.training._gkm as training_gkm
    from seqimp.kernels import GKMClassifier

    monkeypatch.setattr(training_gkm, "HELD_OUT_LOOSE_FROM", loose_from)

    tols = []
    fit = GKMClassifier.fit

    def spy(self, X, y, **kwargs):
        tols.append((len(y), self.tol))
        return fit(self, X, y, **kwargs)

    monkeypatch.setattr(GKMClassifier, "fit", spy)
    pos, neg = free
    X, y = np.vstack([pos, neg]), np.r_[np.ones(len(pos)), np.zeros(len(neg))].astype(int)
    gkm, info = train_gkm(X, y, model=ModelOptions(kind="gkm"), random_state=0)
    assert HELD_OUT_TOL > GKM_TOL
    held_tol = HELD_OUT_TOL if loose_from == 0 else GKM_TOL
    assert tols == [(info["n_train"], held_tol), (len(y), GKM_TOL)] and info["n_train"] < len(y)
    assert info["held_out_tol"] == held_tol
    assert gkm.tol == GKM_TOL and info["auroc"] > 0.75


def test_choose_model_rule():
    assert choose_model("auto", held_out={"auroc": 0.55}).route == "gkm"
    assert choose_model("auto", held_out={"auroc": 0.6}).route == "wd"
    assert choose_model("auto", shifts=2, held_out={"auroc": 0.9}).route == "wds"
    r = choose_model("auto", held_out={"auroc": None})
    assert r.route == "wd" and "no held-out split" in r.reason
    assert choose_model("gkm").record()["requested"] == "gkm"
    rec = choose_model("auto", held_out={"auroc": 0.412}).record()
    assert rec["positional_auroc"] == 0.412 and rec["threshold"] == 0.6 and "0.412 < 0.6" in rec["reason"]


def test_choose_model_compares_in_the_gray_zone():
    calls = []

    def gkm(auroc):
        return lambda: calls.append(auroc) or {"auroc": auroc}

    r = choose_model("auto", held_out={"auroc": 0.7}, gkm_held_out=gkm(0.76))
    assert r.route == "gkm" and r.record()["gkm_auroc"] == 0.76 and "predicts better held out" in r.reason
    r = choose_model("auto", held_out={"auroc": 0.7}, gkm_held_out=gkm(0.74))
    assert r.route == "wd" and r.gkm_held_out == {"auroc": 0.74} and "not better by 0.05" in r.reason
    assert choose_model("auto", held_out={"auroc": 0.8}, gkm_held_out=gkm(0.99)).route == "wd"  # no comparison
    assert choose_model("auto", held_out={"auroc": 0.5}, gkm_held_out=gkm(0.4)).route == "gkm"  # near chance
    assert calls == [0.76, 0.74]


def test_auto_runs_gkm_on_position_free_motif(free, tmp_path):
    pos, neg = free
    run = run_motifs(tmp_path, positive=pos, negative=neg, model=ModelOptions(degree=4),
                            motifs=MotifOptions(strand="both"))
    route = json.loads((tmp_path / "motifs.json").read_text())["parameters"]["model_route"]
    assert route["route"] == "gkm" and route["requested"] == "auto" and route["positional_auroc"] < 0.6
    best = run.motifs[0]
    assert best.position_free
    consensus = best.consensus
    rc = consensus[::-1].translate(str.maketrans("ACGT", "TGCA"))
    assert "TACGTA" in consensus or "TACGTA" in rc
    assert run.stats["p_value"].iloc[0] < 1e-10
    gkm = run.parameters["gkm_metrics"]
    assert gkm["auroc"] > 0.75  # held out; WD is below 0.6 on the same split
    assert "seconds" not in (tmp_path / "motifs.json").read_text()  # no wall-clock: the same run, the same bytes
    # 240 sequences: the held-out fit keeps the fit on all's tolerance (HELD_OUT_LOOSE_FROM)
    assert (run.parameters["tol"], run.parameters["held_out_tol"]) == (GKM_TOL, GKM_TOL)
    for name in ("motifs.tsv", "motif_sites.tsv", "motifs.meme", "motif_candidates.tsv"):
        assert (tmp_path / name).is_file()
    assert not (tmp_path / "motifs_poim.npz").exists()  # the gkm route has no POIM


def test_auto_keeps_wd_on_positional_motif(tmp_path):
    X, y = _positional()
    run = run_motifs(tmp_path, positive=X[y == 1], negative=X[y == 0], model=ModelOptions(degree=4))
    route = run.parameters["model_route"]
    assert route["route"] == "wd" and route["positional_auroc"] >= 0.6
    assert not run.motifs[0].position_free and run.motifs[0].start in range(24, 28)
    assert (tmp_path / "motifs_poim.npz").is_file()


def test_poim_gkm_route_writes_positional_poim_and_gkm_motifs(free, tmp_path):
    from seqimp.pipeline import run_poim

    pos, neg = free
    run = run_poim(tmp_path, pos, neg, model=ModelOptions(degree=3, kind="gkm", word_length=8, informative=5),
                   motifs=MotifOptions(strand="both"))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["model_route"]["route"] == "gkm" and summary["model_route"]["requested"] == "gkm"
    assert summary["best_motif"]["position_free"] is True
    assert (tmp_path / "top_oligomers.tsv").is_file() and run.motifs is not None


def test_cli_model_option(free, tmp_path):
    from seqimp.cli import main
    from seqimp.io import write_fasta

    pos, neg = free
    write_fasta(tmp_path / "p.fa", pos)
    write_fasta(tmp_path / "n.fa", neg)
    out = tmp_path / "out"
    assert main(["motifs", "--positive", str(tmp_path / "p.fa"), "--negative", str(tmp_path / "n.fa"), "--out",
                 str(out), "--model", "gkm", "--gkm-length", "8", "--gkm-informative", "5", "-q"]) == 0
    route = json.loads((out / "motifs.json").read_text())["parameters"]["model_route"]
    assert route["route"] == "gkm" and route["reason"] == "requested (--model gkm)"


def test_errors(free, tmp_path, capsys):
    from seqimp.cli import main

    with pytest.raises(SeqimpError, match="model kind 'wds' needs shifts > 0"):
        ModelOptions(kind="wds")
    with pytest.raises(SeqimpError, match="model kind 'wd' is the WD kernel without shifts"):
        ModelOptions(kind="wd", shifts=2)
    with pytest.raises(SeqimpError, match="kind must be one of"):
        ModelOptions(kind="cnn")
    with pytest.raises(SeqimpError, match="informative must be <= word_length"):
        ModelOptions(word_length=5, informative=6)
    pos, neg = free
    with pytest.raises(SeqimpError, match="model kind 'gkm' finds the motifs of a gapped-k-mer model; this run has "
                                          "no motif step"):
        from seqimp.pipeline import run_poim

        run_poim(tmp_path, pos, neg, model=ModelOptions(kind="gkm"), motifs=None)
    with pytest.raises(SeqimpError, match="model kind 'gkm' trains a gapped-k-mer model on the sequences; it does "
                                          "not start from a POIM"):
        run_motifs(tmp_path, poim=tmp_path / "none.npz", model=ModelOptions(kind="gkm"))
    (tmp_path / "x.npz").write_bytes(b"")  # exists: the --model check comes before reading it
    assert main(["motifs", "--poim", str(tmp_path / "x.npz"), "--out", str(tmp_path / "o"), "--model", "gkm"]) == 2
    assert "--model gkm chooses the model trained on the sequences; --poim starts from a saved POIM" in \
        capsys.readouterr().err


def test_cli_route_errors(free, tmp_path, capsys):
    from seqimp.cli import main
    from seqimp.io import write_fasta

    pos, neg = free
    write_fasta(tmp_path / "p.fa", pos[:20])
    write_fasta(tmp_path / "n.fa", neg[:20])
    data = ["--positive", str(tmp_path / "p.fa"), "--negative", str(tmp_path / "n.fa"), "--out", str(tmp_path / "o")]
    cases = [(["poim", *data, "--model", "gkm", "--no-motifs"], "--model gkm finds the motifs of a gapped-k-mer "
                                                                "model; this run has no motif step"),
             (["motifs", *data, "--model", "wds"], "model kind 'wds' needs shifts > 0"),
             (["motifs", *data, "--model", "wd", "--shifts", "2"], "model kind 'wd' is the WD kernel without shifts"),
             (["motifs", *data, "--gkm-length", "5", "--gkm-informative", "6"], "informative must be <= word_length")]
    for argv, message in cases:
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_lmer_seeds(free):
    import pandas as pd

    from seqimp.kernels import GKMClassifier
    from seqimp.motifs._gkm_seeds import _core, _variant, lmer_seeds

    assert _variant("TGTTTACATT", "AATGTAAACA")  # reverse complement
    assert _variant("TGTTTACATT", "ATGTTTACTA")  # shifted by one, two letters differ in nine
    assert not _variant("TGTTTACATT", "GGGCCCAGGG")
    pos, neg = free
    model = GKMClassifier(8, 5).fit(np.concatenate([pos, neg]), np.r_[np.ones(len(pos)), np.zeros(len(neg))])
    none = pd.DataFrame(columns=["sequence", "start", "end", "score"])
    seeds, table = lmer_seeds(model, none, pos)
    assert len(seeds) == 1 and seeds[0].position_free  # the planted motif's variants are one seed
    core = table["core"].iloc[0]
    assert core in "TTACGTAA" or core in "TTACGTAA"[::-1].translate(str.maketrans("ACGT", "TGCA"))
    assert table["z"].iloc[0] > 7 and table["occurrences"].iloc[0] > 0
    acgt = 0b00011011  # ACGT scores 4; replacing its first, third or fourth letter costs nothing
    scores = np.zeros(4 ** 4)
    for j in (0, 2, 3):
        step = 4 ** (3 - j)
        letter = (acgt // step) % 4
        scores[[acgt + (b - letter) * step for b in range(4)]] = 4.0
    assert _core(scores, acgt, 4) == (1, 2)
    scores[acgt + (3 - 2) * 4] = 3.0  # the third letter now costs 1/3 (a twelfth of the second letter's 4)
    assert _core(scores, acgt, 4) == (1, 2) and _core(scores, acgt, 4, share=0.05) == (1, 3)


def test_lmer_seed_columns_are_as_pure_as_their_letters_matter(lmer_scores_model):
    import pandas as pd

    from seqimp.io import kmer_index
    from seqimp.motifs._gkm_seeds import _column_loss, lmer_seeds

    Model = lmer_scores_model
    # CGTA scores 10; replacing C, G or A costs it all, replacing T half of it: a core of all four
    scores = np.random.default_rng(0).normal(scale=0.01, size=4 ** 4)  # a spread for the robust z
    word = kmer_index("CGTA")
    scores[word] = 10.0
    for j, cost in enumerate((10.0, 10.0, 5.0, 10.0)):
        step = 4 ** (3 - j)
        letter = (word // step) % 4
        scores[[word + (b - letter) * step for b in range(4) if b != letter]] = 10.0 - cost
    np.testing.assert_allclose(_column_loss(scores, word, 4), [10.0, 10.0, 5.0, 10.0])
    pos = np.tile(np.array([[0, 1, 2, 3, 0, 0, 0, 0]], dtype=np.uint8), (5, 1))  # ACGTAAAA holds CGTA
    none = pd.DataFrame(columns=["sequence", "start", "end", "score"])
    seeds, table = lmer_seeds(Model(scores), none, pos, pad=1, min_z=0.0, max_motifs=1, purity=0.7)
    assert list(table["word"]) == ["CGTA"] and list(table["core"]) == ["CGTA"]
    core = seeds[0].pwm[1:5]
    expected = [0.7, 0.7, 0.25 + 0.45 * 0.5, 0.7]
    np.testing.assert_allclose(core[np.arange(4), [1, 2, 3, 0]], expected)
    np.testing.assert_allclose(core.sum(axis=1), 1.0)
    np.testing.assert_allclose(seeds[0].pwm[[0, 5]], 0.25)
    flat, _ = lmer_seeds(Model(scores), none, pos, pad=1, min_z=0.0, max_motifs=1, purity=0.7, graded=False)
    np.testing.assert_allclose(flat[0].pwm[1:5][np.arange(4), [1, 2, 3, 0]], 0.7)


def test_lmer_seeds_skip_the_words_of_motifs_explained_away(lmer_scores_model, caplog):
    """A later round's retrained model still weighs the words of the motifs reported (their
    unerased occurrences): such a word is no seed, nor are its variants, and the next word that
    stands out takes its place."""
    import pandas as pd

    from seqimp.io import kmer_index
    from seqimp.motifs import Motif
    from seqimp.motifs._gkm_seeds import lmer_seeds

    scores = np.random.default_rng(0).normal(scale=0.01, size=4 ** 6)
    for word, score in (("CACGTG", 10.0), ("ACACGT", 9.0), ("TGGCCA", 8.0)):  # an E-box, its shift, NFY-like
        scores[kmer_index(word)] = score
    pos = np.array([[int("ACGT".index(c)) for c in "CACGTGAACACGTTTGGCCAAA"]] * 5, dtype=np.uint8)
    none = pd.DataFrame(columns=["sequence", "start", "end", "score"])
    _seeds, table = lmer_seeds(lmer_scores_model(scores, 6), none, pos, pad=1, min_z=7.0, max_motifs=2)
    assert list(table["word"]) == ["CACGTG", "TGGCCA"]  # the shifted E-box is a variant of the first
    ebox = Motif.from_consensus("motif1", "ACCACGTGAC", purity=0.9, position_free=True)
    seeds, table = lmer_seeds(lmer_scores_model(scores, 6), none, pos, pad=1, min_z=7.0, max_motifs=2, exclude=[ebox])
    assert list(table["word"]) == ["TGGCCA"] and [s.name for s in seeds] == ["gkm1"]
    assert table.attrs["copies"] == ["CACGTG (motif1)"]  # its shift ACACGT is a variant: not tried
    other = Motif.from_consensus("motif1", "GATAAG", purity=0.9, position_free=True)
    _seeds, table = lmer_seeds(lmer_scores_model(scores, 6), none, pos, pad=1, min_z=7.0, max_motifs=2, exclude=[other])
    assert list(table["word"]) == ["CACGTG", "TGGCCA"] and table.attrs["copies"] == []
    from seqimp.motifs import gkm_seed_motifs

    with caplog.at_level(logging.INFO, logger="seqimp"):
        found = gkm_seed_motifs(lmer_scores_model(scores, 6), pos, pos, max_motifs=2, round=2, seqlets=False,
                                strand="both", exclude=[ebox])
    assert [s.name for s in found.seeds] == ["round2_gkm1"] and "copies" not in found.candidates.attrs
    assert ("1 l-mer(s) of the model left out as copies of motifs already reported: CACGTG (motif1) (round 2)"
            in caplog.messages)
