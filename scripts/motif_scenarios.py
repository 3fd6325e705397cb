"""Scenario benchmark of ``seqimp motifs`` (docs/benchmarks/motifs.md): seqimp and STREME run and
scored on the sets of ``scripts/scenario_sets.py`` -- the five public sets of
``../shared/data/motif_benchmark_2`` with STREME 5.5.8's stored answers, and generated sets of
the same kinds of scenario with other factors and seeds.

Scenarios: a motif anywhere in long sequences at low prevalence, a dominant motif masking a
second one, a composite pair, a weak long motif, few sequences. Per scenario and planted
factor: the reported motif closest to the planted JASPAR matrix (TOMTOM p of
``memelite.tomtom`` with JASPAR 2024 and the planted matrices as targets), its rank, offset
error (where its 1-based start places the planted matrix minus the planted sites' median
start; none for a factor placed anywhere), and the recall of the planted sites: the share of
positives' planted sites that a site of that motif overlaps by at least 1 nt. seqimp's sites
are those of ``motif_sites.tsv``, whose threshold 1% of the negatives pass (recall at 1% FPR);
STREME's are its ``sites.tsv`` (its own threshold). "any" counts the sites of every reported
motif. Spurious: reported motifs that match no planted matrix at TOMTOM p <= 1e-4 (STREME: only
its motifs with E <= 0.05, the ones it calls significant). Wall time and peak memory (maximum
resident set size of the ``seqimp motifs`` process, from ``os.wait4``, and in brackets the
largest sum of it and its children's at once -- the run and its figure process --, sampled
every 20 ms) beside STREME's FINALTIME, which was taken on another machine: compare the orders
of magnitude only.

Each seqimp run is the command line a user types, ``seqimp motifs --positive P --negative N
--out DIR --strand both``, in a fresh process after a warm-up run that fills the numba cache
(the one-time compilation is not counted).

    python scripts/eval_motif_recovery.py --scenarios public
    python scripts/eval_motif_recovery.py --scenarios generated --scenario-seeds 1 2
    python scripts/eval_motif_recovery.py --scenarios public --only masked composite weaklong
    python scripts/eval_motif_recovery.py --scenarios standalone      # scripts/motif_standalone.py's sets

A baseline run in the same script, under the same load: ``--baseline SRC`` runs the seqimp of
the source tree ``SRC`` too (e.g. ``git archive <commit> seqimp | tar -x -C /tmp/seqimp-base``),
on every set beside the current code, and prints its wall time, peak memory and motifs. Each
code then runs every set twice, alternating (baseline, current, baseline, current), and the
second run of each is reported: the first may compile kernels that the warm-up did not reach.

    python scripts/eval_motif_recovery.py --scenarios public --baseline /tmp/seqimp-base
    python scripts/motif_scenarios.py --generate OUTDIR --seed 1   # only write the generated sets

STREME on this machine, in the same script run: ``--streme PATH`` (the ``streme`` executable of
MEME 5.5.8, built from source outside the repository) runs ``streme --p P --n N --dna --oc DIR``
-- the options of the stored ``streme_*.txt`` command lines -- on every set, public and
generated, right after seqimp on one set and right before it on the next (alternating, so that
neither always runs first into a changing load). Its motifs and sites are read from that run's
``streme.txt`` and ``sites.tsv`` and scored like the stored answer; its wall time and peak
memory (``os.wait4``) are printed beside seqimp's, and so are both processes' CPU seconds
(user + system: what a busy machine does not inflate). A peak counts the benchmark process
the run is forked from (about 230-340 MiB): STREME's own peak is below that (``/usr/bin/time``). The stored FINALTIME stays in the
method label of the public sets.

    python scripts/eval_motif_recovery.py --scenarios all --streme /tmp/meme-build/src/streme
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from motif_standalone import STANDALONE, generate_standalone, pwm_alone_sites
from scenario_sets import FRESH_SEEDS, GENERATED, PUBLIC, SHARED, generate, jaspar, public_scenario

FOUND_P = 1e-4  # a reported motif "is" a planted factor at TOMTOM p <= this


# ---------------------------------------------------------------- runs ----

def _env(source):
    """The environment of a child process running the seqimp of the source tree ``source``
    (first on ``PYTHONPATH``), or this process's environment (None)."""
    if source is None:
        return None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(source).resolve())] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


