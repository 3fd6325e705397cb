"""Lazy package namespaces: a stage package lists which of its modules owns each public name,
and a name is imported from that module when it is first used. ``from seqimp.motifs import
refine_motifs`` then loads ``seqimp.motifs._refine`` (and what it imports) only, not every
module of the package: a ``seqimp motifs`` run does not pay for the scan, enrichment or
tabular code it never calls.

    __getattr__, __dir__ = lazy_exports(__name__, {"Motif": "_motif", ...})
"""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.util import find_spec

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: dict):
    """The module-level ``__getattr__`` and ``__dir__`` of the package ``package``.

    ``exports`` maps a public name to the submodule (``"_motif"``) that defines it. An
    attribute that is neither an export nor set yet is looked up as a submodule of the package
    (``seqimp.motifs._sites``), so code that reaches a private module through the package keeps
    working; anything else is an AttributeError, as for any module.
    """

    def __getattr__(name):
        module = sys.modules[package]
        if name in exports:
            value = getattr(import_module(f".{exports[name]}", package), name)
        elif not name.startswith("__") and find_spec(f"{package}.{name}") is not None:
            value = import_module(f".{name}", package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(module, name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
