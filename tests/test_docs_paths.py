"""Every module path that docs/, README.md and the package's own docstrings and comments name exists.

A restructuring moves modules; a stale ``seqimp._poim_kernels`` in a docstring or a
``seqimp/importance/_streaming.py`` in docs/ sends a reader to a file that is not there.
Dotted names (``seqimp.importance._result.POIMResult``) are imported module by module and the
rest looked up as attributes; file paths (``seqimp/motifs/_refine.py``) must exist in the checkout.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "seqimp"

DOTTED = re.compile(r"(?<![\w./-])seqimp(?:\.[A-Za-z_]\w*)+")
FILE = re.compile(r"(?<![\w./-])seqimp/(?:[\w]+/)*[\w]+\.py\b")

#: Names that read like module paths but are not: file names and a package-data folder.
NOT_PATHS = {"seqimp.data"}


def _sources():
    yield from sorted((ROOT / "docs").rglob("*.md"))
    yield ROOT / "README.md"
    yield from sorted(PACKAGE.rglob("*.py"))
    yield from sorted((ROOT / "scripts").glob("*.py"))


def _mentions():
    found = {}
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        for pattern in (DOTTED, FILE):
            for m in pattern.finditer(text):
                name = m.group(0).rstrip(".")
                line = text.count("\n", 0, m.start()) + 1
                found.setdefault(name, f"{path.relative_to(ROOT)}:{line}")
    return found


MENTIONS = _mentions()


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    obj, i = None, len(parts)
    while i > 0:  # the longest importable module prefix
        try:
            obj = importlib.import_module(".".join(parts[:i]))
            break
        except ModuleNotFoundError as err:
            if not ".".join(parts[:i]).startswith(str(err.name)) and err.name not in ".".join(parts[:i]):
                raise  # a missing third-party dependency, not a missing seqimp module
            i -= 1
    for attr in parts[i:]:
        if not hasattr(obj, attr):  # a dataclass field without a default is no class attribute
            return attr in getattr(obj, "__dataclass_fields__", {})
        obj = getattr(obj, attr)
    return True


def test_there_are_mentions_to_check():
    assert len(MENTIONS) > 50  # the scan itself works


@pytest.mark.parametrize("name", sorted(n for n in MENTIONS if "/" not in n and n not in NOT_PATHS))
def test_dotted_path_exists(name):
    assert _resolves(name), f"{name} (named in {MENTIONS[name]}) does not exist"


@pytest.mark.parametrize("name", sorted(n for n in MENTIONS if "/" in n))
def test_file_path_exists(name):
    assert (ROOT / name).is_file(), f"{name} (named in {MENTIONS[name]}) does not exist"