@dataclass
class Timing:
    """One finished process: wall seconds, CPU seconds (user + system), peak RSS in MiB (``os.wait4``:
    the largest of the process and its children one at a time), exit code, and the largest sum of
    the RSS of the process and its children at once (MiB, sampled every 20 ms: a run and its figure
    process together)."""

    wall: float
    cpu: float
    rss: float
    code: int
    tree: float = float("nan")


def _tree_rss(pid) -> int:
    """KiB resident in ``pid`` and its descendants now (0 for one that is gone)."""
    total = 0
    try:
        with open(f"/proc/{pid}/status") as fh:
            total += next((int(line.split()[1]) for line in fh if line.startswith("VmRSS:")), 0)
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            children = [int(c) for c in fh.read().split()]
    except (OSError, ValueError):
        return total
    return total + sum(_tree_rss(c) for c in children)


def timed_process(cmd, log_path, env=None, cwd=None) -> Timing:
    """Run ``cmd`` with stdout and stderr into ``log_path``; its :class:`Timing` (``os.wait4``, and
    the sampled peak of the process with its children)."""
    import threading

    peak, done = [0], threading.Event()

    def sample(pid):
        while not done.wait(0.02):
            peak[0] = max(peak[0], _tree_rss(pid))

    t0 = time.perf_counter()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        sampler = threading.Thread(target=sample, args=(proc.pid,), daemon=True)
        sampler.start()
        _pid, status, usage = os.wait4(proc.pid, 0)
        done.set()
        sampler.join()
    return Timing(time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0,
                  os.waitstatus_to_exitcode(status), peak[0] / 1024.0)


def run_seqimp(scenario, out, extra=(), source=None) -> Timing:
    """``seqimp motifs`` in a fresh process (the seqimp of the source tree ``source`` when
    given); its log is ``<out>.log``."""
    cmd = [sys.executable, "-m", "seqimp", "motifs", "--positive", str(Path(scenario.pos).resolve()), "--negative",
           str(Path(scenario.neg).resolve()), "--out", str(Path(out).resolve()), "--strand", "both", "--quiet",
           *extra]
    # cwd: python -m imports from it first
    return timed_process(cmd, Path(out).parent / f"{Path(out).name}.log", env=_env(source), cwd=source)


def run_streme(scenario, out, streme) -> Timing:
    """The ``streme`` executable on the scenario's files with the stored answers' options
    (``--p P --n N --dna --oc OUT``); its log is ``<out>.log``, its answer ``OUT/streme.txt``
    and ``OUT/sites.tsv``."""
    cmd = [str(streme), "--p", str(Path(scenario.pos).resolve()), "--n", str(Path(scenario.neg).resolve()), "--dna",
           "--oc", str(Path(out).resolve())]
    return timed_process(cmd, Path(out).parent / f"{Path(out).name}.log")


def seqimp_answer(out):
    """The reported motifs (with their 1-based starts), their sites and composition flags."""
    import pandas as pd

    from seqimp.motifs import read_motifs

    table = pd.read_csv(Path(out) / "motifs.tsv", sep="\t")
    motifs = read_motifs(Path(out) / "motifs.meme", "meme") if len(table) else []
    for m, row in zip(motifs, table.to_dict("records")):
        m.start = None if row["position_free"] else int(row["start"])
    sites = pd.read_csv(Path(out) / "motif_sites.tsv", sep="\t")
    sites["sequence"] = sites["id"].str.rsplit("_", n=1).str[1].astype(int) - 1
    sites["length"] = sites["motif"].map({m.name: m.length for m in motifs})
    return motifs, sites, table


