"""The floor of a ``seqimp motifs`` run against STREME's whole run on the same files (the
small sets, where the floor is most of a run; docs/benchmarks/motifs.md).

Each repeat runs, in fresh processes and in an order that alternates from repeat to repeat:

* ``python -c pass`` -- the interpreter alone;
* the libraries a motif run needs, imported one after the other in one process (NumPy, pandas,
  SciPy's statistics, scikit-learn's estimator base and model selection, numba, matplotlib's
  figure and Agg canvas), with the CPU seconds after each;
* exactly the modules a run loads (every module in ``sys.modules`` at the end of a run of the
  same set that was not there before it, imported in the run's order): interpreter + imports;
* the run itself (``seqimp.cli.main(["motifs", ..., "--strand", "both", "--quiet"])``) with
  every numba dispatcher's compile-or-load timed (after the benchmark's warm-up these are cache
  loads): how many a run loads, what each costs, the first (numba's target set-up) apart;
* STREME (``--streme``) on the same files with the stored answers' options.

After the repeats, one more run with the CPU seconds of its steps (:data:`PHASES`: the route's
WD fit, the gkm fits, attributions, l-mer seeds, refinement, files and logos, ...).

The floor is interpreter + the run's imports + its cache loads: what any run of this Python
stack pays before it computes. Wall seconds and CPU seconds (user + system, ``os.wait4``) are
printed as the median over the repeats; on a shared machine read them beside each other.

    python scripts/bench_motif_floor.py --streme /tmp/meme-build/src/streme
    python scripts/bench_motif_floor.py --streme /tmp/meme-build/src/streme --set generated --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from motif_scenarios import timed_process
from scenario_sets import SHARED

LIBRARIES = ["numpy", "pandas", "scipy.stats", "sklearn.base", "sklearn.model_selection", "numba",
             "matplotlib.figure", "matplotlib.backends.backend_agg"]

_LIBS = """
import json, sys, time
out = {}
for name in sys.argv[1:]:
    __import__(name)
    out[name] = time.process_time()
print(json.dumps(out))
"""

_IMPORTS = """
import importlib, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception:  # a module that only imports inside its package's set-up
        pass
"""

# the least any motif run of this stack needs: NumPy, scikit-learn's estimator base (the
# classifiers are scikit-learn estimators; it imports SciPy's statistics), numba, and one cached
# kernel called (numba's target set-up, then the cache load)
_LEAST = """
import numpy as np
import sklearn.base
from seqimp.importance._poim_kernels import row_abs_max
row_abs_max(np.ones((3, 4)), np.empty(3))
"""

_RUN = """
import json, sys, time
t0, c0, before = time.perf_counter(), time.process_time(), set(sys.modules)
from numba.core import dispatcher
loads, depth, compile_ = [], [0], dispatcher.Dispatcher.compile
def timed(self, sig):  # seqimp's dispatchers only, not numba's own overloads they compile with
    if depth[0] or not self.py_func.__module__.startswith("seqimp"):
        return compile_(self, sig)
    depth[0], misses, c = 1, sum(self._cache_misses.values()), time.process_time()
    try:
        result = compile_(self, sig)
    finally:
        depth[0] = 0
    loads.append([time.process_time() - c, self.py_func.__module__ + "." + self.py_func.__qualname__,
                  sum(self._cache_misses.values()) > misses])
    return result
dispatcher.Dispatcher.compile = timed
from seqimp.cli import main
phases = {}
# PHASES
c_main = time.process_time()
code = main(["motifs", "--positive", sys.argv[1], "--negative", sys.argv[2], "--out", sys.argv[3],
             "--strand", "both", "--quiet"])
print(json.dumps({"code": code, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0, "loads": loads,
                  "phases": phases, "main_cpu": time.process_time() - c_main,
                  "modules": [m for m in sys.modules if m not in before and not m.startswith("__")]}))
