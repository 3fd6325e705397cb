"""Lazy attribute export for packages: import the owning module on first use."""

import types
from importlib import import_module


def lazy_exports(package: str, exports: dict, submodules=()):
    """Return ``(__getattr__, __dir__)`` for a package.

    ``exports`` maps a public name to the submodule (relative to ``package``)
    that defines it; ``submodules`` are names imported as modules themselves.
    A name exported from a submodule of the same name (``seqimp.poim``,
    ``seqimp.tabular.firm``) resolves to that module, which must be callable:
    Python's import system binds the module to the package attribute whenever
    the submodule is imported, so only the module gives the same object in
    every import order.
    """
    submodules = set(submodules)

    def __getattr__(name):
        if name in exports:
            module = import_module(f".{exports[name]}", package)
            if exports[name] == name:
                return _cache(name, module)
        elif name in submodules:
            module = import_module(f".{name}", package)
            return _cache(name, module)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return _cache(name, getattr(module, name))

    def _cache(name, value):
        setattr(import_module(package), name, value)
        return value

    def __dir__():
        return sorted(set(vars(import_module(package))) | set(exports) | submodules)

    return __getattr__, __dir__


def make_callable(module_name: str, function) -> None:
    """Make the module ``module_name`` callable as ``function``.

    For a module named like the function it exports (``seqimp.poim``,
    ``seqimp.tabular.firm``): the package attribute is always the module (see
    :func:`lazy_exports`), and calling it runs the function, whose signature
    ``inspect.signature`` shows.
    """
    import inspect
    import sys

    class CallableModule(types.ModuleType):
        __doc__ = f"Module {module_name}, callable as its function {function.__name__}."

        def __call__(self, *args, **kwargs):
            return function(*args, **kwargs)

    module = sys.modules[module_name]
    module.__signature__ = inspect.signature(function)
    module.__class__ = CallableModule