def streme_answer(scenario, files=None):
    """STREME's motifs (only E <= 0.05 counted as claims), its sites and FINALTIME seconds:
    the stored answer of the scenario, or ``files`` (``streme.txt``, ``sites.tsv``) of a run."""
    import pandas as pd

    from seqimp.motifs import read_motifs

    text_path, sites_path = scenario.streme if files is None else files
    motifs = read_motifs(text_path, "meme")
    seconds = next(float(line.split()[1]) for line in Path(text_path).read_text().splitlines()
                   if line.startswith("FINALTIME:"))
    sites = pd.read_csv(sites_path, sep="\t", comment="#").dropna(subset=["seq_ID"])
    sites = sites[sites["seq_ID"].str.contains("_pos_")].copy()
    sites["sequence"] = sites["seq_ID"].str.rsplit("_", n=1).str[1].astype(int) - 1
    sites["position"] = sites[["site_Start", "site_End"]].min(axis=1).astype(int)
    sites["length"] = (sites["site_End"] - sites["site_Start"]).abs().astype(int) + 1
    # STREME's motif IDs are "<rank>-<consensus>"; read_motifs names them the same way
    sites["motif"] = sites["motif_ID"]
    return motifs, sites, seconds


def site_hits(planted, sites):
    """Per planted site (rows of ``planted``): 1 where a site of ``sites`` overlaps it by >= 1 nt, else 0."""
    by_seq = {}
    for s, p, m in zip(sites["sequence"], sites["position"], sites["length"]):
        by_seq.setdefault(int(s), []).append((int(p), int(p) + int(m) - 1))
    return np.array([any(lo <= b and a <= hi for lo, hi in by_seq.get(int(s), ()))
                     for s, a, b in zip(planted["sequence"], planted["start"], planted["end"])], dtype=np.float64)


def recall(planted, sites):
    """Share of the planted sites (rows of ``planted``) that a site of ``sites`` overlaps by >= 1 nt."""
    if len(planted) == 0:
        return float("nan")
    return float(site_hits(planted, sites).mean())


def sites_at_fpr(motif, pos, neg, fpr=0.01):
    """The hits of a PWM alone at ``fpr`` (:func:`motif_standalone.pwm_alone_sites`: every start
    of both strands, the negatives' order-2 background, at most ``fpr`` of the negatives)."""
    return pwm_alone_sites(motif, pos, neg, fpr)


def compare(motifs, truths, database):
    """TOMTOM p (n_motifs, n_truths), offsets and strands of reported motifs against the truths
    (JASPAR 2024 and the truths as targets, memelite)."""
    from seqimp.motifs.known._compare import _tomtom

    targets = [m.pwm for m in database] + [t.pwm for t in truths]
    p, offset, _overlap, strand = _tomtom([m.pwm for m in motifs], targets, True)
    k = len(database)
    return p[:, k:], offset[:, k:], strand[:, k:]


def evaluate(scenario, motifs, sites, database, claims=None, codes=None):
    """Per planted factor: (p, rank, offset error, recall of that motif, recall of any motif and,
    with ``codes`` (positives, negatives), ``fpr``: the recall of that motif's sites at 1% FPR
    over every start, :func:`sites_at_fpr`); and the spurious count among ``claims`` (indices of
    motifs counted; default all)."""
    truths = list(scenario.truths.values())
    ids = list(scenario.truths)
    any_recall = {mid: recall(scenario.planted[scenario.planted["motif"] == mid], sites) for mid in ids}
    if not motifs:
        return [dict(p=1.0, rank=None, err=None, recall=0.0, any=any_recall[mid], fpr=None, fresh=None)
                for mid in ids], 0
    fresh = scenario.fresh if codes is not None else []
    if fresh:
        from seqimp.io import read_fasta

        fresh_codes = [(read_fasta(f.pos).codes, read_fasta(f.neg).codes) for f in fresh]
    p, offset, _strand = compare(motifs, truths, database)
    rows = []
    for j, (mid, truth) in enumerate(zip(ids, truths)):
        i = int(np.argmin(p[:, j]))
        mine = sites[sites["motif"] == motifs[i].name]
        err = None
        if motifs[i].start is not None and truth.start is not None:
            err = int(motifs[i].start - offset[i, j] - truth.start)
        mine_planted = scenario.planted[scenario.planted["motif"] == mid]
        at_fpr = recall(mine_planted, sites_at_fpr(motifs[i], *codes)) if codes is not None else None
        at_fresh = None
        if fresh:
            at_fresh = float(np.mean([recall(f.planted[f.planted["motif"] == mid], sites_at_fpr(motifs[i], *c))
                                      for f, c in zip(fresh, fresh_codes)]))
        rows.append(dict(p=float(p[i, j]), rank=i + 1, err=err, recall=recall(mine_planted, mine), any=any_recall[mid],
                         fpr=at_fpr, fresh=at_fresh))
    claims = range(len(motifs)) if claims is None else claims
    spurious = int(sum(p[i].min() > FOUND_P for i in claims))
    return rows, spurious


