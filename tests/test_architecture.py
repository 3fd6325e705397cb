"""The package's import graph against docs/architecture.md: stages import only earlier stages,
no import circle, the pipeline's own modules in one order with no import placed inside a
function to dodge a circle, and no package reaches into another's private module for a name
that package does not export. Read from the source (ast), so it needs no import of seqimp."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "seqimp"

#: Stage of each top-level package or module: a module may import from its own stage and earlier ones.
STAGES = {
    "errors": 0, "_utils": 0, "options": 0.5,
    "tabular": 1,
    "io": 2, "datasets": 2.5,
    "kernels": 3, "training": 4, "background": 5, "importance": 6, "scorers": 6.5, "motifs": 7, "plot": 8,
    "report": 9, "pipeline": 10, "cli": 11, "__main__": 12,
}

#: Third-party dependencies that may be imported inside a function (optional extras or heavy imports).
def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        yield path, ".".join(parts[:-1] if parts[-1] == "__init__" else parts), parts[-1] == "__init__"


def _imports(path, name, is_package):
    """(target module, imported names, inside a function?) of every seqimp import in ``path``."""
    tree = ast.parse(path.read_text())
    package = name if is_package else name.rpartition(".")[0]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target.split(".")[0] == "seqimp":
                    found.append((target, [a.name for a in child.names], in_function))
            elif isinstance(child, ast.Import):
                for a in child.names:
                    if a.name.split(".")[0] == "seqimp":
                        found.append((a.name, [], in_function))
            visit(child, inner)

    visit(tree, False)
    return found


def _stage(module):
    parts = module.split(".")
    return None if len(parts) < 2 else STAGES.get(parts[1])


def _public(module):
    """The public names of a seqimp package or module (``seqimp.motifs``): its ``__all__``, read from the
    source. A stage package writes ``__all__ = list(_EXPORTS)``: then its ``_EXPORTS`` keys."""
    path = ROOT.parent / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    found = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) in ("_EXPORTS", "__all__"):
            name = node.targets[0].id
            if name == "__all__" and isinstance(node.value, ast.Call):
                found[name] = None  # list(_EXPORTS)
            else:
                found[name] = list(ast.literal_eval(node.value))
    if found.get("__all__", "") is None:
        return found["_EXPORTS"]
    return found.get("__all__")


def _is_package(module):
    return (ROOT.parent / Path(*module.split(".")) / "__init__.py").exists()


#: The public modules and packages of seqimp: what a user imports. Everything else is internal.
PUBLIC_PLACES = ["seqimp.io", "seqimp.kernels", "seqimp.training", "seqimp.background", "seqimp.importance",
                 "seqimp.scorers", "seqimp.motifs", "seqimp.plot", "seqimp.report", "seqimp.pipeline",
                 "seqimp.tabular", "seqimp.datasets", "seqimp.errors", "seqimp.options"]


ALL = [(name, _imports(path, name, pkg)) for path, name, pkg in _modules()]


def test_the_stages_are_all_known():
    unknown = {name.split(".")[1] for name, _ in ALL if "." in name and _stage(name) is None}
    assert not unknown, f"add these to STAGES and docs/architecture.md: {sorted(unknown)}"


def test_no_import_runs_back_up():
    back = [f"{name} -> {target}" for name, imports in ALL for target, _names, _f in imports
            if _stage(name) is not None and _stage(target) is not None and _stage(target) > _stage(name)]
    assert not back, "imports of a later stage:\n" + "\n".join(back)


def test_a_public_name_comes_from_its_package_and_an_internal_one_from_its_module():
    """The one import rule (docs/architecture.md, "Public names and internals"): a name in a package's
    ``__all__`` is imported from the package (``from ..io import read_fasta``); any other name is
    imported from the module that defines it (``from ..io._check import check_sequences``), so a
    package hands on nothing beside its ``__all__``."""
    bad = []
    for name, imports in ALL:
        for target, names, _f in imports:
            parts = target.split(".")
            if len(parts) == 2 and target in PUBLIC_PLACES and _is_package(target):
                public = set(_public(target))
                bad += [f"{name}: from {target} import {n}: not in its __all__ (import it from its module)"
                        for n in names if n not in public and not _is_package(f"{target}.{n}")
                        and not (ROOT.parent / Path(*parts) / f"{n}.py").exists()]
            elif len(parts) >= 3 and f"seqimp.{parts[1]}" in PUBLIC_PLACES and _is_package(f"seqimp.{parts[1]}") \
                    and not name.startswith(f"seqimp.{parts[1]}.") and name != f"seqimp.{parts[1]}" \
                    and name != "seqimp.scorers":  # seqimp.scorers is the public home of importance's adapters
                public = set(_public(f"seqimp.{parts[1]}"))
                bad += [f"{name}: from {target} import {n}: public, import it from seqimp.{parts[1]}"
                        for n in names if n in public]
    assert not bad, "imports against the rule:\n" + "\n".join(bad)


def test_a_package_exports_nothing_beside_its_all():
    for place in PUBLIC_PLACES:
        if not _is_package(place):
            continue
        tree = ast.parse((ROOT.parent / Path(*place.split(".")) / "__init__.py").read_text())
        exports = [node for node in tree.body if isinstance(node, ast.Assign)
                   and getattr(node.targets[0], "id", None) == "_EXPORTS"]
        if exports:  # lazy: every name it hands on is public
            assert set(ast.literal_eval(exports[0].value)) == set(_public(place)), place
        else:  # eager: it imports exactly its __all__
            imported = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                        for a in node.names}
            assert imported == set(_public(place)), place


def test_the_public_surface_is_small():
    """At most 150 public names over the stage packages and public modules (the API reference has a
    page for each)."""
    counts = {place: len(_public(place)) for place in PUBLIC_PLACES}
    assert sum(counts.values()) <= 150, counts


def test_no_import_circle():
    graph = {name: {t for t, _n, _f in imports} for name, imports in ALL}
    # an import of a package's __init__ (lazy exports) is not an edge to its modules
    state, circles = {}, []

    def walk(node, path):
        state[node] = 1
        for nxt in graph.get(node, ()):
            if nxt == node or nxt not in graph or nxt.count(".") < 2 and nxt != node and (ROOT.parent / Path(*nxt.split("."))
                                                                             / "__init__.py").exists():
                continue
            if state.get(nxt) == 1:
                circles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                walk(nxt, path + [nxt])
        state[node] = 2

    for node in graph:
        if node not in state:
            walk(node, [node])
    assert not circles, "import circles:\n" + "\n".join(circles)


@pytest.mark.parametrize("package", ["pipeline", "training", "report"])
def test_no_sibling_import_inside_a_function(package):
    inner = [f"{name} -> {target}" for name, imports in ALL if name.startswith(f"seqimp.{package}.")
             for target, _n, in_function in imports if in_function and target.startswith(f"seqimp.{package}.")]
    assert not inner, "imports of the package's own modules placed inside functions:\n" + "\n".join(inner)


def test_the_pipeline_is_orchestration_only():
    """The pipeline runs the stages and writes files; an algorithm goes to its stage (the motif
    search is seqimp/motifs/search/)."""
    lines = sum(len(p.read_text().splitlines()) for p in (ROOT / "pipeline").glob("*.py"))
    assert lines <= 2100, f"seqimp/pipeline holds {lines} lines"


def test_every_package_is_installed():
    """pyproject.toml lists its packages by name: a new stage package must be among them, or
    ``pip install .`` leaves it out."""
    import tomllib

    listed = set(tomllib.loads((ROOT.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {".".join(p.parent.relative_to(ROOT.parent).parts) for p in ROOT.rglob("__init__.py")}
    assert packages <= listed, f"add to pyproject.toml's packages: {sorted(packages - listed)}"
