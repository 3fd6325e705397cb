"""seqimp's gapped-k-mer classifier beside LS-GKM (Lee 2016) on the same sequences.

Prints, for one planted position-free data set (a motif at a random place, either strand, in a
share of the positives; uniform random letters elsewhere):

1. kernel agreement: the normalised gkm kernel of :func:`seqimp.kernels.gkm_kernel` against
   LS-GKM's ``gkmmatrix -t 0 -d l-k`` (the full gapped-k-mer kernel, no mismatch truncation) on
   the first ``--kernel-n`` sequences (LS-GKM prints 6 significant digits);
2. held-out auROC and training time of ``GKMClassifier`` (dual coordinate descent on the explicit
   gapped-k-mer features), of LS-GKM's ``gkmtrain -t 0`` (libsvm on the kernel) and, as the
   baseline run in the same process, of the positional ``WDClassifier``; with the time per
   1,000 training sequences;
3. the gkm motif route's time (``seqimp.pipeline.run_motifs`` with kind gkm: training
   with a held-out split, attributions, seqlets, refinement) per 1,000 sequences;
4. with ``--running-dtype``: the fit on the training sequences with the passes' running weights
   in float64 (the baseline) and in float32 (``RUNNING_DTYPE``, the default), alternating in this
   process, fastest of ``--repeat`` each, with the ratio and the dual objectives;
5. with ``--index-dtype``: the fit with the half tables and window rows the pass indexes with
   signed (int32, the baseline: numba checks every signed index for a negative value) and
   unsigned (uint32, :class:`~seqimp.kernels.gkm._kernel.GkmTables`, the default), alternating, fastest
   of ``--repeat`` each, with the ratio; the two models' ``coef_`` must be equal to the bit;
6. with ``--lmer-scores``: every l-mer's score of a model fitted on the sequences, summed one
   l-mer at a time over the column choices (the baseline, a numba kernel in this script) and by
   the halves' shared rows (``GKMClassifier.lmer_scores``, seqimp/kernels/gkm/_lmers.py),
   alternating, fastest of ``--repeat`` each, with the ratio and the largest relative difference.

LS-GKM is skipped, with a note, unless ``--lsgkm DIR`` names the folder of its binaries
(``gkmmatrix``, ``gkmtrain``, ``gkmpredict``); build it from github:Dongwon-Lee/lsgkm
(``cd src && make``). gkmsvm-lite (PyPI) is skipped unless ``--gkmsvm-lite PYTHON`` names the
interpreter of a separate environment it is installed in (``python -m venv V && V/bin/pip
install gkmsvm-lite``; not a dependency of seqimp). Timings are wall-clock on whatever machine runs this; compare rows of one
run only.

    python scripts/bench_gkm.py                                  # seqimp only
    python scripts/bench_gkm.py --lsgkm /tmp/lsgkm/src --n 2000 --length 200
    python scripts/bench_gkm.py --n 2000 --running-dtype --fasta POS.fa NEG.fa   # float32 against float64
    python scripts/bench_gkm.py --index-dtype --fasta POS.fa NEG.fa              # uint32 against int32 indices
    python scripts/bench_gkm.py --lmer-scores --repeat 5                         # l-mer scores by halves
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np


def planted(n, length, *, motif="TTACGTAA", share=0.5, seed=0):
    """``n`` sequences (half positive) of uniform letters; ``motif`` (either strand) at a random
    start in ``share`` of the positives. Returns X (n, L) uint8, y (n,) and the 0-based start
    of the motif in each sequence (-1: none)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    y = np.r_[np.ones(n // 2), np.zeros(n - n // 2)].astype(int)
    m = np.array(["ACGT".index(c) for c in motif], dtype=np.uint8)
    where = np.full(n, -1)
    for i in range(n // 2):
        if rng.random() < share:
            where[i] = p = rng.integers(0, length - m.size + 1)
            X[i, p:p + m.size] = m if rng.random() < 0.5 else 3 - m[::-1]
    return X, y, where


def _figure(path, gkm, X, where, count=3):
    """Per-base attributions of the first ``count`` positives holding the motif (shaded)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = np.flatnonzero(where >= 0)[:count]
    attr = gkm.attributions(X[rows])
    fig, axes = plt.subplots(len(rows), 1, figsize=(8, 1.6 * len(rows)), sharex=True)
    for ax, i, a in zip(np.atleast_1d(axes), rows, attr):
        ax.bar(np.arange(1, a.size + 1), a, width=1.0, color=np.where(a >= 0, "tab:red", "tab:blue"))
        ax.axvspan(where[i] + 0.5, where[i] + 8.5, color="0.85", zorder=0)
        ax.set_ylabel(f"seq {i + 1}")
    np.atleast_1d(axes)[-1].set_xlabel("position (1-based); shaded: the planted TTACGTAA")
    fig.suptitle("GKMClassifier per-base attributions (sum = decision value - intercept)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _fasta(path, X, prefix):
    Path(path).write_text("".join(f">{prefix}{i}\n{''.join('ACGT'[c] for c in row)}\n" for i, row in enumerate(X)))


def _lsgkm_kernel(binaries, X, l, k, work):
    half = len(X) // 2  # gkmmatrix reads two files, in this order (an empty file gives a wrong matrix)
    _fasta(work / "kp.fa", X[:half], "p")
    _fasta(work / "kn.fa", X[half:], "n")
    subprocess.run([str(binaries / "gkmmatrix"), "-t", "0", "-l", str(l), "-k", str(k), "-d", str(l - k), "-v", "0",
                    str(work / "kp.fa"), str(work / "kn.fa"), str(work / "k.txt")], check=True)
    rows = [list(map(float, line.split())) for line in (work / "k.txt").read_text().strip().splitlines()]
    M = np.zeros((len(rows), len(rows)))
    for i, row in enumerate(rows):
        M[i, :len(row)] = row
    return M + np.tril(M, -1).T


def _lsgkm_fit(binaries, X_train, y_train, X_test, l, k, C, work):
    _fasta(work / "p.fa", X_train[y_train == 1], "p")
    _fasta(work / "n.fa", X_train[y_train == 0], "n")
    _fasta(work / "t.fa", X_test, "t")
    start = time.perf_counter()
    subprocess.run([str(binaries / "gkmtrain"), "-t", "0", "-l", str(l), "-k", str(k), "-d", str(l - k), "-c", str(C),
                    "-v", "0", str(work / "p.fa"), str(work / "n.fa"), str(work / "m")], check=True)
    seconds = time.perf_counter() - start
    subprocess.run([str(binaries / "gkmpredict"), "-v", "0", str(work / "t.fa"), str(work / "m.model.txt"),
                    str(work / "pred.txt")], check=True)
    scores = dict(line.split() for line in (work / "pred.txt").read_text().splitlines())
    return np.array([float(scores[f"t{i}"]) for i in range(len(X_test))]), seconds


_GKMSVM_LITE = """
import sys, time, numpy as np
import gkmsvm
from gkmsvm.gram import compute_gram
from gkmsvm.kernels.direct import DirectGkmKernel
d = np.load(sys.argv[1])
X, y, test, l, k, C, kn = d["X"], d["y"], d["test"], int(d["l"]), int(d["k"]), float(d["C"]), int(d["kn"])
onehot = lambda A: np.ascontiguousarray(np.eye(4, dtype=np.float32)[A].transpose(0, 2, 1))
K = np.asarray(compute_gram(DirectGkmKernel(l, k), onehot(X[:kn])))
train = ~test
start = time.perf_counter()
model = gkmsvm.train_gkmsvm(onehot(X[train & (y == 1)]), onehot(X[train & (y == 0)]), kernel_type="direct",
                            l=l, k=k, d=l - k, C=C, device="cpu")
seconds = time.perf_counter() - start
scores = np.asarray(model(onehot(X[test])))[:, 0]
np.savez(sys.argv[2], K=K, scores=scores, seconds=seconds)
"""


def _gkmsvm_lite(python, X, y, test, l, k, C, kn, work):
    """gkmsvm-lite (PyPI, its own environment: ``python``): kernel of the first ``kn`` sequences
    (its direct kernel, LS-GKM's -t 0), held-out scores and training seconds."""
    np.savez(work / "data.npz", X=X, y=y, test=test, l=l, k=k, C=C, kn=kn)
    (work / "lite.py").write_text(_GKMSVM_LITE)
    subprocess.run([str(python), str(work / "lite.py"), str(work / "data.npz"), str(work / "lite.npz")], check=True)
    out = np.load(work / "lite.npz")
    return out["K"], out["scores"], float(out["seconds"])


def _running_dtypes(X, y, l, k, C, repeat, *, show=True):
    """Fit with float64 and float32 running weights, alternating; print the fastest of each."""
    import seqimp.kernels.gkm._estimator as estimator
    from seqimp.kernels import GKMClassifier

    best, fits = {}, {}
    default = estimator.RUNNING_DTYPE
    try:
        for _ in range(repeat):
            for dtype in (np.float64, np.float32):
                estimator.RUNNING_DTYPE = dtype
                start = time.perf_counter()
                fits[dtype] = GKMClassifier(l, k, C=C, tol=0.1).fit(X, y)
                best[dtype] = min(best.get(dtype, np.inf), time.perf_counter() - start)
    finally:
        estimator.RUNNING_DTYPE = default
    for dtype in (np.float64, np.float32) if show else ():
        fit = fits[dtype]
        dual = 0.5 * (fit.coef_ @ fit.coef_ + (fit.intercept_ / fit.bias) ** 2) - np.abs(fit.dual_coef_).sum()
        print(f"running weights {np.dtype(dtype).name}: fit {best[dtype]:.2f} s (fastest of {repeat}), "
              f"{fit.n_iter_} passes, dual objective {dual:.6f}")
    if show:
        print(f"time ratio float64 / float32 running weights: {best[np.float64] / best[np.float32]:.2f}")


def _index_dtypes(X, y, l, k, C, repeat, *, show=True):
    """Fit with signed (int32) and unsigned (uint32) tables and window rows, alternating; print
    the fastest of each and check that the two models are the same to the bit."""
    from seqimp.kernels import GKMClassifier

    class Signed(GKMClassifier):
        """The tables (and so the fit's window rows, which take their dtype) cast to int32."""

        def _tables(self):
            tables = super()._tables()
            tables.left_t, tables.right_t = tables.left_t.astype(np.int32), tables.right_t.astype(np.int32)
            return tables

    best, fits = {}, {}
    for _ in range(repeat):
        for name, cls in (("int32", Signed), ("uint32", GKMClassifier)):
            start = time.perf_counter()
            fits[name] = cls(l, k, C=C, tol=0.1, random_state=0).fit(X, y)
            best[name] = min(best.get(name, np.inf), time.perf_counter() - start)
    if not np.array_equal(fits["int32"].coef_, fits["uint32"].coef_):
        raise SystemExit("signed and unsigned indices gave different models")
    if show:
        for name in ("int32", "uint32"):
            print(f"indices {name}: fit {best[name]:.2f} s (fastest of {repeat}), {fits[name].n_iter_} passes")
        print(f"time ratio int32 / uint32 indices: {best['int32'] / best['uint32']:.2f} (models equal to the bit)")


def _per_lmer_kernel():
    """The baseline of item 6, compiled on first use: ``sum_c w[left[a, c] + right[b, c]]`` for
    each l-mer ``(a, b)`` on its own (twice that with both strands)."""
    from numba import njit, prange

    @njit(parallel=True)
    def per_lmer(left, right, w, factor):
        n_right = right.shape[0]
        out = np.empty(left.shape[0] * n_right)
        for u in prange(out.size):
            a, b = u // n_right, u % n_right
            total = 0.0
            for c in range(left.shape[1]):
                total += w[left[a, c] + right[b, c]]
            out[u] = factor * total
        return out

    return per_lmer


def _lmer_scores(X, y, l, k, C, repeat, *, show=True):
    """Every l-mer's score one l-mer at a time (baseline) and by halves, alternating; print the
    fastest of each, their ratio and the largest relative difference."""
    from seqimp.kernels import GKMClassifier

    gkm = GKMClassifier(l, k, C=C, tol=0.1, random_state=0).fit(X, y)
    per_lmer, tables = _per_lmer_kernel(), gkm.tables_
    best, out = {}, {}
    for _ in range(repeat):
        for name in ("per l-mer", "by halves"):
            start = time.perf_counter()
            out[name] = (per_lmer(tables.left, tables.right, gkm.coef_, 2.0 if gkm.reverse_complement else 1.0)
                         if name == "per l-mer" else gkm.lmer_scores())
            best[name] = min(best.get(name, np.inf), time.perf_counter() - start)
    diff = np.abs(out["per l-mer"] - out["by halves"]).max() / np.abs(out["per l-mer"]).max()
    if show:
        for name in ("per l-mer", "by halves"):
            print(f"l-mer scores {name}: {best[name]:.3f} s (fastest of {repeat}), {4 ** l:,} l-mers")
        print(f"time ratio per l-mer / by halves: {best['per l-mer'] / best['by halves']:.2f} "
              f"(largest difference {diff:.1e} of the largest score)")


def main(argv=None) -> int:
    from sklearn.metrics import roc_auc_score

    from seqimp.kernels import GKMClassifier, WDClassifier, gkm_kernel

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=1000, help="sequences, half positive (default 1000)")
    p.add_argument("--length", type=int, default=200, help="sequence length (default 200)")
    p.add_argument("--share", type=float, default=0.5, help="share of positives with the motif (default 0.5)")
    p.add_argument("--word-length", type=int, default=10, help="l (default 10)")
    p.add_argument("--informative", type=int, default=6, help="k (default 6; LS-GKM needs l - k <= 4)")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--kernel-n", type=int, default=40, help="sequences in the kernel comparison (default 40)")
    p.add_argument("--lsgkm", type=Path, default=None, help="folder of LS-GKM's binaries (skipped without)")
    p.add_argument("--gkmsvm-lite", type=Path, default=None, metavar="PYTHON",
                   help="a Python with gkmsvm-lite installed (a separate environment; skipped without)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--figure", type=Path, default=None, help="write the attributions of three positives here (PNG)")
    p.add_argument("--running-dtype", action="store_true",
                   help="only: time the fit with float64 against float32 running weights (item 4)")
    p.add_argument("--index-dtype", action="store_true",
                   help="only: time the fit with signed against unsigned table indices (item 5)")
    p.add_argument("--lmer-scores", action="store_true",
                   help="only: time every l-mer's score one at a time against by halves (item 6)")
    p.add_argument("--repeat", type=int, default=3, help="fits per running or index dtype, or l-mer scorings (default 3)")
    p.add_argument("--fasta", type=Path, nargs=2, default=None, metavar=("POS", "NEG"),
                   help="with --running-dtype, --index-dtype or --lmer-scores: these sequences instead of the planted set "
                        "(equal lengths)")
    args = p.parse_args(argv)
    l, k = args.word_length, args.informative
    if args.running_dtype or args.index_dtype or args.lmer_scores:
        compare = (_lmer_scores if args.lmer_scores else _index_dtypes if args.index_dtype else _running_dtypes)
        if args.fasta:
            from seqimp.io import read_fasta

            pos, neg = (read_fasta(f) for f in args.fasta)
            X, y = np.vstack([pos.codes, neg.codes]), np.r_[np.ones(len(pos), int), np.zeros(len(neg), int)]
            print(f"data: {args.fasta[0]} ({len(pos)}) against {args.fasta[1]} ({len(neg)}); l = {l}, k = {k}")
        else:
            X, y, _ = planted(args.n, args.length, share=args.share, seed=args.seed)
            print(f"data: {args.n} planted sequences of {args.length} nt; l = {l}, k = {k}")
        compare(X[:40], y[:40] if len(set(y[:40])) == 2 else np.arange(40) % 2, l, k, args.C, 1,
                show=False)  # compile first
        compare(X, y, l, k, args.C, args.repeat)
        return 0
    X, y, where = planted(args.n, args.length, share=args.share, seed=args.seed)
    test = np.random.default_rng(args.seed + 1).random(y.size) < 0.25
    print(f"data: {args.n} sequences of {args.length} nt, TTACGTAA anywhere in {args.share:.0%} of the positives; "
          f"{int((~test).sum())} train, {int(test.sum())} held out; l = {l}, k = {k}")
    lsgkm = args.lsgkm
    if lsgkm is None:
        print("LS-GKM: skipped (give --lsgkm DIR, the folder of gkmmatrix/gkmtrain/gkmpredict)")
    elif l - k > 4:
        print(f"LS-GKM: skipped (its -d is at most 4; l - k = {l - k})")
        lsgkm = None
    GKMClassifier(5, 3).fit(X[:20], y[:20] if len(set(y[:20])) == 2 else np.arange(20) % 2)  # compile first
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        G = gkm_kernel(X[:args.kernel_n], word_length=l, informative=k)
        if lsgkm is not None:
            M = _lsgkm_kernel(lsgkm, X[:args.kernel_n], l, k, work)
            print(f"kernel agreement on {args.kernel_n} sequences: max |seqimp - LS-GKM| = {np.abs(G - M).max():.2e} "
                  f"(LS-GKM writes 6 digits)")
        rows = []
        start = time.perf_counter()
        gkm = GKMClassifier(l, k, C=args.C).fit(X[~test], y[~test])
        rows.append(("seqimp GKMClassifier", time.perf_counter() - start,
                     roc_auc_score(y[test], gkm.decision_function(X[test]))))
        if lsgkm is not None:
            scores, seconds = _lsgkm_fit(lsgkm, X[~test], y[~test], X[test], l, k, args.C, work)
            rows.append(("LS-GKM gkmtrain -t 0", seconds, roc_auc_score(y[test], scores)))
        if args.gkmsvm_lite is None:
            print("gkmsvm-lite: skipped (give --gkmsvm-lite PYTHON, a Python where it is installed)")
        else:
            K, scores, seconds = _gkmsvm_lite(args.gkmsvm_lite, X, y, test, l, k, args.C, args.kernel_n, work)
            print(f"kernel agreement with gkmsvm-lite (direct kernel) on {args.kernel_n} sequences: "
                  f"max |seqimp - gkmsvm-lite| = {np.abs(G - K).max():.2e}")
            rows.append(("gkmsvm-lite 0.1.0 (direct, SMO)", seconds, roc_auc_score(y[test], scores)))
        start = time.perf_counter()
        wd = WDClassifier(degree=8, C=args.C).fit(X[~test], y[~test])
        rows.append(("seqimp WDClassifier (baseline, positional)", time.perf_counter() - start,
                     roc_auc_score(y[test], wd.decision_function(X[test]))))
    n_train = int((~test).sum())
    if args.figure is not None:
        _figure(args.figure, gkm, X, np.where(test, -1, where))  # sequences the model never saw
        print(f"figure: {args.figure}")
    print(f"{'model':45s} {'train s':>9s} {'s/1000 seq':>10s} {'auROC':>7s}")
    for name, seconds, auc in rows:
        print(f"{name:45s} {seconds:9.2f} {seconds * 1000 / n_train:10.2f} {auc:7.3f}")
    for name, seconds, _auc in rows[1:-1]:
        print(f"time ratio {name} / seqimp GKMClassifier: {seconds / rows[0][1]:.2f}")
    from seqimp.options import ModelOptions, MotifOptions
    from seqimp.pipeline import run_motifs

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run = run_motifs(tmp, positive=X[y == 1], negative=X[y == 0],
                                model=ModelOptions(kind="gkm", word_length=l, informative=k, C=args.C),
                                motifs=MotifOptions(strand="both"))
        seconds = time.perf_counter() - start
    best = run.motifs[0].consensus if run.motifs else "none"
    print(f"gkm motif route (seqimp motifs --model gkm, held-out split included): {seconds:.1f} s, "
          f"{seconds * 1000 / args.n:.2f} s per 1,000 sequences; best motif {best}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
