"""The command line's one log channel (the ``seqimp`` logger) and its module layout."""

import ast
import logging
import warnings
from pathlib import Path

import pytest

import seqimp.cli
from seqimp.cli import main
from seqimp.cli._logging import _StderrHandler, configure, log

CLI = Path(seqimp.cli.__file__).parent


@pytest.fixture(autouse=True)
def _reset():
    yield
    configure(quiet=False)


def _handlers():
    return [h for h in logging.getLogger("seqimp").handlers if isinstance(h, _StderrHandler)]


def test_configure_installs_one_plain_stderr_handler(capsys):
    configure()
    configure()
    assert len(_handlers()) == 1
    logging.getLogger("seqimp.pipeline._poim_run").info("a library line")
    log("a command line")
    assert capsys.readouterr().err == "a library line\na command line\n"
    configure(quiet=True)
    assert len(_handlers()) == 1
    logging.getLogger("seqimp.pipeline._poim_run").info("hidden")
    log("shown anyway", always=True)
    assert capsys.readouterr().err == "seqimp: warning: shown anyway\n"  # every stderr line: seqimp: ...


def test_warnings_are_one_line_even_with_quiet(capsys, monkeypatch):
    def noisy(args):
        warnings.warn("something odd", UserWarning)
        return 0

    monkeypatch.setattr("seqimp.cli.inspect.run", noisy)
    assert main(["-q", "inspect", "x.fa"]) == 0
    assert capsys.readouterr().err == "seqimp: warning: something odd\n"


def _cli_imports(path):
    """The modules of seqimp.cli that ``path`` imports (``from .x import`` and ``from . import x``)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            yield from ([node.module] if node.module else [alias.name for alias in node.names])


def test_subcommands_import_only_the_private_helpers_and_the_library():
    # a subcommand (poim.py, motifs.py, ...) may use the private helper modules (_logging, _options,
    # _output_folder, _printing, _inputs) and the library, never another subcommand; a helper never
    # imports a subcommand; only __init__.py loads the subcommands
    helpers = {path.stem for path in CLI.glob("_*.py")} - {"__init__"}
    assert {"_logging", "_options", "_output_folder", "_printing", "_inputs"} <= helpers
    for path in CLI.glob("*.py"):
        if path.name == "__init__.py":
            continue
        for module in _cli_imports(path):
            assert module in helpers, f"{path.name} imports from .{module}"