"""

#: The steps of a run whose CPU seconds are printed after the repeats: (module, function, what
#: it is); a step inside an earlier one ("within it") is counted in both. Their modules are imported before the run, so
#: the figures are compute (and cache loads), not imports.
PHASES = [
    ("seqimp.training._classifier", "train_classifier", "WD model on the held-out split (the route's choice)"),
    ("seqimp.training._gkm", "train_gkm", "gkm fits (held out, all sequences, each round's)"),
    ("seqimp.importance._gkmexplain", "gkm_attributions", "gkmexplain attributions"),
    ("seqimp.importance._gkmexplain", "find_seqlets", "seqlets"),
    ("seqimp.motifs._gkm_seeds", "lmer_seeds", "l-mer seeds (scores of all 4^l l-mers, ranked)"),
    ("seqimp.pipeline._motif_run", "run_motifs", "the WD route's run (training, POIM, motifs)"),
    ("seqimp.motifs._refine", "refine_motifs", "refinement: EM, sites, statistics"),
    ("seqimp.motifs._zoops_fit", "held_out_sites", "  within it: the refits on held-out halves"),
    ("seqimp.motifs._tune", "tune_pwm", "  within it: the PWM tuned at the site threshold (gkm)"),
    ("seqimp.motifs._select", "select_motifs", "selection"),
    ("seqimp.pipeline._motif_files", "write_motif_run", "files and logos"),
    ("seqimp.plot._save", "save_figure", "  within it: figures saved (drawn, encoded)"),
    ("seqimp.pipeline._motif_files", "update_report", "report"),
]

_WRAP = """
import importlib
def wrap(module, name):
    original = getattr(importlib.import_module(module), name)
    def timed(*args, **kwargs):
        c = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            phases[name] = phases.get(name, 0.0) + time.process_time() - c
    for m in list(sys.modules.values()):  # every module holding it, and those that import it later
        if getattr(m, "__name__", "").startswith("seqimp") and getattr(m, name, None) is original:
            setattr(m, name, timed)
for module, name, _what in PHASES:
    wrap(module, name)
