"""``seqimp demo --out DIR``: the whole pipeline on the embedded data, run once in-process."""

import json
import re
import sys

import pandas as pd
import pytest

from seqimp.importance import load_poim
from seqimp.cli import main


def test_demo_runs_the_pipeline_and_finds_the_planted_site(tmp_path, capsys):
    """The whole demo as the README runs it: the planted AP-1 site, then (with pyjaspar) its
    matches in JASPAR 2024 CORE vertebrates."""
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert f"report: {out}/report.html" in stdout
    motif_line = next(line for line in stdout.splitlines() if line.strip().startswith("motif1"))
    assert "\tTGACTCA\t" in motif_line or "\tTGAGTCA\t" in motif_line
    assert json.loads((out / "summary.json").read_text())["best_motif"]["consensus"] in ("TGACTCA", "TGAGTCA")
    report = (out / "report.html").read_text()
    assert "<h3>motif1: TGACTCA</h3>" in report or "<h3>motif1: TGAGTCA</h3>" in report
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    assert {"report.html", "summary.json", "top_oligomers.tsv", "poim.npz", "model.npz", "differential_poim.png",
            "weights_vs_firm.png"} <= names
    # per-order heatmaps for k <= 4 only (outputs sized for people); every order in the
    # differential and maximal POIM
    assert {f"poim_order{k}.png" for k in range(1, 5)} | {"maximal_poim.png"} <= names
    assert not {f"poim_order{k}.png" for k in range(5, 9)} & names
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["auroc"] > 0.95
    # the whole AP-1 site is the most important 7-mer, at a planted start (21-23)
    best7 = next(r for r in summary["top_per_order"] if r["order"] == 7)
    assert best7["oligomer"] == "TGACTCA" and 21 <= best7["position"] <= 23
    assert f"k=7:  TGACTCA at {best7['position']}" in stdout
    assert load_poim(out / "poim.npz").max_order == 8
    _assert_named_as_ap1(out, stdout)


AP1_SITE = re.compile(r"TGA[CG]TCA")  # the AP-1 (TRE) site, either strand: TGASTCA is its own reverse complement


def _assert_named_as_ap1(out, stdout):
    """The demo's motif against JASPAR 2024 CORE vertebrates: its best match is a matrix of the
    AP-1 site, and most of its significant matches are bZIP factors (the AP-1 family: FOS, JUN,
    ATF, BATF, MAF, BACH, ...) by JASPAR's own class annotation."""
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    from seqimp.motifs import jaspar_motifs

    credit = "JASPAR 2024 (Rauluseviciute et al., Nucleic Acids Res. 2024), CC BY 4.0, via pyjaspar"
    assert stdout.count(credit) == 1
    assert "known motifs: JASPAR2024 CORE vertebrates (879 motifs)" in stdout
    verdict = re.search(r"^motif1 (TGACTCA|TGAGTCA): best match (MA\d+\.\d+) (\S+) \(p = (\S+), q = (\S+),",
                        stdout, re.M)
    assert verdict, stdout
    matches = pd.read_csv(out / "matches.tsv", sep="\t", keep_default_na=False)
    assert list(matches.columns[:6]) == ["query", "target", "target_description", "target_class", "p_value",
                                         "q_value"]
    significant = matches[(matches["query"] == "motif1") & matches["significant"]]
    assert len(significant) >= 3 and (significant["q_value"] <= 0.05).all()
    best = significant.iloc[0]
    assert (best["target"], best["target_description"]) == verdict.group(2, 3)
    assert float(verdict.group(5)) == pytest.approx(best["q_value"], rel=0.05)  # printed to 2 digits
    assert AP1_SITE.search(jaspar_motifs(ids=[best["target"]])[0].consensus)
    assert (significant["target_class"].str.contains("bZIP")).mean() > 0.5
    assert re.search(r"^  its significant matches by JASPAR class: Basic leucine zipper factors \(bZIP\): ", stdout,
                     re.M)
    summary = json.loads((out / "summary.json").read_text())
    assert {k: summary["motif_database"][k] for k in ("release", "collection", "tax_group", "motifs")} == \
        {"release": "JASPAR2024", "collection": "CORE", "tax_group": "vertebrates", "motifs": 879}
    report = (out / "report.html").read_text()
    assert "Database: JASPAR2024 CORE vertebrates (879 motifs)" in report and "Rauluseviciute" in report


def test_demo_names_its_motif_with_a_database(tmp_path, capsys, monkeypatch):
    """--db: the demo ends with the motif's verdict against a database the user has (a small
    one here, and a lighter model than the demo's, to keep the test short)."""
    from pathlib import Path

    from seqimp.cli import demo
    from seqimp.motifs import Motif, read_motifs, write_meme

    monkeypatch.setitem(demo.DEMO_SETTINGS, "degree", 3)
    monkeypatch.setitem(demo.DEMO_SETTINGS, "max_order", 4)
    toy = read_motifs(Path(__file__).resolve().parent / "data" / "toy_motifs.meme")
    db = tmp_path / "db.meme"
    write_meme([Motif.from_consensus("AP1", "TGACTCA", purity=0.9, description="AP-1")] + toy, db)
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--db", str(db), "-q"]) == 0
    stdout = capsys.readouterr().out
    assert re.match(r"motif1 [ACGT]+: ", stdout.splitlines()[-1])  # the last line: the motif's verdict
    assert f"known motifs: {db} ({len(toy) + 1} motifs)\n" in stdout and "CC BY" not in stdout
    assert "--db JASPAR.meme" not in stdout
    header = (out / "matches.tsv").read_text().splitlines()[0].split("\t")
    assert header[:5] == ["query", "target", "target_description", "p_value", "q_value"]
    assert json.loads((out / ".seqimp-poim.json").read_text())["files"].count("matches.tsv") == 1


def test_demo_without_pyjaspar_says_how_to_get_the_match(tmp_path, capsys, monkeypatch):
    """No pyjaspar and no --db: the demo runs as before and ends with how to name its motif;
    --no-db skips the match without a word about it."""
    from seqimp.cli import demo

    monkeypatch.setitem(demo.DEMO_SETTINGS, "degree", 3)
    monkeypatch.setitem(demo.DEMO_SETTINGS, "max_order", 4)
    monkeypatch.setitem(sys.modules, "pyjaspar", None)  # import pyjaspar raises ImportError
    assert main(["demo", "--out", str(tmp_path / "a"), "-q"]) == 0
    stdout = capsys.readouterr().out
    assert "pip install 'seqimp[jaspar]'" in stdout and stdout.rstrip().endswith("--db JASPAR.meme")
    assert not (tmp_path / "a" / "matches.tsv").exists()
    assert json.loads((tmp_path / "a" / "motifs.json").read_text())["parameters"]["database"] is None
    assert main(["demo", "--out", str(tmp_path / "b"), "--no-db", "-q"]) == 0
    stdout = capsys.readouterr().out
    assert "--db" not in stdout and "seqimp[jaspar]" not in stdout and "known motifs" not in stdout
    assert not (tmp_path / "b" / "matches.tsv").exists()
    assert main(["demo", "--out", str(tmp_path / "c"), "--db", "JASPAR2024", "-q"]) == 2
    assert "needs the pyjaspar package: pip install 'seqimp[jaspar]'" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()
    assert main(["demo", "--out", str(tmp_path / "d"), "--db", "x.meme", "--no-db"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
