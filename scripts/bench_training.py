"""Benchmark WDClassifier training at scale: explicit features (liblinear) vs implicit features vs Dask.

For each n, random sequences of length 141 with GATTACA planted at positions 60-69 in
half of them and 10% label noise (the data of ``bench_kernels.py``) are generated in
blocks straight into a codes store on disk (``seqimp.io._store.write_codes_store`` layout).
Each route then trains ``WDClassifier(degree=8, C=1, tol=1e-4)`` in its own child
process and reports wall time of ``fit``, passes, seconds per pass, held-out accuracy
and the child's peak resident memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``,
which includes the Python interpreter, numpy, numba and sklearn):

* ``linear``   -- the explicit route (``method="linear"``): codes loaded, sparse feature
                  matrix, liblinear; run only where it fits (``--linear-max``, default 10^5);
* ``implicit`` -- the exact route (``solver="dcd"``): the codes stay a read-only memory map;
* ``fast``     -- the fast route (``solver="fast"``: the same passes, stopped when the model stops
                  changing; ``--validation-tol``, ``--weight-tol``, ``--patience`` set its rule);
* ``sgd``      -- averaged SGD with the same rule (``solver="sgd"``);
* ``dask``     -- the implicit route on ``LocalCluster(n_workers=2, threads_per_worker=1,
                  processes=False)`` (threads of the child, so its peak RSS is the whole
                  cluster's), CoCoA+ rounds of one local pass each.

Usage::

    python scripts/bench_training.py                   # n = 10^5 and 10^6
    python scripts/bench_training.py --n 100000        # one size
    python scripts/bench_training.py --huge            # adds 10^7 (about 1.4 GB of codes on disk)
    # exact vs fast side by side: time, passes, held-out accuracy, top-50 |FIRM| overlap per order
    python scripts/bench_training.py --n 100000 300000 --routes implicit fast --firm --full-passes 0
    python scripts/bench_training.py --n 10000000 --routes fast --full-passes 0 --verbose   # the 1-hour target
    # seconds per full pass of the solver's two weight layouts, alternated (A B A B A B)
    python scripts/bench_training.py --n 100000 --routes --layouts standard paired --repeat 3 --skip-dask-pass

``--layouts`` picks the solver's weight layout (seqimp/kernels/_layout.py): ``paired``
(orders k, k+1 of a position in one 64-byte record, the default for DNA) or
``standard`` (the wd_features layout); the iterates are the same numbers either way.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seqimp.io import open_codes_store
from seqimp.io._store import write_codes_store  # noqa: E402

MOTIF = np.array([2, 0, 3, 3, 0, 1, 0], dtype=np.uint8)  # GATTACA


def planted_block(rng, n, length):
    X = rng.integers(0, 4, (n, length), dtype=np.uint8)
    y = rng.random(n) < 0.5
    pos = rng.integers(60, 70, n)
    for r in np.flatnonzero(y):
        X[r, pos[r]:pos[r] + 7] = MOTIF
    return X, (y ^ (rng.random(n) < 0.1)).astype(np.int64)


def make_store(folder, n, length, seed, block=200_000):
    """Planted data written block by block into a codes store (memory: one block)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    codes = np.lib.format.open_memmap(folder / "codes.tmp.npy", mode="w+", dtype=np.uint8, shape=(n, length))
    labels = np.empty(n, dtype=np.int64)
    rng = np.random.default_rng(seed)
    for a in range(0, n, block):
        X, y = planted_block(rng, min(block, n - a), length)
        codes[a:a + X.shape[0]] = X
        labels[a:a + X.shape[0]] = y
    codes.flush()
    store = write_codes_store(folder / "store", codes, labels, ids=[f"s{r}" for r in range(n)])
    del codes
    os.remove(folder / "codes.tmp.npy")
    return store


def set_layout():
    """The solver's weight layout named by the parent (SEQIMP_BENCH_LAYOUT: paired or standard)."""
    from seqimp.kernels import _layout

    _layout.PAIRING = os.environ.get("SEQIMP_BENCH_LAYOUT", "paired") == "paired"


#: the single-machine solver of each route (WDClassifier(solver=...)); "implicit" is the exact route
SOLVERS = {"implicit": "dcd", "fast": "fast", "sgd": "sgd", "linear": "dcd", "dask": "dcd", "dask-fast": "fast"}


