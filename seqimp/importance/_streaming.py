"""Streaming exact POIM: the engine of :func:`seqimp.poim` in blocks of start positions.

The in-memory engine (``_engine.exact_conditional``) holds every table of every order; at
L = 1000 and max_order 10 that is tens of GB. This driver runs the same recursions but keeps
only what reports and plots read (:class:`~seqimp.importance._streamed.StreamedPOIM`):

1. the top-down tables (Lambda, Rho, C of levels D..h-1, h = max(degree, D)) in full -- they
   are about as large as the weights themselves -- and the base level D in full;
2. orders m <= D from the base level, in full (a**D-sized);
3. then, block by block of start positions [j0, j0+B): the bottom-up levels D < m <= h
   for the block plus a halo of max(K, h) - m rows (level m row j reads level m-1 rows j,
   j+1), and the levels m > h of the block's rows by prefix extension from level h
   (:func:`~seqimp.importance._stream_kernels.extend_block`), rows in parallel.
   Each entry is reduced at once (maximal POIM and arg-max, top-N heaps per row, Var[s]
   share), and written only for k <= 4 or when ``full_tables`` is given (HDF5).

Every reduction is per (order, start) and the top-N merge is by a total order, so the
result does not depend on the block size or the number of threads.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import SeqimpError
from ._result import MEASURES
from ._streamed import FULL_ORDERS, StreamedPOIM

__all__ = ["poim_streamed"]

_DUMMY2 = np.zeros((1, 1))


class _TopLists:
    """The global top-N per (order, measure), merged block by block."""

    def __init__(self, max_order, n):
        self.n = n
        empty = {"position": np.zeros(0, np.int64), "index": np.zeros(0, np.int64), "poim": np.zeros(0),
                 "firm": np.zeros(0)}
        self.lists = {s: [dict(empty) for _ in range(max_order)] for s in MEASURES}
        self.thresholds = np.zeros((max_order, 2))

    def merge(self, li, s, pos, idx, q, f):
        cur = self.lists[MEASURES[s]][li]
        pos = np.concatenate([cur["position"], np.asarray(pos, np.int64)])
        idx = np.concatenate([cur["index"], np.asarray(idx, np.int64)])
        q = np.concatenate([cur["poim"], q])
        f = np.concatenate([cur["firm"], f])
        key = np.abs(q if s == 0 else f)
        sel = np.lexsort((idx, pos, -key))[: self.n]
        self.lists[MEASURES[s]][li] = {"position": pos[sel], "index": idx[sel], "poim": q[sel], "firm": f[sel]}
        if sel.size == self.n and self.n > 0:
            self.thresholds[li, s] = key[sel[-1]]

    def merge_table(self, li, q, f):
        """Merge a full table (rows = starts) of order li+1."""
        from .._tables import top_n

        ncol = q.shape[1]
        for s, table in enumerate((q, f)):
            flat = np.abs(table).ravel()
            ok = np.isfinite(flat)
            flat = np.where(ok, flat, -np.inf)
            best = top_n(flat, min(self.n, int(np.count_nonzero(ok))))
            pos, idx = np.divmod(best, ncol)
            self.merge(li, s, pos, idx, q.ravel()[best], f.ravel()[best])

    def merge_heaps(self, li, j0, n_rows, hkey, hz, hq, hf, hcnt):
        cap = hkey.shape[-1]
        for s in range(2):
            cnt = hcnt[li, s, :n_rows]
            mask = np.arange(cap)[None, :] < cnt[:, None]
            rows = np.nonzero(mask)[0]
            self.merge(li, s, j0 + rows, hz[li, s, :n_rows][mask], hq[li, s, :n_rows][mask],
                       hf[li, s, :n_rows][mask])


class _FullTables:
    """Chunked HDF5 file of every POIM/FIRM table (datasets ``poim/<k>``, ``firm/<k>``)."""

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
                self.sets[s, k] = grp.create_dataset(str(k), shape=(rows, cols), dtype=self.dtype, chunks=chunk)

    def write(self, k, j0, q, f):
        self.sets["poim", k][j0: j0 + q.shape[0]] = q.astype(self.dtype, copy=False)
        self.sets["firm", k][j0: j0 + f.shape[0]] = f.astype(self.dtype, copy=False)

    def close(self):
        self.fh.close()


def _top_down(tables, a, d, length, ntd, pb, pf):
    """Lambda, Rho, C of levels ntd..d (as the in-memory engine, without output aliasing)."""
    from ._dp_kernels import top_down_level

    n_w = len(tables)
    lam, rho, cc = {}, {}, {}
    g_next = None
    for n in range(ntd, d - 1, -1):
        has_w = 1 <= n <= n_w
        if n == ntd and has_w:
            lam[n] = rho[n] = tables[n - 1]
            continue
        shape = (length - n + 1, a ** n)
        lam_n, rho_n, g_n, c_n = (np.empty(shape) for _ in range(4))
        has_next, has_g = n + 1 in lam, g_next is not None
        top_down_level(n, d, a, length, tables[n - 1] if has_w else _DUMMY2, has_w, lam.get(n + 1, _DUMMY2),
                       rho.get(n + 1, _DUMMY2), g_next if has_g else _DUMMY2, has_next, has_g, pb, pf,
                       lam_n, rho_n, g_n, c_n)
        lam[n], rho[n], cc[n], g_next = lam_n, rho_n, c_n, g_n
    return lam, rho, cc


def poim_streamed(model_or_weights, background=None, max_order=None, *, max_memory=None, top_n=1000,
                  full_tables=None, full_tables_dtype="float32", block=None, progress=False) -> StreamedPOIM:
    """Exact POIM/FIRM summaries in bounded memory (streaming over blocks of start positions).

    Parameters
    ----------
    model_or_weights : PositionalWeights or object with ``.positional_weights()``
    background : MarkovBackground, optional
        Any order D; default uniform.
    max_order : int, optional
        Largest oligomer length K (default: the degree).
    max_memory : int, optional
        Bytes the computation may use (default half the available RAM); the block size is the
        largest that fits (see :func:`~seqimp.importance._plan.plan_poim`). When not even one
        position per block fits, a SeqimpError names the bytes needed and the option to change.
    top_n : int, default=1000
        Positional oligomers kept per order and per measure (|POIM| and |FIRM|).
    full_tables : str or path, optional
        Also write every POIM and FIRM table to this HDF5 file (datasets ``poim/<k>`` and
        ``firm/<k>`` of shape (L-k+1, A**k), chunked by rows; NaN where impossible).
    full_tables_dtype : {"float32", "float64"}, default="float32"
    block : int, optional
        Start positions per block (default: the planner's choice). Results do not depend on it.
    progress : bool, default=False
        Report blocks done on stderr.

    Returns
    -------
    StreamedPOIM
        Where :func:`seqimp.poim` fits, its maximal and differential POIM and its top lists
        are the same (to rounding, 1e-12 relative).
    """
    from .._progress import progress_bar
    from ._dp_kernels import row_abs_max
    from ._engine import _base_level, _finish, _short_levels, chain_tables
    from ._exact import check_poim_inputs
    from ._plan import dfs_tile, plan_poim
    from ._stream_kernels import extend_block, level_block

    weights, background, K = check_poim_inputs(model_or_weights, background, max_order)
    top_n = int(top_n) if isinstance(top_n, (int, np.integer)) and not isinstance(top_n, bool) else top_n
    if not isinstance(top_n, int) or top_n < 0:
        raise SeqimpError(f"top_n must be an integer >= 0, got {top_n!r}")
    if full_tables_dtype not in ("float32", "float64"):
        raise SeqimpError(f"full_tables_dtype must be 'float32' or 'float64', got {full_tables_dtype!r}")
    tables, bias = weights.tables, float(weights.bias)
    a, D, L, n_w = weights.alphabet.size, background.order, weights.length, weights.degree
    plan = plan_poim(L, K, D, max_memory, degree=n_w, top_n=top_n, full_tables=full_tables is not None,
                     alphabet_size=a, block=block)
    B = plan.block
    h = max(n_w, D)
    kt = max(K, h)
    cap = max(top_n, 1)
    tops = _TopLists(K, top_n)
    maximal = np.full((K, L), np.nan)
    argmax = np.full((K, L), -1, dtype=np.int64)
    keep = min(FULL_ORDERS, K)
    poim_full = [np.empty((L - k + 1, a ** k)) if k <= keep else None for k in range(1, K + 1)]
    firm_full = [np.empty((L - k + 1, a ** k)) if k <= keep else None for k in range(1, K + 1)]
    meta = {"background": background.describe(), "degree": n_w, "length": L, "top_n": top_n, "block": B,
            "max_memory": plan.budget}
    disk = None
    if full_tables is not None:
        disk = _FullTables(full_tables, L, K, a, full_tables_dtype,
                           {"alphabet": weights.alphabet.name, "length": L, "max_order": K, "meta": str(meta)})
    try:
        pf, pb, pd = chain_tables(background, L)
        pf = np.ascontiguousarray(pf)
        n_blocks = -(-(L - D) // B) if K > D or h > D else 0
        with progress_bar(n_blocks + 2, "poim blocks", enabled=progress) as bar:
            lam, rho, cc = _top_down(tables, a, D, L, h, pb, pf)
            zeros1 = np.zeros((L - D, a ** (D + 1)))
            lx, af, pre = _base_level(tables, a, D, L, pf, pb, lam.get(D + 1, zeros1), rho.get(D + 1, zeros1))
            cond_d = bias + lx + af + cc.pop(D, 0.0)
            lam.pop(D, None), rho.pop(D, None)
            es = float(pd[0] @ cond_d[0])
            variance = 0.0
            if D >= 1:                                  # orders <= D: from the base level, in full
                upto = min(D - 1, max(K, n_w))
                levels = list(zip(range(1, upto + 1), _short_levels(cond_d, pd, a, D, L, upto)))
                levels.append((D, (cond_d, pd)))
                for m, (cond, pi) in levels:
                    q, firm = _finish(cond, pi, es)
                    if m <= n_w:
                        variance += float(np.nansum(pi * tables[m - 1] * np.where(pi > 0, q, 0.0)))
                    if m <= K:
                        row_abs_max(np.ascontiguousarray(q), maximal[m - 1, : L - m + 1])
                        absq = np.where(np.isnan(q), -np.inf, np.abs(q))
                        am = np.argmax(absq, axis=1)
                        argmax[m - 1, : L - m + 1] = np.where(np.isfinite(absq.max(axis=1)), am, -1)
                        tops.merge_table(m - 1, q, firm)
                        if m <= keep:
                            poim_full[m - 1][...] = q
                            firm_full[m - 1][...] = firm
                        if disk is not None:
                            disk.write(m, 0, q, firm)
            del cond_d
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
                                cc[m] if has_c else _DUMMY2, has_c, lx0, pre0, af0, p0, o0, pf,
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
