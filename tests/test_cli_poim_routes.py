"""``seqimp poim`` motifs on every route that has DNA sequences: a saved
``--model`` and the sampled routes given ``--positive``/``--negative`` find the motifs of their
POIM and refine them on those sequences; the routes without both classes of DNA sequences
refuse the motif options with one line saying why.

The demo data (``seqimp.datasets.demo_paths()``) carry the AP-1 site TGACTCA at 1-based start
21, 22 or 23 (uniformly) of 60 nt, so a motif found there starts at 22 with its sites at 21..23.
"""

import csv
import json
import re
from pathlib import Path

import joblib
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from seqimp.cli import main
from seqimp.datasets import demo_paths
from seqimp.scorers import onehot
from seqimp.io import read_fasta

DATA = Path(__file__).resolve().parent / "data"
POS, NEG = (str(p) for p in demo_paths())
AP1, AP1_RC, PLANTED = "TGACTCA", "TGAGTCA", {21, 22, 23}
MOTIF_FILES = {"motifs.meme", "motifs.jaspar", "motifs.transfac", "motifs.tsv", "motifs.json", "motif_candidates.tsv",
               "candidate_tests.tsv",
               "motif_sites.tsv", "motif_sites.bed", "logos"}


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _check_ap1(out, consensus=(AP1,)):
    """The best motif of ``out`` is the planted site: consensus, start 22, sites at 21..23 in
    nearly every positive; the report and summary.json show it."""
    best = _rows(out / "motifs.tsv")[0]
    assert best["consensus"] in consensus and best["start"] == "22" and best["length"] == "7", best
    assert float(best["fraction_positive"]) > 0.85 and float(best["fraction_negative"]) < 0.05
    sites = [r for r in _rows(out / "motif_sites.tsv") if r["motif"] == "motif1"]
    assert len(sites) == int(best["sites"])
    assert sum(int(r["position"]) in PLANTED for r in sites) >= 0.98 * len(sites)
    assert json.loads((out / "summary.json").read_text())["best_motif"]["consensus"] == best["consensus"]
    assert 'id="motifs"' in (out / "report.html").read_text()
    return best


@pytest.fixture(scope="module")
def demo_model(tmp_path_factory):
    """A degree-3 WD model of the demo data, saved by 'seqimp train'."""
    path = tmp_path_factory.mktemp("model") / "model.npz"
    assert main(["train", "--positive", POS, "--negative", NEG, "--model-out", str(path), "--degree", "3",
                 "--seed", "0", "-q"]) == 0
    return path


def test_model_route_with_sequences_writes_the_planted_motif(demo_model, tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["poim", "--model-file", str(demo_model), "--positive", POS, "--negative", NEG, "--out", str(out),
                 "--max-order", "3", "--format", "svg", "-q"]) == 0
    printed = capsys.readouterr().out
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    assert MOTIF_FILES | {"model.npz", "poim.npz", "summary.json", "report.html"} <= names
    assert "matches.tsv" not in names and "motifs_poim.npz" not in names  # no --db; the POIM is poim.npz
    _check_ap1(out)
    assert re.search(r"^motif1\tTGACTCA\tstart 22\t", printed, re.M) and f"motifs: {out}/motifs.tsv" in printed
    parameters = json.loads((out / "motifs.json").read_text())["parameters"]
    assert parameters["trained"] is False and parameters["seed"] == 0 and parameters["strand"] == "both"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["command"] == "poim --model"


def test_model_route_without_both_classes_writes_no_motifs(demo_model, tmp_path, capsys):
    out = tmp_path / "bg"
    assert main(["poim", "--model-file", str(demo_model), "--positive", POS, "--background-fasta", NEG,
                 "--out", str(out), "--max-order", "2", "--format", "svg", "-q"]) == 0
    assert not (out / "motifs.tsv").exists() and "motif" not in capsys.readouterr().out