def _warm_up(tmp, source=None):
    """Two small runs so that the numba cache is filled before anything is timed (of the seqimp
    of the source tree ``source`` when given): 150 positives carrying TGACGTCA at 16 against 150
    random negatives of 40 nt, so that training, the POIM, discovery, refinement and a second
    round all run (the same file as both classes would be refused), once on the default route
    and once with ``--model gkm`` (the gapped-k-mer kernels of the sets that take that route)."""
    from seqimp.io import write_fasta

    rng = np.random.default_rng(0)
    pos, neg = rng.integers(0, 4, (150, 40)).astype(np.uint8), rng.integers(0, 4, (150, 40)).astype(np.uint8)
    pos[:, 15:23] = [3, 2, 0, 1, 2, 3, 1, 0]  # TGACGTCA
    for name, X in (("warm_pos.fa", pos), ("warm_neg.fa", neg)):
        write_fasta(Path(tmp) / name, ["".join("ACGT"[c] for c in x) for x in X], ids=[f"w{i}" for i in range(len(X))])
    for folder, extra in (("warm", []), ("warm_gkm", ["--model", "gkm"])):
        subprocess.run([sys.executable, "-m", "seqimp", "motifs", "--positive", str(Path(tmp) / "warm_pos.fa"),
                        "--negative", str(Path(tmp) / "warm_neg.fa"), "--out", str(Path(tmp) / folder), "--strand",
                        "both", "--quiet", *extra], capture_output=True, env=_env(source), cwd=source)


