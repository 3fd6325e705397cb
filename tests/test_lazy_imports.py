"""Stage packages import a public name from its module on first use (seqimp/_utils/lazy.py)."""

import importlib
import subprocess
import sys

import pytest

PACKAGES = ["seqimp.io", "seqimp.kernels", "seqimp.importance", "seqimp.motifs", "seqimp.plot", "seqimp.pipeline"]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_resolves_to_its_module(name):
    package = importlib.import_module(name)
    for public in package.__all__:
        value = getattr(package, public)
        where = package._EXPORTS[public]  # a submodule, or a module of an earlier stage ("..motifs.search._run")
        module = importlib.import_module(where if where.startswith(".") else f".{where}", name)
        assert value is getattr(module, public)
        assert public in dir(package)
    with pytest.raises(AttributeError, match=rf"module '{name}' has no attribute 'no_such_name'"):
        getattr(package, "no_such_name")


def test_a_private_module_is_reached_through_its_package():
    import seqimp.motifs

    assert seqimp.motifs._sites is importlib.import_module("seqimp.motifs._sites")


def test_importing_a_package_loads_only_what_is_used():
    """In a fresh interpreter: the package alone loads none of its modules; one name loads its
    module (and what that imports), not the package's other modules."""
    code = ("import sys, seqimp.motifs\n"
            "assert not [m for m in sys.modules if m.startswith('seqimp.motifs._')], sorted(sys.modules)\n"
            "from seqimp.motifs import Motif\n"
            "assert 'seqimp.motifs._motif' in sys.modules\n"
            "assert 'seqimp.motifs.known._enrich' not in sys.modules and 'seqimp.motifs.known._scan' not in sys.modules\n"
            "from seqimp.motifs import *\n"
            "assert 'seqimp.motifs.known._enrich' in sys.modules and callable(enrich_motifs)\n")
    subprocess.run([sys.executable, "-c", code], check=True)
