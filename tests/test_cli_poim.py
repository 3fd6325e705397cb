"""In-process tests of ``seqimp poim`` and ``seqimp train`` (main([...]))."""

import csv
import json
import re
from pathlib import Path

import joblib
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from seqimp.importance import load_poim
from seqimp.cli import main
from seqimp.io import read_fasta, write_fasta
from seqimp.training import load_model
from seqimp.scorers import onehot

DATA = Path(__file__).resolve().parent / "data"
POS, NEG = str(DATA / "planted_pos.fa"), str(DATA / "planted_neg.fa")
FAST = ["--degree", "2", "--max-order", "3", "--seed", "0"]
EXACT_FILES = {"top_oligomers.tsv", "differential_poim.png", "maximal_poim.png", "poim_order1.png", "poim_order2.png", "poim_order3.png",
               "weights_vs_firm.png", "poim.npz", "model.npz", "summary.json", "report.html"}
# what the training route adds: the motifs of its POIM with sites on its sequences
MOTIF_FILES = {"motifs.meme", "motifs.jaspar", "motifs.transfac", "motifs.tsv", "motifs.json", "motif_candidates.tsv",
               "candidate_tests.tsv",
               "motif_sites.tsv", "motif_sites.bed", "logos", "background.txt"}


def _error(capsys, argv, out_dir, message):
    """Run argv, expect exit 2 with one 'seqimp: error:' line matching message, and nothing written."""
    parent_before = sorted(p.name for p in out_dir.parent.iterdir())
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("seqimp: error: ")
    assert len([line for line in err if line.startswith("seqimp: error:")]) == 1
    assert re.search(message, err[-1]), err[-1]
    assert not out_dir.exists()
    assert sorted(p.name for p in out_dir.parent.iterdir()) == parent_before  # no staging folder left


def test_poim_writes_all_outputs(tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["poim", "--positive", POS, "--negative", NEG, "--out", str(out), "--top", "4"] + FAST) == 0
    captured = capsys.readouterr()
    assert f"report: {out}/report.html" in captured.out
    assert "held-out accuracy" in captured.err and "poim levels" in captured.err
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == EXACT_FILES | MOTIF_FILES
    assert "motif1\tGATTACA\tstart 11" in captured.out and f"motifs: {out}/motifs.tsv" in captured.out
    owned = json.loads((out / ".seqimp-poim.json").read_text())["files"]
    assert {name.split("/")[0] for name in owned} == EXACT_FILES | MOTIF_FILES  # one command, one manifest
    assert "logos" not in owned and "logos/motif1_logo.png" in owned  # logos/ is owned file by file
    with open(out / "top_oligomers.tsv") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert list(rows[0]) == ["rank", "oligomer", "order", "position", "poim", "firm"]
    assert len(rows) == 12 and [int(r["rank"]) for r in rows] == list(range(1, 13))
    firms = [abs(float(r["firm"])) for r in rows]
    assert firms == sorted(firms, reverse=True)
    assert all(1 <= int(r["position"]) <= 31 - int(r["order"]) for r in rows)
    result = load_poim(out / "poim.npz")
    assert result.max_order == 3 and result.length == 30
    summary = json.loads((out / "summary.json").read_text())
    assert summary["parameters"]["degree"] == 2 and summary["parameters"]["background"] == "negative"
    assert summary["metrics"]["n_test"] == 40 and summary["metrics"]["auroc"] > 0.9
    assert {"seqimp", "numpy", "sklearn"} <= set(summary["versions"])
    assert summary["best_motif"]["consensus"] == "GATTACA" and summary["best_motif"]["start"] == 11
    report = (out / "report.html").read_text()
    # differential, maximal, 3 orders, weights vs FIRM; then the motif logo, its site positions, importance logo
    assert report.count("data:image/png;base64,") == 9
    # the report leads with the answer: the motif card comes before the summary and the heatmaps
    assert "<h3>motif1: GATTACA</h3><p>starts at 11;" in report
    assert report.index('id="motifs"') < report.index("<h2>Summary</h2>") < report.index("<h2>Figures</h2>")
    motifs = (out / "motifs.tsv").read_text().splitlines()
    assert motifs[0].split("\t")[:6] == ["name", "consensus", "start", "length", "direction", "position_free"]
    sites = (out / "motif_sites.tsv").read_text().splitlines()
    assert len(sites) == 1 + 100 and sites[1].split("\t")[2:4] == ["11", "+"]  # every positive, at GATTACA


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_silences_stderr(tmp_path, capsys, where):
    args = ["poim", "--positive", POS, "--negative", NEG, "--out", str(tmp_path / "q"), "--format", "svg"] + FAST
    argv = ["--quiet"] + args if where == "before" else args + ["--quiet"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "q" / "differential_poim.svg").exists()


