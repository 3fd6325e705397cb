"""The streaming exact POIM engine: :func:`seqimp.poim` in blocks of start positions.

The in-memory engine (:mod:`seqimp.importance._poim_memory`) holds every table of every order;
at L = 1000 and max_order 10 that is tens of GB. This engine runs the same recursions but keeps
only what reports and plots read (:class:`~seqimp.importance._poim_summary.StreamedPOIM`):

1. the levels both engines share (:mod:`seqimp.importance._poim_levels`): the top-down tables
   (Lambda, Rho, C of levels D..h-1, h = max(degree, D)) in full -- they are about as large
   as the weights themselves -- the base level D in full, and the orders m <= D (a**D-sized);
2. then, block by block of start positions [j0, j0+B): the bottom-up levels D < m <= h
   for the block plus a halo of max(K, h) - m rows (level m row j reads level m-1 rows j,
   j+1), and the levels m > h of the block's rows by prefix extension from level h
   (:func:`~seqimp.importance._poim_kernels.extend_block`), rows in parallel.
   Each entry is reduced at once (maximal POIM and arg-max, top-N heaps per row, Var[s]
   share), and written only for k <= 4 or when ``full_tables`` is given (HDF5).

Every reduction is per (order, start) and the top-N merge is by a total order, so the
result does not depend on the block size or the number of threads.
"""

from __future__ import annotations

import os

import numpy as np

from .._utils.progress import progress_bar
from ..errors import SeqimpError
from ._poim_kernels import extend_block, level_block, row_abs_max
from ._poim_levels import DUMMY2, chain_tables, lower_levels, top_down
from ._poim_plan import dfs_tile
from ._poim_summary import StreamedPOIM, TopLists, row_argmax
from ._result import FULL_ORDERS, MEASURES

__all__ = ["poim_in_blocks"]


