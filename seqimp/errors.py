"""The one exception of seqimp and the one set of argument checks every stage uses.

Each check returns the value converted (``int``, ``float``, ``Path``, a
:class:`numpy.random.Generator`) or raises :class:`SeqimpError` with one line that
names the argument and what is wrong. Sequence checks live in :mod:`seqimp.io`
(they need the alphabet).
"""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path

import numpy as np

__all__ = ["SeqimpError"]

#: The seed every random choice uses when the caller gives none.
DEFAULT_SEED = 0


class SeqimpError(ValueError):
    """A problem with the user's input or arguments.

    Subclasses :class:`ValueError` so that ordinary ``except ValueError``
    code keeps working. The command line prints such errors as a single
    ``seqimp: error: ...`` line and exits with status 2.
    """


def check_int(value, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` as an ``int`` in ``[minimum, maximum]``, or a SeqimpError naming ``name``.

    Integral floats and numpy integers are accepted; booleans and strings are not.
    """
    try:
        ok = not isinstance(value, (bool, np.bool_, str)) and int(value) == value
        ok = ok and int(value) >= minimum and (maximum is None or int(value) <= maximum)
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        if maximum is not None:
            what = f"an integer in [{minimum}, {maximum}]"
        else:
            what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise SeqimpError(f"{name} must be {what}, got {value!r}")
    return int(value)


def check_number(value, name: str, *, low=None, high=None, low_open=False, high_open=False) -> float:
    """``value`` as a finite ``float`` in the interval given by ``low``/``high``.

    ``low_open``/``high_open`` exclude the end point. NaN and infinities are refused.
    """
    try:
        x = float(value)
        ok = not isinstance(value, (bool, np.bool_, str)) and math.isfinite(x)
    except (TypeError, ValueError, OverflowError):
        ok, x = False, math.nan
    if ok and low is not None:
        ok = x > low if low_open else x >= low
    if ok and high is not None:
        ok = x < high if high_open else x <= high
    if not ok:
        if low is None and high is None:
            what = "a finite number"
        else:
            left = "-inf" if low is None else f"{low:g}"
            right = "inf" if high is None else f"{high:g}"
            what = (f"a number in {'(' if low_open or low is None else '['}{left}, "
                    f"{right}{')' if high_open or high is None else ']'}")
        raise SeqimpError(f"{name} must be {what}, got {value!r}")
    return x


def check_choice(value, name: str, choices) -> str:
    """``value`` if it is one of ``choices`` (strings), or a SeqimpError listing them."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise SeqimpError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def check_file(path, name: str | None = None, *, expected="a file") -> Path:
    """``path`` as a :class:`~pathlib.Path` to an existing regular file (pipes and devices too).

    The message names ``name`` (an option such as ``--poim``) when given, and the path; a
    directory is refused as not ``expected`` (e.g. ``"a FASTA file"``).
    """
    p = Path(os.fspath(path))
    where = f"{name} {p}" if name else f"{p}"
    if p.is_dir():
        raise SeqimpError(f"{where}: is a directory, expected {expected}")
    if not p.exists():
        raise SeqimpError(f"{where}: no such file")
    return p


def check_random_state(random_state=DEFAULT_SEED) -> np.random.Generator:
    """The one random-state convention: a :class:`numpy.random.Generator`.

    ``None`` means the fixed default seed ``DEFAULT_SEED`` (0), so that every run is
    reproducible; an int >= 0 seeds a new Generator; a Generator is used as is; a
    :class:`numpy.random.SeedSequence` or legacy ``RandomState`` is converted.
    """
    if random_state is None:
        random_state = DEFAULT_SEED
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int(random_state.randint(2**31)))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        if not 0 <= int(random_state) < 2**63:
            raise SeqimpError(f"random_state must be an integer in [0, 2**63), got {random_state}")
        return np.random.default_rng(int(random_state))
    raise SeqimpError("random_state must be None, an integer >= 0 or a numpy.random.Generator, "
                      f"got {type(random_state).__name__}")
