"""Coupled conditional sampling from a Markov background, for :mod:`seqimp.importance`.

For a window (j, k) and every k-mer z, :meth:`ChainSampler.conditional_rows` draws one
sequence per background sample from ``P(X | X[j:j+k] = z)`` *exactly*, for Markov
backgrounds of any order D, with common random numbers: sample i uses the same uniforms
``U[i]`` for every z, j and k.

How a row is made (``docs/sampled.md`` has the argument):

* the *anchor* is the window itself when ``k >= D``; when ``k < D`` it is the D-mer at
  ``s0 = min(j, L-D)``, drawn from ``P(X[s0:s0+D] | X[j:j+k] = z)`` with the uniform ``W[i, 2]``;
* right of the anchor the chain runs forward, ``X[t] = F_t^-1(U[i, t] | X[t-D:t])``;
* left of it the reversed chain runs backward, ``X[t] = B_t^-1(U[i, t] | X[t+1:t+1+D])``, with
  ``B_t`` from the (D+1)-mer marginals (the reversal of a Markov chain of order D is one).

Given its anchor (at least D long) the two flanks are independent and depend on z only
through the anchor's first/last D symbols, so the row has the conditional distribution.
The base sequences ``forward`` (the chain run forward from a D-mer drawn with ``W[i, 0]``)
and ``backward`` (run backward from a last D-mer drawn with ``W[i, 1]``) follow the same
rules with the same uniforms; once a flank's context equals theirs at the same position the
rest is identical, so a row starts as ``backward`` left of j and ``forward`` from j on and
only the anchor and the symbols up to those meeting points are written. For D = 0 both bases are the same background sample and
a row is that sample with z planted at j.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import SeqimpError, check_random_state

_DNA = 4


@njit(cache=True)
def _draw(cdf, r, c, u):
    """Inverse-CDF draw of a symbol from cumulative probabilities cdf[r, c, :4]."""
    target = u * cdf[r, c, 3]
    a = 0
    while a < 3 and target >= cdf[r, c, a]:
        a += 1
    return a


@njit(cache=True)
def _draw_index(cdf, r, u):
    """Inverse-CDF draw of an index from cumulative probabilities cdf[r, :]."""
    last = cdf.shape[1] - 1
    target = u * cdf[r, last]
    c = 0
    while c < last and target >= cdf[r, c]:
        c += 1
    return c


@njit(cache=True)
def _base_kernel(U, W, order, end_cdf, fwd_cdf, bwd_cdf, forward, backward):
    """Forward- and backward-generated background samples from the same uniforms.

    end_cdf (2, 4**D): cumulative D-mer probabilities at start 0 and at start L-D.
    """
    m, length = U.shape
    for i in range(m):
        c = _draw_index(end_cdf, 0, W[i, 0])
        for t in range(order):
            forward[i, t] = (c // 4 ** (order - 1 - t)) % 4
        for t in range(order, length):
            c = 0
            for r in range(t - order, t):
                c = c * 4 + forward[i, r]
            forward[i, t] = _draw(fwd_cdf, t - order, c, U[i, t])
        c = _draw_index(end_cdf, 1, W[i, 1])
        for t in range(order):
            backward[i, length - order + t] = (c // 4 ** (order - 1 - t)) % 4
        for t in range(length - order - 1, -1, -1):
            c = 0
            for r in range(t + 1, t + 1 + order):
                c = c * 4 + backward[i, r]
            backward[i, t] = _draw(bwd_cdf, t, c, U[i, t])


@njit(cache=True, nogil=True)   # batches of poim_sampled call it from several threads at once
def _rows_kernel(U, W, forward, backward, j, k, order, kmers, zidx, ext_cdf, fwd_cdf, bwd_cdf, out):
    """Complete out[z, i] into sample i conditioned on k-mer kmers[z] at j (module docstring).

    On entry out[z, i] holds backward[i] left of j and forward[i] from j on. For k < D,
    ext_cdf[z] holds cumulative probabilities of the D-mer extensions e of z (index
    zidx[z]), the D-mer (e // 4**tail) * 4**(D-off) + zidx[z] * 4**tail + e % 4**tail being
    drawn with W[i, 2]. Flank symbols are then written from the anchor outwards until their
    context equals that of the base sequence.
    """
    nz = kmers.shape[0]
    m, length = U.shape
    s0 = min(j, length - order)
    off = j - s0
    tail = max(order - off - k, 0)
    for i in range(m):
        for zi in range(nz):
            if k >= order:
                a0, a1 = j, j + k
                for t in range(k):
                    out[zi, i, j + t] = kmers[zi, t]
            else:
                a0, a1 = s0, s0 + order
                e = _draw_index(ext_cdf, zi, W[i, 2])
                c = (e // 4 ** tail) * 4 ** (order - off) + zidx[zi] * 4 ** tail + e % 4 ** tail
                for t in range(order):
                    out[zi, i, s0 + t] = (c // 4 ** (order - 1 - t)) % 4
            for t in range(a1, length):             # right flank, forward chain
                same = True
                c = 0
                for r in range(t - order, t):
                    same = same and out[zi, i, r] == forward[i, r]
                    c = c * 4 + out[zi, i, r]
                if same:
                    break
                out[zi, i, t] = _draw(fwd_cdf, t - order, c, U[i, t])
            for t in range(a0 - 1, -1, -1):         # left flank, reversed chain
                same = True
                c = 0
                for r in range(t + 1, t + 1 + order):
                    same = same and out[zi, i, r] == backward[i, r]
                    c = c * 4 + out[zi, i, r]
                if same:
                    break
                out[zi, i, t] = _draw(bwd_cdf, t, c, U[i, t])


def _cumulative(p):
    """Cumulative sums along the last axis; rows summing to 0 become uniform."""
    p = np.asarray(p, dtype=np.float64)
    dead = p.sum(axis=-1, keepdims=True) <= 0
    return np.cumsum(np.where(dead, 1.0, p), axis=-1)


class ChainSampler:
    """A MarkovBackground prepared for coupled conditional sampling at one length L."""

    def __init__(self, background, length=None):
        if not hasattr(background, "transition_table"):
            raise SeqimpError(f"background must be a seqimp.MarkovBackground, got {type(background).__name__}")
        if background.alphabet.size != _DNA:
            raise SeqimpError(f"sampled POIMs need a DNA background, got alphabet {background.alphabet.name}")
        self.bg = background
        self.length = length = int(background.resolve_length(length))
        self.order = d = int(background.order)
        self.positional = background.length is not None
        trans = np.asarray(background.transition_table(length), dtype=np.float64)      # (L-D, 4**D, 4)
        self.trans = trans
        self.ctxm = np.asarray(background.context_marginals(length), dtype=np.float64)  # (L-D+1, 4**D)
        # reversed chain: P(X[t] = a | X[t+1:t+1+D] = c) from the (D+1)-mer marginals at t
        joint = (self.ctxm[:length - d, :, None] * trans).reshape(length - d, _DNA, _DNA ** d)
        self.fwd_cdf = _cumulative(trans)
        self.bwd_cdf = _cumulative(joint.transpose(0, 2, 1))
        self.end_cdf = _cumulative(self.ctxm[[0, length - d]])

    def marginals(self, k) -> np.ndarray:
        """P(X[j:j+k] = z) for every start j and k-mer z, shape (L-k+1, 4**k)."""
        return self.bg.marginals(k, length=self.length)

    def uniforms(self, n, random_state):
        """The common random numbers of n samples: U (n, L) and W (n, 3).

        ``random_state``: int, Generator or None (default None = fixed seed 0).
        """
        rng = check_random_state(random_state)
        return rng.random((n, self.length)), rng.random((n, 3))

    def base(self, U, W):
        """Forward- and backward-generated background samples, each (n, L) uint8."""
        forward = np.empty(U.shape, dtype=np.uint8)
        backward = np.empty(U.shape, dtype=np.uint8)
        _base_kernel(U, W, self.order, self.end_cdf, self.fwd_cdf, self.bwd_cdf,
                     forward, backward)
        return forward, backward

    def conditional_rows(self, U, W, forward, backward, starts, k, kmers, out=None) -> np.ndarray:
        """Rows drawn from P(X | X[j:j+k] = z) for each start j and each z in ``kmers``.

        Returns (and fills ``out`` if given) an array of shape (len(starts), nz, m, L), uint8.
        """
        d, length = self.order, self.length
        starts = [int(j) for j in starts]
        if out is None:
            out = np.empty((len(starts), kmers.shape[0]) + U.shape, dtype=np.uint8)
        if d == 0:      # independent positions: a row is the sample with z planted
            out[:] = forward
            for g, j in enumerate(starts):
                out[g, :, :, j:j + k] = kmers[:, None, :]
            return out
        zidx = np.asarray(kmers, dtype=np.int64) @ (_DNA ** np.arange(k - 1, -1, -1))
        ext_cdf = np.ones((1, 1))
        for g, j in enumerate(starts):
            if k < d:
                s0 = min(j, length - d)
                off = j - s0
                tail = d - off - k
                e = np.arange(_DNA ** (d - k))
                idx = (((e // _DNA ** tail) * _DNA ** (d - off))[None, :] + (zidx * _DNA ** tail)[:, None]
                       + (e % _DNA ** tail))
                ext_cdf = _cumulative(self.ctxm[s0][idx])
            out[g] = np.concatenate([backward[:, :j], forward[:, j:]], axis=1)   # one block per k-mer
            _rows_kernel(U, W, forward, backward, j, k, d, kmers, zidx, ext_cdf, self.fwd_cdf, self.bwd_cdf, out[g])
        return out