def run_scenarios(which="public", seeds=(1,), shared=SHARED, keep=None, only=("",), baseline=None,
                  streme=None, time_pairs=0) -> int:
    """Print the scenario table (markdown) for the public sets and/or generated ones (those
    whose name contains one of ``only``); with ``baseline`` (a source tree of seqimp), its
    run of every set too, just before the current code's; with ``streme`` (the path of a
    ``streme`` executable), STREME's run of every set beside seqimp's, alternately after and
    before it, and with ``time_pairs`` N, then N more pairs of both on every set
    (:func:`_time_pairs`)."""
    database = jaspar(shared)
    tmp = Path(keep).resolve() if keep else Path(tempfile.mkdtemp(prefix="motif_scenarios_"))
    tmp.mkdir(parents=True, exist_ok=True)
    _warm_up(tmp)
    if baseline is not None:
        _warm_up(tmp, baseline)
    scenarios = []
    if which in ("public", "all"):
        scenarios += [public_scenario(name, shared, database) for name in PUBLIC
                      if (Path(shared) / "motif_benchmark_2" / f"{name}_pos.fa").exists()]

    def with_fresh(make, kind, seed):
        """The set ``make`` writes for ``kind`` and ``seed``, its fresh twins in
        :attr:`scenario_sets.Scenario.fresh`."""
        sc = make(kind, seed, tmp / "sets", shared, database)
        sc.fresh = [make(kind, seed + extra, tmp / "fresh", shared, database) for extra in FRESH_SEEDS]
        return sc

    if which in ("generated", "all"):
        scenarios += [with_fresh(generate, kind, seed) for seed in seeds for kind in GENERATED]
    if which in ("standalone", "all"):
        scenarios += [with_fresh(generate_standalone, kind, seed) for seed in seeds for kind in STANDALONE]
    scenarios = [sc for sc in scenarios if any(text in sc.name for text in only)]
    timings = ("wall s (CPU s) of seqimp and of the STREME run here: processes at the priority of this script, "
               "on a machine that may be shared (read them beside each other)" if streme else
               "timings on a shared, busy machine (seqimp) and STREME's stored FINALTIME (another machine)")
    print("recall = share of the planted sites overlapped by a site of the motif closest to the planted matrix "
          "(seqimp: its motif_sites.tsv, sites at 1% FPR of the negatives; STREME: its sites.tsv, its own threshold; "
          f"'PWM alone': the motif file's PWM scanned over every start of both strands against the negatives' "
          f"order-2 background, hits above the score of the 1%-th best negative, scripts/motif_standalone.py; "
          f"'fresh sets': the mean of the same on {len(FRESH_SEEDS)} sets of the same kind drawn with other "
          f"seeds (+ {', '.join(map(str, FRESH_SEEDS))}), which neither tool saw); "
          f"found = TOMTOM "
          f"p <= 1e-4; {timings}\n")
    print("| set | planted | method | found (p) | rank | offset | recall (any motif) | motifs (spurious) "
          "| wall s | peak MiB (with its children) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k, sc in enumerate(scenarios):
        if baseline is not None:  # first runs, not reported: kernels the warm-up did not reach compile here
            run_seqimp(sc, tmp / f"{sc.name}_baseline", source=baseline)
            run_seqimp(sc, tmp / sc.name)
            _print_run(sc, tmp / f"{sc.name}_baseline", database, "seqimp baseline", baseline)
        streme_timing = None
        if streme is not None and k % 2 == 1:  # every other set STREME runs first
            streme_timing = run_streme(sc, tmp / f"{sc.name}_streme", streme)
        _print_run(sc, tmp / sc.name, database, "seqimp", None)
        if streme is not None and k % 2 == 0:
            streme_timing = run_streme(sc, tmp / f"{sc.name}_streme", streme)
        if sc.streme is not None:
            _print_streme(sc, database, "STREME 5.5.8 (stored)", None, None)
        if streme_timing is not None:
            stored = ""
            if sc.streme is not None:
                stored = f"; stored FINALTIME {streme_answer(sc)[2]:.1f} s"
            _print_streme(sc, database, f"STREME 5.5.8 (run here{stored})", tmp / f"{sc.name}_streme", streme_timing)
    if streme is not None and time_pairs > 0:
        _time_pairs(scenarios, tmp / "pairs", streme, time_pairs)
    return 0


def _time_pairs(scenarios, tmp, streme, pairs):
    """Time ``pairs`` more runs of ``seqimp motifs`` and STREME on every scenario set, seconds apart
    and in turn first (pair p: seqimp first when p is even), into scratch folders under ``tmp``; print
    per set the fastest wall time of each (CPU seconds beside it) and seqimp's over STREME's."""
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"\nPaired timings: {pairs} pairs of runs per set, each tool first in turn; the fastest wall "
          "seconds (CPU seconds) of each\n")
    print("| set | sequences | seqimp wall s | STREME wall s | seqimp / STREME |")
    print("|---|---|---|---|---|")
    for sc in scenarios:
        best = {"seqimp": None, "streme": None}
        for p in range(pairs):
            order = ("seqimp", "streme") if p % 2 == 0 else ("streme", "seqimp")
            for tool in order:
                if tool == "seqimp":
                    timing = run_seqimp(sc, tmp / f"{sc.name}_{p}")
                else:
                    timing = run_streme(sc, tmp / f"{sc.name}_streme_{p}", streme)
                if timing.code == 0 and (best[tool] is None or timing.wall < best[tool].wall):
                    best[tool] = timing
        s, t = best["seqimp"], best["streme"]
        n = sum(1 for path in (sc.pos, sc.neg) for line in open(path) if line.startswith(">"))
        ratio = f"{s.wall / t.wall:.2f}" if s is not None and t is not None else "-"
        print(f"| {sc.name} | {n} | {'-' if s is None else _seconds(s)} | {'-' if t is None else _seconds(t)} "
              f"| {ratio} |")


