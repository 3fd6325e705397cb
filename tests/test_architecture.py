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
    "errors": 0, "_json": 0, "_cores": 0, "_tables": 0, "_progress": 0, "_npz": 0, "_parallel": 0, "_sizes": 0, "_heap": 0, "_lazy": 0, "_repr": 0, "_renamed": 0,
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


def _exports(package):
    """The public names a package's ``__init__`` hands on (its ``_EXPORTS`` and ``__all__``)."""
    init = ROOT.parent / Path(*package.split(".")) / "__init__.py"
    names = set()
    for node in ast.walk(ast.parse(init.read_text())):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) in ("_EXPORTS", "__all__")
                                                for t in node.targets):
            value = ast.literal_eval(node.value)
            names |= set(value)
    return names


ALL = [(name, _imports(path, name, pkg)) for path, name, pkg in _modules()]


def test_the_stages_are_all_known():
    unknown = {name.split(".")[1] for name, _ in ALL if "." in name and _stage(name) is None}
    assert not unknown, f"add these to STAGES and docs/architecture.md: {sorted(unknown)}"


def test_no_import_runs_back_up():
    back = [f"{name} -> {target}" for name, imports in ALL for target, _names, _f in imports
            if _stage(name) is not None and _stage(target) is not None and _stage(target) > _stage(name)]
    assert not back, "imports of a later stage:\n" + "\n".join(back)


def test_no_private_module_of_another_package_for_an_unexported_name():
    bad = []
    for name, imports in ALL:
        own = name.split(".")[:2]
        for target, names, _f in imports:
            parts = target.split(".")
            if len(parts) < 3 or parts[:2] == own or not parts[2].startswith("_") or name == "seqimp.scorers":
                continue  # seqimp.scorers is the public home of importance's scorer adapters
            package = ".".join(parts[:2])
            if (ROOT.parent / Path(*parts[:2]) / "__init__.py").exists():
                missing = [n for n in names if n not in _exports(package)]
                bad += [f"{name}: {target}.{n}" for n in missing]
    assert not bad, "names taken from another package's private module that it does not export:\n" + "\n".join(bad)


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
    lines = sum(len(p.read_text().splitlines()) for p in (ROOT / "pipeline").glob("*.py"))
    assert lines <= 3200, f"seqimp/pipeline holds {lines} lines"


def test_every_package_is_installed():
    """pyproject.toml lists its packages by name: a new stage package must be among them, or
    ``pip install .`` leaves it out."""
    import tomllib

    listed = set(tomllib.loads((ROOT.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {".".join(p.parent.relative_to(ROOT.parent).parts) for p in ROOT.rglob("__init__.py")}
    assert packages <= listed, f"add to pyproject.toml's packages: {sorted(packages - listed)}"
