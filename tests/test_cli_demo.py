"""``seqimp demo --out DIR``: the whole pipeline on the embedded data, run once in-process."""

import json

from seqimp.cli import main
from seqimp.importance import POIMResult


def test_demo_runs_the_pipeline_and_finds_the_planted_site(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert stdout.rstrip().endswith(f"report: {out}/report.html")
    names = {p.name for p in out.iterdir()}
    assert {"report.html", "summary.json", "top_oligomers.tsv", "poim.npz", "model.npz", "differential_poim.png",
            "weights_vs_firm.png"} <= names
    assert {f"poim_order{k}.png" for k in range(1, 9)} <= names
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["auroc"] > 0.95
    # the whole AP-1 site is the most important 7-mer, at a planted start (21-23)
    best7 = next(r for r in summary["top_per_order"] if r["order"] == 7)
    assert best7["oligomer"] == "TGACTCA" and 21 <= best7["position"] <= 23
    assert f"k=7:  TGACTCA at {best7['position']}" in stdout
    assert POIMResult.load(out / "poim.npz").max_order == 8