def test_sampled_route_with_sequences_on_both_strands_with_a_database(tmp_path, capsys):
    """A scikit-learn model of the demo data: the sampled POIM (orders 1..3) seeds the motif,
    refined on the sequences on either strand (TGACTCA and its reverse complement are one
    motif) and matched with TOMTOM."""
    pos, neg = read_fasta(POS), read_fasta(NEG)
    X = onehot(np.concatenate([pos.codes, neg.codes]))
    model = tmp_path / "lr.joblib"
    joblib.dump(LogisticRegression(max_iter=1000).fit(X, np.r_[np.ones(len(pos)), np.zeros(len(neg))]), model)
    out = tmp_path / "sk"
    assert main(["poim", "--sklearn-model", str(model), "--positive", POS, "--negative", NEG, "--out", str(out),
                 "--max-order", "3", "--n-samples", "20", "--strand", "both", "--db", str(DATA / "toy_motifs.meme"),
                 "--format", "svg", "-q"]) == 0
    printed = capsys.readouterr().out
    assert MOTIF_FILES | {"matches.tsv"} <= {p.name for p in out.iterdir()}
    best = _check_ap1(out, consensus=(AP1, AP1_RC))
    # planted on the given strand: read either way, nearly all sites lie on one strand (TGACTCA and
    # TGAGTCA differ in one letter, so a few chance sites turn up on the other)
    share = float(best["plus_strand"])
    assert share > 0.95 if best["consensus"] == AP1 else share < 0.05
    assert re.search(r"^motif1: (best match|no significant match)", printed, re.M)
    assert {r["query"] for r in _rows(out / "matches.tsv")} >= {"motif1"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["command"] == "poim (sampled)"
    assert json.loads((out / "motifs.json").read_text())["parameters"]["strand"] == "both"


def test_sampled_route_of_order_one_says_why_it_has_no_motifs(tmp_path, capsys):
    scorer = tmp_path / "ap1.py"
    scorer.write_text("import numpy as np\nSITE = np.array([3, 2, 0, 1, 3, 1, 0])\n"
                      "def score(X):\n    return (X[:, 21:28] == SITE).sum(axis=1).astype(float)\n")
    out = tmp_path / "k1"
    assert main(["poim", "--scorer", f"{scorer}:score", "--positive", POS, "--negative", NEG, "--out", str(out),
                 "--max-order", "1", "--n-samples", "10", "--format", "svg"]) == 0
    captured = capsys.readouterr()
    assert "motifs: none (a POIM of order 1 only; motif candidates are peaks at orders 2 and up " \
           "(--max-order 2 or more))" in captured.out
    assert "no motifs: a POIM of order 1 only" in captured.err
    assert not (out / "motifs.tsv").exists() and (out / "poim.npz").exists()


def _fasta(path, letters, n, length, seed):
    rng = np.random.default_rng(seed)
    path.write_text("".join(f">s{i}\n{''.join(rng.choice(list(letters), length))}\n" for i in range(n)))
    return str(path)


@pytest.mark.parametrize("route, message", [
    ("model-background", r"--strand both is for the motifs, which are refined on the sequences: give both "
                         r"--positive and --negative \(or --positive with --negatives shuffle, or --positive-bed "
                         r"with --negative-bed or --negatives\), or "
                         r"run 'seqimp motifs --poim OUT/poim\.npz --positive P --negative N' afterwards$"),
    ("model-positive", r"^seqimp: error: --db is for the motifs, which are refined on the sequences: give both "
                       r"--positive and --negative"),
    ("scorer-negative", r"^seqimp: error: --db is for the motifs, which are refined on the sequences"),
    ("regression", r"--db is for the motifs, which are refined on positive and negative sequences; --table with "
                   r"measured values \(the regression route\) has none$"),
    ("protein", r"--strand both: motifs are found on DNA sequences only \(--alphabet protein\)$"),
    ("no-motifs", r"--db is for the motifs, which --no-motifs skips$"),
])
def test_motif_options_on_routes_without_motifs(tmp_path, capsys, monkeypatch, route, message):
    """One error line, exit 2, before any work (the model and scorer files need not exist)."""
    monkeypatch.chdir(tmp_path)
    db = str(DATA / "toy_motifs.meme")
    argv = {
        "model-background": ["--model-file", "m.npz", "--background-fasta", NEG, "--strand", "both"],
        "model-positive": ["--model-file", "m.npz", "--positive", POS, "--background-fasta", NEG, "--db", db],
        "scorer-negative": ["--scorer", "none.py:score", "--negative", NEG, "--db", db],
        "regression": ["--table", "values.tsv", "--sequence-column", "seq", "--value-column", "activity",
                       "--degree", "2", "--db", db],
        "protein": ["--positive", _fasta(tmp_path / "p.fa", "ACDEFGHIK", 20, 12, 0),
                    "--negative", _fasta(tmp_path / "n.fa", "ACDEFGHIK", 20, 12, 1), "--alphabet", "protein",
                    "--degree", "2", "--strand", "both"],
        "no-motifs": ["--model-file", "m.npz", "--positive", POS, "--negative", NEG, "--no-motifs", "--db", db],
    }[route]
    if route == "regression":
        rng = np.random.default_rng(0)
        (tmp_path / "values.tsv").write_text("seq\tactivity\n" + "".join(
            f"{''.join(rng.choice(list('ACGT'), 12))}\t{rng.normal():.3f}\n" for _ in range(30)))
    assert main(["poim", "--out", "X"] + argv) == 2
    err = capsys.readouterr().err.strip().splitlines()  # --table logs what it read first
    assert [line for line in err if line.startswith("seqimp: error: ")] == err[-1:], err
    assert re.search(message, err[-1]), err[-1]
    assert not (tmp_path / "X").exists()
