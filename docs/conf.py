"""Sphinx configuration of the seqimp documentation site.

The site is the Markdown pages of docs/ (user guide, CLI reference, benchmarks; read by
MyST), the tutorial notebook shown as it is stored, never executed (docs/_ext/github_pages.py),
and an API reference written at build time from the packages' ``__all__``
(docs/_ext/seqimp_api.py) and their numpydoc docstrings. Build it with

    python -m pip install ".[docs]" && python -m sphinx -W -b html docs docs/_build/html
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
if (DOCS.parent / "seqimp" / "__init__.py").is_file():
    sys.path.insert(0, str(DOCS.parent))  # document the seqimp of this tree, installed or not

import seqimp  # noqa: E402

project = "seqimp"
author = "seqimp developers"
copyright = "seqimp developers (MIT licence)"
release = version = seqimp.__version__

extensions = [
    "myst_parser",                # the Markdown pages (MyST)
    "github_pages",               # the notebook, shown as stored; links out of docs/ (docs/_ext)
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "seqimp_api",                 # docs/api/*.rst from each package's __all__
]

root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "_ext", "_templates", "**.ipynb_checkpoints"]

# -- Markdown (MyST) -------------------------------------------------------------------
# anchors for headings, so that links such as pipeline.md#first-run-and-start-up resolve
myst_heading_anchors = 4

# Warnings inherent to Markdown pages written for GitHub, which renders them as intended:
# myst.header: a heading that skips a level (# then ###), which GitHub shows as written
suppress_warnings = ["myst.header"]

# -- API reference -----------------------------------------------------------------------
autosummary_generate = True
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# methods are documented on the class page (docs/_templates/autosummary/class.rst), so
# numpydoc adds no member tables of its own
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

# -- HTML --------------------------------------------------------------------------------
html_theme = "alabaster"
html_title = f"seqimp {release}"
html_static_path = []
