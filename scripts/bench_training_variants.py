"""The exact route's dual, and fast-route variants against the exact fit, in one process.

Two questions behind the fast route's options (``docs/benchmarks/training.md``,
"Where the passes go" and "Alternatives measured"), on the planted data of
``scripts/bench_training.py`` (141 nt, degree 8):

``--dual``: where do the exact route's passes go? Trains ``dcd_svm(degree=8, C=1, tol=1e-4)``
(``WDClassifier(solver="dcd")``) and prints after every pass the shares of the dual
variables at 0, at C and free, the share of the rows at 0 whose margin ``y f(x)`` exceeds
1, 1.1 and 1.3 (rows whose coordinate step does not move; what ``shrink_margin`` skips),
the rows that switched between 0 and > 0 over the pass, and liblinear's active set. The
decision values of all rows are computed outside the timed solver passes.

``--fast JSON [JSON ...]``: the exact route once, then ``fast_svm`` with each JSON object's
keywords (``seqimp.kernels._sgd.fast_svm``; e.g. ``{"optimum_tol": 10, "average": 10,
"shrink_margin": 0}``), each compared with the exact fit: fit time as a share of the exact
fit's, passes, held-out accuracy difference (5,000 test sequences) and, per order
k = 2..8, the share of the exact fit's top-50 positional k-mers by |FIRM| in the variant's
top 50 (the benchmark's two measures; ``scripts/bench_training_path.py``'s code).

Usage::

    python scripts/bench_training_variants.py --dual --n 100000           # about 2 minutes
    python scripts/bench_training_variants.py --n 100000 --fast '{"optimum_tol": 10, "average": 10}' \\
        '{"optimum_tol": 10, "average": 10, "shrink_margin": 0, "validation_fraction": 0.005, "refit": false}'
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_training_path import LENGTH, DEGREE, TOP, measures  # noqa: E402
from bench_training import planted_block  # noqa: E402

from seqimp.kernels._dcd import dcd_svm
from seqimp.kernels._sgd import fast_svm  # noqa: E402
from seqimp.kernels._implicit import implicit_layout  # noqa: E402
from seqimp.kernels._sgd_rule import validation_scores  # noqa: E402


def dual_report(X, y):
    """The exact route, one line per pass on the state of its dual variables (module docstring)."""
    sign = np.where(y == 1, 1.0, -1.0)
    _, sqb, base = implicit_layout(LENGTH, DEGREE, "dna")
    state = {"before": None, "solver_s": 0.0, "clock": time.perf_counter()}

    def on_pass(it, w, alpha, layout):
        state["solver_s"] += time.perf_counter() - state["clock"]
        g = sign * validation_scores(X, w, layout.table, sqb, DEGREE, base) - 1.0
        at0, atc = alpha == 0, alpha >= 1.0
        past = " ".join(f"{np.mean(at0 & (g > m)):.3f}" for m in (0.0, 0.1, 0.3))
        moved = "-" if state["before"] is None else f"{np.mean((alpha > 0) != (state['before'] > 0)):.4f}"
        state["before"] = alpha.copy()
        print(f"pass {it:3d}  solver {state['solver_s']:6.1f} s  at 0 {at0.mean():.3f} (margin past 1, 1.1, 1.3: "
              f"{past})  at C {atc.mean():.4f}  free {np.mean(~at0 & ~atc):.3f}  switched 0 <-> >0 {moved}",
              flush=True)
        state["clock"] = time.perf_counter()

    dcd_svm(X, y, degree=DEGREE, C=1.0, tol=1e-4, max_iter=5000, random_state=0, on_pass=on_pass, verbose=True)


def fast_report(X, y, variants):
    """The exact route once, then each fast variant against it (module docstring)."""
    Xt, yt = planted_block(np.random.default_rng(99), 5000, LENGTH)
    start = time.perf_counter()
    exact = dcd_svm(X, y, degree=DEGREE, C=1.0, tol=1e-4, max_iter=5000, random_state=0)
    exact_s = time.perf_counter() - start
    exact_acc, exact_top = measures(exact.coef, exact.intercept, Xt, yt)
    print(f"exact route: {exact_s:.1f} s, {exact.n_iter} passes, held-out accuracy {exact_acc:.4f}", flush=True)
    for text in variants:
        options = json.loads(text)
        start = time.perf_counter()
        sol = fast_svm(X, y, degree=DEGREE, C=1.0, random_state=0, **options)
        fit_s = time.perf_counter() - start
        acc, top = measures(sol.coef, sol.intercept, Xt, yt)
        kept = " ".join(f"{len(a & b) / TOP:.2f}" for a, b in zip(top, exact_top))
        print(f"fast {text}: {fit_s:.1f} s = {fit_s / exact_s:.3f} of the exact route's time, {sol.n_iter} passes, "
              f"held-out accuracy {acc - exact_acc:+.4f}, top 50 kept k=2..{DEGREE}: {kept}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100_000, help="training sequences, at most 200,000 (default 100,000)")
    p.add_argument("--dual", action="store_true", help="the exact route's dual variables pass by pass")
    p.add_argument("--fast", nargs="*", default=[], metavar="JSON", help="fast_svm keywords of each variant")
    args = p.parse_args(argv)
    if args.n > 200_000:
        p.error("--n: at most 200,000 (one block of bench_training.py's codes store)")
    X, y = planted_block(np.random.default_rng(1), args.n, LENGTH)     # the store's first block: seed 1
    with warnings.catch_warnings():                                       # load the numba cache
        warnings.simplefilter("ignore")
        dcd_svm(X[:50], y[:50], degree=2, max_iter=2)
        fast_svm(X[:500], y[:500], degree=2, max_iter=2)
    if args.dual:
        dual_report(X, y)
    if args.fast:
        fast_report(X, y, args.fast)
    return 0


if __name__ == "__main__":
    sys.exit(main())
