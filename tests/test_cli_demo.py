"""``seqimp demo --out DIR``: the whole pipeline on the embedded data, run once in-process."""

import json

from seqimp.importance import load_poim
from seqimp.cli import main


def test_demo_runs_the_pipeline_and_finds_the_planted_site(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert f"report: {out}/report.html" in stdout
    # it ends with the motif and how to match it
    motif_line = next(line for line in stdout.splitlines() if line.strip().startswith("motif1"))
    assert "\tTGACTCA\t" in motif_line or "\tTGAGTCA\t" in motif_line
    assert stdout.rstrip().endswith("--db JASPAR.meme")
    assert json.loads((out / "summary.json").read_text())["best_motif"]["consensus"] in ("TGACTCA", "TGAGTCA")
    assert "Best motif" in (out / "report.html").read_text()
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    assert {"report.html", "summary.json", "top_oligomers.tsv", "poim.npz", "model.npz", "differential_poim.png",
            "weights_vs_firm.png"} <= names
    # per-order heatmaps for k <= 4 (issue 17: outputs sized for people); every order in the
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
    assert stdout.splitlines()[-1].startswith("motif1: ")  # the last line: the motif's verdict
    assert "--db JASPAR.meme" not in stdout
    header = (out / "matches.tsv").read_text().splitlines()[0].split("\t")
    assert header[:5] == ["query", "target", "target_description", "p_value", "q_value"]
    assert json.loads((out / ".seqimp-poim.json").read_text())["files"].count("matches.tsv") == 1
