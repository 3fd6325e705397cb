"""Motifs from attributions, side by side: seqimp (``seqimp motifs --sequences --attributions``)
and modisco-lite (``modisco motifs``) on the same planted attribution maps.

A planted set: N random sequences of length L; four motifs planted anywhere on either strand, each in
a share of the sequences, one of them with a negative contribution; hypothetical contributions =
the planted PWM's log-odds at the motif's sites times a weight (times -1 for the negative motif),
plus Gaussian noise everywhere; and a pure-noise map (the same sequences, noise only). Both tools
get the same OHE.npz / ATTR.npz ((n, 4, L), TF-MoDISco's layout). Per planted motif: recovered
(a reported pattern's PWM whose best TOMTOM target among the planted PWMs and 7 decoy motifs is
that planted motif at p <= 1e-3; the decoys: tests/data/toy_motifs.meme without its E-box), patterns
matching it; patterns matching nothing; wall time and
peak memory of each command (its largest process).

    python scripts/bench_attribution_motifs.py --out /tmp/bench_attr            # 3,000 x 300 nt
    python scripts/bench_attribution_motifs.py --n 600 --length 200 --no-modisco  # quick
    python scripts/bench_attribution_motifs.py --sizes 10000x500,20000x1000 --modisco-timeout 1800

``--modisco-timeout S`` caps modisco-lite's wall time: a run past it is stopped and its row says
"capped" (no patterns).

Real attribution maps (``--nfe2 DATA``: LS-GKM's NFE2 example, /work/shared/data/lsgkm_nfe2): the
first ``--nfe2-n`` training peaks of 236 nt; a gkm model trained by ``seqimp train --model gkm`` on
all training peaks vs the genomic negatives, and LS-GKM's own model file; ``seqimp motifs
--model-file M --positive peaks.fa --db JASPAR`` (ISM attributions) and modisco-lite on the same
attributions.npz; every pattern's best JASPAR 2024 match (TOMTOM q-value):

    python scripts/bench_attribution_motifs.py --nfe2 /work/shared/data/lsgkm_nfe2 \
        --jaspar /work/shared/data/jaspar/JASPAR2024_CORE_vertebrates_non-redundant_pfms_transfac.txt
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

#: planted motifs: name -> (consensus, sign of the contribution)
PLANTED = {"GATA": ("AGATAAGA", 1), "AP1": ("TGACTCA", 1), "CTCF": ("CCGCGNGGNGGCAG", 1), "EBOXNEG": ("CACGTG", -1)}


def planted_pwm(consensus, sharp=0.85):
    rows = []
    for c in consensus:
        row = np.full(4, 0.25) if c == "N" else np.full(4, (1 - sharp) / 3)
        if c != "N":
            row["ACGT".index(c)] = sharp
        rows.append(row)
    return np.array(rows)


def planted_set(n, length, *, share=0.3, weight=0.8, noise=0.15, seed=0, signal=True):
    """One-hot (n, L, 4), hypothetical contributions (n, L, 4) and the sites (i, start, name, strand)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n, length))
    hyp = rng.normal(0, noise, size=(n, length, 4))
    sites = []
    pwms = {name: planted_pwm(c) for name, (c, _s) in PLANTED.items()}
    for i in range(n):
        used = np.zeros(length, bool)
        for name, (_c, sign) in PLANTED.items():
            if not signal or rng.random() > share:
                continue
            pwm = pwms[name]
            m = len(pwm)
            for _ in range(20):
                start = int(rng.integers(0, length - m + 1))
                if not used[max(start - 5, 0):start + m + 5].any():
                    break
            else:
                continue
            used[start:start + m] = True
            minus = rng.random() < 0.5
            oriented = pwm[::-1, ::-1] if minus else pwm
            codes[i, start:start + m] = [rng.choice(4, p=row) for row in oriented]
            hyp[i, start:start + m] += sign * weight * np.log2(oriented / 0.25)
            sites.append((i, start, name, "-" if minus else "+"))
    return np.eye(4, dtype=np.float32)[codes], hyp.astype(np.float32), sites, pwms


