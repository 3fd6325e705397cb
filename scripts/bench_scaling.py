"""How the heavy stages scale with threads: the time of each at 1, 2, 4, 8, 16 threads and the speed-up.

Stages (one process; numba's thread count set by ``numba.set_num_threads``, the SVM's by ``n_jobs``):

* ``wd_kernel``   -- the WD Gram matrix of n x n sequences (default 3,000 x 3,000, L = 200, degree 8);
* ``poim``        -- the exact in-memory POIM (``seqimp.poim(..., engine="memory")``) of degree-8 weights,
                     L = 1000, max_order K = 8, under a position-specific order-0 background;
* ``train``       -- ``WDClassifier(degree=8, solver="fast", n_jobs=t)`` on 2 x 10^5 sequences of 100 nt
                     (random, a planted 7-mer in half, 10% label noise), also printing its passes and the
                     held-out accuracy on 5,000 other sequences;
* ``motifs``      -- a ``seqimp motifs`` run (training included) on 4,000 x 500 nt FASTA with a planted
                     7-mer, as a child process with ``NUMBA_NUM_THREADS=t`` (its start-up counted);
* ``ism``         -- ``seqimp.ism`` of a scikit-learn logistic regression on one-hot features
                     (``seqimp.scorers.sklearn_scorer``) over 2,000 x 200 nt, its batches on t threads
                     (``joblib.parallel_config(backend="threading", n_jobs=t)``: the path ``n_jobs=None``
                     takes on t available cores), BLAS kept to t threads;
* ``sampled``     -- ``seqimp.poim_sampled`` of the same kind of scorer, L = 100, max_order 3, 300 samples
                     under an order-1 background (its conditional rows drawn inside the batches), as ``ism``.

Thread counts are those of 1, 2, 4, 8, 16 that the process may use
(:func:`seqimp._utils.cores.available_cores`); every stage is run once per count (``--repeat N``: N
rounds over the counts, the fastest of each count kept, for a machine shared with other jobs),
warm (its numba code compiled before the clock starts), and the speed-up is against one thread
in the same process. On a 16-core machine the whole run takes about 7-8 minutes (ism and sampled
add under half a minute); ``--quick`` takes sizes a 2-core
machine runs in about two minutes (the figures then say little about 16 cores)::

    python scripts/bench_scaling.py                    # the figures of record (16 cores)
    python scripts/bench_scaling.py --quick            # small sizes
    python scripts/bench_scaling.py --stages poim train --threads 1 2
    python scripts/bench_scaling.py --stages poim wd_kernel ism sampled --threads 1 2 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seqimp._utils.cores import core_count  # noqa: E402

MOTIF = np.array([3, 2, 0, 1, 3, 1, 0], dtype=np.uint8)  # TGACTCA

SIZES = {
    False: dict(gram_n=3000, gram_length=200, poim_length=1000, poim_order=8, train_n=200_000, train_length=100,
                motif_n=4000, motif_length=500),
    True: dict(gram_n=800, gram_length=100, poim_length=300, poim_order=6, train_n=30_000, train_length=60,
               motif_n=400, motif_length=100),
}
SIZES[False].update(ism_n=2000, ism_length=200, sampled_length=100, sampled_order=3, sampled_n=300)
SIZES[True].update(ism_n=600, ism_length=100, sampled_length=60, sampled_order=3, sampled_n=60)


def planted(rng, n, length, noise=0.1):
    X = rng.integers(0, 4, (n, length), dtype=np.uint8)
    y = np.arange(n) % 2
    pos = rng.integers(0, length - len(MOTIF) + 1, n)
    for r in np.flatnonzero(y):
        X[r, pos[r]:pos[r] + len(MOTIF)] = MOTIF
    flip = rng.random(n) < noise
    return X, np.where(flip, 1 - y, y)


def stage_gram(size):
    from seqimp.kernels import wd_kernel

    X = np.random.default_rng(1).integers(0, 4, (size["gram_n"], size["gram_length"]), dtype=np.uint8)
    wd_kernel(X[:20], degree=8)
    return lambda threads: wd_kernel(X, degree=8), ""


def stage_poim(size):
    from seqimp import MarkovBackground, PositionalWeights, poim

    length, K = size["poim_length"], size["poim_order"]
    rng = np.random.default_rng(0)
    weights = PositionalWeights([rng.normal(size=(length - k + 1, 4 ** k)) for k in range(1, K + 1)], bias=0.5)
    bg = MarkovBackground.from_arrays([1.0], rng.dirichlet(np.full(4, 3.0), size=length)[:, None, :])
    small = PositionalWeights([w[:12 - k + 1] for k, w in enumerate(weights.tables[:3], start=1)])
    poim(small, MarkovBackground.uniform(12), 4, engine="memory", progress=False)
    return lambda threads: poim(weights, bg, K, engine="memory", progress=False), ""


def stage_train(size):
    from seqimp import WDClassifier

    rng = np.random.default_rng(2)
    X, y = planted(rng, size["train_n"], size["train_length"])
    Xt, yt = planted(rng, 5000, size["train_length"])
    WDClassifier(degree=3, solver="fast", n_jobs=2).fit(X[:2000], y[:2000])
    notes = {}

    def fit(threads):
        model = WDClassifier(degree=8, solver="fast", n_jobs=threads).fit(X, y)
        notes[threads] = f"{model.n_iter_} passes, held-out accuracy {np.mean(model.predict(Xt) == yt):.4f}"
    return fit, notes


def _linear_scorer(length):
    """A logistic regression on one-hot features of planted data, as a score function."""
    from sklearn.linear_model import LogisticRegression

    from seqimp.scorers import onehot, sklearn_scorer

    X, y = planted(np.random.default_rng(4), 2000, length)
    return sklearn_scorer(LogisticRegression(max_iter=500).fit(onehot(X), y))


def _on_threads(call):
    """``call()`` with its batches on t threads and BLAS on at most t, for each thread count t."""
    import joblib
    from threadpoolctl import threadpool_limits

    def run(threads):
        with threadpool_limits(limits=threads, user_api="blas"), \
                joblib.parallel_config(backend="threading", n_jobs=threads):
            call()
    return run


def stage_ism(size):
    from seqimp.importance import ism

    scorer = _linear_scorer(size["ism_length"])
    X = np.random.default_rng(5).integers(0, 4, (size["ism_n"], size["ism_length"]), dtype=np.uint8)
    ism(scorer, X[:3])
    return _on_threads(lambda: ism(scorer, X)), ""


def stage_sampled(size):
    from seqimp import MarkovBackground
    from seqimp.importance import poim_sampled

    length = size["sampled_length"]
    scorer = _linear_scorer(length)
    bg = MarkovBackground(order=1).fit(planted(np.random.default_rng(6), 500, length)[0])
    poim_sampled(scorer, bg, 2, length=length, n_samples=4, progress=False)
    return _on_threads(lambda: poim_sampled(scorer, bg, size["sampled_order"], length=length,
                                            n_samples=size["sampled_n"], progress=False)), ""


def stage_motifs(size, workdir):
    from seqimp.io import write_fasta

    rng = np.random.default_rng(3)
    X, y = planted(rng, size["motif_n"], size["motif_length"], noise=0.0)
    pos, neg = Path(workdir) / "pos.fa", Path(workdir) / "neg.fa"
    for path, rows in ((pos, X[y == 1]), (neg, X[y == 0])):
        write_fasta(path, rows, ids=[f"s{i + 1}" for i in range(len(rows))])

    def run(threads):
        out = Path(workdir) / f"motifs{threads}"
        env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), PYTHONPATH=str(ROOT))
        subprocess.run([sys.executable, "-m", "seqimp", "motifs", "--positive", str(pos), "--negative", str(neg),
                        "--out", str(out), "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
    run(1)                                                              # the numba cache, the first start
    return run, ""


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stages", nargs="+", default=["wd_kernel", "poim", "ism", "sampled", "train", "motifs"],
                   choices=["wd_kernel", "poim", "ism", "sampled", "train", "motifs"])
    p.add_argument("--threads", type=int, nargs="+", default=None, help="thread counts (default: 1 2 4 8 16 "
                   "that the process may use)")
    p.add_argument("--quick", action="store_true", help="small sizes (a 2-core machine)")
    p.add_argument("--repeat", type=int, default=1, help="runs per thread count, the fastest kept (default 1)")
    args = p.parse_args(argv)
    import numba

    cores, why = core_count()
    most = min(cores, numba.config.NUMBA_NUM_THREADS)
    counts = args.threads or [t for t in (1, 2, 4, 8, 16) if t <= most]
    size = SIZES[args.quick]
    print(f"# seqimp stage scaling: {cores} cores ({why}), numba pool {numba.config.NUMBA_NUM_THREADS}, "
          f"threads {counts}; sizes {size}; load average {os.getloadavg()[0]:.2f}", flush=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.stages:
            make = {"wd_kernel": stage_gram, "poim": stage_poim, "train": stage_train, "ism": stage_ism,
                    "sampled": stage_sampled}.get(name)
            fn, notes = make(size) if make else stage_motifs(size, tmp)
            times = {}
            for _ in range(max(1, args.repeat)):      # the counts in turn, so that a change of load hits all
                for t in counts:
                    numba.set_num_threads(min(t, numba.config.NUMBA_NUM_THREADS))
                    t0 = time.perf_counter()
                    fn(t)
                    times[t] = min(times.get(t, np.inf), time.perf_counter() - t0)
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
            cells = ", ".join(f"{t}: {s:.2f} s ({times[counts[0]] / s:.2f}x)" for t, s in times.items())
            print(f"{name:9s} {cells}", flush=True)
            for t, note in (notes.items() if isinstance(notes, dict) else []):
                print(f"          {t} threads: {note}", flush=True)
    print(f"# total {time.perf_counter() - start:.0f} s; load average {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
