"""Randomized-block ANOVA and Tukey HSD grouping for Relative Feature Importance."""

from __future__ import annotations

import numpy as np
from scipy import optimize, special, stats
from sklearn.utils import Bunch

__all__ = []


def block_anova(Y, alpha):
    """Randomized-block ANOVA of ``Y`` (blocks x treatments) with Tukey's HSD.

    Model ``y_bt = mu + beta_b + tau_t + e_bt``, one observation per cell.

    Parameters
    ----------
    Y : ndarray of shape (n_blocks, n_treatments)
    alpha : float
        Family-wise level of the Tukey comparisons.

    Returns
    -------
    Bunch with
        treatment_means : ndarray of shape (n_treatments,)
        f_statistic, p_value : float
            Test of equal treatment means (NaN with one treatment).
        df_treatment, df_block, df_error : int
        ms_treatment, ms_block, ms_error : float
        q_critical : float
            Upper ``alpha`` point of the studentized range for
            ``n_treatments`` means and ``df_error`` degrees of freedom.
        critical_difference : float
            Tukey HSD, ``q_critical * sqrt(ms_error / n_blocks)``; two
            treatment means further apart than this differ significantly.
    """
    Y = np.asarray(Y, dtype=np.float64)
    b, t = Y.shape
    grand = Y.mean()
    t_means = Y.mean(axis=0)
    b_means = Y.mean(axis=1)
    ss_t = b * np.sum((t_means - grand) ** 2)
    ss_b = t * np.sum((b_means - grand) ** 2)
    resid = Y - t_means[None, :] - b_means[:, None] + grand
    ss_e = float(np.sum(resid**2))
    df_t, df_b, df_e = t - 1, b - 1, (t - 1) * (b - 1)
    ms_t = ss_t / df_t if df_t else np.nan
    ms_b = ss_b / df_b if df_b else np.nan
    ms_e = ss_e / df_e if df_e else np.nan
    if t < 2:
        f = p = q = np.nan
        hsd = 0.0
    else:
        # residuals of exactly tied data are rounding noise
        if ms_e <= 1e-28 * max(float(np.mean(Y**2)), 1e-300):
            ms_e = 0.0
        f = ms_t / ms_e if ms_e > 0 else (np.inf if ms_t > 0 else np.nan)
        p = float(stats.f.sf(f, df_t, df_e)) if np.isfinite(f) else (0.0 if f == np.inf else 1.0)
        q = float(stats.studentized_range.ppf(1 - alpha, t, df_e))
        hsd = q * np.sqrt(ms_e / b)
    return Bunch(
        treatment_means=t_means,
        f_statistic=float(f),
        p_value=float(p),
        df_treatment=df_t,
        df_block=df_b,
        df_error=df_e,
        ms_treatment=float(ms_t),
        ms_block=float(ms_b),
        ms_error=float(ms_e),
        q_critical=float(q),
        critical_difference=float(hsd),
    )


def distinct_groups(means, critical_difference):
    """Group treatments whose means cannot be told apart, lowest group first.

    Two treatments are linked when their means differ by at most
    ``critical_difference``; groups are the connected components of that
    relation (so a chain a~b~c is one group even if a and c differ). Groups
    are ordered by the mean of their members' means.

    Returns
    -------
    list of ndarray of int
        Treatment indices of each group, ascending within a group.
    """
    means = np.asarray(means, dtype=np.float64)
    order = np.argsort(means, kind="stable")
    groups, current = [], [order[0]]
    for prev, nxt in zip(order[:-1], order[1:]):
        if means[nxt] - means[prev] > critical_difference * (1 + 1e-9) + 1e-15:
            groups.append(current)
            current = []
        current.append(nxt)
    groups.append(current)
    return [np.sort(np.array(g, dtype=np.intp)) for g in groups]


def mcb_critical_value(alpha, n_treatments, df):
    """One-sided Dunnett critical value used by Hsu's comparisons with the best.

    The ``d`` with ``P(max_i T_i <= d) = 1 - alpha`` for ``m = n_treatments - 1``
    statistics ``T_i = (U_i - U_0) / (sqrt(2) * s)``: ``U_0..U_m`` independent
    standard normal, ``s**2`` an independent chi-square over ``df``; i.e.
    equicorrelated (rho = 1/2) multivariate t. Computed by numerical
    integration, so deterministic. ``m = 1`` gives Student's t quantile.
    """
    m = n_treatments - 1
    if m < 1:
        return 0.0
    lo, hi = (np.sqrt(stats.chi2.ppf(p, df) / df) for p in (1e-12, 1 - 1e-12))
    # Gauss-Legendre rules: s over its central range, z over [-9, 9]
    xs, ws = special.roots_legendre(160)
    s = 0.5 * (hi - lo) * xs + 0.5 * (hi + lo)
    ws = ws * 0.5 * (hi - lo) * 2 * df * s * stats.chi2.pdf(df * s * s, df)  # density of s
    xz, wz = special.roots_legendre(240)
    z = 9.0 * xz
    wz = wz * 9.0 * stats.norm.pdf(z)

    def coverage(d):
        inner = stats.norm.cdf(z[None, :] + np.sqrt(2.0) * d * s[:, None]) ** m @ wz
        return float(ws @ inner)

    return float(optimize.brentq(lambda d: coverage(d) - (1 - alpha), 0.0, 50.0, xtol=1e-10))
