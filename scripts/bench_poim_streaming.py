"""Benchmark of the streaming exact POIM against the in-memory engine.

Setting: L = 1000, random degree-8 positional weights, homogeneous Markov order-2 background,
max_order 8, 10 and 12. Each (engine, max_order) runs in its own subprocess; reported are
the time of the POIM call (``seqimp.poim(..., engine="memory")`` without ranking its tables;
``engine="stream"`` including its top-N lists) and the child's peak RSS (``resource.getrusage(RUSAGE_CHILDREN)``,
which includes the 0.7 GB of weights and the Python/numba runtime). The in-memory engine
runs only where its estimate fits half the available RAM. Numba kernels are compiled (and
cached) once in the parent before the children run. Asserts nothing.

Run: ``python scripts/bench_poim_streaming.py [--orders 8 10 12] [--max-memory 4G]``
(2 cores shared with other work: times vary from run to run.)
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import resource
import subprocess
import sys
import time

LENGTH, DEGREE, BG_ORDER = 1000, 8, 2


def child(engine, max_order, max_memory, length, summary_path=None):
    import numpy as np

    from seqimp import MarkovBackground, PositionalWeights, poim

    rng = np.random.default_rng(0)
    tables = [rng.normal(size=(length - k + 1, 4 ** k)) for k in range(1, DEGREE + 1)]
    weights = PositionalWeights(tables, bias=0.1)
    init = rng.dirichlet(np.ones(4 ** BG_ORDER))
    trans = rng.dirichlet(np.ones(4), size=4 ** BG_ORDER)
    bg = MarkovBackground.from_arrays(init, trans)
    t0 = time.perf_counter()
    if engine == "memory":
        res = poim(weights, bg, max_order, engine="memory")
        seconds = time.perf_counter() - t0
        top = res.top(1, measure="firm")
        best = (str(top["oligomer"][0]), int(top["position"][0]), float(top["firm"][0]))
        if summary_path:
            from seqimp.importance import StreamedPOIM

            StreamedPOIM.from_result(res).save(summary_path)
    else:
        res = poim(weights, bg, max_order, engine="stream", max_memory=max_memory)
        seconds = time.perf_counter() - t0
        top = res.top(1, "firm")
        best = (str(top["oligomer"].iloc[0]), int(top["position"].iloc[0]), float(top["firm"].iloc[0]))
        if summary_path:
            res.save(summary_path)
    print(json.dumps({"seconds": seconds, "best": best, "block": res.meta.get("block")}))


def measure(engine, max_order, max_memory, length):
    """Run one configuration in a child; RUSAGE_CHILDREN of this (fresh) process is that child's peak."""
    cmd = [sys.executable, __file__, "--child", engine, str(max_order), str(max_memory), str(length)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if out.returncode != 0:
        info = {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"rc {out.returncode}"}
    else:
        info = json.loads(out.stdout.strip().splitlines()[-1])
        info["rss_gb"] = rss_kib * 1024 / 1e9
    print(json.dumps(info))


def run_child(engine, max_order, max_memory, length):
    # a fresh intermediate process per configuration, so that ru_maxrss is not a maximum over configurations
    cmd = [sys.executable, __file__, "--measure", engine, str(max_order), str(max_memory or 0), str(length)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--orders", type=int, nargs="+", default=[8, 10, 12])
    p.add_argument("--max-memory", default="4G", help="max_memory of the streaming runs (default 4G)")
    p.add_argument("--length", type=int, default=LENGTH)
    p.add_argument("--child", nargs=4)
    p.add_argument("--measure", nargs=4)
    args = p.parse_args()
    if args.measure:
        engine, k, mm, length = args.measure
        measure(engine, int(k), int(mm), int(length))
        return
    if args.child:
        engine, k, mm, length = args.child
        folder = os.environ.get("BENCH_SUMMARY_DIR")
        child(engine, int(k), int(mm) or None, int(length),
              os.path.join(folder, f"{engine}_{k}.npz") if folder else None)
        return
    from seqimp._utils.sizes import parse_size
    from seqimp.importance import plan_poim

    max_memory = parse_size(args.max_memory, "--max-memory")
    folder = tempfile.mkdtemp(prefix="bench_poim_")
    os.environ["BENCH_SUMMARY_DIR"] = folder
    # compile and cache the kernels once, outside the timed children
    subprocess.run([sys.executable, __file__, "--child", "memory", "3", "0", "20"], check=True, capture_output=True)
    subprocess.run([sys.executable, __file__, "--child", "stream", "5", "0", "20"], check=True, capture_output=True)
    print(f"L = {args.length}, degree {DEGREE} random weights, Markov order {BG_ORDER} background; "
          f"streaming under max_memory = {args.max_memory}")
    print(f"{'K':>3} {'engine':>10} {'block':>6} {'time s':>9} {'peak RSS GB':>12}  top |FIRM| oligomer")
    for k in args.orders:
        plan = plan_poim(args.length, k, BG_ORDER, None, degree=DEGREE)
        rows = {}
        engines = (["memory"] if not plan.streaming else []) + ["stream"]
        for engine in engines:
            info = run_child(engine, k, max_memory if engine == "stream" else None, args.length)
            rows[engine] = info
            if "error" in info:
                print(f"{k:>3} {engine:>10} failed: {info['error']}")
                continue
            print(f"{k:>3} {engine:>10} {str(info['block'] or ''):>6} {info['seconds']:9.1f} {info['rss_gb']:12.2f}  "
                  f"{info['best'][0]}@{info['best'][1]} ({info['best'][2]:.4g})", flush=True)
        if plan.streaming:
            print(f"{k:>3} {'memory':>10} skipped: needs about {plan.bytes_in_memory / 1e9:.1f} GB "
                  f"> {plan.budget / 1e9:.1f} GB (half the available RAM)")
        elif "error" not in rows.get("memory", {"error": 1}) and "error" not in rows["stream"]:
            m, s = rows["memory"], rows["stream"]
            print(f"{k:>3}  ratio streaming/in-memory: time {s['seconds'] / m['seconds']:.2f}, "
                  f"peak RSS {s['rss_gb'] / m['rss_gb']:.2f}; same top oligomer: {m['best'][:2] == s['best'][:2]}")
            print(f"{k:>3}  {compare(folder, k)}")


def compare(folder, k):
    """Largest differences of the summaries (in-memory result summarised vs streamed)."""
    import numpy as np

    from seqimp.importance import load_poim

    m, s = (load_poim(os.path.join(folder, f"{e}_{k}.npz")) for e in ("memory", "stream"))
    dmax = float(np.nanmax(np.abs(m.maximal - s.maximal)))
    ddiff = float(np.nanmax(np.abs(m.differential - s.differential)))
    same, dval = True, 0.0
    for order in range(1, k + 1):
        for measure in ("poim", "firm"):
            a, b = m.top(m.top_n, measure, order=order), s.top(s.top_n, measure, order=order)
            same &= list(a["oligomer"]) == list(b["oligomer"]) and a["position"].equals(b["position"])
            dval = max(dval, float(np.nanmax(np.abs(a[["poim", "firm"]].to_numpy() - b[["poim", "firm"]].to_numpy()))))
    return (f"max |diff| maximal {dmax:.1e}, differential {ddiff:.1e}; top-{m.top_n} lists per order and measure "
            f"identical: {same} (values to {dval:.1e})")


if __name__ == "__main__":
    main()
