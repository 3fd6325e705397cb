"""PWM alone, seqimp against STREME, paired (docs/benchmarks/motifs.md): how much of a difference
in "PWM alone at 1% FPR" recall (scripts/motif_standalone.py) on the generated sets is the
motif each tool learned, and how much is chance.

Reads the folders a run of ``scripts/eval_motif_recovery.py --scenarios ... --streme PATH
--keep DIR`` left (``DIR/gen_<kind>_<seed>`` and ``DIR/gen_<kind>_<seed>_streme``), draws the
sets again (the generators are seeded) and, per planted factor, with the motif of each tool
closest to the planted matrix (as the benchmark picks it):

* **written** -- each tool's PWM as written, scanned alone on ``--fresh`` fresh sets of the
  same kind (seed + 1000, + 2000, ...: the benchmark's three first): both recalls, their paired
  difference over the planted sites (seqimp minus STREME) and its standard error (the standard
  deviation of the per-site differences over the square root of their number); a tool that
  reported no motif recalls nothing;
* **same flanks** -- each tool's columns over the planted matrix (aligned on the strand and
  offset where its columns agree most with the planted matrix's; a column the PWM lacks is the
  background's letters), between the *same* ``--flank-draws`` random flanks for both tools: 0-3
  columns on each side (not none on both), each the fresh negatives' letter frequencies moved by
  up to 0.06 per letter and normalised. Flank columns carry no information on these sets (the
  sites are pasted into background sequences), but they split the ties and near-ties of the
  negatives' best windows at the 1% threshold: on ``gen gcrich`` the consensus word of SP1 is the
  best window of more than 1% of the GC-rich negatives, so that the planted matrix alone recalls
  nothing at the strict threshold, while either tool's SP1 columns between random flanks recall
  0.22-0.23 on average, with a standard deviation of 0.03 over the draws. The mean over the
  draws is what the tool learned of the motif; the spread is what the flanks alone decide.

    python scripts/pwm_alone_paired.py DIR                       # every generated set in DIR
    python scripts/pwm_alone_paired.py DIR --only gcrich weaklong few --fresh 6 --flank-draws 24
    python scripts/pwm_alone_paired.py DIR --background uniform --flank-draws 0   # as HOMER scores
    python scripts/pwm_alone_paired.py DIR --seeds 1 2 3 4 5 --flank-draws 0   # over training sets

With several ``--seeds`` (a run with ``--scenario-seeds 1 2 3 4 5``: each seed a training set
both tools fitted their PWMs on) a second table gives, per kind and planted factor, the mean
over the seeds of each tool's recall on its fresh sets, the mean of the per-seed differences
with its standard error over the seeds (what the training set drew counts there, not only the
fresh sets) and on how many seeds seqimp's PWM recalled as many sites as STREME's or more.

Prints markdown tables.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from motif_scenarios import compare, seqimp_answer, site_hits  # noqa: E402
from motif_standalone import STANDALONE, generate_standalone, pwm_alone_sites  # noqa: E402
from scenario_sets import GENERATED, SHARED, generate, jaspar  # noqa: E402

#: the most flank columns drawn on each side, and how far a flank column's letters move
MAX_FLANK, FLANK_JITTER = 3, 0.06


def paired_difference(a, b):
    """``(mean a, mean b, mean difference, standard error of the difference)`` of two 0/1 (or
    real) arrays over the same items: the per-item differences' standard deviation (ddof 1) over
    the square root of their number."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise ValueError(f"need two 1-d arrays of the same length >= 2, got {a.shape} and {b.shape}")
    d = a - b
    return float(a.mean()), float(b.mean()), float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))


def across_seeds(ours, theirs):
    """``(mean ours, mean theirs, mean difference, its standard error, seeds ours >= theirs)``
    of two tools' recalls on the same seeds (1-d, one value per seed): the per-seed differences'
    standard deviation (ddof 1) over the square root of the number of seeds (NaN for one seed)."""
    a, b = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 1:
        raise ValueError(f"need two 1-d arrays of the same length >= 1, got {a.shape} and {b.shape}")
    d = a - b
    se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    return float(a.mean()), float(b.mean()), float(d.mean()), se, int((d >= 0).sum())