def test_train_then_poim_with_the_saved_model(tmp_path, capsys):
    model = tmp_path / "model.npz"
    assert main(["train", "--positive", POS, "--negative", NEG, "--model-out", str(model),
                 "--degree", "2", "--seed", "0"]) == 0
    assert "held-out sequences" in capsys.readouterr().out
    weights, meta = load_model(model)
    assert weights.degree == 2 and meta["degree"] == 2 and meta["n_train"] == 160 and meta["auroc"] > 0.9
    out = tmp_path / "from_model"
    assert main(["poim", "--model-file", str(model), "--background-fasta", NEG, "--out", str(out),
                 "--max-order", "3", "-q"]) == 0
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == EXACT_FILES
    summary = json.loads((out / "summary.json").read_text())
    assert summary["command"] == "poim --model" and summary["background"]["kind"] == "fasta"
    assert summary["metrics"]["auroc"] == pytest.approx(meta["auroc"])
    # the same as training inside `seqimp poim` with the same seed and split
    direct = tmp_path / "direct"
    assert main(["poim", "--no-motifs", "--positive", POS, "--negative", NEG, "--out", str(direct), "-q"] + FAST) == 0
    a, b = load_poim(out / "poim.npz"), load_poim(direct / "poim.npz")
    np.testing.assert_allclose(a.poim[2], b.poim[2], rtol=1e-10, atol=1e-12)


def test_train_on_everything_with_test_fraction_zero(tmp_path, capsys):
    model = tmp_path / "all.npz"
    assert main(["train", "--positive", POS, "--negative", NEG, "--model-out", str(model),
                 "--degree", "2", "--test-fraction", "0"]) == 0
    assert "no held-out accuracy or auROC" in capsys.readouterr().out
    _, meta = load_model(model)
    assert meta["n_train"] == 200 and meta["n_test"] == 0 and meta["auroc"] is None


def test_scorer_route(tmp_path, capsys):
    scorer = tmp_path / "my_scorer.py"
    scorer.write_text("import numpy as np\nMOTIF = np.array([2, 0, 3, 3, 0, 1, 0])\n"
                      "def score(X):\n    return (X[:, 10:17] == MOTIF).sum(axis=1).astype(float)\n")
    argv = ["poim", "--scorer", f"{scorer}:score", "--positive", POS, "--negative", NEG, "--max-order", "2",
            "--n-samples", "30", "--seed", "1", "-q"]
    out = tmp_path / "sampled"
    assert main(argv + ["--out", str(out)]) == 0
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    # with both classes of sequences the sampled POIM's motifs are refined on them
    assert names == EXACT_FILES - {"model.npz", "weights_vs_firm.png", "poim_order3.png"} | MOTIF_FILES
    result = load_poim(out / "poim.npz")
    assert result.method == "sampled" and result.max_order == 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["command"] == "poim (sampled)" and summary["parameters"]["n_samples"] == 30
    assert summary["best_motif"]["consensus"] == "GATTACA" and summary["best_motif"]["start"] == 11
    assert json.loads((out / "motifs.json").read_text())["parameters"]["seed"] == 1
    # the same command again: byte-identical motif files, logos included
    again = tmp_path / "again"
    assert main(argv + ["--out", str(again)]) == 0
    written = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file() and p.name.startswith("motif")
                     or p.parent.name == "logos")
    assert len(written) == 11  # 8 motif files; logo, site positions and importance logo of its 1 motif
    for name in written:
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_sklearn_model_route(tmp_path, capsys):
    pos, neg = read_fasta(POS), read_fasta(NEG)
    X = onehot(np.concatenate([pos.codes, neg.codes]))
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    path = tmp_path / "lr.joblib"
    joblib.dump(LogisticRegression(max_iter=500).fit(X, y), path)
    out = tmp_path / "sk"
    assert main(["poim", "--sklearn-model", str(path), "--background-fasta", NEG, "--out", str(out),
                 "--max-order", "1", "--n-samples", "30", "--seed", "0", "-q"]) == 0
    rows = (out / "top_oligomers.tsv").read_text().splitlines()[1:]
    best = rows[0].split("\t")
    assert 11 <= int(best[3]) <= 17 and best[1] == "GATTACA"[int(best[3]) - 11]


