"""One vocabulary: old spellings of options, values and Python keywords map to the new names with
one warning each; seqimp motifs takes FASTA of any lengths and positives alone (as STREME)."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import build_parser, main
from seqimp.cli._vocabulary import old_spellings, rename_old_options
from seqimp.datasets import demo_paths, example_motifs_path

DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize("command, old, new, dest, value", [
    (["scan", "--fasta", "x.fa", "--out", "o"], ["--motifs", "m.meme", "--motifs=m.meme"], "--db", "db", "m.meme"),
    (["scan", "--db", "m", "--fasta", "x.fa", "--out", "o"], ["--thresh", "1e-5", "--thresh", "1e-5"], "--site-pvalue",
     "site_pvalue", 1e-5),
])
def test_old_option_names_map_to_the_new_with_one_warning(command, old, new, dest, value):
    argv, lines = rename_old_options(command + old, command[0])
    args = build_parser(argv).parse_args(argv)
    assert getattr(args, dest) == value
    assert lines == [f"{old[0].split('=')[0]} is now {new}; the old spelling will be removed"]  # once, given twice


def test_variants_takes_its_published_model_option_without_a_warning():
    """``seqimp variants --model MODEL`` is the published form (a file: variants trains no model)."""
    argv = ["variants", "--model", "m.npz", "--vcf", "v.vcf", "--genome", "g.fa", "--out", "o"]
    renamed, lines = rename_old_options(argv, "variants")
    assert renamed == argv and lines == []
    assert build_parser(argv).parse_args(argv).model_file == "m.npz"


@pytest.mark.parametrize("argv, dest, value, line", [
    (["scan", "--db", "m", "--fasta", "x", "--out", "o", "--background", "sequences", "--background", "sequences"],
     "background", "all", "--background sequences is now --background all"),
    (["enrich", "--db", "m", "--positive", "x", "--out", "o", "--background", "sequences"], "background", "negative",
     "--background sequences is now --background negative"),
    (["poim", "--model", "saved.npz", "--out", "o"], "model_file", "saved.npz",
     "--model saved.npz: a saved model is now given as --model-file saved.npz"),
])
def test_old_values_map_to_the_new_with_one_warning(argv, dest, value, line):
    args = build_parser(argv).parse_args(argv)
    assert getattr(args, dest) == value
    notes = old_spellings(args)
    assert len(notes) == 1 and notes[0].startswith(line)


def test_new_names_warn_nothing_and_bad_values_are_refused(capsys):
    args = build_parser(["poim", "--model", "gkm", "--out", "o"]).parse_args(["poim", "--model", "gkm", "--out", "o"])
    assert args.model == "gkm" and args.model_file is None and old_spellings(args) == []
    assert main(["scan", "--db", "m", "--fasta", "x", "--out", "o", "--background", "negative"]) == 2
    assert "invalid choice: 'negative' (choose from uniform, all)" in capsys.readouterr().err


def test_an_old_spelling_prints_one_warning_line(tmp_path, capsys):
    pos, _neg = demo_paths()
    out = tmp_path / "scan"
    assert main(["scan", "--motifs", str(example_motifs_path()), "--thresh", "1e-5", "--fasta", str(pos), "--out",
                 str(out), "-q"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == ["seqimp: warning: --motifs is now --db; the old spelling will be removed",
                   "seqimp: warning: --thresh is now --site-pvalue; the old spelling will be removed"]
    assert (out / "scan.tsv").exists()


def test_python_old_keywords_and_argument_order_warn():
    from seqimp.motifs import Motif
    from seqimp.motifs._copies import same_motif
    from seqimp.motifs._refine import refine_motifs
    from seqimp.pipeline import run_poim

    a = Motif("a", (np.full((4, 4), 0.25) + np.eye(4)) / 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = same_motif(a, a, strand="given")
    with pytest.warns(DeprecationWarning, match=r"same_motif\(strands=...\) is now same_motif\(strand=...\)"):
        assert same_motif(a, a, strands="given") == new
    with pytest.raises(TypeError, match="both strand= and its old name strands="):
        same_motif(a, a, strand="given", strands="given")
    import inspect

    assert "max_held_out_pvalue" in inspect.signature(refine_motifs).parameters
    assert list(inspect.signature(run_poim).parameters)[:3] == ["out", "positive", "negative"]


def test_run_poim_old_order_warns_and_runs_the_same(tmp_path):
    from seqimp.options import ImportanceOptions, ModelOptions
    from seqimp.pipeline import run_poim

    rng = np.random.default_rng(0)
    pos = ["".join(rng.choice(list("ACGT"), size=12)) for _ in range(20)]
    neg = ["".join(rng.choice(list("ACGT"), size=12)) for _ in range(20)]
    kw = dict(model=ModelOptions(degree=2), importance=ImportanceOptions(max_order=2))
    (tmp_path / "new").mkdir()
    (tmp_path / "old").mkdir()
    new = run_poim(tmp_path / "new", pos, neg, **kw)
    with pytest.warns(DeprecationWarning, match=r"run_poim\(data..., out\) is now run_poim\(out, data...\)"):
        old = run_poim(pos, neg, tmp_path / "old", **kw)
    assert np.array_equal(new.result.poim[1], old.result.poim[1])


def _any_length(path, out, rng, n):
    """The demo's records cut to lengths 31..60 around the planted site (1-based 21..29 kept)."""
    ids, seqs = [], []
    for line in path.read_text().splitlines():
        (ids if line.startswith(">") else seqs).append(line.lstrip(">"))
    with open(out, "w") as fh:
        for rid, seq in list(zip(ids, seqs))[:n]:
            a, b = rng.integers(0, 18), rng.integers(31, 61)
            fh.write(f">{rid}\n{seq[a:b]}\n")


