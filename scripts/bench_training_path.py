"""How soon is the exact route's path "the same model"? The fast route's two measures, pass by pass.

Trains ``dcd_svm(degree=8, C=1, tol=1e-4)`` -- the exact route of ``WDClassifier(solver="dcd")``
-- on the planted data of ``scripts/bench_training.py`` and, after every pass, looks at three
models on the way: the iterate itself and the polynomial-decay averages of the pass-end
iterates with eta = 3 and eta = 10 (``seqimp.kernels._sgd_rule.IterateAverage``, what the fast
route returns). Once the fit has converged, each snapshot is compared with the final model by
the fast route's measures (docs/benchmarks/training.md): held-out accuracy (5,000 test
sequences) and, per order k = 2..8, the share of the final model's top-50 positional k-mers
by |FIRM| (uniform background, exact POIM) in the snapshot's top 50. The time share is the
solver's seconds up to that pass over its seconds to convergence (the snapshots' own work is
not counted). The last column is the fast route's estimate of the iterate's distance to the
optimum (``DistanceToOptimum``, in units of ||w|| / sqrt(n)), what ``optimum_tol`` is compared
with.

A pass "meets" the targets when the accuracy is within 0.002 and every order keeps at least
0.90; a fast route that stops on the exact path can be no faster than the first pass that
meets them and stays met.

Usage::

    python scripts/bench_training_path.py --n 100000            # about 4 minutes
    python scripts/bench_training_path.py --n 1000000 --every 4 # about 40 minutes on this machine
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_training import planted_block, top_firm  # noqa: E402

from seqimp.kernels._dcd import dcd_svm  # noqa: E402
from seqimp.kernels._dcd import svm_dual_objective  # noqa: E402
from seqimp.kernels._layout import to_standard  # noqa: E402
from seqimp.kernels._sgd_rule import DistanceToOptimum, IterateAverage  # noqa: E402
from seqimp.kernels._weights import PositionalWeights  # noqa: E402

LENGTH, DEGREE, TOP = 141, 8, 50
ETAS = (3.0, 10.0)


def summary(w, layout, Xt, yt):
    """(held-out accuracy, top-50 flat indices per order k = 2..DEGREE) of solver-layout weights."""
    return measures(*to_standard(w, layout), Xt, yt)


def measures(coef, bias, Xt, yt):
    """(held-out accuracy, top-50 flat indices per order k = 2..DEGREE) of wd_features-layout weights."""
    pw = PositionalWeights.from_wd_coef(coef, bias, length=LENGTH, degree=DEGREE, alphabet="dna")
    acc = float(np.mean((pw.score(Xt) > 0) == yt))
    return acc, [set(top) for top in top_firm(pw, DEGREE, TOP)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100_000, help="training sequences (default 100,000)")
    p.add_argument("--every", type=int, default=1, help="look at every EVERY-th pass (default 1)")
    p.add_argument("--block", type=int, default=200_000,
                   help="rows drawn per block of the seeded generator (default 200,000: bench_training.py's "
                        "codes store; the data depend on it from n > 200,000 on)")
    p.add_argument("--until", type=int, default=None, help="look at passes up to this one (default: all)")
    args = p.parse_args(argv)
    rng = np.random.default_rng(1)                  # bench_training.make_store's data: seed 1, blocks of 200,000
    blocks = [planted_block(rng, min(args.block, args.n - a), LENGTH) for a in range(0, args.n, args.block)]
    X, y = np.vstack([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks])
    Xt, yt = planted_block(np.random.default_rng(99), 5000, LENGTH)
    with warnings.catch_warnings():                                           # load the numba cache
        warnings.simplefilter("ignore")
        dcd_svm(X[:50], y[:50], degree=2, max_iter=2)
    averages = {eta: None for eta in ETAS}
    estimate = DistanceToOptimum(args.n)
    snaps, solver_s = {}, [0.0]
    clock = [time.perf_counter()]

    def on_pass(it, w, alpha, layout):
        solver_s.append(solver_s[-1] + time.perf_counter() - clock[0])
        for eta in ETAS:
            if averages[eta] is None:
                averages[eta] = IterateAverage(w.shape[0], eta)
            averages[eta].update(w)
        norm2 = float(np.dot(w, w))
        distance = estimate.update(svm_dual_objective(w, alpha, norm2), norm2)
        if it % args.every == 0 and (args.until is None or it <= args.until):
            snaps[it] = (distance, summary(w, layout, Xt, yt),
                         *(summary(averages[eta].model, layout, Xt, yt) for eta in ETAS))
        clock[0] = time.perf_counter()

    sol = dcd_svm(X, y, degree=DEGREE, C=1.0, tol=1e-4, max_iter=5000, random_state=0, on_pass=on_pass)
    total = solver_s[-1]
    final_acc, final_top = measures(sol.coef, sol.intercept, Xt, yt)
    print(f"n = {args.n:,} sequences of {LENGTH} nt, degree {DEGREE}: exact route {sol.n_iter} passes, "
          f"{total:.1f} s of solver time, held-out accuracy {final_acc:.4f}")
    print("pass  time share  distance | iterate: accuracy diff, top-50 kept k=2..8 | average eta 3 | average eta 10")
    first = {}
    for it, (distance, *models) in snaps.items():
        cells = []
        for name, (acc, tops) in zip(("iterate", "eta 3", "eta 10"), models):
            kept = [len(a & b) / TOP for a, b in zip(tops, final_top)]
            met = abs(acc - final_acc) <= 0.002 and min(kept) >= 0.90
            if met:
                first.setdefault(name, (it, solver_s[it] / total))
            else:
                first.pop(name, None)                                        # must stay met
            cells.append(f"{acc - final_acc:+.4f} " + " ".join(f"{k:.2f}" for k in kept) + (" *" if met else "  "))
        print(f"{it:4d}  {solver_s[it] / total:10.3f}  {distance:8.3g} | " + " | ".join(cells))
    for name in ("iterate", "eta 3", "eta 10"):
        if name in first:
            it, share = first[name]
            print(f"{name}: meets the targets from pass {it} on, at {share:.3f} of the exact route's solver time")
        else:
            print(f"{name}: does not meet the targets for good among the passes looked at")
    return 0


if __name__ == "__main__":
    sys.exit(main())