def test_missing_fasta(tmp_path, capsys):
    out = tmp_path / "out"
    _error(capsys, ["poim", "--positive", str(tmp_path / "nope.fa"), "--negative", NEG, "--out", str(out)],
           out, r"nope\.fa: no such file")


def test_unequal_lengths(tmp_path, capsys):
    short = tmp_path / "short.fa"
    write_fasta(short, [s[:25] for s in read_fasta(NEG).sequences()])
    out = tmp_path / "out"
    _error(capsys, ["poim", "--positive", POS, "--negative", str(short), "--out", str(out)], out,
           r"--positive .* has length 30 but --negative .*short\.fa has length 25")
    ragged = tmp_path / "ragged.fa"
    ragged.write_text(">a\nACGTACGT\n>b\nACGTAC\n")
    _error(capsys, ["poim", "--positive", str(ragged), "--negative", NEG, "--out", str(out)], out,
           r"ragged\.fa: record 'b' has length 6, but record 'a' has length 8")


def test_one_class_only(tmp_path, capsys):
    only_n = tmp_path / "n.fa"
    only_n.write_text(">a\n" + "1" * 30 + "\n>b\n" + "ACGT1" * 6 + "\n")  # no base or IUPAC code: dropped
    out = tmp_path / "out"
    _error(capsys, ["poim", "--positive", POS, "--negative", str(only_n), "--skip-invalid", "--out", str(out)],
           out, r"n\.fa: no records left after skipping invalid ones")
    empty = tmp_path / "empty.fa"
    empty.write_text("")
    _error(capsys, ["poim", "--positive", POS, "--negative", str(empty), "--out", str(out)], out,
           r"empty\.fa: file is empty")


def test_poim_streams_when_the_tables_exceed_the_budget(tmp_path, capsys):
    """A job whose full tables exceed --max-memory runs on the streaming engine (one
    log line says so) and writes the same top table as the in-memory engine."""
    base = ["poim", "--no-motifs", "--positive", POS, "--negative", NEG, "--degree", "2", "--max-order", "8",
            "--seed", "0"]
    assert main(base + ["--out", str(tmp_path / "memory")]) == 0
    assert "streaming" not in capsys.readouterr().err
    assert main(base + ["--out", str(tmp_path / "stream"), "--max-memory", "30M"]) == 0
    err = capsys.readouterr().err
    assert "POIM up to order 8 for L = 30: streaming (in-memory tables need about" in err
    memory = (tmp_path / "memory" / "top_oligomers.tsv").read_text().splitlines()
    stream = (tmp_path / "stream" / "top_oligomers.tsv").read_text().splitlines()
    assert memory[0] == stream[0] and len(memory) == len(stream) == 1 + 8 * 50
    assert {int(line.split("\t")[2]) for line in stream[1:]} == set(range(1, 9))  # every order
    # same rows; the values agree to the printed 6 significant digits (the engines sum in another order)
    for a, b in zip(memory[1:], stream[1:]):
        fa, fb = a.split("\t"), b.split("\t")
        assert fa[:4] == fb[:4]
        np.testing.assert_allclose([float(x) for x in fa[4:]], [float(x) for x in fb[4:]], rtol=1e-5, atol=1e-12)


