"""Working-memory estimates of the WD training routes, checked before anything is allocated.

For n sequences of length L at degree K over an alphabet of A symbols
(p = sum_k (L-k+1) A^k feature columns, z = sum_k (L-k+1) non-zeros per sequence):

* ``"linear"`` (explicit features + liblinear / sparse CG): about 30 bytes per
  non-zero, 30 n z (the CSR matrix, 12 bytes per non-zero, plus liblinear's own
  copy, 16 bytes per non-zero, and the row pointers);
* ``"implicit"`` (features on demand), plus the codes n L bytes when they are not a
  memory map:

  - the SVM (``problem="svm"``, dual coordinate descent): the solver's weight vector,
    8 (q + 1) bytes (q slots of :func:`._layout.solver_layout`: p plus the padding of the
    paired records, q = 1.6 p at K = 8, L = 141 for DNA; q = p for protein), the returned
    coefficients, 8 p bytes, plus about 40 bytes per sequence (dual variables, bounds,
    signs, order, scores);
  - ridge (``problem="ridge"``, conjugate gradients in the standard layout): three
    vectors of p floats (the feature means, a product Phi_c^T a and its temporary),
    24 p bytes, plus about 80 bytes per sequence (the CG vectors);
* ``"kernel"``: the n x n Gram matrix, 8 n^2 bytes (twice while it is centred or
  handed to libsvm).
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import SeqimpError
from ._layout import solver_layout
from ._params import feature_offsets

__all__ = ["training_memory", "check_training_memory", "parse_bytes", "available_memory", "format_bytes"]

_UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
          "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}


def format_bytes(n: float) -> str:
    """``n`` bytes as a short human-readable string (decimal units)."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def parse_bytes(value, name="memory_budget") -> int:
    """An int number of bytes, or a string such as ``"4GB"``, ``"512 MiB"``; > 0."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", value)
        if not m or m.group(2).lower() not in _UNITS:
            raise SeqimpError(f"{name} must be a number of bytes or a size such as '4GB', got {value!r}")
        out = float(m.group(1)) * _UNITS[m.group(2).lower()]
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        out = float(value)
    else:
        raise SeqimpError(f"{name} must be a number of bytes or a size such as '4GB', got {value!r}")
    if not out > 0 or not np.isfinite(out):
        raise SeqimpError(f"{name} must be > 0, got {value!r}")
    return int(out)


def available_memory() -> int | None:
    """``MemAvailable`` from /proc/meminfo in bytes, or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def training_memory(n, length, degree, base=4, method="implicit", *, codes_in_memory=False,
                    problem="svm") -> int:
    """Estimated working memory in bytes of one fit (see the module docstring).

    ``problem`` ("svm" or "ridge") picks the implicit route's solver: the classifier's dual
    coordinate descent or the regressor's conjugate gradients.
    """
    n, length, degree = int(n), int(length), int(degree)
    if method == "kernel":
        return 16 * n * n
    nnz = n * sum(length - k + 1 for k in range(1, degree + 1))
    if method == "linear":
        return 30 * nnz
    p = int(feature_offsets(length, degree, base)[-1])
    codes = n * length if codes_in_memory else 0
    if problem == "ridge":
        return 24 * p + 80 * n + codes
    if problem != "svm":
        raise SeqimpError(f"problem must be 'svm' or 'ridge', got {problem!r}")
    q = solver_layout(length, degree, base).size
    return 8 * (q + 1) + 8 * p + 40 * n + codes


def check_training_memory(codes, degree, base, method, budget=None, *, shifts=0, problem="svm") -> int:
    """Raise a SeqimpError when a fit would need more than ``budget`` bytes; return the estimate.

    ``budget`` None is the memory available now; where that cannot be read nothing is checked.
    The message names the size needed, the budget and the route that needs less memory.
    """
    limit = available_memory() if budget is None else parse_bytes(budget)
    n, length = codes.shape
    need = training_memory(n, length, degree, base, method, problem=problem)
    if limit is None or need <= limit:
        return need
    where = "memory_budget" if budget is not None else "the available memory"
    have = format_bytes(limit)
    if method == "linear":
        alt = training_memory(n, length, degree, base, "implicit", problem=problem)
        raise SeqimpError(
            f"method='linear' on {n:,} sequences of length {length} at degree {degree} needs about "
            f"{format_bytes(need)} (30 bytes per feature non-zero), more than {where} ({have}); use "
            f"method='implicit' (features computed on demand, about {format_bytes(alt)}), with the codes in "
            f"a store on disk for sequences larger than memory (seqimp.io.encode_fasta_to_store)")
    if method == "kernel":
        raise SeqimpError(
            f"method='kernel' (shifts={shifts}) on {n:,} sequences needs about {format_bytes(need)} for the "
            f"Gram matrix, more than {where} ({have}); use shifts=0 (the implicit route) or fewer sequences")
    weights = training_memory(0, length, degree, base, method, problem=problem)  # the part that does not grow with n
    raise SeqimpError(
        f"the implicit route on {n:,} sequences of length {length} at degree {degree} needs about "
        f"{format_bytes(need)} (weight vectors {format_bytes(weights)}, per-sequence solver variables "
        f"{format_bytes(need - weights)}), more than {where} ({have}); use a smaller degree (the weights grow about "
        f"{base}-fold per degree), or a Dask cluster, where each worker holds the weights and its share of the "
        f"sequences, with the codes on disk (seqimp encode, seqimp.io.encode_fasta_to_store)")
