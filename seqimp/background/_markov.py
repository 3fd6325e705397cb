"""Markov background distributions of sequences for POIM/FIRM.

A :class:`MarkovBackground` of order D gives X[0:D] a joint distribution (``initial``,
over D-mer indices) and every later symbol a conditional distribution given the D symbols
before it (``transitions``), either the same at every position (homogeneous) or one table
per position (position-specific). Order 0 position-specific is the independent-columns
model (a position weight matrix over the whole sequence).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import SeqimpError, check_int, check_number, check_random_state
from ..io import get_alphabet
from ..io._alphabet import known_windows, unknown_prefix
from ..io._check import check_sequences

__all__ = ["MarkovBackground"]


def _check_distribution(arr, name, axis=-1, atol=1e-8):
    if not np.all(np.isfinite(arr)):
        raise SeqimpError(f"{name} must be finite")
    if np.any(arr < 0):
        where = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise SeqimpError(f"{name} must be non-negative; entry {where} is {arr[where]:g}")
    sums = arr.sum(axis=axis)
    bad = np.abs(sums - 1.0) > atol
    if np.any(bad):
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise SeqimpError(f"{name}: rows must sum to 1; row {where} sums to {sums[where]:.10g}")


def _log_base(n, base):
    """D with base**D == n, or None."""
    d, size = 0, 1
    while size < n:
        size *= base
        d += 1
    return d if size == n else None


def inner_index(d, k, off, base) -> np.ndarray:
    """For every D-mer index c, the index of its k symbols from offset ``off`` (k + off <= D).

    Returns
    -------
    ndarray of shape (base**d,), int64
    """
    return (np.arange(base ** d) // base ** (d - off - k)) % base ** k


class MarkovBackground:
    """Markov chain of order D >= 0 over sequences, homogeneous or position-specific.

    Parameters
    ----------
    order : int, default=0
        D, the number of preceding symbols a symbol depends on.
    positional : bool, default=False
        One transition table per position (needs sequences of one length) instead of one
        shared table.
    pseudocount : float, default=1.0
        Added to every count in :meth:`fit`; 0 gives the maximum-likelihood estimates.
    alphabet : str or Alphabet, default="dna"

    Attributes
    ----------
    initial_ : ndarray of shape (A**D,)
        Joint distribution of X[0:D] over D-mer indices (``[1.0]`` for D = 0).
    transitions_ : ndarray of shape (A**D, A) or (L-D, A**D, A)
        Row ``c`` of ``transitions_`` (or of ``transitions_[i-D]``) is
        P(X[i] = a | X[i-D:i] = D-mer index c), i = D..L-1.
    length : int or None
        L for a position-specific background, None for a homogeneous one.

    Examples
    --------
    >>> bg = MarkovBackground(order=1).fit(["ACGTACGT", "AACCGGTT"])
    >>> bg.transitions_.shape
    (4, 4)
    """

    def __init__(self, order=0, *, positional=False, pseudocount=1.0, alphabet="dna"):
        self.order = check_int(order, "order", minimum=0)
        self.positional = bool(positional)
        self.pseudocount = check_number(pseudocount, "pseudocount", low=0)
        self.alphabet = get_alphabet(alphabet)
        self.initial_ = None
        self.transitions_ = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, initial, transitions, *, alphabet="dna", atol=1e-8) -> "MarkovBackground":
        """Build from explicit probabilities; the order D is inferred from the shapes.

        Parameters
        ----------
        initial : array-like of shape (A**D,)
            Joint distribution of X[0:D] over D-mer indices; ``[1.0]`` for D = 0.
        transitions : array-like of shape (A**D, A) or (L-D, A**D, A)
            Homogeneous, or position-specific: row ``c`` of ``transitions[i-D]`` is
            P(X[i] = a | X[i-D:i] = c) for i = D..L-1 (for D = 0: shape (L, 1, A)).
        alphabet : str or Alphabet, default="dna"
        atol : float, default=1e-8
            Tolerance on the sums to 1.
        """
        alpha = get_alphabet(alphabet)
        a = alpha.size
        initial = np.asarray(initial, dtype=np.float64)
        transitions = np.asarray(transitions, dtype=np.float64)
        if initial.ndim != 1:
            raise SeqimpError(f"initial must be 1-D of shape ({a}**D,), got shape {initial.shape}")
        order = _log_base(initial.size, a)
        if order is None:
            raise SeqimpError(f"initial has {initial.size} entries; it must have {a}**D (1, {a}, {a * a}, ...)")
        ctx = a ** order
        if transitions.ndim == 2:
            positional = False
            if transitions.shape != (ctx, a):
                hint = (f"; a position-specific order-0 background has shape (L, 1, {a})"
                        if order == 0 and transitions.shape[1] == a else "")
                raise SeqimpError(f"transitions must have shape ({ctx}, {a}) for order {order} "
                                  f"(from initial's {initial.size} entries), got {transitions.shape}{hint}")
        elif transitions.ndim == 3:
            positional = True
            if transitions.shape[1:] != (ctx, a) or transitions.shape[0] < 1:
                raise SeqimpError(f"position-specific transitions must have shape (L-{order}, {ctx}, {a}) "
                                  f"for order {order}, got {transitions.shape}")
        else:
            raise SeqimpError(f"transitions must be 2-D (homogeneous) or 3-D (position-specific), "
                              f"got shape {transitions.shape}")
        _check_distribution(initial, "initial", axis=0, atol=atol)
        _check_distribution(transitions, "transitions", atol=atol)
        bg = cls(order, positional=positional, alphabet=alpha)
        bg.initial_ = initial.copy()
        bg.transitions_ = transitions.copy()
        return bg

    @classmethod
    def uniform(cls, length=None, order=0, *, alphabet="dna") -> "MarkovBackground":
        """Uniform (all sequences equally likely) background.

        Parameters
        ----------
        length : int, optional
            If given, a position-specific background of this length (so a length mismatch
            with the weights is caught); otherwise homogeneous.
        order : int, default=0
            The order D of the representation (the distribution is the same).
        """
        alpha = get_alphabet(alphabet)
        a, order = alpha.size, check_int(order, "order", minimum=0)
        initial = np.full(a ** order, 1.0 / a ** order)
        rows = np.full((a ** order, a), 1.0 / a)
        if length is not None:
            length = check_int(length, "length")
            if length <= order:
                raise SeqimpError(f"length must exceed the order {order}, got {length}")
            rows = np.broadcast_to(rows, (length - order,) + rows.shape)
        return cls.from_arrays(initial, rows, alphabet=alpha)

    def fit(self, X) -> "MarkovBackground":
        """Estimate initial and transition probabilities from sequences.

        Counts of D-mers at the start and of (D-mer, next symbol) pairs (per position if
        ``positional``), plus ``pseudocount`` each, normalised. With ``pseudocount=0`` these
        are the maximum-likelihood estimates; a context never seen then gets a uniform row.

        An unknown letter (N, the other ambiguity codes: code ``alphabet.size``) is counted in
        no context and as no next symbol: only pairs whose D+1 letters are all known count
        (a record whose first D letters hold one adds nothing to ``initial_``). A record keeps
        its length and positions, so a positional model counts every pair at its own position.

        Parameters
        ----------
        X : list of str, SequenceSet or ndarray of shape (n, L)
        """
        codes = check_sequences(X, "X", self.alphabet, unknown=True).astype(np.int64)
        n, length = codes.shape
        d, a = self.order, self.alphabet.size
        if length <= d:
            raise SeqimpError(f"fit: sequences of length {length} are too short for order {d}")
        # unknown letters before every position (a cumulative count, 0 in front), read as 0
        codes, seen = unknown_prefix(codes, a)
        known_pair = known_windows(seen, d + 1)          # (n, L-D): X[i:i+D+1] known
        ctx = np.zeros((n, length - d + 1), dtype=np.int64)   # D-mer index starting at each i
        for t in range(d):
            ctx = ctx * a + codes[:, t: length - d + 1 + t]
        known_start = seen[:, d] == 0
        init = np.bincount(ctx[known_start, 0], minlength=a ** d).astype(np.float64) + self.pseudocount
        pair = ctx[:, : length - d] * a + codes[:, d:]          # (n, L-D): context*A + next symbol
        if self.positional:
            offs = np.arange(length - d)[None, :] * a ** (d + 1)
            counts = np.bincount((pair + offs)[known_pair], minlength=(length - d) * a ** (d + 1))
            counts = counts.reshape(length - d, a ** d, a).astype(np.float64)
        else:
            counts = np.bincount(pair[known_pair], minlength=a ** (d + 1)).reshape(a ** d, a).astype(np.float64)
        counts += self.pseudocount
        tot = counts.sum(axis=-1, keepdims=True)
        self.transitions_ = np.where(tot > 0, counts / np.where(tot > 0, tot, 1.0), 1.0 / a)
        self.initial_ = init / init.sum() if init.sum() > 0 else np.full(a ** d, 1.0 / a ** d)
        return self

    # ------------------------------------------------------------------ properties
    def _check_fitted(self):
        if self.transitions_ is None:
            raise SeqimpError("MarkovBackground is not fitted; call fit(X) or use from_arrays/uniform")

    @property
    def length(self):
        """L for a position-specific background, None for a homogeneous one."""
        self._check_fitted()
        return self.transitions_.shape[0] + self.order if self.transitions_.ndim == 3 else None

    def __repr__(self) -> str:
        state = "unfitted" if self.transitions_ is None else (
            f"length={self.length}" if self.length is not None else "homogeneous")
        return f"MarkovBackground(order={self.order}, {state}, alphabet={self.alphabet.name!r})"

    def describe(self) -> dict:
        """A JSON-serialisable summary (order, positional, length, alphabet)."""
        return {"order": self.order, "positional": self.length is not None,
                "length": self.length, "alphabet": self.alphabet.name}

    def resolve_length(self, length=None) -> int:
        """The sequence length to use: the background's own, or ``length`` for a homogeneous one."""
        self._check_fitted()
        own = self.length
        if own is not None:
            if length is not None and int(length) != own:
                raise SeqimpError(f"the position-specific background has length {own}, "
                                  f"but length {length} was requested")
            return own
        if length is None:
            raise SeqimpError("a homogeneous background has no length; pass length=")
        length = int(length)
        if length < max(self.order, 1):
            raise SeqimpError(f"length {length} is shorter than the background order {self.order}")
        return length

    def transition_table(self, length=None) -> np.ndarray:
        """Per-position transitions, shape (L-D, A**D, A) (a view for homogeneous backgrounds)."""
        length = self.resolve_length(length)
        t = self.transitions_
        if t.ndim == 3:
            return t
        return np.broadcast_to(t, (length - self.order,) + t.shape)

    def context_marginals(self, length=None):
        """Marginal distributions of D-mers at every start.

        Returns
        -------
        ndarray of shape (L-D+1, A**D)
            Row i is P(X[i:i+D] = c) over D-mer indices c.
        """
        length = self.resolve_length(length)
        d, a = self.order, self.alphabet.size
        trans = self.transition_table(length)
        out = np.empty((length - d + 1, a ** d))
        out[0] = self.initial_
        for i in range(length - d):
            joint = out[i][:, None] * trans[i]            # (D-mer c, next a): (D+1)-mer c*A + a
            out[i + 1] = joint.reshape(a, a ** d).sum(axis=0) if d else joint.sum()
        return out

    def marginal(self, k, j, *, length=None) -> np.ndarray:
        """P(X[j:j+k] = z) for every k-mer index z.

        Parameters
        ----------
        k : int
            Oligomer length, 1 <= k <= L.
        j : int
            0-based start, 0 <= j <= L-k.
        length : int, optional
            Needed for a homogeneous background.

        Returns
        -------
        ndarray of shape (A**k,)
        """
        length = self.resolve_length(length)
        k, j = int(k), int(j)
        if not 1 <= k <= length:
            raise SeqimpError(f"k must lie in 1..{length}, got {k}")
        if not 0 <= j <= length - k:
            raise SeqimpError(f"j must lie in 0..{length - k} for k={k}, got {j}")
        return self._window_marginals(k, np.array([j]), length)[0]

    def marginals(self, k, *, length=None) -> np.ndarray:
        """P(X[j:j+k] = z) for every start j and k-mer index z.

        Returns
        -------
        ndarray of shape (L-k+1, A**k)
            Row j is :meth:`marginal` ``(k, j)``.
        """
        length = self.resolve_length(length)
        k = int(k)
        if not 1 <= k <= length:
            raise SeqimpError(f"k must lie in 1..{length}, got {k}")
        return self._window_marginals(k, np.arange(length - k + 1), length)

    def _window_marginals(self, k, starts, length) -> np.ndarray:
        """k-mer distributions at the given (valid) starts, shape (len(starts), A**k)."""
        d, a = self.order, self.alphabet.size
        ctxm = self.context_marginals(length)
        if k < d:      # the window lies inside the D-mer at min(j, L-D): sum out the other symbols
            out = np.empty((starts.size, a ** k))
            for g, j in enumerate(starts):
                s0 = min(j, length - d)
                out[g] = np.bincount(inner_index(d, k, j - s0, a), weights=ctxm[s0], minlength=a ** k)
            return out
        trans = self.transition_table(length)
        p = ctxm[starts]
        for t in range(d, k):                              # append X[j+t] given the D symbols before it
            ctx = np.arange(p.shape[1]) % a ** d
            p = (p[:, :, None] * trans[starts + t - d][:, ctx, :]).reshape(starts.size, -1)
        return p

    # ------------------------------------------------------------------ sequences
    def sample(self, n, *, length=None, random_state=None) -> np.ndarray:
        """Draw ``n`` sequences.

        ``random_state``: int, Generator or None (default None = fixed seed 0).

        Returns
        -------
        ndarray of shape (n, L), dtype uint8
        """
        length = self.resolve_length(length)
        rng = check_random_state(random_state)
        d, a = self.order, self.alphabet.size
        n = check_int(n, "n", minimum=0)
        trans = self.transitions_ if self.transitions_.ndim == 3 else self.transitions_[None]
        cdf = np.ascontiguousarray(np.cumsum(trans, axis=-1))  # (1 or L-D, A**D, A): row sums as drawn
        out = np.empty((n, length), dtype=np.uint8)
        ctx = rng.choice(a ** d, size=n, p=self.initial_ / self.initial_.sum()).astype(np.int64)
        for t in range(d):
            out[:, t] = (ctx // a ** (d - 1 - t)) % a
        # one uniform per sequence and position, position after position (the stream of one
        # rng.random(n) per position), in blocks of about 4 million
        block = max(1, (1 << 22) // max(n, 1))
        for i in range(d, length, block):
            uniforms = rng.random((min(block, length - i), n))
            _draw_letters(cdf, ctx, uniforms, i, d, a, out)
        return out

    def log_prob(self, X) -> np.ndarray:
        """Natural-log probability of each sequence, shape (n,) (-inf if impossible)."""
        codes = check_sequences(X, "X", self.alphabet).astype(np.int64)
        length = self.resolve_length(codes.shape[1])
        d, a = self.order, self.alphabet.size
        trans = self.transition_table(length)
        ctx = np.zeros(codes.shape[0], dtype=np.int64)
        for t in range(d):
            ctx = ctx * a + codes[:, t]
        with np.errstate(divide="ignore"):
            out = np.log(self.initial_[ctx])
            for i in range(d, length):
                out += np.log(trans[i - d][ctx, codes[:, i]])
                ctx = (ctx * a + codes[:, i]) % a ** d if d else ctx
        return out


@njit(cache=True)
def _draw_letters(cdf, ctx, uniforms, first, d, a, out):
    """Letters ``first .. first + len(uniforms) - 1`` of every sequence (:meth:`MarkovBackground.sample`):
    the letter is the number of cumulative transitions ``cdf[position - d or 0, context]`` at or
    below the uniform times their total (at most ``a - 1``); ``ctx`` (the D-mer before, changed
    in place) moves on by it."""
    modulus = a ** d
    for r in range(uniforms.shape[0]):
        i = first + r
        row = 0 if cdf.shape[0] == 1 else i - d
        for j in range(uniforms.shape[1]):
            c = ctx[j]
            u = uniforms[r, j] * cdf[row, c, a - 1]
            s = 0
            for k in range(a):
                if u >= cdf[row, c, k]:
                    s += 1
            if s > a - 1:
                s = a - 1
            out[j, i] = s
            ctx[j] = (c * a + s) % modulus