def _print_streme(sc, database, label, out, timing):
    """STREME's rows: the stored answer (``out`` None) or the run in ``out`` with its :class:`Timing`."""
    from seqimp.io import read_fasta

    if timing is not None and timing.code != 0:
        print(f"| {sc.name} | - | {label} | exit {timing.code} (see {out}.log) |")
        return
    files = None if out is None else (Path(out) / "streme.txt", Path(out) / "sites.tsv")
    s_motifs, s_sites, s_seconds = streme_answer(sc, files)
    significant = [i for i, m in enumerate(s_motifs) if np.isfinite(m.evalue) and m.evalue <= 0.05]
    codes = (read_fasta(sc.pos).codes, read_fasta(sc.neg).codes)
    rows, spurious = evaluate(sc, s_motifs, s_sites, database, claims=significant, codes=codes)
    seconds, rss = (f"{s_seconds:.1f}", "-") if timing is None else (_seconds(timing), _memory(timing))
    _print(sc, label, rows, f"{len(significant)} with E <= 0.05 ({spurious})", seconds, rss)


def _seconds(timing):
    return f"{timing.wall:.1f} ({timing.cpu:.1f})"


def _memory(timing):
    """Peak MiB of the process (``os.wait4``) and, in brackets, of the process with its children at once."""
    return f"{timing.rss:.0f} ({timing.tree:.0f})"


def _print_run(sc, out, database, label, source):
    """Run the seqimp of ``source`` (None: this process's) on ``sc`` into ``out`` and print its
    rows as ``label``."""
    timing = run_seqimp(sc, out, source=source)
    if timing.code != 0:
        print(f"| {sc.name} | - | {label} | exit {timing.code} (see {out}.log) |")
        return
    _print_answer(sc, out, database, label, timing)


def _print_answer(sc, out, database, label, timing):
    """The rows of a finished run in ``out``: found, rank, offset, recall, motifs, time, memory."""
    from seqimp.io import read_fasta

    motifs, sites, table = seqimp_answer(out)
    rows, spurious = evaluate(sc, motifs, sites, database, codes=(read_fasta(sc.pos).codes, read_fasta(sc.neg).codes))
    flagged = int(table["composition"].astype(bool).sum()) if len(table) else 0
    route = _route(out)
    _print(sc, label + (f" ({route} route)" if route else ""), rows,
           f"{len(motifs)} ({spurious}" + (f"; {flagged} composition)" if flagged else ")"), _seconds(timing),
           _memory(timing))


def _route(out):
    """The model route a run took (``model_route`` of ``motifs.json``), where it records one."""
    import json

    record = json.loads((Path(out) / "motifs.json").read_text()).get("parameters", {}).get("model_route")
    return record.get("route") if isinstance(record, dict) else None


def _print(sc, method, rows, motifs, seconds, rss):
    for (mid, truth), r in zip(sc.truths.items(), rows):
        found = "yes" if r["p"] <= FOUND_P else "no"
        err = "-" if r["err"] is None else f"{r['err']:+d}"
        fpr = "" if r.get("fpr") is None else f"; PWM alone {r['fpr']:.3f}"
        fpr += "" if r.get("fresh") is None else f", fresh sets {r['fresh']:.3f}"
        print(f"| {sc.name} | {truth.description} | {method} | {found} ({r['p']:.1e}) | {r['rank'] or '-'} | {err} | "
              f"{r['recall']:.3f} ({r['any']:.3f}{fpr}) | {motifs} | {seconds} | {rss} |", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generate", metavar="OUTDIR", help="only write the generated sets into OUTDIR")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", default=str(SHARED), metavar="DIR")
    parser.add_argument("--streme", metavar="PATH", default=None, help="a STREME executable to run beside seqimp")
    args = parser.parse_args(argv)
    if args.generate:
        for kind in GENERATED:
            sc = generate(kind, args.seed, args.generate, args.data)
            print(f"{sc.pos} {sc.neg}: {sc.note}; {len(sc.planted)} planted sites")
        return 0
    return run_scenarios("all", (args.seed,), args.data, streme=args.streme)


if __name__ == "__main__":
    sys.exit(main())
