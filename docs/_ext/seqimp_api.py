"""The API reference pages, written at build time from each package's ``__all__``.

When Sphinx has read ``conf.py`` (the ``config-inited`` event, before it looks for source
files), this extension writes ``docs/api/index.rst`` and one page per pipeline stage
(``docs/api/<stage>.rst``). A stage page shows each of its modules' docstring and an
autosummary table of the names in that module's ``__all__``, in the order given there,
split into classes, functions and constants; autosummary then writes one page per name
into ``docs/api/generated/``. A name dropped from an ``__all__`` loses its page (its
stale page is removed here), a name added gets one, and a listed module that does not
exist is left out. An object that two of the modules export has one page, under the
module that defines it; the other module's page links to it. ``docs/api/`` is generated
and git-ignored: nothing in it is edited by hand.

The public names are exported lazily (a package's ``__getattr__`` imports the module that
defines a name on first use), so every name is read with ``getattr`` on its package,
exactly as autosummary and autodoc read it.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path

# (page, title, modules, what the stage does): the order of the pipeline, then the extras
STAGES = [
    ("read-and-encode", "Read and encode", ["seqimp.io"],
     "Alphabets, integer codes, k-mer indices, FASTA, BED and sequence tables, checks."),
    ("model", "Model", ["seqimp.kernels", "seqimp.training"],
     "WD/WDS and gapped-k-mer kernels, their estimators and solvers, unfolding to positional "
     "weights; a run's models on a held-out split, and model files."),
    ("background", "Background", ["seqimp.background"],
     "Markov background models of any order."),
    ("importance", "Importance", ["seqimp.importance", "seqimp.scorers"],
     "Exact and sampled POIM/FIRM, in-silico mutagenesis, variant effects; a trained model "
     "as a score function."),
    ("motifs", "Motifs", ["seqimp.motifs"],
     "Motif seeds, PWM fitting and tuning, sites, motif files and databases, scanning and "
     "enrichment."),
    ("outputs", "Outputs", ["seqimp.plot", "seqimp.report"],
     "Heatmaps, logos and importance plots; the HTML report and summary.json."),
    ("runs", "Runs", ["seqimp.pipeline", "seqimp.options"],
     "The runs the command line makes, as library functions, and their options."),
    ("tabular", "Tabular", ["seqimp.tabular"],
     "Importance methods for real-valued features."),
    ("data-and-errors", "Data sets and errors", ["seqimp.datasets", "seqimp.errors"],
     "The embedded demo data, the UCI loaders, and the error seqimp raises."),
]

# id of each documented class and function -> its documented full name (write_api_pages)
_DOCUMENTED: dict[int, str] = {}

KINDS = [("class", "Classes"), ("function", "Functions"), ("data", "Constants")]


def _underline(text: str, char: str) -> str:
    return f"{text}\n{char * len(text)}\n"


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def public_names(module: str) -> list[tuple[str, object]]:
    """The objects of ``module.__all__``, in their order (modules left out)."""
    mod = importlib.import_module(module)
    items = []
    for name in getattr(mod, "__all__", []):
        try:
            obj = getattr(mod, name)
        except (AttributeError, ImportError) as exc:
            raise RuntimeError(f"{module}.__all__ lists {name!r}, which cannot be imported: {exc}") from exc
        if not inspect.ismodule(obj):
            items.append((name, obj))
    return items


def owners(names: dict[str, list[tuple[str, object]]]) -> dict[int, str]:
    """The full name each class and function is documented under (by ``id``).

    An object that several documented modules export (an options class defined in one module
    and exported by the runs package too) has one page: under the module it is defined in
    (its ``__module__`` lies in that module or package), else under the first that lists it.
    """
    found: dict[int, list[str]] = {}
    objects = {}
    for module, items in names.items():
        for name, obj in items:
            if _kind(obj) != "data":
                found.setdefault(id(obj), []).append(f"{module}.{name}")
                objects[id(obj)] = obj
    owner = {}
    for key, fulls in found.items():
        home = getattr(objects[key], "__module__", None) or ""
        inside = [f for f in fulls if home == f.rpartition(".")[0] or home.startswith(f.rpartition(".")[0] + ".")]
        owner[key] = (inside or fulls)[0]
    return owner


def stage_page(title: str, about: str, names: dict, owner: dict) -> tuple[str, list[str]]:
    """The reST of one stage page (``names``: its modules' objects) and the full names it documents."""
    lines = [_underline(title, "="), about, ""]
    documented = []
    for module, items in names.items():
        lines += [_underline(module, "-"), f".. automodule:: {module}", "",
                  f".. currentmodule:: {module}", ""]
        by_kind: dict[str, list[str]] = {kind: [] for kind, _ in KINDS}
        again = []
        for name, obj in items:
            full = owner.get(id(obj), f"{module}.{name}") if _kind(obj) != "data" else f"{module}.{name}"
            if full == f"{module}.{name}":
                by_kind[_kind(obj)].append(name)
            else:
                again.append(full)
        for kind, heading in KINDS:
            if by_kind[kind]:
                lines += [f".. rubric:: {heading}", "", ".. autosummary::", "   :toctree: generated", ""]
                lines += [f"   {name}" for name in by_kind[kind]]
                lines.append("")
                documented += [f"{module}.{name}" for name in by_kind[kind]]
        if again:
            lines += [".. rubric:: Also exported here", "",
                      f"Documented where they are defined, and importable from ``{module}`` too:", "",
                      ".. autosummary::", ""]
            lines += [f"   ~{full}" for full in again]
            lines.append("")
    return "\n".join(lines), documented


def top_level_table(documented: set[str], owner: dict) -> str:
    """A table of the ``seqimp.<name>`` shortcuts, each linked to the page of its object."""
    import seqimp

    packages = getattr(seqimp, "_EXPORTS", {})  # short name -> the package that exports it
    rows = []
    for name in seqimp.__all__:
        if name not in packages:
            continue
        target = owner.get(id(getattr(seqimp, name)), f"seqimp.{packages[name]}.{name}")
        where = f":py:obj:`{target}`" if target in documented else f"``{target}``"
        rows += [f"   * - ``seqimp.{name}``", f"     - {where}"]
    if not rows:
        return ""
    return "\n".join([
        _underline("The seqimp namespace", "-"),
        "``import seqimp`` gives short names for the objects used most; each is the object",
        "documented in the stage package that owns it.", "",
        ".. list-table::", "   :header-rows: 1", "",
        "   * - name", "     - documented as", *rows, ""])


def _write(path: Path, text: str) -> None:
    # rewritten only when it changes, so that an unchanged page is not read again
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_api_pages(app, config) -> None:
    api = Path(app.srcdir) / "api"
    generated = api / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    stages = []
    for page, title, modules, about in STAGES:
        present = {m: public_names(m) for m in modules if _installed(m)}
        if present:
            stages.append((page, title, about, present))
    owner = owners({m: items for *_, present in stages for m, items in present.items()})
    pages, documented = [], []
    for page, title, about, present in stages:
        text, names = stage_page(title, about, present, owner)
        _write(api / f"{page}.rst", text)
        pages.append(page)
        documented += names
    # pages of stages, and of names, that are no longer listed
    for old in api.glob("*.rst"):
        if old.stem != "index" and old.stem not in pages:
            old.unlink()
    for old in generated.glob("*.rst"):
        if old.stem not in documented:
            old.unlink()
    index = [_underline("API reference", "="),
             "One page per pipeline stage; each lists the public names of its packages (their",
             "``__all__``), and each name has a page of its own, made from its docstring.", "",
             ".. toctree::", "   :maxdepth: 2", "", *[f"   {page}" for page in pages], "",
             top_level_table(set(documented), owner)]
    _write(api / "index.rst", "\n".join(index))
    _DOCUMENTED.clear()
    _DOCUMENTED.update(owner)


def data_docstring(app, what, name, obj, options, lines):
    """A constant's description: its ``#:`` comment where it is defined, and its type.

    autodoc reads ``#:`` comments from the module a name is documented in (the package),
    while a lazily exported constant is defined in one of the package's modules
    (``_EXPORTS``); without a comment autodoc would show the docstring of the constant's
    class instead.
    """
    if what != "data":
        return
    from sphinx.pycode import ModuleAnalyzer

    package, _, attr = name.rpartition(".")
    defined_in = getattr(importlib.import_module(package), "_EXPORTS", {}).get(attr)
    comment = []
    for module in [package] + ([f"{package}.{defined_in}"] if defined_in else []):
        try:
            comment = ModuleAnalyzer.for_module(module).find_attr_docs().get(("", attr), [])
        except Exception:  # no source to read: the value alone is shown
            comment = []
        if comment:
            break
    lines[:] = [line.rstrip("\n") for line in comment]
    cls = _DOCUMENTED.get(id(type(obj)))
    if cls is not None:
        lines += ["", f"An instance of :py:class:`{cls}`."]


def _defined_in(obj) -> str:
    obj = getattr(obj, "fget", obj)  # a property: its getter
    return getattr(obj, "__module__", None) or ""


def skip_member(app, what, name, obj, skip, options):
    """A class page documents the methods and properties that seqimp defines, its own and
    those it inherits from seqimp base classes, not those of scikit-learn or Python
    (``get_params``, ``set_fit_request``, ``with_traceback``), documented where they come from.
    """
    if what == "class" and (callable(obj) or isinstance(obj, property)):
        if not _defined_in(obj).startswith("seqimp"):
            return True
    return None


def setup(app):
    app.connect("config-inited", write_api_pages)
    app.connect("autodoc-skip-member", skip_member)
    # before numpydoc (priority 500) formats the docstring
    app.connect("autodoc-process-docstring", data_docstring, priority=400)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
