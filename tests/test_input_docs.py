"""The Python examples of the input and model pages run as written, and so do their command
lines (the first ``bash`` block of the page, run in the folder the Python example wrote into)."""

import json
import re
import shlex
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("page, needs", [("input-genome.md", "pyfaidx"), ("input-tables.md", None),
                                         ("models-onnx.md", "onnxruntime")])
def test_doc_example_runs(tmp_path, monkeypatch, page, needs):
    if needs:
        pytest.importorskip(needs)
    if page == "models-onnx.md":
        pytest.importorskip("onnx")
    block = re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S)[0]
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(block, page, "exec"), namespace)
    plt.close("all")
    if page == "input-genome.md":
        bed = namespace["bed"]
        assert len(bed) == len(namespace["pos"]) == 11 and (bed["end"] - bed["start"] == 8).all()
        assert bed["start"].tolist() == list(range(300, 4700, 400))
        assert bed["strand"].tolist() == ["+", "-"] * 5 + ["+"]
    if page == "input-tables.md":
        top = namespace["res"].top(3, measure="poim", order=6)
        assert (top["oligomer"][0], top["position"][0]) == ("TATAAT", 13)
    _run_commands(page)


def _run_commands(page):
    """Every ``seqimp ...`` line of the page's first bash block exits 0 and writes its report."""
    from seqimp.cli import main

    block = re.findall(r"```bash\n(.*?)```", (DOCS / page).read_text(), flags=re.S)[0]
    commands = [shlex.split(line) for line in block.splitlines() if line.startswith("seqimp ")]
    assert commands
    for argv in commands:
        assert main(argv[1:] + ["--quiet"]) == 0, argv
        out = Path(argv[argv.index("--out") + 1])
        summary = json.loads((out / "summary.json").read_text())
        assert (out / "report.html").exists() and (out / "top_oligomers.tsv").exists()
        if page == "input-genome.md":
            assert summary["dropped"]["off_chromosome"] == 0 and (out / "top_oligomers.bed").exists()
        if page == "input-tables.md":
            assert summary["metrics"]["r2"] > 0.5