def top_firm(weights, degree, top=50):
    """Per order k = 2..degree, the flat indices (position * 4**k + k-mer) of the top ``top``
    positional k-mers by |FIRM| of ``weights`` (PositionalWeights) under the uniform background
    (exact POIM)."""
    import seqimp
    from seqimp import MarkovBackground

    res = seqimp.poim(weights, MarkovBackground.uniform(weights.length), degree, engine="memory")
    return [np.argsort(-np.abs(res.firm[k - 1]).ravel(), kind="stable")[:top].tolist() for k in range(2, degree + 1)]


def child(route, store_path, test_path, degree, max_iter, verbose=False, tol=1e-4, n_jobs=1):
    from seqimp import WDClassifier
    from seqimp.kernels._dcd import svm_primal_objective

    store = open_codes_store(store_path)
    test = open_codes_store(test_path)
    Xt, yt = np.asarray(test.codes), np.asarray(test.labels)
    WDClassifier(degree=2).fit(Xt[:50], yt[:50])                       # load the numba cache
    WDClassifier(degree=2, method="linear").fit(Xt[:50], yt[:50])
    y = np.asarray(store.labels)
    rule = json.loads(os.environ.get("SEQIMP_BENCH_RULE", "{}"))    # validation_tol, weight_tol, patience
    model = WDClassifier(degree=degree, C=1.0, tol=tol, max_iter=max_iter, random_state=0, verbose=verbose,
                         memory_budget="1TB" if route == "linear" else None, n_jobs=n_jobs, solver=SOLVERS[route],
                         **rule)
    client = None
    if route == "linear":
        model.set_params(method="linear")
        X = np.array(store.codes)                                      # the old route needs codes in memory
    else:
        X = store.codes                                                # read-only memory map
    if route.startswith("dask"):
        from seqimp.kernels import connect

        client = connect(n_workers=2, threads_per_worker=1, processes=False)
        model.set_params(client=client)
    start = time.perf_counter()
    model.fit(X, y)
    fit_s = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if client is not None:
        client.close()
    acc = float(np.mean(model.predict(Xt) == yt))
    primal = svm_primal_objective(X, y, model.coef_, model.intercept_, degree=degree, C=1.0)
    dual = getattr(model, "dual_objective_", float("nan"))
    top = top_firm(model.positional_weights(), degree) if os.environ.get("SEQIMP_BENCH_FIRM") else None
    print(json.dumps(dict(route=route, fit_s=fit_s, passes=int(model.n_iter_), per_pass_s=fit_s / model.n_iter_,
                          accuracy=acc, peak_rss=peak, primal=primal, gap=(primal - dual) / primal, top_firm=top,
                          history=getattr(model, "stopping_history_", None))))


def child_passes(route, store_path, passes, degree, n_jobs=1):
    """Seconds per full pass (no shrinking, fixed number of passes/rounds): single process vs 2 Dask workers."""
    import warnings

    from seqimp.kernels import connect
    from seqimp.kernels._dcd import dcd_svm
    from seqimp.kernels._distributed import dcd_svm_distributed

    store = open_codes_store(store_path)
    y = np.asarray(store.labels)
    warnings.simplefilter("ignore")
    dcd_svm(store.codes[:50], y[:50], degree=2, max_iter=1)            # load the numba cache
    kwargs = dict(degree=degree, C=1.0, tol=1e-4, max_iter=passes, shrinking=False)
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = used.ru_utime + used.ru_stime
    start = time.perf_counter()
    if route == "implicit-pass":
        dcd_svm(store.codes, y, n_jobs=n_jobs, **kwargs)
    else:
        client = connect(n_workers=2, threads_per_worker=1, processes=False)
        start = time.perf_counter()
        dcd_svm_distributed(store.codes, y, client=client, **kwargs)
    elapsed = time.perf_counter() - start
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = used.ru_utime + used.ru_stime - cpu0     # the process's CPU time: less hit by other jobs than wall time
    print(json.dumps(dict(route=route, per_pass_s=elapsed / passes, cpu_per_pass_s=cpu / passes,
                          peak_rss=used.ru_maxrss * 1024)))


def run_route(route, store, test, degree, max_iter, verbose=False, tol=1e-4, n_jobs=1, layout="paired",
              time_limit=None, rule=None, firm=False):
    """Run one route in a child process; its last stdout line is a JSON record (stderr passes through).

    With ``time_limit`` (seconds) a child still running then is stopped: the record is
    ``{"stopped_s": ..., "peak_rss": ...}`` (peak from /proc, read just before the stop); with
    ``verbose`` its last pass line on stderr says how far it got.
    """
    cmd = [sys.executable, __file__, "--child", route, str(store.path), str(test.path), str(degree), str(max_iter)]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               SEQIMP_BENCH_VERBOSE="1" if verbose else "", SEQIMP_BENCH_TOL=repr(tol),
               SEQIMP_BENCH_JOBS=str(n_jobs), SEQIMP_BENCH_LAYOUT=layout, SEQIMP_BENCH_RULE=json.dumps(rule or {}),
               SEQIMP_BENCH_FIRM="1" if firm else "")
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=None if verbose else subprocess.DEVNULL,
                             text=True, env=env)
    try:
        out, _ = child.communicate(timeout=time_limit)
    except subprocess.TimeoutExpired:
        peak = _peak_rss_of(child.pid)
        child.kill()
        child.communicate()
        return {"stopped_s": time.perf_counter() - start, "peak_rss": peak}
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, cmd)
    return json.loads(out.strip().splitlines()[-1])


