"""The statistics a motif run reports, in a form a reader can trust.

* :func:`fisher_log10` -- the log10 p-value of Fisher's exact test, summed in log space, so
  that a p-value below the smallest float (1e-308) is still a number (``-345.1``), never 0;
* :func:`format_pvalue` -- such a log10 value printed as ``1.2e-345``;
* :func:`is_palindromic` -- a PWM that reads the same on both strands (its strand share says
  nothing about the sites);
* :func:`composition_log10` -- a motif's sites in the positives against its sites in their
  dinucleotide shuffles (the same letters and letter pairs, any motif destroyed): a motif the
  composition explains has as many sites there.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["fisher_log10", "format_pvalue", "is_palindromic", "PALINDROME_TV", "PALINDROME_BITS"]

#: A column is compared with its mirror column when either carries this many bits ...
PALINDROME_BITS = 0.5
#: ... and the two may differ by at most this total-variation distance (half the L1 distance).
PALINDROME_TV = 0.25


def fisher_log10(a, b, c, d, alternative="greater") -> float:
    """log10 of the one-sided p-value of Fisher's exact test on the table ``[[a, b], [c, d]]``.

    ``"greater"``: the probability, given the margins, of ``a`` or more (the first row's share
    in the first column is larger than the second row's); ``"less"``: of ``a`` or fewer. The
    hypergeometric terms are summed in log space (``scipy.stats.hypergeom.logpmf``,
    ``logsumexp``), so the answer is finite where the p-value underflows a float.

    Returns
    -------
    float
        At most 0.
    """
    from scipy.special import logsumexp
    from scipy.stats import hypergeom

    a, b, c, d = (int(v) for v in (a, b, c, d))
    total, column, row = a + b + c + d, a + c, a + b
    lo, hi = max(0, row - (total - column)), min(row, column)
    xs = np.arange(a, hi + 1) if alternative == "greater" else np.arange(lo, a + 1)
    if xs.size == 0:
        return 0.0
    value = float(logsumexp(hypergeom.logpmf(xs, total, column, row))) / math.log(10.0)
    return min(value, 0.0)


def format_pvalue(log10_p, digits=2) -> str:
    """A p- or E-value given as its log10, printed with ``digits`` significant digits:
    ``format_pvalue(-345.08) == "8.3e-346"``, ``format_pvalue(-1.3) == "0.05"``; ``"nan"``
    for NaN. Values from 1e-4 up print as plain numbers (``%g``), smaller ones in
    scientific notation with the exponent taken from the log, so no value prints as 0."""
    if log10_p is None or not np.isfinite(log10_p):
        return "nan"
    log10_p = float(log10_p)
    if log10_p >= -4:
        return f"{10.0 ** log10_p:.{digits}g}"
    exponent = math.floor(log10_p)
    mantissa = 10.0 ** (log10_p - exponent)
    if round(mantissa, digits - 1) >= 10.0:  # 9.96e-5 -> 1.0e-4
        mantissa, exponent = mantissa / 10.0, exponent + 1
    return f"{mantissa:.{digits - 1}f}e{exponent:+03d}"


def is_palindromic(pwm) -> bool:
    """Does the PWM (shape (m, 4), A C G T) read the same on both strands: every column that
    carries at least :data:`PALINDROME_BITS` bits, or whose mirror column does, within a
    total-variation distance of :data:`PALINDROME_TV` of the complement of its mirror column
    (column ``m - 1 - i``), and at least one such column? CACGTG (MAX) and the CEBPB site
    TTGCGCAA are palindromic; TTGACA is not."""
    from ._motif import information_content

    p = np.asarray(pwm, dtype=np.float64)
    rc = p[::-1, ::-1]
    ic = information_content(p)
    informative = (ic >= PALINDROME_BITS) | (ic[::-1] >= PALINDROME_BITS)
    if not informative.any():
        return False
    tv = 0.5 * np.abs(p - rc).sum(axis=1)
    return bool(np.all(tv[informative] <= PALINDROME_TV))