def aligned_columns(pwm, truth, letters):
    """``pwm``'s columns over ``truth``'s (both of shape (m, 4)), on the strand and offset where
    they agree most: the sum over overlapping columns of the dot product of their letter
    frequencies minus that of two uniform columns (0.25). A truth column the PWM does not cover
    is ``letters`` (the background). Shape ``truth.shape``."""
    pwm, truth = np.asarray(pwm, dtype=np.float64), np.asarray(truth, dtype=np.float64)
    m, t = len(pwm), len(truth)
    best = None
    for oriented in (pwm, pwm[::-1, ::-1]):  # the reverse complement: columns and letters reversed
        for offset in range(-(m - 1), t):  # pwm column j over truth column j + offset
            j = np.arange(max(0, -offset), min(m, t - offset))
            agree = float(((oriented[j] * truth[j + offset]).sum(axis=1) - 0.25).sum())
            if best is None or agree > best[0]:
                best = (agree, oriented, offset)
    _agree, oriented, offset = best
    out = np.tile(np.asarray(letters, dtype=np.float64), (t, 1))
    j = np.arange(max(0, -offset), min(m, t - offset))
    out[j + offset] = oriented[j]
    return out


def flanked(columns, left, right):
    """``columns`` between the flank columns ``left`` (a, 4) and ``right`` (b, 4)."""
    return np.vstack([left, columns, right])


def scoring_backgrounds(negatives, background="order2"):
    """What the windows of each fresh set are scored against (one per array of ``negatives``):
    their order-2 (``"order2"``) or order-0 (``"order0"``) background, or equal letters
    (``"uniform"``, as HOMER scores); fitted once per set, read by every PWM scanned on it."""
    from seqimp.background import SiteBackground

    if background == "uniform":
        return [SiteBackground([np.full(4, 0.25)])] * len(negatives)
    order = {"order2": 2, "order0": 0}[background]
    return [SiteBackground.fit(neg, order) for neg in negatives]


def _hits(pwm, fresh):
    """0/1 per planted site of every fresh set ``(planted, positives, negatives, background)``:
    overlapped by a hit of ``pwm`` alone at 1% FPR (:func:`pwm_alone_sites`)."""
    motif = _Matrix(pwm)
    return np.concatenate([site_hits(planted, pwm_alone_sites(motif, pos, neg, background=bg))
                           for planted, pos, neg, bg in fresh])


class _Matrix:
    """What :func:`pwm_alone_sites` reads of a motif."""

    def __init__(self, pwm):
        self.pwm = np.asarray(pwm, dtype=np.float64)
        self.length = len(self.pwm)


def _closest(motifs, truth, database):
    """The motif of ``motifs`` closest to ``truth`` (TOMTOM p, as the benchmark picks it)."""
    p, _offset, _strand = compare(motifs, [truth], database)
    return motifs[int(np.argmin(p[:, 0]))]


def compare_set(keep, kind, seed, database, n_fresh, draws, rng, tmp, background="order2"):
    """The table rows of one set (module docstring)."""
    from seqimp.io import read_fasta
    from seqimp.motifs import read_motifs

    make = generate_standalone if kind in STANDALONE else generate
    name = f"gen_{kind}_{seed}"
    scenario = make(kind, seed, tmp / "sets", SHARED, database)
    ours = seqimp_answer(keep / name)[0]
    theirs = read_motifs(keep / f"{name}_streme" / "streme.txt", "meme")
    fresh_sets = [make(kind, seed + 1000 * (j + 1), tmp / "fresh", SHARED, database) for j in range(n_fresh)]
    codes = [(read_fasta(f.pos).codes, read_fasta(f.neg).codes) for f in fresh_sets]
    scoring = scoring_backgrounds([neg for _pos, neg in codes], background)
    neg_all = np.concatenate([neg.ravel() for _pos, neg in codes])
    counts = np.bincount(neg_all, minlength=4)[:4].astype(np.float64)
    letters = (counts + counts[::-1]) / (2 * counts.sum())  # both strands
    rows = []
    for mid, truth in scenario.truths.items():
        fresh = [(f.planted[f.planted["motif"] == mid], pos, neg, bg)
                 for f, (pos, neg), bg in zip(fresh_sets, codes, scoring)]
        mine, other = (_closest(motifs, truth, database).pwm if motifs else None for motifs in (ours, theirs))
        # a tool that reported no motif recalls nothing
        written = paired_difference(*(_hits(x, fresh) if x is not None else
                                      np.zeros(sum(len(f[0]) for f in fresh)) for x in (mine, other)))
        core = [aligned_columns(x, truth.pwm, letters) for x in (mine, other) if x is not None]
        per_draw = []
        for _ in range(draws if len(core) == 2 else 0):
            a, b = 0, 0
            while a + b == 0:  # no flank at all: the ties stay whole
                a, b = (int(x) for x in rng.integers(0, MAX_FLANK + 1, size=2))
            left, right = (_flank_columns(rng, n, letters) for n in (a, b))
            per_draw.append([float(_hits(flanked(c, left, right), fresh).mean()) for c in core])
        per_draw = np.asarray(per_draw)
        rows.append((name, mid, written, per_draw))
    return rows


