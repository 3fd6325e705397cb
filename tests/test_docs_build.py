"""The documentation site builds with warnings as errors, and has a page for every public name.

The build needs the ``docs`` extra (Sphinx, numpydoc, MyST); without it the test is skipped,
naming the extra. A copy of docs/ is built (into tmp_path), so the API pages that the build
generates from each package's ``__all__`` (docs/api/) are written into the copy, not the tree.
One build (about 30 s on one core) serves every check, in one test.
"""

import importlib
import importlib.util
import inspect
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _documented_modules():
    """The modules the API reference documents (STAGES of docs/_ext/seqimp_api.py) that exist."""
    spec = importlib.util.spec_from_file_location("seqimp_api", DOCS / "_ext" / "seqimp_api.py")
    api = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(api)
    return [m for _, _, modules, _ in api.STAGES for m in modules if importlib.util.find_spec(m)]


def _build(tmp_path):
    source = tmp_path / "docs"
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns("_build", "api"))
    html = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(source), str(html)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return html


def test_docs_site_builds_with_a_page_per_public_name(tmp_path):
    # one test, one build: under pytest-xdist a module-scoped fixture would build once per worker
    for module in ("sphinx", "numpydoc", "myst_parser"):
        pytest.importorskip(module, reason="needs the docs extra (sphinx): pip install '.[docs]'")
    site = _build(tmp_path)

    # the user pages, the CLI reference, the benchmarks, the tutorial and the API reference
    for page in ("index", "architecture", "pipeline", "cli/README", "cli/poim", "benchmarks/motifs",
                 "tutorial", "api/index"):
        assert (site / f"{page}.html").is_file(), page

    generated = site / "api" / "generated"
    for name in ("seqimp.kernels.WDClassifier", "seqimp.importance.poim", "seqimp.motifs.read_motifs"):
        page = generated / f"{name}.html"
        assert page.is_file(), name
        assert f'id="{name}"' in page.read_text(encoding="utf-8"), name

    # every name of every documented module's __all__ has a page; an object that two modules
    # export has one, under the module that defines it
    pages = {p.stem for p in generated.glob("*.html")}
    objects = {id(getattr(importlib.import_module(page.rpartition(".")[0]), page.rpartition(".")[2]))
               for page in pages}
    missing = []
    for module in _documented_modules():
        mod = importlib.import_module(module)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not inspect.ismodule(obj) and f"{module}.{name}" not in pages and id(obj) not in objects:
                missing.append(f"{module}.{name}")
    assert missing == []