class _FullTables:
    """Chunked HDF5 file of every POIM/FIRM table (datasets ``poim/<k>``, ``firm/<k>``).

    Datasets record no times (``track_times=False``) and the attributes are written in one
    order, so the same job writes the same bytes."""

    def __init__(self, path, length, max_order, a, dtype, attrs):
        try:
            import h5py
        except ImportError:  # pragma: no cover - h5py is a dependency
            raise SeqimpError("full_tables needs h5py (pip install h5py)") from None
        path = os.fspath(path)
        try:
            self.fh = h5py.File(path, "w")
        except OSError as exc:
            raise SeqimpError(f"{path}: cannot write full tables ({exc})") from None
        self.dtype = np.dtype(dtype)
        for key, value in attrs.items():
            self.fh.attrs[key] = value
        self.sets = {}
        for s in MEASURES:
            grp = self.fh.create_group(s)
            for k in range(1, max_order + 1):
                rows, cols = length - k + 1, a ** k
                chunk = (max(1, min(rows, (1 << 18) // cols)), min(cols, 1 << 18))
                self.sets[s, k] = grp.create_dataset(str(k), shape=(rows, cols), dtype=self.dtype, chunks=chunk,
                                                     track_times=False)

    def write(self, k, j0, q, f):
        self.sets["poim", k][j0: j0 + q.shape[0]] = q.astype(self.dtype, copy=False)
        self.sets["firm", k][j0: j0 + f.shape[0]] = f.astype(self.dtype, copy=False)

    def close(self):
        self.fh.close()


def poim_in_blocks(weights, background, max_order, plan, *, top_n=1000, full_tables=None,
                   full_tables_dtype="float32", progress=False, recorded_budget=None,
                   recorded_block=None) -> StreamedPOIM:
    """Exact POIM/FIRM summaries in bounded memory, inputs checked by :func:`seqimp.poim`.

    Parameters
    ----------
    weights : PositionalWeights
    background : MarkovBackground
        Fitted, of the weights' alphabet and length; any order D.
    max_order : int
        Largest oligomer length K.
    plan : Plan
        From :func:`~seqimp.importance._poim_plan.plan_poim`: ``plan.block`` start positions
        per block. Results do not depend on it.
    top_n : int, default=1000
        Positional oligomers kept per order and per measure (|POIM| and |FIRM|).
    full_tables : str or path, optional
        Also write every POIM and FIRM table to this HDF5 file (datasets ``poim/<k>`` and
        ``firm/<k>`` of shape (L-k+1, A**k), chunked by rows; NaN where impossible).
    full_tables_dtype : {"float32", "float64"}, default="float32"
    progress : bool, default=False
        Report blocks done on stderr.
    recorded_budget, recorded_block : int, optional
        What ``meta["max_memory"]`` and ``meta["block"]`` record: the budget and block that follow
        from the caller's arguments, None where they came from the RAM available now (so that
        the files of a job do not depend on the machine's free memory).

    Returns
    -------
    StreamedPOIM
        Where the in-memory engine fits, its maximal and differential POIM and its top lists
        are the same (to rounding, 1e-12 relative).
    """
    if full_tables_dtype not in ("float32", "float64"):
        raise SeqimpError(f"full_tables_dtype must be 'float32' or 'float64', got {full_tables_dtype!r}")
    tables, bias = weights.tables, float(weights.bias)
    a, D, L, n_w, K = weights.alphabet.size, background.order, weights.length, weights.degree, max_order
    B = plan.block
    h = max(n_w, D)
    kt = max(K, h)
    cap = max(top_n, 1)
    tops = TopLists(K, top_n)
    maximal = np.full((K, L), np.nan)
    argmax = np.full((K, L), -1, dtype=np.int64)
    keep = min(FULL_ORDERS, K)
    poim_full = [np.empty((L - k + 1, a ** k)) if k <= keep else None for k in range(1, K + 1)]
    firm_full = [np.empty((L - k + 1, a ** k)) if k <= keep else None for k in range(1, K + 1)]
    meta = {"background": background.describe(), "degree": n_w, "length": L, "top_n": top_n,
            "block": recorded_block, "max_memory": recorded_budget}
    disk = None
    if full_tables is not None:
        disk = _FullTables(full_tables, L, K, a, full_tables_dtype,
                           {"alphabet": weights.alphabet.name, "length": L, "max_order": K, "meta": str(meta)})

    def reduce_order(m, q, firm):             # an order m <= D, from the base level, in full
        row_abs_max(np.ascontiguousarray(q), maximal[m - 1, : L - m + 1])
        argmax[m - 1, : L - m + 1] = row_argmax(q)
        tops.merge_table(m - 1, q, firm)
        if m <= keep:
            poim_full[m - 1][...] = q
            firm_full[m - 1][...] = firm
        if disk is not None:
            disk.write(m, 0, q, firm)

    try:
        pf, pb, pd = chain_tables(background, L)
        n_blocks = -(-(L - D) // B) if K > D or h > D else 0
        with progress_bar(n_blocks + 2, "poim blocks", enabled=progress) as bar:
            lam, rho, cc = top_down(tables, a, D, L, pb, pf)
            lx, af, pre, es, variance = lower_levels(tables, bias, a, D, L, (pf, pb, pd), lam, rho, cc, K,
                                                     reduce_order)
            bar.update()
            # ---- blocks of start positions for the levels above D
            store_levels = range(D + 1, (K if disk is not None else keep) + 1)
            soff = np.full(K + 1, -1, dtype=np.int64)
            size = 0
            for m in store_levels:
                soff[m - 1] = size
                size += B * a ** m
            store_q, store_f = np.empty(max(size, 1)), np.empty(max(size, 1))
            hkey = np.empty((K, 2, B, cap))
            hz = np.empty((K, 2, B, cap), dtype=np.int64)
            hq, hf = np.empty((K, 2, B, cap)), np.empty((K, 2, B, cap))
            hcnt = np.zeros((K, 2, B), dtype=np.int64)
            var_rows = np.zeros((max(h, 1), L))
            tile = dfs_tile(a, h, K)
            for j0 in range(0, L - D, B) if n_blocks else ():
                hcnt[...] = 0
                prev = (lx, pre, af, pd, 0)           # level D in full, rows from 0
                for m in range(D + 1, h + 1):
                    n_out = min(B + kt - m, L - m + 1 - j0)
                    n_own = max(0, min(B, L - m + 1 - j0))
                    if n_out <= 0:
                        break
                    keep_next = m < h or K > h
                    shape = (n_out, a ** m) if keep_next else (1, 1)
                    nxt = [np.empty(shape) for _ in range(4)]
                    lx0, pre0, af0, p0, o0 = prev
                    has_c = m in cc
                    level_block(m, D, a, bias, es, j0, n_out, n_own, tables[m - 1], lam[m], rho[m],
                                cc[m] if has_c else DUMMY2, has_c, lx0, pre0, af0, p0, o0, pf,
                                nxt[0], nxt[1], nxt[2], nxt[3], keep_next, m <= K, m <= n_w, var_rows,
                                maximal, argmax, tops.thresholds, hkey, hz, hq, hf, hcnt, cap, store_q, store_f,
                                soff)
                    prev = (nxt[0], nxt[1], nxt[2], nxt[3], j0)
                if K > h:
                    n_own = max(0, min(B, L - h - j0))
                    if n_own > 0:
                        lxh, preh, afh, ph, oh = prev
                        if oh != j0:                   # h == D: the base level, rows from 0
                            lxh, preh, afh, ph = (np.ascontiguousarray(t[j0:]) for t in (lxh, preh, afh, ph))
                        extend_block(h, K, D, a, L, bias, es, j0, n_own, lxh, preh, afh, ph, pf, tile, maximal,
                                     argmax, tops.thresholds, hkey, hz, hq, hf, hcnt, cap, store_q, store_f, soff)
                del prev
                for m in range(D + 1, K + 1):
                    n_own = max(0, min(B, L - m + 1 - j0))
                    if n_own == 0:
                        continue
                    tops.merge_heaps(m - 1, j0, n_own, hkey, hz, hq, hf, hcnt)
                    if soff[m - 1] >= 0:
                        nz = a ** m
                        q = store_q[soff[m - 1]: soff[m - 1] + n_own * nz].reshape(n_own, nz)
                        f = store_f[soff[m - 1]: soff[m - 1] + n_own * nz].reshape(n_own, nz)
                        if m <= keep:
                            poim_full[m - 1][j0: j0 + n_own] = q
                            firm_full[m - 1][j0: j0 + n_own] = f
                        if disk is not None:
                            disk.write(m, j0, q, f)
                bar.update()
            variance += float(var_rows.sum())
            bar.update()
    finally:
        if disk is not None:
            disk.close()
    result_tops = {s: [tops.lists[s][k] for k in range(K)] for s in MEASURES}
    return StreamedPOIM(maximal=[maximal[k - 1, : L - k + 1] for k in range(1, K + 1)],
                        maximal_argmax=[argmax[k - 1, : L - k + 1] for k in range(1, K + 1)], tops=result_tops,
                        poim=poim_full, firm=firm_full, expected_score=es, score_std=float(np.sqrt(max(variance, 0.0))),
                        top_n=top_n, alphabet=weights.alphabet, meta=meta)