def test_unequal_lengths_and_positives_alone_find_the_planted_site(tmp_path, capsys):
    """Records of different lengths take the position-free route (padded, no site in the padding);
    positives alone get dinucleotide-shuffled controls; both strands by default -- and the demo's
    planted TGACTCA is found, as STREME would on the same input."""
    rng = np.random.default_rng(0)
    pos_path, neg_path = demo_paths()
    _any_length(pos_path, tmp_path / "pos.fa", rng, 150)
    _any_length(neg_path, tmp_path / "neg.fa", rng, 150)
    for name, extra in (("pair", ["--negative", str(tmp_path / "neg.fa")]), ("alone", [])):
        out = tmp_path / name
        assert main(["motifs", "--positive", str(tmp_path / "pos.fa"), *extra, "--out", str(out), "--rounds", "1",
                     "--gkm-length", "8", "--gkm-informative", "5"]) == 0
        err = capsys.readouterr().err
        assert re.search(r"the position-free \(gkm\) model, on every record padded to \d+ nt", err)
        assert ("no negatives given" in err) == (name == "alone")
        params = json.loads((out / "motifs.json").read_text())["parameters"]
        assert params["strand"] == "both" and params["padded"]["positive_lengths"][0] < 40
        assert params["negatives"].startswith("dinucleotide shuffles") == (name == "alone")
        motifs = (out / "motifs.tsv").read_text().splitlines()
        consensus = motifs[1].split("\t")[1]
        assert "TGACTCA" in consensus or "TGAGTCA" in consensus, motifs[:2]
        text = (tmp_path / "pos.fa").read_text().splitlines()
        lengths = {text[i][1:]: len(text[i + 1]) for i in range(0, len(text), 2)}
        table = [dict(zip(motifs[0].split("\t"), line.split("\t"))) for line in motifs[1:]]
        width = {row["name"]: int(row["length"]) for row in table}
        sites = [line.split("\t") for line in (out / "motif_sites.tsv").read_text().splitlines()]
        assert len(sites) > 100
        for row in sites[1:]:
            row = dict(zip(sites[0], row))
            assert int(row["position"]) + width[row["motif"]] - 1 <= lengths[row["id"]]  # never in the padding


def test_width_cuts_centred_windows_for_the_positional_model(tmp_path, capsys):
    rng = np.random.default_rng(1)
    pos_path, _neg = demo_paths()
    _any_length(pos_path, tmp_path / "pos.fa", rng, 60)
    assert main(["motifs", "--positive", str(tmp_path / "pos.fa"), "--out", str(tmp_path / "o"), "--width", "40",
                 "--model", "wd", "--degree", "3", "--rounds", "1"]) == 0
    err = capsys.readouterr().err
    assert "the central 40 nt of each, for the positional model" in err and "shorter than 40 nt left out" in err
    assert main(["motifs", "--positive", str(tmp_path / "pos.fa"), "--out", str(tmp_path / "o2"), "--model", "wd"]) == 2
    assert "add --width W" in capsys.readouterr().err


def test_enrich_takes_positives_alone(tmp_path, capsys):
    pos, _neg = demo_paths()
    out = tmp_path / "enrich"
    assert main(["enrich", "--positive", str(pos), "--db", str(example_motifs_path()), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "seqimp enrich: no negatives given: the controls are dinucleotide-preserving shuffles" in captured.err
    top = (out / "enrichment.tsv").read_text().splitlines()[1].split("\t")
    assert top[0] == "planted_AP1"  # the demo's planted site, against shuffles of the positives


def test_scan_and_enrich_options_take_the_one_vocabulary():
    from seqimp.options import EnrichOptions, ScanOptions

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = ScanOptions(site_pvalue=1e-3, background="all")
        assert EnrichOptions(background="negative").background == "negative"
    with pytest.warns(DeprecationWarning, match=r"threshold=...\) is now .*site_pvalue=...\)"):
        old = ScanOptions(threshold=1e-3)
    assert old.site_pvalue == new.site_pvalue == 1e-3
    with pytest.warns(DeprecationWarning, match="background='all'"):
        assert ScanOptions(background="sequences").background == "all"
    with pytest.warns(DeprecationWarning, match="background='negative'"):
        assert EnrichOptions(background="sequences").background == "negative"


def test_scan_background_all_scores_against_the_scanned_letters(tmp_path):
    """ScanOptions(background="all") is the letters of the scanned sequences (scan_sequences'
    "sequences"), EnrichOptions(background="negative") the negatives'."""
    from seqimp.motifs import read_motifs, scan_sequences
    from seqimp.options import ScanOptions
    from seqimp.pipeline import run_scan

    motifs = read_motifs(DATA / "toy_motifs.meme")
    seqs = ["GATTACAGGGGGGGGGGGGG", "CCCCCGATTACACCCCCCCC", "GGGGGGGGGGGGGGGATTAC"]
    run = run_scan(tmp_path, motifs, seqs, options=ScanOptions(site_pvalue=0.05, background="all"))
    direct = scan_sequences(motifs, seqs, background="sequences", threshold=0.05)
    assert len(run.hits) == len(direct) > 0
    np.testing.assert_allclose(np.sort(run.hits["p_value"].to_numpy()), np.sort(direct["p_value"].to_numpy()))
