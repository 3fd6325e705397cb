"""Old names of public keywords and argument orders, still accepted with a DeprecationWarning;
keywords moved into an option object, still accepted with a FutureWarning.

One name per concept across the library (``strand``, ``max_held_out_pvalue``, the output folder
first in every ``run_*``, ``output=OutputOptions(fmt=...)``): where an earlier release spelt a
keyword otherwise, took the arguments in another order or took an option as a keyword of its
own, :func:`renamed_keywords`, :func:`out_first` and :func:`moved_keywords` keep the old call
working and say once per call site (:mod:`warnings`) what the new one is.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import warnings

__all__ = ["renamed_keywords", "out_first", "moved_keywords"]


def renamed_keywords(**old_to_new):
    """Accept the old keyword ``old`` as ``new`` (a DeprecationWarning names both); giving both is a
    TypeError. ``new`` may be the function's own parameter, or (``new:internal``) a public name
    mapped to the parameter ``internal`` the body still uses, whose signature then shows ``new``."""
    def decorate(fn):
        signature = inspect.signature(fn)
        public = {}  # public name -> the body's parameter
        for new in old_to_new.values():
            name, _, internal = new.partition(":")
            public[name] = internal or name
        params = [p.replace(name=next((n for n, i in public.items() if i == p.name), p.name))
                  for p in signature.parameters.values()]

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                name = new.partition(":")[0]
                if old in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got both {name}= and its old name {old}=")
                    warnings.warn(f"{fn.__name__}({old}=...) is now {fn.__name__}({name}=...); the old keyword "
                                  "will be removed", DeprecationWarning, stacklevel=2)
                    kwargs[name] = kwargs.pop(old)
            for name, internal in public.items():
                if name != internal and name in kwargs:
                    kwargs[internal] = kwargs.pop(name)
            return fn(*args, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=params)
        return wrapper

    return decorate


def _is_path(value) -> bool:
    return isinstance(value, (str, bytes, os.PathLike))


def out_first(n_data: int):
    """``run_x(out, data_1, ..., data_n)``, the order of every ``run_*``; the old order
    ``run_x(data_1, ..., data_n, out)`` -- recognised by a path in the last place and none in
    the first -- is put right with a DeprecationWarning."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            old = len(args) > n_data and not _is_path(args[0]) and _is_path(args[n_data])
            if old or ("out" in kwargs and args and not _is_path(args[0])):
                warnings.warn(f"{fn.__name__}(data..., out) is now {fn.__name__}(out, data...), the order of every "
                              "run_* function; the old order will be removed", DeprecationWarning, stacklevel=2)
                args = ((args[n_data], *args[:n_data], *args[n_data + 1:]) if old
                        else (kwargs.pop("out"), *args))
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def moved_keywords(**old_to_field):
    """Accept the old keyword ``old`` that is now the field ``field`` of the option object the
    function takes as ``options`` (``fmt="output.fmt"``): the call goes on with
    ``options=dataclasses.replace(options, field=value)`` (the options given, else the
    function's default) and a FutureWarning names the new spelling."""
    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for old, place in old_to_field.items():
                if old not in kwargs:
                    continue
                options, _, name = place.partition(".")
                default = signature.parameters[options].default
                kind = type(default).__name__
                warnings.warn(f"{fn.__name__}({old}=...) is now {fn.__name__}({options}={kind}({name}=...)); the old "
                              "keyword will be removed", FutureWarning, stacklevel=2)
                given = kwargs.get(options, default)
                kwargs[options] = dataclasses.replace(given, **{name: kwargs.pop(old)})
            return fn(*args, **kwargs)

        return wrapper

    return decorate
