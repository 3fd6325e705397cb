#!/usr/bin/env python
"""Reproduce FIRM §3.1 (Boolean formula, Figure 1) and §3.2 (3-D Gaussians, Figure 2).

§3.1: the 8 rows of the truth table of (x1, x2, x3), labels of x1 v (~x1 ^ ~x2)
as +-1, an SVM with the homogeneous polynomial kernel (x.x')^2 and a hard margin
(C = 1000). Printed and drawn: the SVM's unfolded weights on the monomials, FIRM
(eq. 10, exact on the uniform truth table) of the literals x_j, ~x_j and of all
conjunctions of two literals, from the SVM score and from the labels.

§3.2: two Gaussian classes in 3-D whose means differ in x1 and (more) in x2,
x3 pure noise; a linear SVM; FIRM of each dimension from the slope of the
conditional expected score q_j (the paper's linear-regression approach), with
the binned estimate of q_j and the Gaussian closed form beside it.

    python scripts/reproduce_firm_tabular.py [--seed 0] [--figdir docs/figures]
"""

import argparse
import itertools
from pathlib import Path

import numpy as np
from sklearn.svm import SVC

from seqimp.tabular import firm  # noqa: E402
from seqimp.plot import plot_firm_curve, plot_importance_matrix  # noqa: E402

NAMES = ["x1", "x2", "x3"]
PAIRS = [(0, 1), (0, 2), (1, 2)]
SIGNS = [(1, 1), (1, 0), (0, 1), (0, 0)]  # 1: the variable, 0: its negation


def literal(j, positive):
    return (lambda X: X[:, j]) if positive else (lambda X: 1.0 - X[:, j])


def literal_name(j, positive):
    return NAMES[j] if positive else f"¬{NAMES[j]}"


def boolean_features():
    singles = {literal_name(j, p): literal(j, p) for j in range(3) for p in (1, 0)}
    pairs = {}
    for (j, k), (a, b) in itertools.product(PAIRS, SIGNS):
        fa, fb = literal(j, a), literal(k, b)
        pairs[f"{literal_name(j, a)}∧{literal_name(k, b)}"] = lambda X, fa=fa, fb=fb: fa(X) * fb(X)
    return singles, pairs


def monomial_weights(score, X):
    """Weights of s on 1, x_j, x_j x_k: exact on {0,1}^3 because x_j^2 = x_j."""
    basis = np.column_stack([np.ones(len(X))] + [X[:, j] for j in range(3)] + [X[:, j] * X[:, k] for j, k in PAIRS])
    coef, *_ = np.linalg.lstsq(basis, score, rcond=None)
    assert np.allclose(basis @ coef, score), "the score is not a quadratic polynomial on the truth table"
    return coef


