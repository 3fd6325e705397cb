"""Lazy attribute export for packages: import the owning module on first use."""

from importlib import import_module


def lazy_exports(package: str, exports: dict, submodules=()):
    """Return ``(__getattr__, __dir__)`` for a package.

    ``exports`` maps a public name to the submodule (relative to ``package``)
    that defines it; ``submodules`` are names imported as modules themselves.
    """
    submodules = set(submodules)

    def __getattr__(name):
        if name in exports:
            module = import_module(f".{exports[name]}", package)
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
