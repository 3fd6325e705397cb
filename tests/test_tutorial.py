"""docs/tutorial.ipynb runs from top to bottom (nbclient, a fresh kernel) and is stored without outputs.

Running it needs nbclient and ipykernel (the ``test`` extra) and pyjaspar (the ``jaspar`` extra: the
tutorial matches its motifs against JASPAR); without them that test is skipped, naming the extra."""

import json
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "tutorial.ipynb"

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_notebook_is_stored_without_outputs():
    nb = json.loads(NOTEBOOK.read_text())
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    assert code, "the tutorial has code cells"
    for cell in code:
        assert cell["outputs"] == [] and cell["execution_count"] is None, "".join(cell["source"])[:60]


def _needs(module, extra):
    return pytest.importorskip(module, reason=f"needs {module}: pip install '.[{extra}]'")


def test_notebook_runs_and_finds_the_planted_site(tmp_path):
    nbformat = _needs("nbformat", "test")
    NotebookClient = _needs("nbclient", "test").NotebookClient
    _needs("ipykernel", "test")  # the notebook's kernel
    _needs("pyjaspar", "jaspar")  # jaspar_motifs() in the motif step
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error"
            text.append(output.get("text", ""))
            text.extend(str(v) for v in output.get("data", {}).values())
    text = "\n".join(text)
    assert "held-out accuracy" in text
    assert "<div class='seqimp-result'" in text  # the rich views of the results
    assert "TGACTCA" in text  # the planted AP-1 site: top oligomers and the motif
    assert "PermutationResult" in text and "FIRMResult" in text
    # the variant effects ran and show their table (their values: tests/test_variants.py)
    variants = next(cell for cell in nb.cells if "variant_effects" in "".join(cell.source) and cell.cell_type == "code")
    assert "delta" in variants.outputs[0]["data"]["text/plain"] and "oligomer" in variants.outputs[0]["data"]["text/plain"]
