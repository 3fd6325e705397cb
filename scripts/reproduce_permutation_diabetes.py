#!/usr/bin/env python
"""Permutation importance on scikit-learn's diabetes data, ours beside scikit-learn's.

The setting of scikit-learn's own example: train/validation split with
``random_state=0``, ``Ridge(alpha=1e-2)``, 30 repeats on the validation rows.
Ours with shuffle, half_swap and all_pairs, as MSE difference and ratio;
scikit-learn's ``permutation_importance`` with ``neg_mean_squared_error`` (the
same difference of losses) and with its default R^2 scorer (whose drop is the
MSE difference divided by the variance of y).

    python scripts/reproduce_permutation_diabetes.py [--figure docs/figures/tabular_permutation_diabetes.png]
"""

import argparse
from pathlib import Path

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.inspection import permutation_importance as sk_permutation_importance
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

from seqimp.tabular import permutation_importance  # noqa: E402
from seqimp.plot import plot_importance_boxplot  # noqa: E402

N_REPEATS = 30


def _optional_path(text):
    return Path(text) if text else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--figure", type=_optional_path, default=Path("docs/figures/tabular_permutation_diabetes.png"),
                    help="PNG to write; empty for none")
    args = ap.parse_args(argv)

    data = load_diabetes(as_frame=True)
    X_train, X_val, y_train, y_val = train_test_split(data.data, data.target, random_state=0)
    model = Ridge(alpha=1e-2).fit(X_train, y_train)
    print(f"Ridge(alpha=1e-2) on diabetes: {len(X_train)} training rows, {len(X_val)} validation rows, "
          f"validation R^2 = {model.score(X_val, y_val):.3f}")

    ours = {}
    for strategy in ("shuffle", "half_swap", "all_pairs"):
        for compare in ("difference", "ratio"):
            ours[strategy, compare] = permutation_importance(
                model, X_val, y_val, loss="mse", compare=compare, strategy=strategy, n_repeats=N_REPEATS,
                random_state=0)
    sk_mse = sk_permutation_importance(model, X_val, y_val, scoring="neg_mean_squared_error",
                                       n_repeats=N_REPEATS, random_state=0)
    sk_r2 = sk_permutation_importance(model, X_val, y_val, n_repeats=N_REPEATS, random_state=0)
    var_y = float(np.var(y_val))
    base = ours["shuffle", "difference"].baseline_loss
    print(f"baseline MSE = {base:.1f}; Var(y_val) = {var_y:.1f}")

    names = ours["shuffle", "difference"].feature_names
    order = np.argsort(-ours["all_pairs", "difference"].importances_mean)
    print("\nMSE difference e_perm - e_orig (mean ± sd over 30 repeats; all_pairs is exact, no repeats needed)")
    print(f"{'feature':8}{'sklearn':>17}{'ours shuffle':>17}{'95% t-CI':>18}{'half_swap':>17}{'all_pairs':>11}"
          f"{'z(ours-sk)':>12}")
    for j in order:
        sh, hs, ap_ = (ours[s, "difference"] for s in ("shuffle", "half_swap", "all_pairs"))
        se = np.sqrt((sh.importances[j].var(ddof=1) + sk_mse.importances[j].var(ddof=1)) / N_REPEATS)
        z = (sh.importances_mean[j] - sk_mse.importances_mean[j]) / se if se > 0 else 0.0
        print(f"{names[j]:8}{sk_mse.importances_mean[j]:>10.1f} ±{sk_mse.importances_std[j]:5.1f}"
              f"{sh.importances_mean[j]:>10.1f} ±{sh.importances_std[j]:5.1f}"
              f"{'[' + format(sh.ci_low[j], '.1f') + ', ' + format(sh.ci_high[j], '.1f') + ']':>18}"
              f"{hs.importances_mean[j]:>10.1f} ±{hs.importances_std[j]:5.1f}"
              f"{ap_.importances_mean[j]:>11.1f}{z:>12.2f}")

    print("\nMSE ratio e_perm / e_orig, and the R^2 drop: sklearn's default scorer vs ours (difference / Var y)")
    print(f"{'feature':8}{'shuffle':>10}{'half_swap':>11}{'all_pairs':>11}{'sklearn R2 drop':>17}{'ours/Var y':>12}")
    for j in order:
        print(f"{names[j]:8}" + "".join(f"{ours[s, 'ratio'].importances_mean[j]:>{w}.3f}"
                                        for s, w in (("shuffle", 10), ("half_swap", 11), ("all_pairs", 11)))
              + f"{sk_r2.importances_mean[j]:>17.3f}{ours['shuffle', 'difference'].importances_mean[j] / var_y:>12.3f}")
    n = len(y_val)
    sh, ap_ = ours["shuffle", "difference"], ours["all_pairs", "difference"]
    z = (sh.importances_mean - (n - 1) / n * ap_.importances_mean) / (sh.importances.std(axis=1, ddof=1)
                                                                      / np.sqrt(N_REPEATS))
    print("\nshuffle mean vs its expectation (n-1)/n * all_pairs, in standard errors: "
          + " ".join(f"{names[j]} {z[j]:+.2f}" for j in order))

    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from sklearn.utils import Bunch

        fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharex=True)
        sk_bunch = Bunch(importances=sk_mse.importances, feature_names=names, loss="mse", compare="difference")
        plot_importance_boxplot(sk_bunch, ax=axes[0], title="scikit-learn (neg MSE), 30 repeats")
        plot_importance_boxplot(ours["shuffle", "difference"], ax=axes[1], title="seqimp shuffle, 30 repeats")
        plot_importance_boxplot(ours["half_swap", "difference"], ax=axes[2], title="seqimp half_swap, 30 repeats")
        for ax in axes:
            labels = [t.get_text() for t in ax.get_yticklabels()]
            exact = dict(zip(names, ours["all_pairs", "difference"].importances_mean))
            ax.plot([exact[lab] for lab in labels], np.arange(1, len(labels) + 1), "D", color="tab:red", ms=4,
                    label="all_pairs (exact)")
            ax.legend(fontsize=8, loc="lower right")
        fig.suptitle("Permutation importance, Ridge on the diabetes validation rows (MSE difference)")
        fig.tight_layout()
        args.figure.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.figure, dpi=120)
        print(f"figure: {args.figure}")


if __name__ == "__main__":
    main()
