#!/usr/bin/env python
"""Reproduce Huh & Lee §4 (Table 2) and §5 (Table 3): sensitivity importance on simulated data.

Y = 4 X1 + 3 X2 + 2 X3 + X4 + e with X1..X4, e ~ N(0, 1), n = 1,000. Models:
linear regression, an MLP with one hidden layer of 2 logistic units
(scikit-learn instead of SPSS Clementine 7.1), a regression tree of depth 5
(scikit-learn CART instead of Clementine's C&R Tree). Importances are averaged
over 10 repeats; D_y uses N = 10 n random pairs, as in the paper.

    python scripts/reproduce_huh_lee.py [--seed 1] [--figure docs/figures/tabular_huh_lee.png]
"""

import argparse
from pathlib import Path

import numpy as np
from sklearn.linear_model import LinearRegression
from sklearn.neural_network import MLPRegressor
from sklearn.tree import DecisionTreeRegressor

from seqimp.tabular import sensitivity_importance  # noqa: E402
from seqimp.plot import plot_importance_boxplot  # noqa: E402

# The paper's published numbers (Huh & Lee, Table 2 and Table 3), for comparison only.
PAPER_TABLE2 = {
    "Linear Regression": {"X1": 0.72, "X2": 0.54, "X3": 0.37, "X4": 0.19, "D_y": 6.18, "GoFit": 0.82},
    "Neural Network": {"X1": 0.71, "X2": 0.53, "X3": 0.36, "X4": 0.18, "D_y": 6.18, "GoFit": 0.81},
    "Regression Tree": {"X1": 0.70, "X2": 0.47, "X3": 0.22, "X4": 0.01, "D_y": 6.17, "GoFit": 0.60},
}
PAPER_TABLE3 = {"Clementine NN": [0.59, 0.47, 0.36, 0.17], "Beta LR": [0.72, 0.54, 0.37, 0.18]}


def simulate(n, rng):
    X = rng.normal(size=(n, 4))
    y = X @ [4.0, 3.0, 2.0, 1.0] + rng.normal(size=n)
    return X, y


def gofit(y, pred):
    """The paper's goodness of fit: 1 - sum|y - yhat| / sum|y - median(y)|."""
    return 1 - np.abs(y - pred).sum() / np.abs(y - np.median(y)).sum()


def _optional_path(text):
    return Path(text) if text else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--figure", type=_optional_path, default=Path("docs/figures/tabular_huh_lee.png"),
                    help="PNG to write; empty for none")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    X, y = simulate(args.n, rng)
    models = {
        "Linear Regression": LinearRegression(),
        "Neural Network": MLPRegressor(hidden_layer_sizes=(2,), activation="logistic", solver="lbfgs",
                                       max_iter=5000, random_state=args.seed),
        "Regression Tree": DecisionTreeRegressor(max_depth=5, random_state=args.seed),
    }
    results = {}
    for name, model in models.items():
        model.fit(X, y)
        res = sensitivity_importance(model, X, y, n_repeats=10, random_state=args.seed)
        results[name] = (model, res, gofit(y, model.predict(X)))

    print(f"Huh & Lee Table 2 (n = {args.n}, seed {args.seed}): ours | paper")
    print(f"{'':6}" + "".join(f"{name:>28}" for name in models))
    for j, row in enumerate(["X1", "X2", "X3", "X4"]):
        cells = [f"{res.importances_mean[j]:.2f} ±{res.importances_std[j]:.3f} | {PAPER_TABLE2[name][row]:.2f}"
                 for name, (_, res, _) in results.items()]
        print(f"{row:6}" + "".join(f"{c:>28}" for c in cells))
    print(f"{'D_y':6}" + "".join(f"{res.d_y:>20.2f} | {PAPER_TABLE2[n]['D_y']:.2f}" for n, (_, res, _) in results.items()))
    print(f"{'GoFit':6}" + "".join(f"{g:>20.2f} | {PAPER_TABLE2[n]['GoFit']:.2f}" for n, (_, _, g) in results.items()))
    for name, (_, res, _) in results.items():
        ratio = res.importances_mean / res.importances_mean[0] * 4
        print(f"relative magnitude, {name}: " + " : ".join(f"{r:.2f}" for r in ratio))

    lr, nn = results["Linear Regression"][0], results["Neural Network"][0]
    beta = np.abs(lr.coef_) * X.std(axis=0) / y.std()
    clem = sensitivity_importance(nn, X, y, variant="range")
    lr_range = sensitivity_importance(lr, X, y, variant="range")
    print("\nHuh & Lee Table 3: ours | paper")
    print(f"{'':6}{'NN pairs':>18}{'NN range (Clementine)':>28}{'LR pairs':>18}{'beta of LR':>18}{'LR range':>12}")
    for j in range(4):
        print(f"X{j + 1:<5}"
              f"{results['Neural Network'][1].importances_mean[j]:>11.2f} | {PAPER_TABLE2['Neural Network'][f'X{j + 1}']:.2f}"
              f"{clem.importances_mean[j]:>21.2f} | {PAPER_TABLE3['Clementine NN'][j]:.2f}"
              f"{results['Linear Regression'][1].importances_mean[j]:>11.2f} | {PAPER_TABLE2['Linear Regression'][f'X{j + 1}']:.2f}"
              f"{beta[j]:>11.2f} | {PAPER_TABLE3['Beta LR'][j]:.2f}"
              f"{lr_range.importances_mean[j]:>12.2f}")
    print(f"range of y (D_y max) = {clem.d_y:.2f}")

    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 3, figsize=(12, 3.2), sharex=True)
        for ax, (name, (_, res, g)) in zip(axes, results.items()):
            plot_importance_boxplot(res, ax=ax, title=f"{name} (GoFit {g:.2f})",
                                    xlabel="Imp(X_j) = D_j / D_y over 10 repeats")
        fig.suptitle("Huh & Lee §4: Y = 4X1 + 3X2 + 2X3 + X4 + e, n = 1,000")
        fig.tight_layout()
        args.figure.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.figure, dpi=120)
        print(f"figure: {args.figure}")


if __name__ == "__main__":
    main()
