"""How long seqimp takes before it does anything, and its first run: the figures of docs/pipeline.md
"First run".

Prints, each the median of ``--repeat`` runs in fresh processes:

* ``python -c pass`` -- the interpreter alone, the baseline every other figure is compared with;
* ``python -c "import seqimp"``, ``seqimp --help``, ``seqimp poim --help`` and an error path
  (``seqimp train`` on a FASTA file that does not exist);

and, with ``--demo``, ``seqimp demo`` into fresh folders with a fresh, empty numba cache
(``NUMBA_CACHE_DIR``): once without the database match (``--no-db``: seqimp's kernels compiled);
once with the match but TOMTOM compiled in the run's own process, after seqimp's work (the
baseline: the first run before TOMTOM compiled in the background); then, on another fresh cache,
as the README's quick start runs it, twice (the first compiles seqimp's kernels and, in a second
process from the start, memelite's TOMTOM kernels, and caches them; the second reads the cache);
each with its wall time, the CPU time of its processes and the load average before it. With ``--install``, first ``pip install '.[jaspar]'`` into a fresh virtual
environment (packages from pip's cache when it has them) and the demos run there.

Timings are wall-clock seconds on the machine it runs on; on a shared machine they vary with its
load, so compare figures from one run of this script, and say how busy the machine was.

    python scripts/bench_startup.py                  # start-up only (about 10 s)
    python scripts/bench_startup.py --demo           # + the demos (about 3 min on two idle cores)
    python scripts/bench_startup.py --install --demo # + install into a fresh venv (minutes)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv, env=None, check=True, cpu=False):
    """Wall seconds of one run of ``argv`` (output discarded); with ``cpu``, (wall, CPU seconds of
    the process): on a busy machine the CPU time is what an idle one would take, for a
    single-threaded run such as numba's compilation."""
    start, cpu_start = time.perf_counter(), _child_cpu()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if check and done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed ({done.returncode}): {done.stderr[-500:]}")
    return (seconds, _child_cpu() - cpu_start) if cpu else seconds


def median_of(argv, repeat, env=None, check=True) -> float:
    return statistics.median(timed(argv, env, check) for _ in range(repeat))


def startup(python, repeat) -> None:
    seqimp = [python, "-m", "seqimp"]
    missing = str(Path(tempfile.gettempdir()) / "seqimp-bench-no-such-file.fa")
    base = median_of([python, "-c", "pass"], repeat)
    rows = [("python -c pass (baseline)", base),
            ("python -c 'import seqimp'", median_of([python, "-c", "import seqimp"], repeat)),
            ("seqimp --help", median_of(seqimp + ["--help"], repeat)),
            ("seqimp poim --help", median_of(seqimp + ["poim", "--help"], repeat)),
            ("seqimp train (missing input: error)", median_of(seqimp + ["train", "--positive", missing, "--negative",
                                                                      missing, "--model-out", "m.npz"], repeat,
                                                             check=False))]
    print(f"start-up, median of {repeat} fresh processes (wall seconds; + over the baseline):")
    for name, seconds in rows:
        print(f"  {name:40s} {seconds:6.2f} s   +{seconds - base:5.2f} s")


#: ``seqimp`` with TOMTOM's background compilation switched off (it compiles in the run's process)
SERIAL = ("import sys, seqimp.motifs.known._compare as c; from seqimp.cli import main; "
          "c.tomtom_warmup = lambda needed: c.TomtomWarmup(False); sys.exit(main(sys.argv[1:]))")


def demos(python, env) -> None:
    seqimp = [python, "-m", "seqimp"]
    rows = []

    def demo(name, argv, cache, out, *extra):
        load = os.getloadavg()[0]
        run_env = dict(env, NUMBA_CACHE_DIR=str(cache), MPLBACKEND="Agg")
        rows.append((name, *timed(argv + ["demo", "--out", str(out), *extra], run_env, cpu=True), load))

    with tempfile.TemporaryDirectory(prefix="seqimp-bench-") as tmp:
        tmp = Path(tmp)
        demo("--no-db, first run (seqimp's kernels compiled)", seqimp, tmp / "cache-no-db", tmp / "demo0",
             "--no-db")
        demo("first run, TOMTOM compiled in-process (baseline)", [python, "-c", SERIAL], tmp / "cache-serial",
             tmp / "demo-serial")
        demo("as README says, first run (TOMTOM in background)", seqimp, tmp / "numba-cache", tmp / "demo1")
        demo("as README says, second run (kernels from cache)", seqimp, tmp / "numba-cache", tmp / "demo2")
        cache = sum(f.stat().st_size for f in (tmp / "numba-cache").rglob("*") if f.is_file())
    print("seqimp demo, each first run on a fresh numba cache (wall seconds, CPU seconds of its processes,\n"
          "1-min load average before it):")
    for name, wall, cpu, load in rows:
        print(f"  {name:52s} {wall:6.1f} s wall  {cpu:6.1f} s CPU  load {load:4.1f}")
    print(f"  first run with TOMTOM in the background / baseline: {rows[2][1] / rows[1][1]:.2f}x wall;"
          f"   numba cache {cache / 2**20:.1f} MiB")


def fresh_venv(tmp: Path) -> str:
    """A fresh virtual environment with seqimp[jaspar] installed; prints the install time."""
    venv = tmp / "venv"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", f"{ROOT}[jaspar]"], check=True)
    print(f"pip install '.[jaspar]' into a fresh venv (pip's cache as it is): {time.perf_counter() - start:.0f} s")
    return python


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per start-up figure (default 5)")
    parser.add_argument("--demo", action="store_true", help="also time a first and a second seqimp demo")
    parser.add_argument("--install", action="store_true", help="install into a fresh venv first and time there")
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (1 min) at the start")
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="seqimp-venv-") as tmp:
        python = fresh_venv(Path(tmp)) if args.install else sys.executable
        startup(python, args.repeat)
        if args.demo:
            demos(python, env)
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
