"""Lazy package namespaces: a stage package lists which of its modules owns each public name,
and a name is imported from that module when it is first used. ``from seqimp.motifs import
refine_motifs`` then loads ``seqimp.motifs._refine`` (and what it imports) only, not every
module of the package: a ``seqimp motifs`` run does not pay for the scan, enrichment or
tabular code it never calls.

    __getattr__, __dir__ = lazy_exports(__name__, {"Motif": "_motif", ...})

A name defined in another stage's module is given by a relative path from the package
(``"MotifRun": "..motifs.search._run"``); a name whose one home is now elsewhere is still found,
with a FutureWarning (``moved=``).
"""

from __future__ import annotations

import sys
import warnings
from importlib import import_module
from importlib.util import find_spec

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: dict, moved: dict | None = None):
    """The module-level ``__getattr__`` and ``__dir__`` of the package ``package``.

    ``exports`` maps a public name to the submodule (``"_motif"``) that defines it, or to a
    module given relative to the package (``"..motifs.search._run"``: a name of an earlier
    stage handed on). An attribute that is neither an export nor set yet is looked up as a
    submodule of the package (``seqimp.motifs._sites``), so code that reaches a private module
    through the package keeps working; anything else is an AttributeError, as for any module.

    ``moved`` maps a name that this package no longer lists to the module that is its one home
    now (``{"ModelOptions": "seqimp.options"}``): existing code that imports it from here still
    gets it, with a FutureWarning on every use that names that module; :func:`dir` does not
    list it.
    """
    moved = dict(moved or {})

    def __getattr__(name):
        module = sys.modules[package]
        if name in exports:
            where = exports[name]
            value = getattr(import_module(where if where.startswith(".") else f".{where}", package), name)
        elif name in moved:
            # ``from package import name`` asks twice: the import system's hasattr first (a frame of
            # importlib), then the statement itself, whose line the one warning points at
            if not sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
                warnings.warn(f"{package}.{name} has moved: import it from {moved[name]} (from {moved[name]} "
                              f"import {name}); the old place will be removed", FutureWarning, stacklevel=2)
            return getattr(import_module(moved[name]), name)  # not kept here: every use warns
        elif not name.startswith("__") and find_spec(f"{package}.{name}") is not None:
            value = import_module(f".{name}", package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(module, name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
