"""The pages of docs/ written for GitHub (Markdown and the tutorial notebook) in the site.

* The notebook: a source parser for ``.ipynb`` files turns the notebook's JSON into MyST
  Markdown (Markdown cells as they are, each code cell as a fenced ``python`` block, outputs
  left out: the notebook is stored without them), parsed by myst-parser like the other pages.
  No kernel is started and nothing is executed; tests/test_tutorial.py runs the notebook.
* Links to the repository outside docs/ (``[the README](../README.md)``, a folder such as
  ``../scripts/``), which GitHub follows but the site does not contain: the link's text is
  kept, without the link, instead of a warning. A file that is not a page (``../scripts/x.py``)
  is already a download link (myst-parser), and a link to a path that does not exist still
  warns.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes
from myst_parser.parsers.sphinx_ import MystParser
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform


def notebook_markdown(text: str) -> str:
    """The MyST Markdown of a notebook's cells, in their order."""
    blocks = []
    for cell in json.loads(text).get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if not source.strip():
            continue
        if cell.get("cell_type") == "markdown":
            blocks.append(source.strip("\n"))
        elif cell.get("cell_type") == "code":
            # a fence longer than any run of backticks in the code
            fence = "`" * max([3] + [len(run) + 1 for run in re.findall("`+", source)])
            code = source.strip("\n")
            blocks.append(f"{fence}python\n{code}\n{fence}")
    return "\n\n".join(blocks) + "\n"


class NotebookParser(MystParser):
    """Parses a stored Jupyter notebook as MyST Markdown."""

    supported = ("ipynb",)

    def parse(self, inputstring, document):
        super().parse(notebook_markdown(inputstring), document)


class RepositoryLinks(SphinxPostTransform):
    """Unlinks the links of a page to repository paths outside docs/ (kept as their text)."""

    default_priority = 8  # before myst-parser resolves its links (9)

    def run(self, **kwargs):
        srcdir = Path(self.env.srcdir).resolve()
        repository = srcdir.parent
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst":
                continue
            target = node["reftarget"].partition("#")[0]
            if node.get("refdomain") == "doc":
                if target in self.env.found_docs:
                    continue
                # a Markdown file outside docs/: myst-parser gives it as a path without suffix
                candidates = [Path(target + suffix) for suffix in (".md", ".rst", ".ipynb")]
            else:
                candidates = [Path(target)]
            base = (srcdir / node["refdoc"]).parent
            paths = [(base / c).resolve() if not c.is_absolute() else c.resolve() for c in candidates]
            if any(p.exists() and repository in p.parents and srcdir not in p.parents and p != srcdir
                   for p in paths):
                node.replace_self(nodes.inline("", "", *node.children, classes=["repository-path"]))


def setup(app):
    app.add_source_suffix(".ipynb", "ipynb")
    app.add_source_parser(NotebookParser)
    app.add_post_transform(RepositoryLinks)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