"""


def _child(code, args, log):
    """``python -c code args``: its Timing and the JSON of its last stdout line."""
    timing = timed_process([sys.executable, "-c", code, *map(str, args)], log)
    lines = Path(log).read_text().strip().splitlines()
    return timing, (json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None)


def _sets(which, shared):
    folder = Path(shared) / "motif_benchmark_2"
    out = []
    if which in ("public", "both"):
        out.append(("few (public, IRF1)", folder / "few_pos.fa", folder / "few_neg.fa"))
    if which in ("generated", "both"):
        from scenario_sets import generate

        sc = generate("few", 1, Path(tempfile.mkdtemp(prefix="floor_sets_")), shared)
        out.append(("few (generated seed 1, MEF2A)", sc.pos, sc.neg))
    return out


def measure(name, pos, neg, streme, repeats, tmp):
    """Print the floor table of one set."""
    rows = {k: [] for k in ("pass", "least", "imports", "run", "streme")}
    libs, loads = [], []
    modules = _child(_RUN, [pos, neg, tmp / "warm"], tmp / "warm.log")[1]["modules"]  # fills the numba cache
    for r in range(repeats):
        order = ["streme", "pass", "least", "libs", "imports", "run"]
        for step in (order if r % 2 == 0 else order[::-1]):
            log = tmp / f"{step}{r}.log"
            if step == "streme" and streme:
                rows["streme"].append(timed_process([streme, "--p", str(pos), "--n", str(neg), "--dna", "--oc",
                                                     str(tmp / f"streme{r}")], log))
            elif step == "pass":
                rows["pass"].append(_child("pass", [], log)[0])
            elif step == "least":
                rows["least"].append(_child(_LEAST, [], log)[0])
            elif step == "libs":
                libs.append(_child(_LIBS, LIBRARIES, log)[1])
            elif step == "imports":
                rows["imports"].append(_child(_IMPORTS, modules, log)[0])
            elif step == "run":
                timing, info = _child(_RUN, [pos, neg, tmp / f"run{r}"], log)
                rows["run"].append(timing)
                loads.append(info["loads"])

    _timing, info = _child(_RUN.replace("# PHASES", f"PHASES = {PHASES!r}\n{_WRAP}"), [pos, neg, tmp / "phases"],
                           tmp / "phases.log")

    def med(ts, what):
        return statistics.median(getattr(t, what) for t in ts) if ts else float("nan")

    load_cpu = [sum(s for s, _, miss in run if not miss) for run in loads]  # cache hits only
    compiled = sorted({n for run in loads for _, n, miss in run if miss})
    first = [run[0][0] for run in loads if run and not run[0][2]]
    loads_cpu = statistics.median(load_cpu)
    s_wall, s_cpu = med(rows["streme"], "wall"), med(rows["streme"], "cpu")

    def row(what, wall, cpu):
        print(f"| {what} | {wall:.2f} | {cpu:.2f} | {wall / s_wall:.2f} | {cpu / s_cpu:.2f} |")

    print(f"\n### {name}: {pos.name} / {neg.name}, {repeats} repeats, medians\n")
    print("| what | wall s | CPU s | wall / STREME's | CPU / STREME's |")
    print("|---|---|---|---|---|")
    row("python -c pass", med(rows["pass"], "wall"), med(rows["pass"], "cpu"))
    row("the least: interpreter + NumPy + sklearn.base (SciPy's statistics) + numba + one cached kernel called",
        med(rows["least"], "wall"), med(rows["least"], "cpu"))
    previous = 0.0
    for lib in LIBRARIES:
        now = statistics.median(d[lib] for d in libs)
        print(f"| + import {lib} (CPU in one process, cumulative) | - | {now:.2f} (+{now - previous:.2f}) | - | - |")
        previous = now
    imports = (med(rows["imports"], "wall"), med(rows["imports"], "cpu"))
    row(f"interpreter + every module the run loads ({len(modules)}, {sum(m.startswith('seqimp') for m in modules)} "
        "of seqimp)", *imports)
    print(f"| numba: {sum(not miss for _, _, miss in loads[-1])} cached dispatchers loaded in the run (the first, "
          f"with numba's set-up, {statistics.median(first):.2f}) | - | {loads_cpu:.2f} | - | - |")
    row("**floor** = the run's imports + its cache loads", imports[0] + loads_cpu, imports[1] + loads_cpu)
    row("the whole seqimp run", med(rows["run"], "wall"), med(rows["run"], "cpu"))
    row("STREME 5.5.8, the whole run", s_wall, s_cpu)
    print(f"\nSteps of one more run (CPU s; their modules imported before it, so no imports in them; "
          f"load average {os.getloadavg()[0]:.1f}):\n")
    print("| step | CPU s |")
    print("|---|---|")
    top = 0.0
    for _module, name, what in PHASES:
        if name in info["phases"]:
            print(f"| {what.strip()} (`{name}`) | {info['phases'][name]:.2f} |")
            top += 0.0 if what.startswith(" ") else info["phases"][name]
    if "run_motifs" not in info["phases"]:  # the WD route's run holds the other steps
        rest = info["main_cpu"] - top
        print(f"| the rest of the run (reading, route, cache loads, masking, tables, log) | {rest:.2f} |")
    print(f"| the whole run after the imports | {info['main_cpu']:.2f} |")
    each = ", ".join(f"{n.split('.', 1)[1]} {s:.3f}" for s, n, _ in loads[-1])
    print(f"\ncache loads of the last run (CPU s): {each}")
    if compiled:  # a source file changed since the warm-up: its kernels compiled, not loaded
        print(f"\nNOT cache loads (compiled in a timed run, left out of the loads; the whole run is too slow by "
              f"their compilation): {', '.join(compiled)}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streme", metavar="PATH", default=None, help="the streme executable (MEME 5.5.8)")
    parser.add_argument("--data", default=str(SHARED), metavar="DIR", help="the shared data folder")
    parser.add_argument("--set", choices=["public", "generated", "both"], default="both")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.streme is None or not os.access(args.streme, os.X_OK):
        print(f"--streme {args.streme}: not an executable file (the floor is read against STREME's run)")
        return 2
    load = os.getloadavg()[0]
    print(f"load average before: {load:.2f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"NUMBA_CACHE_DIR={os.environ.get('NUMBA_CACHE_DIR', '(default)')}")
    with tempfile.TemporaryDirectory(prefix="motif_floor_") as tmp:
        for k, (name, pos, neg) in enumerate(_sets(args.set, args.data)):
            folder = Path(tmp) / f"set{k}"
            folder.mkdir()
            measure(name, Path(pos).resolve(), Path(neg).resolve(), args.streme, args.repeats, folder)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
