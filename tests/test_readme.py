"""The README's Python example and Usage commands must keep working as written."""

import re
from pathlib import Path

import matplotlib.pyplot as plt

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs(capsys):
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python example"
    namespace = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    plt.close("all")
    top = namespace["res"].top(5, measure="firm")
    assert len(top) == 5 * namespace["res"].max_order   # the top 5 of every order, merged
    # the planted AP-1 site is at 1-based 21-23: the strongest 7-mer must sit there
    assert list(top.columns) == ["rank", "oligomer", "order", "position", "poim", "firm"]
    seven = namespace["res"].poim[6]
    j, z = divmod(int(seven.argmax()), seven.shape[1])
    from seqimp import kmer_string

    assert kmer_string(z, 7) == "TGACTCA" and j + 1 in (21, 22, 23)


def test_readme_quick_start_has_exactly_two_commands():
    text = README.read_text()
    section = text.split("## Quick start", 1)[1].split("##", 1)[0]
    block = re.findall(r"```bash\n(.*?)```", section, flags=re.S)[0]
    lines = [ln for ln in block.splitlines() if ln.strip()]
    assert lines == ['python -m pip install ".[jaspar]" && seqimp demo --out demo-results',
                     'python -m pip install ".[test,dask,jaspar]" && python -m pytest -n 2']


def test_ci_runs_the_quick_start_as_written():
    """.ci/run installs and runs exactly the README's two quick-start commands."""
    text = README.read_text()
    section = text.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = [ln for ln in re.findall(r"```bash\n(.*?)```", section, flags=re.S)[0].splitlines() if ln.strip()]
    ci = (README.parent / ".ci" / "run").read_text().splitlines()
    assert all(command in ci for command in commands)