def measured(command, log, timeout=None):
    """Run ``command``; its wall time (s) and peak memory (MiB, its largest process) from GNU time;
    wall time None where it ran past ``timeout`` seconds and was stopped."""
    start = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(["/usr/bin/time", "-f", "MAXRSS %M"] + command, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            return None, float("nan")
    wall = time.perf_counter() - start
    text = Path(log).read_text()
    rss = [int(line.split()[1]) for line in text.splitlines() if line.startswith("MAXRSS ")]
    if proc.returncode:
        print(text[-3000:], file=sys.stderr)
        raise SystemExit(f"failed: {' '.join(command)}")
    return wall, (rss[-1] / 1024 if rss else float("nan"))


def modisco_patterns(h5):
    """PWMs (the patterns' ``sequence`` PPMs) and signs of a modisco-lite result."""
    import h5py

    from seqimp.motifs import Motif

    found = []
    with h5py.File(h5, "r") as f:
        for group, sign in (("pos_patterns", 1), ("neg_patterns", -1)):
            if group not in f:
                continue
            names = sorted(f[group], key=lambda s: int(s.split("_")[-1]))
            for name in names:
                ppm = np.asarray(f[group][name]["sequence"], dtype=np.float64)
                ppm = (ppm + 1e-6) / (ppm + 1e-6).sum(axis=1, keepdims=True)
                n = int(f[group][name]["seqlets"]["n_seqlets"][0])
                found.append(Motif(f"{group[:3]}_{name}", _trimmed(ppm), sites=n,
                                   direction="enriched" if sign > 0 else "depleted"))
    return found


def _trimmed(ppm, min_ic=0.3):
    """The columns of a (flanked) PPM from the first to the last with >= min_ic bits."""
    ic = 2 + (ppm * np.log2(np.clip(ppm, 1e-9, 1))).sum(axis=1)
    keep = np.nonzero(ic >= min_ic)[0]
    return ppm[keep[0]:keep[-1] + 1] if len(keep) else ppm


def scored(motifs, targets, names):
    """Per planted motif: patterns whose best TOMTOM target it is (p <= 1e-3); patterns matching nothing."""
    from seqimp.motifs import compare_motifs

    per = {name: 0 for name in names}
    unmatched = 0
    if not motifs:
        return per, 0
    table = compare_motifs(motifs, targets, top=3)
    table = table[table["p_value"].notna()]
    for m in motifs:
        rows = table[table["query"] == m.name].sort_values("p_value")
        if len(rows) and rows["p_value"].iloc[0] <= 1e-3 and rows["target"].iloc[0] in per:
            per[rows["target"].iloc[0]] += 1
        else:
            unmatched += 1
    return per, unmatched


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="/tmp/bench_attribution_motifs")
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--length", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weight", type=float, default=0.8, help="the planted log-odds' weight (noise sd 0.15)")
    parser.add_argument("--no-modisco", action="store_true")
    parser.add_argument("--max-seqlets", type=int, default=2000, help="modisco motifs -n")
    parser.add_argument("--sizes", default=None, metavar="NxL,...",
                        help="several set sizes, one after the other (e.g. 3000x300,10000x500,20000x1000)")
    parser.add_argument("--modisco-timeout", type=float, default=None, metavar="S",
                        help="stop modisco-lite after S seconds of wall time (its row says capped)")
    parser.add_argument("--nfe2", default=None, metavar="DATA", help="real maps: LS-GKM's NFE2 example folder")
    parser.add_argument("--nfe2-n", type=int, default=300, help="peaks explained (default 300)")
    parser.add_argument("--jaspar", default=None, help="JASPAR motif file the real maps' motifs are matched to")
    args = parser.parse_args(argv)
    if args.nfe2:
        return nfe2(args)
    sizes = [tuple(int(v) for v in size.split("x")) for size in args.sizes.split(",")] if args.sizes \
        else [(args.n, args.length)]
    sys.path.insert(0, str(ROOT))
    from seqimp.motifs import Motif, read_motifs, write_meme

    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    decoys = [m for m in read_motifs(ROOT / "tests" / "data" / "toy_motifs.meme") if m.consensus != "CACGTG"]
    rows = []
    for (n, length), kind in ((size, kind) for size in sizes for kind in ("planted", "noise")):
        onehot, hyp, sites, pwms = planted_set(n, length, seed=args.seed, weight=args.weight,
                                               signal=kind == "planted")
        folder = out / (kind if len(sizes) == 1 else f"{n}x{length}_{kind}")
        folder.mkdir()
        np.savez(folder / "OHE.npz", onehot.transpose(0, 2, 1))
        np.savez(folder / "ATTR.npz", hyp.transpose(0, 2, 1))
        targets = [Motif(name, pwm) for name, pwm in pwms.items()] + list(decoys)
        write_meme(targets, folder / "targets.meme")
        env = dict(os.environ, MPLBACKEND="Agg")
        os.environ.update(env)
        seqimp_cmd = [sys.executable, "-m", "seqimp", "motifs", "--sequences", str(folder / "OHE.npz"),
                      "--attributions", str(folder / "ATTR.npz"), "--out", str(folder / "seqimp"), "-q"]
        wall, rss = measured(seqimp_cmd, folder / "seqimp_run.log")
        meme = folder / "seqimp" / "motifs.meme"
        motifs = read_motifs(meme) if "MOTIF " in meme.read_text() else []
        per, unmatched = scored(motifs, targets, list(PLANTED))
        del onehot, hyp
        size = f"{n:,} x {length:,}"
        rows.append({"set": kind, "size": size, "tool": "seqimp", "patterns": len(motifs), "per_motif": per, "unmatched": unmatched,
                     "wall_s": wall, "peak_mib": rss, "sites": len(sites)})
        print(json.dumps(rows[-1]), flush=True)
        if args.no_modisco:
            continue
        modisco_cmd = [str(Path(sys.executable).parent / "modisco"), "motifs", "-s", str(folder / "OHE.npz"), "-a",
                       str(folder / "ATTR.npz"), "-n", str(args.max_seqlets), "-w", str(length), "-o",
                       str(folder / "modisco.h5")]
        wall, rss = measured(modisco_cmd, folder / "modisco.log", timeout=args.modisco_timeout)
        patterns = modisco_patterns(folder / "modisco.h5") if wall and (folder / "modisco.h5").exists() else []
        per, unmatched = scored(patterns, targets, list(PLANTED))
        rows.append({"set": kind, "size": size, "tool": "modisco-lite", "patterns": len(patterns), "per_motif": per,
                     "unmatched": unmatched, "wall_s": wall, "peak_mib": rss, "sites": len(sites)})
        print(json.dumps(rows[-1]), flush=True)
    print()
    names = list(PLANTED)
    print("| size | set | tool | " + " | ".join(f"{n} ({'-' if PLANTED[n][1] < 0 else '+'})" for n in names)
          + " | patterns | matching nothing | wall time (s) | peak memory (MiB) |")
    print("|" + "---|" * (len(names) + 7))
    for r in rows:
        if r["wall_s"] is None:
            print(f"| {r['size']} | {r['set']} | {r['tool']} | " + " | ".join("-" for _ in names)
                  + f" | - | - | capped at {args.modisco_timeout:.0f} | - |")
            continue
        cells = [("yes" if r["per_motif"][n] else "no") + f" ({r['per_motif'][n]})" if r["set"] == "planted" else "-"
                 for n in names]
        print(f"| {r['size']} | {r['set']} | {r['tool']} | " + " | ".join(cells)
              + f" | {r['patterns']} | {r['unmatched']} | {r['wall_s']:.1f} | {r['peak_mib']:.0f} |")
    (out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")


def _records(path):
    name, seq, out = None, [], []
    for line in Path(path).read_text().splitlines():
        if line.startswith(">"):
            if name is not None:
                out.append((name, "".join(seq)))
            name, seq = line[1:].strip(), []
        else:
            seq.append(line.strip())
    out.append((name, "".join(seq)))
    return out


def _best_matches(motifs, jaspar):
    """Per motif: its best JASPAR target's name and q-value (compare_motifs, TOMTOM)."""
    from seqimp.motifs import compare_motifs

    if not motifs:
        return []
    table = compare_motifs(motifs, jaspar, top=1)
    rows = []
    for m in motifs:
        hit = table[table["query"] == m.name].dropna(subset=["p_value"]).sort_values("p_value")
        best = (f"{hit['target'].iloc[0]} {hit['target_description'].iloc[0]}"
                if len(hit) else "-")
        q = float(hit["q_value"].iloc[0]) if len(hit) and "q_value" in hit else float("nan")
        rows.append((m.name, m.consensus, m.sites, best, q))
    return rows


def nfe2(args):
    """seqimp and modisco-lite on the ISM attributions of two gkm models of ENCODE NFE2 peaks."""
    sys.path.insert(0, str(ROOT))
    from seqimp.motifs import read_motifs

    data, out = Path(args.nfe2), Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    peaks = [r for r in _records(data / "nfe2.tr.fa") if len(r[1]) == 236][:args.nfe2_n]
    (out / "nfe2_pos.fa").write_text("".join(f">{name}\n{seq}\n" for name, seq in peaks))
    jaspar = read_motifs(args.jaspar)
    wall, rss = measured([sys.executable, "-m", "seqimp", "train", "--model", "gkm", "--positive",
                          str(data / "nfe2.tr.fa"), "--negative", str(data / "nfe2.neg.tr.fa"), "--model-out",
                          str(out / "seqimp_gkm.npz"), "-q"], out / "train.log")
    print(json.dumps({"step": "seqimp train --model gkm", "wall_s": wall, "peak_mib": rss}), flush=True)
    rows = []
    for label, model in (("LS-GKM's model (nfe2.model.txt)", data / "nfe2.model.txt"),
                         ("seqimp train --model gkm", out / "seqimp_gkm.npz")):
        folder = out / ("lsgkm" if "LS-GKM" in label else "seqimp_gkm")
        wall, rss = measured([sys.executable, "-m", "seqimp", "motifs", "--model-file", str(model), "--positive",
                              str(out / "nfe2_pos.fa"), "--db", str(args.jaspar), "--out", str(folder), "-q"],
                             out / f"{folder.name}.log")
        meme = folder / "motifs.meme"
        found = read_motifs(meme) if "MOTIF " in meme.read_text() else []
        rows.append({"model": label, "tool": "seqimp (ISM, seqlets, clusters)", "wall_s": wall, "peak_mib": rss,
                     "patterns": _best_matches(found, jaspar)})
        print(json.dumps(rows[-1]), flush=True)
        if args.no_modisco:
            continue
        with np.load(folder / "attributions.npz") as saved:  # modisco-lite reads each file's first array
            np.savez(folder / "OHE.npz", saved["sequences"].astype(np.float32))
            np.savez(folder / "ATTR.npz", saved["attributions"].astype(np.float32))
        wall, rss = measured([str(Path(sys.executable).parent / "modisco"), "motifs", "-s", str(folder / "OHE.npz"),
                              "-a", str(folder / "ATTR.npz"), "-n", str(args.max_seqlets), "-w", "236", "-o",
                              str(folder / "modisco.h5")], folder / "modisco.log", timeout=args.modisco_timeout)
        patterns = modisco_patterns(folder / "modisco.h5") if wall and (folder / "modisco.h5").exists() else []
        rows.append({"model": label, "tool": "modisco-lite (same attributions)", "wall_s": wall, "peak_mib": rss,
                     "patterns": _best_matches(patterns, jaspar)})
        print(json.dumps(rows[-1]), flush=True)
    print("\n| model | tool | pattern | consensus | seqlets | best JASPAR 2024 match | q-value |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        for name, consensus, sites, best, q in r["patterns"] or [("none", "-", 0, "-", float("nan"))]:
            print(f"| {r['model']} | {r['tool']} | {name} | `{consensus}` | {sites} | {best} | {q:.2g} |")
    print("\n| model | tool | wall time (s) | peak memory (MiB) |\n|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['tool']} | {r['wall_s']:.1f} | {r['peak_mib']:.0f} |")
    (out / "results.json").write_text(json.dumps(rows, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