def section_3_1(figdir):
    X = np.array(list(itertools.product([0.0, 1.0], repeat=3)))
    y = np.where((X[:, 0] == 1) | ((X[:, 0] == 0) & (X[:, 1] == 0)), 1.0, -1.0)
    svm = SVC(kernel="poly", degree=2, gamma=1.0, coef0=0.0, C=1000.0).fit(X, y)
    s = svm.decision_function(X)
    print("FIRM §3.1: truth table, labels, SVM score")
    for row, label, score in zip(X.astype(int), y, s):
        print(f"  x = ({row[0]}, {row[1]}, {row[2]})  y = {label:+.0f}  s(x) = {score:+.3f}")
    coef = monomial_weights(s, X)
    print(f"SVM-w (unfolded): b = {coef[0]:+.3f}; " + ", ".join(f"{n} {c:+.3f}" for n, c in zip(NAMES, coef[1:4]))
          + "; " + ", ".join(f"{NAMES[j]}{NAMES[k]} {c:+.3f}" for (j, k), c in zip(PAIRS, coef[4:])))

    singles, pairs = boolean_features()
    tables = {}
    for label, scores in (("SVM-FIRM", s), ("y-FIRM", y)):
        one = firm(scores, X, features=singles, method="binary").importances.reshape(3, 2)
        two = firm(scores, X, features=pairs, method="binary").importances.reshape(3, 4)
        tables[label] = (one, two)
    w_one = np.column_stack([coef[1:4], np.zeros(3)])  # negated literals are no SVM feature: weight 0
    w_two = np.zeros((3, 4))
    w_two[:, 0] = coef[4:]
    tables = {"SVM-w": (w_one, w_two), **tables}

    for label, (one, two) in tables.items():
        print(f"\n{label}: single literals (rows x1..x3; columns x_j, ¬x_j)")
        for j in range(3):
            print(f"  {NAMES[j]}: {one[j, 0]:+.3f} {one[j, 1]:+.3f}")
        print(f"{label}: conjunctions (columns a∧b, a∧¬b, ¬a∧b, ¬a∧¬b)")
        for r, (j, k) in enumerate(PAIRS):
            print(f"  ({NAMES[j]},{NAMES[k]}): " + " ".join(f"{v:+.3f}" for v in two[r]))
        flat = {**{literal_name(j, p): one[j, 1 - p] for j in range(3) for p in (1, 0)},
                **{f"{literal_name(j, a)}∧{literal_name(k, b)}": two[r, c]
                   for r, (j, k) in enumerate(PAIRS) for c, (a, b) in enumerate(SIGNS)}}
        top = sorted(flat.items(), key=lambda kv: -abs(kv[1]))[:4]
        print(f"{label}: largest |value|: " + ", ".join(f"{k} {v:+.3f}" for k, v in top))

    if figdir:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(2, 3, figsize=(12, 5.6), gridspec_kw={"height_ratios": [1, 1]})
        vmax = max(np.max(np.abs(t)) for pair in tables.values() for t in pair)
        for c, (label, (one, two)) in enumerate(tables.items()):
            plot_importance_matrix(one, row_labels=NAMES, col_labels=["x_j", "¬x_j"], ax=axes[0, c],
                                   title=f"{label}: literals", vmax=vmax, cbar=c == 2)
            plot_importance_matrix(two, row_labels=[f"a,b = {NAMES[j]},{NAMES[k]}" for j, k in PAIRS],
                                   col_labels=["a∧b", "a∧¬b", "¬a∧b", "¬a∧¬b"], ax=axes[1, c],
                                   title=f"{label}: conjunctions", vmax=vmax, cbar=c == 2)
        fig.suptitle("FIRM §3.1: x1 ∨ (¬x1 ∧ ¬x2), SVM with kernel (x·x')², 8 truth-table rows "
                     "(blue negative, red positive)")
        fig.tight_layout()
        path = figdir / "tabular_firm_boolean.png"
        fig.savefig(path, dpi=120)
        print(f"figure: {path}")


def section_3_2(figdir, seed, n_per_class):
    rng = np.random.default_rng(seed)
    cov = np.array([[1.0, 0.4, 0.0], [0.4, 1.0, 0.0], [0.0, 0.0, 1.0]])
    shift = np.array([1.0, 2.0, 0.0])  # x2 separates the classes more than x1; x3 is noise
    X = np.vstack([rng.multivariate_normal(-shift / 2, cov, n_per_class),
                   rng.multivariate_normal(shift / 2, cov, n_per_class)])
    y = np.repeat([0, 1], n_per_class)
    svm = SVC(kernel="linear", C=1.0).fit(X, y)
    slope = firm(svm, X, method="slope")
    binned = firm(svm, X, method="binned", n_bins=12)
    gauss = firm(svm, X, method="gaussian", covariance="shrinkage")
    sd = X.std(axis=0)
    print(f"\nFIRM §3.2: two 3-D Gaussian classes, {n_per_class} per class, linear SVM (accuracy "
          f"{svm.score(X, y):.3f}), seed {seed}")
    print(f"{'dim':4}{'SVM w':>9}{'slope of q_j':>14}{'Q slope':>10}{'Q binned':>10}{'Q gaussian':>12}")
    for j in range(3):
        print(f"x{j + 1:<3}{svm.coef_[0, j]:>9.3f}{slope.importances[j] / sd[j]:>14.3f}"
              f"{slope.importances[j]:>10.3f}{binned.importances[j]:>10.3f}{gauss.importances[j]:>12.3f}")
    if figdir:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
        ax = axes[0]
        for cls, colour in ((0, "tab:blue"), (1, "tab:red")):
            ax.scatter(X[y == cls, 0], X[y == cls, 1], s=6, color=colour, alpha=0.5, lw=0, label=f"class {cls}")
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
        ax.set_title("a) the data (x1, x2)", fontsize=10)
        ax.legend(fontsize=8)
        for j in range(3):
            ax = plot_firm_curve(slope, j, ax=axes[j + 1], title=f"{'bcd'[j]}) x{j + 1}: Q = "
                                 f"{slope.importances[j]:.2f} (slope)")
            c = binned.curves[j]
            ax.plot(c.t, c.q, "s", color="black", ms=4, label="q binned")
            ax.legend(fontsize=8, loc="upper left")
        for ax in axes[1:]:
            ax.set_ylim(axes[2].get_ylim())
        fig.suptitle("FIRM §3.2: linear SVM on two 3-D Gaussian classes; x3 is noise")
        fig.tight_layout()
        path = figdir / "tabular_firm_gaussian.png"
        fig.savefig(path, dpi=120)
        print(f"figure: {path}")


