"""CoCoA+ rounds on the threads of one process: the fast route on two (or more) cores.

One dual coordinate descent pass is a chain of dependent steps (each reads the weights the
previous one wrote), so it cannot be split over threads without changing it; the exact
route's blocks of 16 rows with exact corrections (:mod:`._dcd`) pay a thread barrier every
16 rows and were slower on two threads than on one (``docs/training-at-scale.md``).
:class:`ThreadRounds` splits the work the way the Dask route does (:mod:`._distributed`),
with no barrier inside a pass: the training rows are split into K seeded random
partitions, and each round

1. thread k copies the weights ``w`` into its own vector ``u_k`` and runs one pass of dual
   coordinate descent over its partition on the CoCoA+ local subproblem with
   sigma' = K (curvature K Q_ii, ``u_k`` moves by K da y phi; the kernel is the exact
   route's :func:`~seqimp.kernels._dcd._svm_steps`, which releases the GIL);
2. the updates are added: ``w <- w + sum_k (u_k - w) / K = mean_k u_k``.

Adding with sigma' = K is safe (Smith et al. 2018): every round raises the dual objective,
and the iterates converge to the exact route's optimum. The partitions, the shuffles of
every pass (drawn in the calling thread) and the order of the additions are fixed by
``random_state`` and K, so the model is bit-identical from run to run; it is not the
one-thread model (a different path to the same optimum). Shrinking is liblinear's within
each partition, with the previous round's thresholds over all partitions.

Memory: K more weight vectors (8 (q + 1) bytes each, 151 MB at degree 8 and 141 nt).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._dcd import _svm_steps
from ._layout import aligned_zeros

__all__ = ["ThreadRounds"]


class ThreadRounds:
    """CoCoA+ rounds over K threads of one process, on shared codes and dual variables (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n, L), uint8
        Codes (or a read-only memory map).
    sign, upper : ndarray of shape (n,)
        Labels as +-1 and the bounds C_i.
    alpha : ndarray of shape (n,)
        Dual variables, updated in place (each partition writes only its rows).
    w : ndarray of shape (q + 1,)
        The weights in the solver's layout (bias last), updated in place by :meth:`round`.
    layout, sqb, degree, base, qd, cumbeta
        The solver's constants (:func:`~seqimp.kernels._dcd.svm_start`).
    rows : ndarray of int64
        The rows to train on.
    n_threads : int
        K, the partitions and threads (>= 2).
    rng : numpy Generator
        Draws the partitions and every pass's order.
    """

    def __init__(self, X, sign, alpha, upper, w, layout, sqb, degree, base, qd, cumbeta, rows, n_threads, rng):
        self.X, self.sign, self.alpha, self.upper, self.w = X, sign, alpha, upper, w
        self.lay, self.sqb, self.degree, self.base, self.qd, self.cumbeta = (layout.table, sqb, degree, base, qd,
                                                                             cumbeta)
        self.K = int(n_threads)
        self.sigma = float(self.K)
        self.rng = rng
        self.parts = [np.sort(p).astype(np.int64) for p in np.array_split(rng.permutation(rows), self.K)]
        self.actives = [p.shape[0] for p in self.parts]
        self.local = [aligned_zeros(w.shape[0]) for _ in range(self.K)]
        self.lock = threading.Lock()

    @property
    def active(self) -> int:
        """Rows stepped in the next round (the partitions' active sets together)."""
        return sum(self.actives)

    def add_rows(self, rows):
        """Train on ``rows`` too from the next round (split over the partitions); every row active again."""
        for k, extra in enumerate(np.array_split(np.asarray(rows, dtype=np.int64), self.K)):
            self.parts[k] = np.concatenate([self.parts[k][:self.actives[k]], extra,
                                            self.parts[k][self.actives[k]:]])
        self.actives = [p.shape[0] for p in self.parts]

    def _pass(self, k, pg_max_old, pg_min_old, chunk, bar):
        u = self.local[k]
        np.copyto(u, self.w)
        order, active = self.parts[k], self.actives[k]
        pg = np.array([-np.inf, np.inf])
        a = 0
        while a < active:
            b, active = _svm_steps(self.X, self.sign, self.alpha, self.upper, u, self.lay, self.sqb, self.degree,
                                   self.base, self.qd, self.sigma, order, a, a + chunk, active, pg_max_old,
                                   pg_min_old, pg, self.cumbeta)
            with self.lock:
                bar.update(b - a)
            a = b
        self.actives[k] = active
        return pg

    def round(self, pg_max_old, pg_min_old, chunk, bar):
        """One round: a local pass per thread, then ``w`` <- the mean of the local vectors.

        Returns the (max, min) projected gradient over all partitions.
        """
        for k in range(self.K):                      # the orders are drawn here, in a fixed sequence
            self.rng.shuffle(self.parts[k][:self.actives[k]])
        with ThreadPoolExecutor(self.K) as pool:
            pgs = list(pool.map(lambda k: self._pass(k, pg_max_old, pg_min_old, chunk, bar), range(self.K)))
        np.copyto(self.w, self.local[0])
        for k in range(1, self.K):
            self.w += self.local[k]
        self.w /= self.sigma
        return max(pg[0] for pg in pgs), min(pg[1] for pg in pgs)
