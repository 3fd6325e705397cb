"""The one check and memory plan of an exact POIM job: can it run, in memory or streamed, in
blocks of how many start positions.

:func:`plan_poim` is called once by :func:`seqimp.poim` (and, before any model is trained, by
the pipeline's ``check_job``): it checks the lengths, estimates the peak of each engine and
chooses one. The in-memory engine (:mod:`seqimp.importance._poim_memory`) needs
:func:`in_memory_bytes`; the streaming engine (:mod:`seqimp.importance._poim_stream`) needs
``fixed + block * per_position`` bytes (:func:`streaming_bytes`, ``docs/poim.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._utils.sizes import format_size, memory_budget
from ..errors import SeqimpError, check_choice, check_int

__all__ = ["ENGINES", "MAX_BLOCK", "Plan", "plan_poim", "check_lengths", "in_memory_bytes", "streaming_bytes",
           "dfs_tile"]

#: The values of ``engine=``: choose by the memory plan, or force one engine.
ENGINES = ("auto", "memory", "stream")
#: Largest block: beyond this, larger blocks only cost memory (the halo is already < 10%).
MAX_BLOCK = 128
_F = 8  # bytes per float64 / int64


def _cells(a, n, length):
    """Entries of a level-n table: a**n n-mers at each of the L-n+1 starts."""
    return a ** n * max(length - n + 1, 0)


def in_memory_bytes(a, length, degree, order, max_order) -> int:
    """Peak working memory of the in-memory engine in bytes (outputs included)."""
    ntd, nbu = max(degree, order), max(max_order, degree, order)
    out = 2 * sum(_cells(a, m, length) for m in range(1, max_order + 1))
    td = 0
    for n in range(order, ntd + 1):
        if n == ntd and 1 <= n <= degree:
            continue                        # the top level reuses the weight table
        td += _cells(a, n, length) * (1 if order < n <= max_order else 3)
    td += 2 * _cells(a, max(ntd - 1, order), length)     # G of two neighbouring levels
    bu = 4 * (_cells(a, nbu - 1, length) + _cells(a, max(nbu - 2, 0), length))
    return 8 * (out + td + bu) + 8 * a ** (order + 1) * length * 4


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


def check_lengths(length, max_order, background_order=0, background_length=None) -> None:
    """Refuse ``max_order`` outside 1..L, a background order that L cannot carry, or a
    position-specific background of another length (one line each)."""
    if background_length is not None and background_length != length:
        raise SeqimpError(f"background: the position-specific background has length {background_length}, "
                          f"but the weights have length {length}")
    if length < background_order + 1:
        raise SeqimpError(f"background: order {background_order} needs sequences longer than {background_order}, "
                          f"the weights have length {length}")
    try:
        inside = 1 <= max_order <= length
    except TypeError:
        inside = False
    if not inside:
        raise SeqimpError(f"max_order must lie in 1..{length} (the sequence length), got {max_order}")


def _in_memory_refusal(a, length, degree, order, max_order, need, budget) -> SeqimpError:
    """The error of an in-memory job over budget, naming the largest ``max_order`` that fits."""
    fit = next((k for k in range(max_order - 1, 0, -1) if in_memory_bytes(a, length, degree, order, k) <= budget), 0)
    smallest = in_memory_bytes(a, length, 1, 0, 1)
    if fit:
        hint = f"the largest max_order that fits is {fit}"
    elif smallest > budget:
        hint = f"even the smallest POIM of length {length} needs {format_size(smallest)}; raise max_memory"
    else:
        hint = "even max_order=1 does not fit (the weights' degree or the background order is too large)"
    return _refusal(f"poim with max_order={max_order} needs about {format_size(need)}, more than "
                    f"max_memory={format_size(budget)}; {hint}")


def _refusal(message: str) -> SeqimpError:
    """A SeqimpError of a memory plan; its ``for_cli`` (what ``seqimp`` prints) names the
    options instead of the keywords: ``--max-memory 100 B``, ``raise --max-memory``."""
    error = SeqimpError(message)
    cli = message.replace(" (--max-memory)", "").replace(" (--max-order)", "")
    for key, option in (("max_memory", "--max-memory"), ("max_order", "--max-order")):
        cli = cli.replace(f"{key}=", f"{option} ").replace(key, option)
    error.for_cli = cli.replace("use a smaller block or ", "")  # block is the library's alone
    return error


@dataclass(frozen=True)
class Plan:
    """What :func:`plan_poim` decided.

    Attributes
    ----------
    engine : {"memory", "stream"}
        The engine that runs the job.
    block : int
        Start positions per block of the streaming engine (0 for the in-memory engine).
    bytes_needed : int
        Estimated peak of the chosen engine (streaming: fixed + block * per_position).
    bytes_in_memory : int
        Estimated peak of the in-memory engine.
    budget : int
        The memory budget used (bytes): ``max_memory``, or half the RAM available at planning.
    fixed_bytes, per_position_bytes : int
        The two terms of the streaming estimate.
    """

    length: int
    max_order: int
    background_order: int
    degree: int
    engine: str
    block: int
    bytes_needed: int
    bytes_in_memory: int
    budget: int
    fixed_bytes: int
    per_position_bytes: int

    @property
    def streaming(self) -> bool:
        """True when the streaming engine runs the job."""
        return self.engine == "stream"

    def describe(self) -> str:
        """One line for logs."""
        text = (f"POIM up to order {self.max_order} for L = {self.length}: {'streaming' if self.streaming else 'in memory'} "
                f"(in-memory tables need about {format_size(self.bytes_in_memory)}, budget {format_size(self.budget)}")
        if self.streaming:
            text += f"; streaming blocks of {self.block} positions, about {format_size(self.bytes_needed)}"
        return text + ")"


def plan_poim(length, max_order, background_order=0, max_memory=None, *, degree=None, engine="auto", top_n=1000,
              full_tables=False, block=None, alphabet_size=4, background_length=None) -> Plan:
    """Check an exact POIM job and plan its memory: which engine, and the streaming block size.

    Parameters
    ----------
    length : int
        Sequence length L.
    max_order : int
        Largest oligomer length K, in 1..L.
    background_order : int, default=0
        Markov order D of the background; needs L > D.
    max_memory : int or str, optional
        Bytes the job may use (``"4G"`` etc., :func:`seqimp._utils.sizes.parse_size`); default half the
        RAM available now.
    degree : int, optional
        Degree of the weights (default: ``max_order``).
    engine : {"auto", "memory", "stream"}, default="auto"
        "auto": in memory when its estimate fits the budget and neither ``full_tables`` nor
        ``block`` asks for streaming, else streamed; "memory" or "stream": that engine.
    top_n : int, default=1000
        Positional oligomers a streamed result keeps per order and measure.
    full_tables : bool, default=False
        Whether every table is written to disk (streaming only; a block then holds its rows of
        all orders).
    block : int, optional
        Force this streaming block size (checked against the budget).
    alphabet_size : int, default=4
    background_length : int, optional
        Length of a position-specific background; must equal L.

    Returns
    -------
    Plan

    Raises
    ------
    SeqimpError
        One line naming what does not fit: the lengths, the in-memory estimate with the largest
        ``max_order`` that fits (``engine="memory"``), or the bytes of one streaming block and
        the option to change.
    """
    length = check_int(length, "length", minimum=1)
    background_order = check_int(background_order, "background_order", minimum=0)
    check_lengths(length, max_order, background_order, background_length)
    max_order = check_int(max_order, "max_order", minimum=1)
    degree = max_order if degree is None else check_int(degree, "degree", minimum=1)
    top_n = check_int(top_n, "top_n", minimum=0)
    engine = check_choice(engine, "engine", ENGINES)
    if engine == "memory" and (full_tables or block is not None):
        what = "full_tables" if full_tables else "block"
        raise SeqimpError(f"poim: {what} needs the streaming engine (engine='stream' or 'auto'), not engine='memory'")
    budget = memory_budget(max_memory)
    a = int(alphabet_size)
    in_memory = in_memory_bytes(a, length, degree, background_order, max_order)
    fixed, per = streaming_bytes(length, max_order, background_order, degree, alphabet_size=a, top_n=top_n,
                                 full_tables=full_tables)
    streaming = engine == "stream" or (engine == "auto" and (full_tables or block is not None or in_memory > budget))
    if not streaming:
        if in_memory > budget:
            raise _in_memory_refusal(a, length, degree, background_order, max_order, in_memory, budget)
        return Plan(length=length, max_order=max_order, background_order=background_order, degree=degree,
                    engine="memory", block=0, bytes_needed=in_memory, bytes_in_memory=in_memory, budget=budget,
                    fixed_bytes=fixed, per_position_bytes=per)
    if block is not None:
        block = check_int(block, "block", minimum=1)
        need = fixed + block * per
        if need > budget:
            raise _refusal(f"poim: a block of {block} positions needs about {format_size(need)}, more than "
                           f"max_memory={format_size(budget)}; use a smaller block or raise max_memory (--max-memory)")
    else:
        need1 = fixed + per
        if need1 > budget:
            raise _refusal(f"poim: even one position per block needs about {format_size(need1)} ({need1} bytes), "
                           f"more than max_memory={format_size(budget)} ({budget} bytes); raise max_memory "
                           f"(--max-memory) or lower max_order (--max-order)")
        block = int(min(MAX_BLOCK, max(length - background_order, 1), (budget - fixed) // per))
    return Plan(length=length, max_order=max_order, background_order=background_order, degree=degree,
                engine="stream", block=block, bytes_needed=fixed + block * per, bytes_in_memory=in_memory,
                budget=budget, fixed_bytes=fixed, per_position_bytes=per)
