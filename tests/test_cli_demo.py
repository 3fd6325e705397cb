"""``seqimp demo --out DIR``: the whole pipeline on the embedded data, run once in-process."""

import json

from seqimp.importance import load_poim
from seqimp.cli import main


def test_demo_runs_the_pipeline_and_finds_the_planted_site(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert stdout.rstrip().endswith(f"report: {out}/report.html")
    names = {p.name for p in out.iterdir()}
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
