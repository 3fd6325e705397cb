"""Sizes of memory: parse what a person types, print it back, and the budget of a job.

One unit convention everywhere (options, Python arguments, messages, docs): **binary units**,
as ``ulimit``, ``sort -S``, SLURM's ``--mem`` and ``free -h`` read them. ``K``, ``KB``, ``KiB``
are 2**10 bytes; ``M``/``MB``/``MiB`` 2**20; ``G``/``GB``/``GiB`` 2**30; ``T``/``TB``/``TiB``
2**40; a plain number is bytes. Sizes are printed with the unambiguous IEC names
(``"4 GiB"``, ``"17.5 MiB"``), so ``--max-memory 4G`` is echoed as ``4 GiB``.
"""

from __future__ import annotations

import os
import re

from ..errors import SeqimpError

__all__ = ["UNITS", "SIZE_HINT", "parse_size", "format_size", "available_memory", "memory_budget"]

#: Bytes of each unit a size may carry (case-insensitive; binary whatever the spelling).
UNITS = {"": 1, "b": 1}
for _i, _letter in enumerate("kmgt", start=1):
    for _suffix in ("", "b", "ib"):
        UNITS[_letter + _suffix] = 1 << (10 * _i)

_SIZE = re.compile(r"\s*((?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*([a-z]*)\s*")
SIZE_HINT = "a size such as 4G, 500M, 1.5GiB or a number of bytes"


def parse_size(value, name="max_memory") -> int:
    """Bytes from ``"4G"``, ``"500 MB"``, ``"1.5GiB"``, a number of bytes (int, float or string).

    Raises :class:`~seqimp.errors.SeqimpError` naming ``name`` when the size is not a positive,
    finite number with a known unit (units in the module docstring).
    """
    if isinstance(value, str):
        m = _SIZE.fullmatch(value.lower())
        if not m or m.group(2) not in UNITS:
            raise SeqimpError(f"{name} must be {SIZE_HINT}, got {value!r}")
        number = float(m.group(1)) * UNITS[m.group(2)]
    elif isinstance(value, bool) or not (isinstance(value, (int, float)) or hasattr(value, "__float__")):
        raise SeqimpError(f"{name} must be {SIZE_HINT}, got {value!r}")
    else:
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise SeqimpError(f"{name} must be {SIZE_HINT}, got {value!r}") from None
    if not number >= 1 or number == float("inf"):
        raise SeqimpError(f"{name} must be a positive size of at least 1 byte, got {value!r}")
    return int(number)


def format_size(n_bytes) -> str:
    """A size for people in binary units, 3 significant digits: ``'512 B'``, ``'17.5 MiB'``, ``'4 GiB'``."""
    n = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def available_memory() -> int:
    """Bytes of RAM available now: ``MemAvailable`` of /proc/meminfo, else sysconf, else 8 GiB;
    under an address-space limit (``ulimit -v``) at most what the limit leaves this process."""
    return min(_free_ram(), _address_space_left())


def _free_ram() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def _address_space_left() -> int:
    """``RLIMIT_AS`` less the address space this process maps now (``VmSize``); no limit: 2**62."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return 1 << 62
        with open("/proc/self/status") as fh:
            size = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
        return max(int(soft) - size, 0)
    except (ImportError, OSError, ValueError, StopIteration):
        return 1 << 62


def memory_budget(value, name="max_memory", *, share=0.5) -> int:
    """The byte budget of a job: ``value`` parsed by :func:`parse_size`, or, when it is None,
    ``share`` of the RAM available now (:func:`available_memory`)."""
    if value is None:
        return int(available_memory() * share)
    return parse_size(value, name)