def exact_firm_mixture(score, means, cov, j, *, n_grid=401, n_draws=4000, seed=0):
    """Exact FIRM of coordinate j under an equal-weight mixture of Gaussians N(m_c, cov):
    q_j(t) = E[s(X) | x_j = t] by Monte Carlo over the conditional Gaussians (the class
    posterior at t weighting them), Q_j = sd of q_j(x_j) by quadrature over the marginal."""
    rng = np.random.default_rng(seed)
    d = len(cov)
    rest = [i for i in range(d) if i != j]
    sd_j = np.sqrt(cov[j, j])
    t = np.linspace(min(m[j] for m in means) - 6 * sd_j, max(m[j] for m in means) + 6 * sd_j, n_grid)
    gain = cov[rest, j] / cov[j, j]
    cond = cov[np.ix_(rest, rest)] - np.outer(gain, cov[j, rest])
    z = rng.standard_normal((n_draws, d - 1)) @ np.linalg.cholesky(cond).T  # common random numbers
    dens = np.array([np.exp(-0.5 * ((t - m[j]) / sd_j) ** 2) for m in means])  # (classes, grid)
    q = np.zeros(n_grid)
    for c, m in enumerate(means):
        for g, tt in enumerate(t):
            X = np.empty((n_draws, d))
            X[:, j] = tt
            X[:, rest] = m[rest] + gain * (tt - m[j]) + z
            q[g] += dens[c, g] * score(X).mean()
    marginal = dens.sum(axis=0)
    q /= marginal
    w = marginal / marginal.sum()
    mean = w @ q
    return float(np.sqrt(w @ (q - mean) ** 2))


def section_rbf_error(seeds, n_per_class):
    """Error of the tabular FIRM estimators against the exact FIRM for an RBF SVM on the
    §3.2 Gaussians (the default 'auto' picks 'taylor' for kernel SVMs and warns)."""
    cov = np.array([[1.0, 0.4, 0.0], [0.4, 1.0, 0.0], [0.0, 0.0, 1.0]])
    shift = np.array([1.0, 2.0, 0.0])
    means = [-shift / 2, shift / 2]
    print(f"\nFIRM of an RBF SVM on the §3.2 Gaussians ({n_per_class} per class): relative error "
          "|Q_est - Q_exact| / Q_exact of x1, x2 (x3 is noise, Q_exact ~ 0)")
    print(f"{'seed':>4}{'dim':>5}{'exact':>9}{'taylor':>9}{'binned':>9}{'slope':>9}{'err taylor':>12}"
          f"{'err binned':>12}{'err slope':>11}")
    worst = {"taylor": [], "binned": [], "slope": []}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        X = np.vstack([rng.multivariate_normal(means[0], cov, n_per_class),
                       rng.multivariate_normal(means[1], cov, n_per_class)])
        y = np.repeat([0, 1], n_per_class)
        svm = SVC(kernel="rbf", C=1.0).fit(X, y)
        est = {m: np.abs(firm(svm, X, method=m).importances) for m in ("taylor", "binned", "slope")}
        for j in range(2):
            exact = exact_firm_mixture(svm.decision_function, means, cov, j, seed=seed)
            errs = {m: abs(est[m][j] - exact) / exact for m in est}
            for m in errs:
                worst[m].append(errs[m])
            print(f"{seed:>4}{'x' + str(j + 1):>5}{exact:>9.3f}{est['taylor'][j]:>9.3f}{est['binned'][j]:>9.3f}"
                  f"{est['slope'][j]:>9.3f}{errs['taylor']:>12.1%}{errs['binned']:>12.1%}{errs['slope']:>11.1%}")
    print("range of the relative error: " + ", ".join(f"{m} {min(v):.0%}-{max(v):.0%}" for m, v in worst.items()))


def _optional_path(text):
    return Path(text) if text else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-per-class", type=int, default=250)
    ap.add_argument("--rbf-seeds", type=int, default=5, help="data sets of the RBF-SVM error table")
    ap.add_argument("--figdir", type=_optional_path, default=Path("docs/figures"),
                    help="folder for the PNGs; empty for none")
    args = ap.parse_args(argv)
    if args.figdir:
        import matplotlib

        matplotlib.use("Agg")
        args.figdir.mkdir(parents=True, exist_ok=True)
    section_3_1(args.figdir)
    section_3_2(args.figdir, args.seed, args.n_per_class)
    section_rbf_error(range(args.seed, args.seed + args.rbf_seeds), args.n_per_class)


if __name__ == "__main__":
    main()