def _peak_rss_of(pid):
    """VmHWM of a running process in bytes (NaN where /proc cannot be read)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return float("nan")


def full_passes(store, test, args):
    """Seconds per full pass of the single-process solver for each layout, alternated ``--repeat`` times;
    prints every run, the medians and their ratio; returns the median of the first layout."""
    times = {layout: [] for layout in args.layouts}
    cpu = {layout: [] for layout in args.layouts}
    for rep in range(args.repeat):
        for layout in args.layouts:
            r = run_route("implicit-pass", store, test, args.degree, args.full_passes, layout=layout)
            times[layout].append(r["per_pass_s"])
            cpu[layout].append(r["cpu_per_pass_s"])
            print(f"  full passes ({args.full_passes}, no shrinking), {layout:8s} layout, run {rep + 1}: "
                  f"{r['per_pass_s']:.3f} s/pass (CPU {r['cpu_per_pass_s']:.3f} s/pass), "
                  f"peak RSS {r['peak_rss'] / 2 ** 30:.2f} GiB", flush=True)
    if len(times) > 1:
        a, b = args.layouts[:2]
        for what, t in (("wall", times), ("CPU", cpu)):
            med = {layout: float(np.median(v)) for layout, v in t.items()}
            print(f"  median {what} s/pass: " + ", ".join(f"{k} {v:.3f}" for k, v in med.items())
                  + f"; {a} / {b}: {med[a] / med[b]:.3f}x", flush=True)
    return float(np.median(times[args.layouts[0]]))


def compare_fast(exact, fast, a, b):
    """Print a fast route beside the exact one: time, passes, held-out accuracy, top-50 |FIRM| overlap per order."""
    print(f"  {b} vs {a}: fit time {fast['fit_s'] / exact['fit_s']:.2f}x ({fast['fit_s']:.1f} s vs "
          f"{exact['fit_s']:.1f} s; target <= 0.33x), passes {fast['passes']} vs {exact['passes']}, held-out accuracy "
          f"{fast['accuracy']:.4f} vs {exact['accuracy']:.4f} (difference {fast['accuracy'] - exact['accuracy']:+.4f}, "
          f"target within 0.002)", flush=True)
    print_overlap(exact, fast, "the exact top 50 by |FIRM| in the fast top 50")


def print_overlap(a, b, what):
    """The share of ``a``'s top 50 |FIRM| oligomers in ``b``'s, per order (where both have them)."""
    if a.get("top_firm") and b.get("top_firm"):
        shares = [len(set(e) & set(f)) / len(e) for e, f in zip(a["top_firm"], b["top_firm"])]
        print(f"    share of {what} (target >= 0.90), order k = 2..: "
              + ", ".join(f"k={k} {v:.2f}" for k, v in enumerate(shares, start=2)), flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--huge", action="store_true", help="also n = 10^7")
    p.add_argument("--length", type=int, default=141)
    p.add_argument("--degree", type=int, default=8)
    p.add_argument("--max-iter", type=int, default=1000, help="passes of the linear and implicit routes")
    p.add_argument("--dask-max-iter", type=int, default=100,
                   help="rounds of the Dask route (CoCoA+ converges sublinearly on the hinge loss: "
                        "its time per pass is the comparison; its objective is printed)")
    p.add_argument("--routes", nargs="*", default=["linear", "implicit", "dask"],
                   choices=["linear", "implicit", "fast", "sgd", "dask", "dask-fast"],
                   help="implicit: the exact route (solver='dcd'); fast: solver='fast'; sgd: solver='sgd'; dask: "
                        "CoCoA+ to tol on 2 local workers; dask-fast: CoCoA+ with the fast route's stopping rule")
    p.add_argument("--validation-tol", type=float, default=None, help="the fast routes' validation_tol")
    p.add_argument("--weight-tol", type=float, default=None, help="the fast routes' weight_tol")
    p.add_argument("--patience", type=int, default=None, help="the fast routes' patience")
    p.add_argument("--optimum-tol", type=float, default=None,
                   help="the fast route's optimum_tol (estimated distance to the optimum, in ||w||/sqrt(n))")
    p.add_argument("--shrink-margin", type=float, default=None,
                   help="the fast route's shrink_margin (skip rows at 0 with margin > 1 + this, from pass 4 on)")
    p.add_argument("--validation-fraction", type=float, default=None, help="the fast routes' validation_fraction")
    p.add_argument("--no-refit", action="store_true",
                   help="the fast route's refit=False: the validation slice stays out of training")
    p.add_argument("--extrapolate", action="store_true",
                   help="the fast route's extrapolate=True: a line search of the dual along every pass's move")
    p.add_argument("--average", default=None, metavar="ETA",
                   help="the fast route's average (polynomial-decay eta of the pass-end iterates; 'none': the last "
                        "iterate); default: the library's")
    p.add_argument("--firm", action="store_true",
                   help="compare the fast routes with the exact one: held-out accuracy and, per order k = 2..degree, "
                        "the share of the exact fit's top-50 positional k-mers by |FIRM| in the fast fit's top 50")
    p.add_argument("--full-passes", type=int, default=5,
                   help="full passes (no shrinking) timed for the per-pass comparison of the single-process "
                        "and Dask routes (0: skip); with --routes and no route, only this comparison")
    p.add_argument("--tol", type=float, default=1e-4,
                   help="stopping tolerance of every route (liblinear's eps: max - min projected gradient of a pass)")
    p.add_argument("--n-jobs", type=int, nargs="+", default=[1],
                   help="threads of the implicit route; one fit per value (the same model up to its last digits)")
    p.add_argument("--fast-jobs", type=int, nargs="+", default=None,
                   help="threads of the fast route (default: --n-jobs); with 2 or more each pass runs on the threads "
                        "sharing the weights (seqimp/kernels/_async_dcd.py)")
    p.add_argument("--layouts", nargs="+", default=["paired"], choices=["paired", "standard"],
                   help="the solver's weight layout(s): the fits use the first; the full passes run each, "
                        "alternating --repeat times")
    p.add_argument("--repeat", type=int, default=1, help="rounds of full passes over the layouts (A B A B ...)")
    p.add_argument("--skip-dask-pass", action="store_true", help="no Dask route in the full-pass comparison")
    p.add_argument("--linear-max", type=int, default=100_000, help="largest n for the explicit route")
    p.add_argument("--verbose", action="store_true", help="the fits report each pass on stderr")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="stop a fit still running after SECONDS and report its peak memory (with --verbose its "
                        "last pass line tells how far it got), e.g. 7200 for the 2-hour target at 10^7")
    p.add_argument("--workdir", default=None, help="where the codes stores go (default: a temporary folder)")
    p.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        route, store, test, degree, max_iter = args.child
        n_jobs = int(os.environ.get("SEQIMP_BENCH_JOBS", "1"))
        set_layout()
        if route.endswith("-pass"):
            child_passes(route, store, int(max_iter), int(degree), n_jobs=n_jobs)
        else:
            child(route, store, test, int(degree), int(max_iter), verbose=bool(os.environ.get("SEQIMP_BENCH_VERBOSE")),
                  tol=float(os.environ.get("SEQIMP_BENCH_TOL", "1e-4")), n_jobs=n_jobs)
        return
    sizes = list(args.n) + ([10_000_000] if args.huge else [])
    rule = {name: value for name, value in (("validation_tol", args.validation_tol), ("weight_tol", args.weight_tol),
                                            ("patience", args.patience), ("optimum_tol", args.optimum_tol),
                                            ("shrink_margin", args.shrink_margin),
                                            ("validation_fraction", args.validation_fraction))
            if value is not None}
    if args.no_refit:
        rule["refit"] = False
    if args.extrapolate:
        rule["extrapolate"] = True
    if args.average is not None:
        rule["average"] = None if args.average.lower() == "none" else float(args.average)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        test = make_store(Path(tmp) / "test", 5000, args.length, seed=99)
        for n in sizes:
            t0 = time.perf_counter()
            store = make_store(Path(tmp) / f"n{n}", n, args.length, seed=1)
            print(f"n = {n:,} sequences of {args.length} nt, degree {args.degree} "
                  f"(codes store {store.codes.nbytes / 1e6:.0f} MB written in {time.perf_counter() - t0:.0f} s)",
                  flush=True)
            res = {}
            for route in args.routes:
                if route == "linear" and n > args.linear_max:
                    nnz = n * sum(args.length - k + 1 for k in range(1, args.degree + 1))
                    print(f"  {route:8s}: skipped (needs ~{30 * nnz / 1e9:.0f} GB)", flush=True)
                    continue
                jobs_of = {"implicit": args.n_jobs, "fast": args.fast_jobs or args.n_jobs}
                for jobs in jobs_of.get(route, [1]):
                    label = f"{route}, {jobs} thread{'s' * (jobs > 1)}" if route in ("implicit", "fast") else route
                    r = run_route(route, store, test, args.degree,
                                  args.dask_max_iter if route == "dask" else args.max_iter,
                                  args.verbose, tol=args.tol, n_jobs=jobs, layout=args.layouts[0],
                                  time_limit=args.time_limit, rule=rule, firm=args.firm)
                    if "stopped_s" in r:
                        print(f"  {label:19s}: stopped at the time limit after {r['stopped_s']:.1f} s, not converged; "
                              f"peak RSS {r['peak_rss'] / 2 ** 30:5.2f} GiB", flush=True)
                        continue
                    res[label] = r
                    gap = "" if r["gap"] != r["gap"] else f", relative duality gap {r['gap']:.1e}"
                    print(f"  {label:19s}: fit {r['fit_s']:7.1f} s, {r['passes']:4d} passes ({r['per_pass_s']:.2f} s/pass), "
                          f"peak RSS {r['peak_rss'] / 2 ** 30:5.2f} GiB, held-out accuracy {r['accuracy']:.3f}, "
                          f"primal objective {r['primal']:.6g}{gap}", flush=True)
            base = next((k for k in res if k.startswith("implicit, 1 ")), next((k for k in res if k.startswith("implicit")), None))
            if base:
                for label in res:
                    if label.startswith(("fast", "sgd")):
                        compare_fast(res[base], res[label], base, label)
            for route in ("implicit", "fast"):
                one = next((k for k in res if k.startswith(f"{route}, 1 ")), None)
                for label in res:
                    if not (one and label.startswith(route) and label != one):
                        continue
                    a, b = res[one], res[label]
                    print(f"  {one} / {label}: fit time {a['fit_s'] / b['fit_s']:.2f}x (target >= 1.6x on 2 threads), "
                          f"time per pass {a['per_pass_s'] / b['per_pass_s']:.2f}x, passes {b['passes']} vs "
                          f"{a['passes']}, held-out accuracy {b['accuracy']:.4f} vs {a['accuracy']:.4f} (difference "
                          f"{b['accuracy'] - a['accuracy']:+.4f}, target within 0.002)", flush=True)
                    print_overlap(a, b, "the one-thread top 50 by |FIRM| in the threads' top 50")
            if "linear" in res and base:
                a, b = res["linear"], res[base]
                print(f"  linear / {base}: fit time {a['fit_s'] / b['fit_s']:.2f}x, peak RSS "
                      f"{a['peak_rss'] / b['peak_rss']:.2f}x; primal objective, implicit vs linear: relative "
                      f"difference {(b['primal'] - a['primal']) / a['primal']:+.2e}")
            if "dask-fast" in res and "fast, 1 thread" in res:
                a, b = res["dask-fast"], res["fast, 1 thread"]
                print(f"  dask-fast / fast, 1 thread: {a['passes']} rounds vs {b['passes']} passes to the same stopping "
                      f"rule: {a['passes'] / b['passes']:.2f}x (target <= 1.3x); held-out accuracy {a['accuracy']:.4f} "
                      f"vs {b['accuracy']:.4f}", flush=True)
            if "dask" in res and base:
                a, b = res["dask"], res[base]
                ratio = a['per_pass_s'] / b['per_pass_s']
                print(f"  dask / {base}: mean time per round/pass of the fits {ratio:.2f}x "
                      f"(both shrink), fit time {a['fit_s'] / b['fit_s']:.2f}x, {a['passes']} rounds vs "
                      f"{b['passes']} passes; primal objective, dask vs implicit: relative difference "
                      f"{(a['primal'] - b['primal']) / b['primal']:+.2e}", flush=True)
            if args.full_passes:
                one = full_passes(store, test, args)
                if not args.skip_dask_pass:
                    two = run_route("dask-pass", store, test, args.degree, args.full_passes,
                                    layout=args.layouts[0])["per_pass_s"]
                    print(f"  full passes (no shrinking, {args.full_passes} each): single process {one:.2f} s/pass, "
                          f"Dask 2 workers {two:.2f} s/pass: ratio {two / one:.2f}x (target <= 1.3x)", flush=True)
            store = None


if __name__ == "__main__":
    main()
