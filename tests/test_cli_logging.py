"""The command line's one log channel (the ``seqimp`` logger) and its module layout."""

import ast
import logging
import warnings
from pathlib import Path

import pytest

import seqimp.cli
from seqimp.cli import main
from seqimp.cli.common import _StderrHandler, configure, log

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
    logging.getLogger("seqimp.pipeline._run").info("a library line")
    log("a command line")
    assert capsys.readouterr().err == "a library line\na command line\n"
    configure(quiet=True)
    assert len(_handlers()) == 1
    logging.getLogger("seqimp.pipeline._run").info("hidden")
    log("shown anyway", always=True)
    assert capsys.readouterr().err == "shown anyway\n"


def test_warnings_are_one_line_even_with_quiet(capsys, monkeypatch):
    def noisy(args):
        warnings.warn("something odd", UserWarning)
        return 0

    monkeypatch.setattr("seqimp.cli.inspect.run", noisy)
    assert main(["-q", "inspect", "x.fa"]) == 0
    assert capsys.readouterr().err == "seqimp: warning: something odd\n"


def test_subcommands_import_only_the_shared_helpers_and_the_library():
    # a subcommand may use common.py and the private helper modules (_inputs.py), never another subcommand
    for path in CLI.glob("*.py"):
        if path.name in ("__init__.py", "common.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:  # from .x import ...
                assert node.module == "common" or node.module.startswith("_"), \
                    f"{path.name} imports from .{node.module}"