def test_too_large_jobs_fail_before_training(tmp_path, capsys):
    out = tmp_path / "out"
    for extra, message in ((["--max-order", "31"], r"max_order must lie in 1\.\.30 \(the sequence length\), got 31"),
                           (["--max-order", "12", "--max-memory", "1K"],
                            r"even one position per block needs about .*, more than --max-memory 1 KiB \(1024 bytes\)")):
        _error(capsys, ["poim", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2"] + extra,
               out, message)
    assert main(["poim", "--no-motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2",
                 "--max-order", "31"]) == 2
    assert "training" not in capsys.readouterr().err


def test_same_file_for_both_classes(tmp_path, capsys):
    out = tmp_path / "out"
    _error(capsys, ["poim", "--positive", POS, "--negative", POS, "--out", str(out)], out,
           r"--positive and --negative are the same file .*planted_pos\.fa.*two different classes")


def test_existing_output_is_untouched_on_failure(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("old")
    assert main(["poim", "--no-motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2",
                 "--max-order", "12", "--max-memory", "1K"]) == 2
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("argv, message", [
    (["poim", "--out", "X"], r"--positive and --negative are required"),
    (["poim", "--positive", POS, "--negative", NEG, "--out", "X", "--degree", "31"],
     r"--degree 31 exceeds the sequence length 30"),
    (["poim", "--positive", POS, "--negative", NEG, "--out", "X", "--background-fasta", NEG],
     r"--background-fasta is for --model"),
    (["poim", "--model-file", "m.npz", "--out", "X"], r"--background negative needs --negative"),
    (["poim", "--positive", POS, "--negative", NEG, "--out", "X", "--max-memory", "lots"],
     r"argument --max-memory: expected a size such as 4G, 500M, 1\.5GiB or a number of bytes, got"),
    (["poim", "--model-file", "m.npz", "--scorer", "a:b", "--out", "X"], r"not allowed with argument"),
    (["train", "--positive", POS, "--negative", NEG, "--model-out", "m.joblib"], r"must end in \.npz"),
])
def test_option_errors(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    _error(capsys, argv, tmp_path / "X", message)


def test_full_tables_writes_every_order_to_hdf5(tmp_path, capsys):
    import h5py

    out = tmp_path / "out"
    assert main(["poim", "--no-motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--full-tables",
                 "-q"] + FAST) == 0
    summaries = load_poim(out / "poim.npz")
    with h5py.File(out / "poim_tables.h5", "r") as f:
        for k in (1, 2, 3):
            firm = f[f"firm/{k}"][...]
            assert firm.shape == (31 - k, 4**k)
            # float32 tables against the float64 summaries (k <= 4 kept whole)
            np.testing.assert_allclose(firm, summaries.firm[k - 1], rtol=1e-6, atol=1e-7)


def test_default_run_on_251_nt_writes_at_most_20_mb(tmp_path):
    """Default options (degree 8, max order 8) on 251-nt sequences write at most 20 MB in all:
    poim.npz holds summaries, model.npz the non-zero weights. (Without the motif
    step, which adds a few small tables and one logo per motif and ~30 s to this test.)"""
    rng = np.random.default_rng(0)
    letters = np.array(list("ACGT"))
    pos = ["".join(letters[rng.integers(0, 4, 251)]) for _ in range(300)]
    pos = [s[:100] + "TGACTCA" + s[107:] for s in pos]
    neg = ["".join(letters[rng.integers(0, 4, 251)]) for _ in range(300)]
    write_fasta(tmp_path / "p.fa", pos)
    write_fasta(tmp_path / "n.fa", neg)
    out = tmp_path / "out"
    assert main(["poim", "--no-motifs", "--positive", str(tmp_path / "p.fa"), "--negative", str(tmp_path / "n.fa"),
                 "--out", str(out), "-q"]) == 0
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert total <= 20e6, total
    top = (out / "top_oligomers.tsv").read_text().splitlines()
    assert {int(line.split("\t")[2]) for line in top[1:]} == set(range(1, 9))


def test_poim_motifs_on_both_strands_with_a_database(tmp_path, capsys):
    """The training route refines its motifs on its own sequences; --strand both and
    --db as in 'seqimp motifs' (matches.tsv, one verdict line per motif)."""
    out = tmp_path / "res"
    db = DATA / "toy_motifs.meme"
    assert main(["poim", "--positive", POS, "--negative", NEG, "--out", str(out), "--strand", "both",
                 "--db", str(db), "-q"] + FAST) == 0
    printed = capsys.readouterr().out
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} >= MOTIF_FILES | {"matches.tsv"}
    with open(out / "matches.tsv") as fh:
        matches = list(csv.DictReader(fh, delimiter="\t"))
    assert {"query", "target", "target_description", "p_value", "q_value"} <= set(matches[0])
    assert re.search(r"^motif1: (best match|no significant match)", printed, re.M)
    parameters = json.loads((out / "motifs.json").read_text())["parameters"]
    assert parameters["strand"] == "both" and parameters["seed"] == 0 and parameters["trained"] is False
    with open(out / "motifs.tsv") as fh:
        best = next(csv.DictReader(fh, delimiter="\t"))
    # GATTACA is planted on the given strand: with both strands searched its sites stay there
    assert best["consensus"] in ("GATTACA", "TGTAATC") and float(best["plus_strand"]) in (0.0, 1.0)


def test_poim_without_motifs_and_motif_option_errors(tmp_path, capsys, monkeypatch):
    out = tmp_path / "res"
    assert main(["poim", "--positive", POS, "--negative", NEG, "--out", str(out), "--no-motifs", "-q"] + FAST) == 0
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == EXACT_FILES
    assert "best_motif" not in json.loads((out / "summary.json").read_text())
    assert "motifs:" not in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    db = str(DATA / "toy_motifs.meme")
    for argv, message in (
            (["--positive", POS, "--negative", NEG, "--no-motifs", "--db", db], r"--db is for the motifs, which "
                                                                               r"--no-motifs skips"),
            (["--model-file", "m.npz", "--background-fasta", NEG, "--strand", "both"],
             r"--strand both is for the motifs, which are refined on the sequences: give both --positive and "
             r"--negative .*'seqimp motifs --poim OUT/poim\.npz --positive P --negative N' afterwards$"),
            (["--positive", POS, "--negative", NEG, "--db", "missing.meme"], r"missing\.meme: no such motif file"),
            # a JASPAR release by name: this one does not exist (or pyjaspar is missing)
            (["--positive", POS, "--negative", NEG, "--db", "JASPAR1999"],
             r"unknown JASPAR release 'JASPAR1999'|needs the pyjaspar package")):
        _error(capsys, ["poim", "--out", "X"] + argv, tmp_path / "X", message)


def test_poim_of_random_sequences_has_no_motifs_and_succeeds(tmp_path, capsys):
    """No peak in the differential POIM: the POIM outputs stand, no motif files, one line says so."""
    for name, seed in (("p.fa", 0), ("n.fa", 1)):  # 20 random 12-mers each: no positive peak at order 2
        rng = np.random.default_rng(seed)
        (tmp_path / name).write_text("".join(f">s{i}\n{''.join(rng.choice(list('ACGT'), 12))}\n" for i in range(20)))
    out = tmp_path / "out"
    assert main(["poim", "--positive", str(tmp_path / "p.fa"), "--negative", str(tmp_path / "n.fa"), "--out", str(out),
                 "--degree", "2", "--test-fraction", "0", "--format", "svg"]) == 0
    captured = capsys.readouterr()
    assert "motifs: none (the differential POIM has no positive peak)" in captured.out
    assert "no motifs: the differential POIM has no positive peak" in captured.err
    assert not (out / "motifs.tsv").exists() and (out / "poim.npz").exists()
    assert "best_motif" not in json.loads((out / "summary.json").read_text())


def test_poim_homer_adds_motifs_homer_to_the_motif_files(tmp_path):
    from seqimp.cli._output_folder import owned_files
    from seqimp.motifs import read_motifs

    out = tmp_path / "out"
    assert main(["poim", "--positive", POS, "--negative", NEG, "--out", str(out), "--homer", "-q"] + FAST) == 0
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == EXACT_FILES | MOTIF_FILES | {"motifs.homer"}
    assert "motifs.homer" in owned_files(out, "poim")
    meme, homer = read_motifs(out / "motifs.meme"), read_motifs(out / "motifs.homer")
    assert [m.consensus for m in homer] == [m.consensus for m in meme] and homer
    for a, b in zip(meme, homer):  # HOMER rows carry 3 decimals
        np.testing.assert_allclose(b.pwm, a.pwm, atol=2e-3)
