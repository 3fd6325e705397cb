"""Memory planning of exact POIM jobs: in memory or streamed, and the block size.

:func:`plan_poim` answers, before anything large is allocated, whether the in-memory engine
(:func:`seqimp.poim`) fits in ``max_memory`` and, for the streaming engine
(:func:`seqimp.importance._streaming.poim_streamed`), how many start positions one block may
hold. The streaming engine's peak is ``fixed + block * per_position`` bytes (formula in
:func:`streaming_bytes` and ``docs/poim.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._sizes import format_size, memory_budget
from ..errors import SeqimpError, check_int

__all__ = ["Plan", "plan_poim", "streaming_bytes", "MAX_BLOCK"]

#: Largest block: beyond this, larger blocks only cost memory (the halo is already < 10%).
MAX_BLOCK = 128
_F = 8  # bytes per float64 / int64


def _cells(a, n, length):
    return a ** n * max(length - n + 1, 0)



def dfs_tile(a, h, max_order, cap_entries=1 << 16):
    """h-mer prefixes extended at a time above level h: the largest power of ``a`` with
    ``tile * a**(K-1-h) <= cap_entries`` (at least 1, at most ``a**h``)."""
    t = 0
    while t < h and a ** (t + 1) * a ** max(max_order - 1 - h, 0) <= cap_entries:
        t += 1
    return a ** t


def streaming_bytes(length, max_order, background_order, degree, *, alphabet_size=4, top_n=1000,
                    full_tables=False, threads=2):
    """Peak working bytes of the streaming engine as ``(fixed, per_position)``.

    With a = alphabet size, D = background order, d = degree, h = max(d, D), K = max_order,
    Kt = max(K, h), N = top_n, cells(n) = a**n * (L-n+1), all in 8-byte words:

    * fixed: top-down tables (Lambda, Rho, C) of levels D..h-1, i.e. 3 * sum cells(n), plus
      two G levels; chain tables and base level (about 8 * a**(D+1) * L); the level tables
      of levels <= D (4 * cells); POIM and FIRM of k <= min(4, K) (2 * sum cells(k));
      maximal, arg-max and differential (3 * K * L); the kept top-N lists (10 * K * N); the
      halo rows of levels h-1, h (4 * (a**h + a**(h-1)) * (Kt-h+1)); per thread the
      scratch of the levels above h (2 * tile * sum_{m<K} a**(m-h));
    * per position of a block: levels h-1 and h of the bottom-up state (4 tables each,
      4 * (a**h + a**(h-1))), the row heaps (2 measures * K * N * 4 words), and the
      stored rows (2 * sum a**m over the stored orders: m <= 4, or every m <= K with
      ``full_tables``, plus a float32 copy of the largest).
    """
    a, L, D, d, K, N = alphabet_size, int(length), int(background_order), int(degree), int(max_order), int(top_n)
    h = max(d, D)
    kt = max(K, h)
    td = sum(3 * _cells(a, n, L) for n in range(D, h)) + (3 * _cells(a, D, L) if h == D else 0)
    td += 2 * _cells(a, max(h - 1, D), L)
    chain = 3 * a ** (D + 1) * L + 5 * a ** D * (L + 1)
    short = 4 * sum(_cells(a, m, L) for m in range(1, D + 1))
    kept = 2 * sum(_cells(a, k, L) for k in range(1, min(4, K) + 1))
    summaries = 3 * K * L + 10 * K * max(N, 1)
    level = 4 * (a ** h + (a ** (h - 1) if h > D else 0))
    halo = level * (kt - h + 1)
    scratch = 0
    if K > h:
        tile = dfs_tile(a, h, K)
        scratch = threads * 2 * tile * sum(a ** (m - h) for m in range(h, K))
    fixed = _F * (td + chain + short + kept + summaries + halo + scratch)
    stored = range(D + 1, (K if full_tables else min(4, K)) + 1)
    store = 2 * sum(a ** m for m in stored)
    if full_tables:
        store += a ** K // 2 + 1
    per = _F * (level + 2 * K * max(N, 1) * 4 + 2 * K + store)
    return fixed, per


@dataclass(frozen=True)
class Plan:
    """What :func:`plan_poim` decided.

    Attributes
    ----------
    streaming : bool
        True when the in-memory engine's tables exceed the budget.
    block : int
        Start positions per block of the streaming engine.
    bytes_needed : int
        Estimated peak of the streaming engine with that block (fixed + block * per_position).
    bytes_in_memory : int
        Estimated peak of the in-memory engine (:func:`seqimp.poim`).
    budget : int
        The ``max_memory`` used (bytes).
    fixed_bytes, per_position_bytes : int
        The two terms of the streaming estimate.
    """

    length: int
    max_order: int
    background_order: int
    degree: int
    streaming: bool
    block: int
    bytes_needed: int
    bytes_in_memory: int
    budget: int
    fixed_bytes: int
    per_position_bytes: int

    def describe(self) -> str:
        """One line for logs."""
        route = "streaming" if self.streaming else "in memory"
        return (f"POIM up to order {self.max_order} for L = {self.length}: {route} (in-memory tables need about "
                f"{format_size(self.bytes_in_memory)}, budget {format_size(self.budget)}; streaming blocks of {self.block} "
                f"positions, about {format_size(self.bytes_needed)})")


def plan_poim(length, max_order, background_order=0, max_memory=None, *, degree=None, top_n=1000,
              full_tables=False, alphabet_size=4, block=None) -> Plan:
    """Plan an exact POIM job: in memory or streamed, and the streaming block size.

    Parameters
    ----------
    length : int
        Sequence length L.
    max_order : int
        Largest oligomer length K.
    background_order : int, default=0
        Markov order D of the background.
    max_memory : int, optional
        Bytes the job may use; default half the available RAM.
    degree : int, optional
        Degree of the weights (default: ``max_order``).
    top_n : int, default=1000
        Positional oligomers kept per order and measure.
    full_tables : bool, default=False
        Whether every table is written to disk (then a block also holds its rows of all orders).
    alphabet_size : int, default=4
    block : int, optional
        Force this block size (checked against the budget).

    Raises
    ------
    SeqimpError
        When even a block of one position (or the forced block) does not fit: one line with the
        bytes needed and the option to change.
    """
    from ._engine import estimate_bytes

    length = check_int(length, "length", minimum=1)
    max_order = check_int(max_order, "max_order", minimum=1)
    background_order = check_int(background_order, "background_order", minimum=0)
    degree = max_order if degree is None else check_int(degree, "degree", minimum=1)
    top_n = check_int(top_n, "top_n", minimum=0)
    budget = memory_budget(max_memory)
    a = int(alphabet_size)
    in_memory = estimate_bytes(a, length, degree, background_order, max_order)
    fixed, per = streaming_bytes(length, max_order, background_order, degree, alphabet_size=a, top_n=top_n,
                                 full_tables=full_tables)
    rows = max(length - background_order, 1)
    if block is not None:
        block = check_int(block, "block", minimum=1)
        need = fixed + block * per
        if need > budget:
            raise SeqimpError(f"poim: a block of {block} positions needs about {format_size(need)}, more than "
                              f"max_memory={format_size(budget)}; use a smaller block or raise max_memory (--max-memory)")
    else:
        need1 = fixed + per
        if need1 > budget:
            raise SeqimpError(f"poim: even one position per block needs about {format_size(need1)} ({need1} bytes), "
                              f"more than max_memory={format_size(budget)} ({budget} bytes); raise max_memory "
                              f"(--max-memory) or lower max_order (--max-order)")
        block = int(min(MAX_BLOCK, rows, (budget - fixed) // per))
    return Plan(length=length, max_order=max_order, background_order=background_order, degree=degree,
                streaming=in_memory > budget, block=block, bytes_needed=fixed + block * per,
                bytes_in_memory=in_memory, budget=budget, fixed_bytes=fixed, per_position_bytes=per)
