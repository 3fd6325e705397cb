"""How long seqimp takes before it does anything, and its first run: the figures of docs/pipeline.md
"First run".

Prints, each the median of ``--repeat`` runs in fresh processes:

* ``python -c pass`` -- the interpreter alone, the baseline every other figure is compared with;
* ``python -c "import seqimp"``, ``seqimp --help``, ``seqimp poim --help`` and an error path
  (``seqimp train`` on a FASTA file that does not exist);

and, with ``--demo``, ``seqimp demo`` into fresh folders with a fresh, empty numba cache
(``NUMBA_CACHE_DIR``): once without the database match (``--no-db``: seqimp's kernels compiled),
then, on another fresh cache, as the README's quick start runs it, twice (the first compiles
seqimp's and memelite's TOMTOM kernels and caches them, the second reads the cache); each with its
wall time and the CPU time of its process. With ``--install``, first ``pip install '.[jaspar]'`` into a fresh virtual
environment (packages from pip's cache when it has them) and the demos run there.

Timings are wall-clock seconds on the machine it runs on; on a shared machine they vary with its
load, so compare figures from one run of this script, and say how busy the machine was.

    python scripts/bench_startup.py                  # start-up only (about 10 s)
    python scripts/bench_startup.py --demo           # + first and second demo (about 1 min)
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


def demos(python, env) -> None:
    seqimp = [python, "-m", "seqimp"]
    with tempfile.TemporaryDirectory(prefix="seqimp-bench-") as tmp:
        own = dict(env, NUMBA_CACHE_DIR=str(Path(tmp) / "cache-no-db"), MPLBACKEND="Agg")
        no_db = timed(seqimp + ["demo", "--no-db", "--out", str(Path(tmp) / "demo0")], own, cpu=True)
        env = dict(env, NUMBA_CACHE_DIR=str(Path(tmp) / "numba-cache"), MPLBACKEND="Agg")
        first = timed(seqimp + ["demo", "--out", str(Path(tmp) / "demo1")], env, cpu=True)
        second = timed(seqimp + ["demo", "--out", str(Path(tmp) / "demo2")], env, cpu=True)
        cache = sum(f.stat().st_size for f in (Path(tmp) / "numba-cache").rglob("*") if f.is_file())
    print("seqimp demo, each on a fresh numba cache (wall seconds, and CPU seconds of the process):")
    print(f"  --no-db, first run (seqimp's kernels compiled)       {no_db[0]:6.1f} s wall  {no_db[1]:6.1f} s CPU")
    print(f"  as README says, first run (+ TOMTOM's kernels)       {first[0]:6.1f} s wall  {first[1]:6.1f} s CPU")
    print(f"  as README says, second run (kernels from the cache)  {second[0]:6.1f} s wall  {second[1]:6.1f} s CPU"
          f"   (cache {cache / 2**20:.1f} MiB)")


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
