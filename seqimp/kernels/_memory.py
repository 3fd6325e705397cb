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



from .._utils.sizes import format_size, memory_budget
from ..errors import SeqimpError
from ._async_dcd import LOW_WEIGHTS
from ._layout import solver_layout
from ._params import feature_offsets

__all__ = ["training_memory", "check_training_memory"]

def training_memory(n, length, degree, base=4, method="implicit", *, codes_in_memory=False,
                    problem="svm", solver="dcd", threads=1, extrapolate=False) -> int:
    """Estimated working memory in bytes of one fit (see the module docstring).

    ``problem`` ("svm" or "ridge") picks the implicit route's solver: the classifier's dual
    coordinate descent or the regressor's conjugate gradients. ``solver`` ("dcd", "fast" or
    "sgd") is the SVM's: the fast route keeps one more vector in the solver's layout (the
    weights of the previous pass), averaged SGD two (that and the average's second part).
    ``threads`` >= 2 (:mod:`._async_dcd`): per thread a copy of the lowest orders and a record of its
    additions to them (at most 1 MB each), and with the fast route 8 bytes a row (the averaged dual variables).
    ``extrapolate`` with the fast route: one more vector (the weights
    at the pass's start) and 56 bytes a row (the dual variables at the pass's start and the
    line search's temporaries over the rows: 54.5 measured, :mod:`._extrapolate`).
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
    vectors = {"dcd": 1, "fast": 2, "sgd": 3}.get(solver)
    if vectors is None:
        raise SeqimpError(f"solver must be 'dcd', 'fast' or 'sgd', got {solver!r}")
    per_row = 40
    extra = 0
    if solver in ("dcd", "fast") and int(threads) > 1:
        extra = int(threads) * 16 * (LOW_WEIGHTS + 8)
        per_row += 8 if solver == "fast" else 0
    if solver == "fast" and extrapolate:
        vectors += 1
        per_row += 56
    return vectors * 8 * (q + 1) + 8 * p + per_row * n + codes + extra


def check_training_memory(codes, degree, base, method, budget=None, *, shifts=0, problem="svm", solver="dcd",
                          threads=1, extrapolate=False) -> int:
    """Raise a SeqimpError when a fit would need more than ``budget`` bytes; return the estimate.

    ``budget`` (bytes or a size such as ``"4G"``, :func:`seqimp._utils.sizes.parse_size`) None is the
    memory available now.
    The message names the size needed, the budget and the route that needs less memory.
    """
    limit = memory_budget(budget, "memory_budget", share=1.0)
    n, length = codes.shape
    need = training_memory(n, length, degree, base, method, problem=problem, solver=solver, threads=threads,
                           extrapolate=extrapolate)
    if need <= limit:
        return need
    where = "memory_budget" if budget is not None else "the available memory"
    have = format_size(limit)
    if method == "linear":
        alt = training_memory(n, length, degree, base, "implicit", problem=problem)
        raise SeqimpError(
            f"method='linear' on {n:,} sequences of length {length} at degree {degree} needs about "
            f"{format_size(need)} (30 bytes per feature non-zero), more than {where} ({have}); use "
            f"method='implicit' (features computed on demand, about {format_size(alt)}), with the codes in "
            f"a store on disk for sequences larger than memory (seqimp.io.encode_fasta_to_store)")
    if method == "kernel":
        raise SeqimpError(
            f"method='kernel' (shifts={shifts}) on {n:,} sequences needs about {format_size(need)} for the "
            f"Gram matrix, more than {where} ({have}); use shifts=0 (the implicit route) or fewer sequences")
    weights = training_memory(0, length, degree, base, method, problem=problem, solver=solver,
                              threads=threads, extrapolate=extrapolate)  # not growing with n
    raise SeqimpError(
        f"the implicit route on {n:,} sequences of length {length} at degree {degree} needs about "
        f"{format_size(need)} (weight vectors {format_size(weights)}, per-sequence solver variables "
        f"{format_size(need - weights)}), more than {where} ({have}); use a smaller degree (the weights grow about "
        f"{base}-fold per degree), or a Dask cluster, where each worker holds the weights and its share of the "
        f"sequences, with the codes on disk (seqimp encode, seqimp.io.encode_fasta_to_store)")
