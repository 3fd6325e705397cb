"""The numba kernel of :func:`seqimp.io.dinucleotide_shuffle` (imported on first use)."""

import numba
import numpy as np


@numba.njit(cache=True)
def shuffle_rows(codes, seeds, base, out):
    """Shuffle every row of ``codes`` into ``out``: each maximal stretch of known letters (codes
    below ``base``) is shuffled on its own, in order, from the row's generator (``seeds[r]``);
    unknown letters (codes ``base`` and above) stay where they are. A row without unknown
    letters is one stretch, drawn as before unknown letters were read."""
    n, length = codes.shape
    deg = np.zeros(base, np.int64)
    first = np.zeros(base + 1, np.int64)
    fill = np.zeros(base, np.int64)
    tgt = np.zeros(max(length - 1, 1), np.int64)
    last_edge = np.zeros(base, np.int64)
    in_tree = np.zeros(base, np.bool_)
    ptr = np.zeros(base, np.int64)
    for r in range(n):
        x = codes[r]
        np.random.seed(seeds[r])
        lo = 0
        while lo < length:
            if x[lo] >= base:
                out[r, lo] = x[lo]
                lo += 1
                continue
            hi = lo
            while hi < length and x[hi] < base:
                hi += 1
            _shuffle_stretch(x, lo, hi, base, out[r], deg, first, fill, tgt, last_edge, in_tree, ptr)
            lo = hi


@numba.njit(cache=True)
def _shuffle_stretch(x, lo, hi, base, out, deg, first, fill, tgt, last_edge, in_tree, ptr):
    """Altschul & Erickson's shuffle of the known letters ``x[lo:hi]`` into ``out[lo:hi]``
    (the module docstring of seqimp/io/_shuffle.py); the work arrays are the caller's."""
    length = hi - lo
    if length <= 2:
        for i in range(lo, hi):
            out[i] = x[i]
        return
    deg[:] = 0
    for i in range(lo, hi - 1):
        deg[x[i]] += 1
    first[0] = 0
    for v in range(base):
        first[v + 1] = first[v] + deg[v]
        fill[v] = first[v]
    for i in range(lo, hi - 1):   # edges grouped by their source letter, in sequence order
        tgt[fill[x[i]]] = x[i + 1]
        fill[x[i]] += 1
    last = x[hi - 1]
    in_tree[:] = False
    in_tree[last] = True
    # Wilson: a uniform tree of last exit edges into `last` over the letters that occur
    for v in range(base):
        if deg[v] == 0 or in_tree[v]:
            continue
        u = v
        while not in_tree[u]:
            e = first[u] + np.random.randint(0, deg[u])
            last_edge[u] = e
            u = tgt[e]
        u = v
        while not in_tree[u]:
            in_tree[u] = True
            u = tgt[last_edge[u]]
    for v in range(base):
        d = deg[v]
        if d == 0:
            continue
        stop = first[v] + d - 1
        if v != last:   # the tree edge goes last; the others are shuffled before it
            e = last_edge[v]
            tmp = tgt[e]
            tgt[e] = tgt[stop]
            tgt[stop] = tmp
            m = d - 1
        else:
            m = d
        for i in range(m - 1, 0, -1):   # Fisher-Yates on first[v] .. first[v] + m - 1
            j = np.random.randint(0, i + 1)
            tmp = tgt[first[v] + i]
            tgt[first[v] + i] = tgt[first[v] + j]
            tgt[first[v] + j] = tmp
        ptr[v] = first[v]
    out[lo] = x[lo]
    for i in range(lo + 1, hi):
        v = out[i - 1]
        out[i] = tgt[ptr[v]]
        ptr[v] += 1