def _flank_columns(rng, n, letters):
    cols = np.clip(letters + rng.uniform(-FLANK_JITTER, FLANK_JITTER, size=(n, 4)), 0.01, None)
    return cols / cols.sum(axis=1, keepdims=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("keep", type=Path, help="the --keep folder of an eval_motif_recovery.py run with --streme")
    parser.add_argument("--only", nargs="+", default=[""], metavar="TEXT", help="sets whose kind contains TEXT")
    parser.add_argument("--seeds", "--seed", type=int, nargs="+", default=[1], metavar="SEED",
                        help="the sets' seeds in that run (default 1); with several, also the table over them")
    parser.add_argument("--fresh", type=int, default=3, help="fresh sets per kind (default 3, the benchmark's)")
    parser.add_argument("--flank-draws", type=int, default=24, help="random flanks per factor (default 24)")
    parser.add_argument("--random-state", type=int, default=0, help="seed of the flanks (default 0)")
    parser.add_argument("--background", choices=["order2", "order0", "uniform"], default="order2",
                        help="score windows against the fresh negatives' order-2 (default, the benchmark's) or "
                             "order-0 background, or equal letters (HOMER's score)")
    args = parser.parse_args(argv)
    database = jaspar(SHARED)
    kinds = [k for k in list(GENERATED) + list(STANDALONE) if any(t in k for t in args.only)]
    missing = [f"gen_{k}_{seed}" for k in kinds for seed in args.seeds
               if not ((args.keep / f"gen_{k}_{seed}" / "motifs.tsv").exists()
                       and (args.keep / f"gen_{k}_{seed}_streme" / "streme.txt").exists())]
    kinds = [k for k in kinds if not any(m.startswith(f"gen_{k}_") for m in missing)]
    if not kinds:
        print(f"error: {args.keep}: no kind has gen_<kind>_<seed> folders with both tools' answers for seeds "
              f"{' '.join(map(str, args.seeds))}", file=sys.stderr)
        return 2
    if missing:
        print(f"note: {args.keep}: left out, a tool's answer missing: {', '.join(missing)}\n")
    print(f"PWM alone at 1% FPR ({args.background} background) on {args.fresh} fresh sets per kind (seed + 1000, "
          f"...); paired over the planted sites: difference seqimp - STREME (standard error). Same flanks: each tool's columns over the planted "
          f"matrix between the same {args.flank_draws} random flanks (0-{MAX_FLANK} columns a side, at least one, background "
          f"letters +- {FLANK_JITTER}; random_state {args.random_state}): mean (SD over the draws), paired "
          f"difference (standard error over the draws)\n")
    print("| set | planted | seqimp written | STREME written | difference (SE) | seqimp same flanks "
          "| STREME same flanks | difference (SE) |")
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(args.random_state)
    per_seed = {}  # (kind, planted factor) -> [(seqimp, STREME) per seed]
    with tempfile.TemporaryDirectory(prefix="pwm_alone_paired_") as tmp:
        for kind, seed in ((k, seed) for k in kinds for seed in args.seeds):
            for name, mid, (ours, theirs, diff, se), draws in compare_set(
                    args.keep, kind, seed, database, args.fresh, args.flank_draws, rng, Path(tmp),
                    args.background):
                per_seed.setdefault((kind, mid), []).append((ours, theirs))
                flank = "| - | - | - |"
                if len(draws):
                    d = draws[:, 0] - draws[:, 1]
                    d_se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
                    flank = (f"| {draws[:, 0].mean():.3f} ({draws[:, 0].std():.3f}) | {draws[:, 1].mean():.3f} "
                             f"({draws[:, 1].std():.3f}) | {d.mean():+.3f} ({d_se:.3f}) |")
                print(f"| {name} | {mid} | {ours:.3f} | {theirs:.3f} | {diff:+.3f} ({se:.3f}) {flank}", flush=True)
    if len(args.seeds) > 1:
        print(f"\nOver the {len(args.seeds)} training sets (seeds {' '.join(map(str, args.seeds))}): the mean of each "
              f"tool's written PWM's recall on its fresh sets, the mean per-seed difference seqimp - STREME (standard "
              f"error over the seeds), and the seeds on which seqimp's recalled as many or more\n")
        print("| kind | planted | seqimp | STREME | difference (SE) | seqimp >= STREME |")
        print("|---|---|---|---|---|---|")
        for (kind, mid), pairs in per_seed.items():
            ours, theirs, diff, se, at_least = across_seeds(*np.asarray(pairs).T)
            print(f"| gen {kind} | {mid} | {ours:.3f} | {theirs:.3f} | {diff:+.3f} ({se:.3f}) "
                  f"| {at_least} of {len(pairs)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
