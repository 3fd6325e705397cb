"""Throughput of ``seqimp predict``'s scoring: sequences per second of a WD and a gkm model.

Generates planted data (a motif at a random place, either strand, in every positive;
uniform random letters elsewhere), trains a WD model (``seqimp.training.train_model``, unfolded
to its positional weights, as ``seqimp train`` saves it) and a gkm model (``train_gkm``) on
``--train`` sequences, then scores ``--n`` new sequences the way ``seqimp predict`` does:
:func:`seqimp.training._predict.score_in_batches` (``--batch-size`` sequences per call of the
model's batch scoring), fastest of ``--repeat``. Also the whole run,
:func:`seqimp.pipeline.run_predict` (encoding the sequences from strings, scoring, writing
predictions.tsv, predictions.json and report.html), once per model. The first call of each
model is a warm-up (numba's compilation, cached in NUMBA_CACHE_DIR). Timings are wall-clock on
whatever machine runs this; compare rows of one run only.

    python scripts/bench_predict.py
    python scripts/bench_predict.py --n 200000 --length 200 --degree 8 --gkm-length 10 --gkm-informative 6
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from seqimp.io import decode  # noqa: E402
from seqimp.options import ModelOptions, OutputOptions  # noqa: E402
from seqimp.pipeline import run_predict  # noqa: E402
from seqimp.training import train_gkm, train_model  # noqa: E402
from seqimp.training._predict import predictor_kind, score_in_batches  # noqa: E402


def planted(n, length, *, motif="TTACGTAA", seed=0):
    """``n`` sequences (half positive) of uniform letters, ``motif`` (either strand) at a random
    place in every positive: X (n, L) uint8, y (n,) int64."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    y = np.r_[np.ones(n // 2), np.zeros(n - n // 2)].astype(np.int64)
    m = np.array(["ACGT".index(c) for c in motif], dtype=np.uint8)
    for i in np.flatnonzero(y == 1):
        start = rng.integers(0, length - m.size + 1)
        X[i, start:start + m.size] = m if rng.random() < 0.5 else (3 - m)[::-1]
    return X, y


def timed(fn, repeat):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="sequences scored (default 100000)")
    ap.add_argument("--length", type=int, default=200, help="sequence length (default 200)")
    ap.add_argument("--train", type=int, default=1000, help="training sequences of each model (default 1000)")
    ap.add_argument("--degree", type=int, default=8, help="WD degree (default 8)")
    ap.add_argument("--gkm-length", type=int, default=10, help="gkm l (default 10)")
    ap.add_argument("--gkm-informative", type=int, default=6, help="gkm k (default 6)")
    ap.add_argument("--batch-size", type=int, default=4096, help="sequences per call (default 4096)")
    ap.add_argument("--repeat", type=int, default=3, help="timed repeats, fastest shown (default 3)")
    args = ap.parse_args(argv)

    # a positional model of a motif at any place is weak: its scores time as well as a good model's
    warnings.filterwarnings("ignore", message="the model is close to chance")
    X_train, y_train = planted(args.train, args.length, seed=1)
    X, y = planted(args.n, args.length, seed=2)
    weights, _ = train_model(X_train[y_train == 1], X_train[y_train == 0], model=ModelOptions(degree=args.degree),
                             random_state=0, progress=False)
    gkm, _ = train_gkm(X_train, y_train, model=ModelOptions(kind="gkm", word_length=args.gkm_length,
                                                            informative=args.gkm_informative, test_fraction=0.0),
                       random_state=0)
    strings = decode(X)
    print(f"{args.n:,} sequences of {args.length} nt, batches of {args.batch_size:,}; fastest of {args.repeat}")
    print(f"{'model':<36} {'scoring s':>10} {'seq/s':>12} {'run_predict s':>14} {'seq/s':>12}")
    for name, model in ((f"WD (degree {args.degree})", weights),
                        (f"gkm (l {args.gkm_length}, k {args.gkm_informative})", gkm)):
        kind = predictor_kind(model)
        score_in_batches(model, X[:args.batch_size], kind=kind, batch_size=args.batch_size, progress=False)  # warm-up
        scoring = timed(lambda: score_in_batches(model, X, kind=kind, batch_size=args.batch_size, progress=False),
                        args.repeat)
        with tempfile.TemporaryDirectory() as out:
            whole = timed(lambda: run_predict(out, model, strings, labels=y, batch_size=args.batch_size,
                                              output=OutputOptions(progress=False)), 1)
        print(f"{name:<36} {scoring:>10.2f} {args.n / scoring:>12,.0f} {whole:>14.2f} {args.n / whole:>12,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
