"""SP1 in GC-rich promoters (``gen gcrich`` of scripts/motif_standalone.py): what the PWM for
scanning recalls alone at 1% FPR, fit by fit, beside the planted matrix (docs/benchmarks/motifs.md,
"SP1 in GC-rich promoters: the PWM alone against the planted matrix").

For every training seed: ``seqimp motifs --strand both`` on the set (the inputs of its
:func:`seqimp.motifs.scanning_motifs` call captured), then on the set's three fresh twins (seed +
1000, 2000, 3000) the share of planted sites that each PWM alone finds (scripts/motif_standalone.py's
"PWM alone": every window of both strands against the fresh negatives' order-2 background, hits
above the (k+1)-th best negative, k = floor(0.01 n)):

* the written PWM for scanning (its ``scan_pwm`` kind), and each fit kind of
  :data:`seqimp.motifs._scanning_pwm.FIT_KINDS` fitted on all sequences without the held-out
  choice, and the sites' letter frequencies;
* the planted matrix (MA0079.5) alone, and between ``--flank-draws`` pairs of random flank columns
  (0-3 a side, the negatives' letters moved by up to 0.06): the consensus word is the best
  window of more than 1% of the GC-rich negatives, so which near-consensus windows pass is
  decided by the columns beside the motif.

    python scripts/gcrich_pwm_alone.py --seeds 1 2 3 4 --flank-draws 8

Prints a markdown table.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from motif_scenarios import site_hits  # noqa: E402
from motif_standalone import generate_standalone, pwm_alone_sites  # noqa: E402
from pwm_alone_paired import MAX_FLANK, FLANK_JITTER, _Matrix  # noqa: E402
from scanning_fit_spread import captured_inputs  # noqa: E402
from scenario_sets import FRESH_SEEDS, SHARED, jaspar  # noqa: E402


def recall(pwm, fresh):
    """Share of the planted sites of the fresh sets ``(planted, pos, neg, background)`` found by ``pwm`` alone."""
    return float(np.mean(np.concatenate([site_hits(planted, pwm_alone_sites(_Matrix(pwm), pos, neg, background=bg))
                                         for planted, pos, neg, bg in fresh])))


def flanked(pwm, letters, rng):
    """``pwm`` between 0-3 random flank columns a side (not none on both)."""
    a, b = (int(x) for x in rng.integers(0, MAX_FLANK + 1, 2))
    if a + b == 0:
        b = 1

    def column():
        c = np.clip(letters + rng.uniform(-FLANK_JITTER, FLANK_JITTER, 4), 0.01, None)
        return c / c.sum()

    return np.vstack([column() for _ in range(a)] + [pwm] + [column() for _ in range(b)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--flank-draws", type=int, default=8)
    args = parser.parse_args(argv)
    import seqimp.motifs._scanning_pwm as sp
    from seqimp.background import SiteBackground
    from seqimp.io import read_fasta

    database = jaspar(SHARED)
    planted = next(m for m in database if m.name.startswith("MA0079.5")).pwm
    rng = np.random.default_rng(0)
    rows, kinds = [], ("written",) + sp.FIT_KINDS + (sp.SITES, "planted", "planted, random flanks")
    with tempfile.TemporaryDirectory(prefix="gcrich_pwm_alone_") as tmp:
        tmp = Path(tmp)
        for seed in args.seeds:
            scenario = generate_standalone("gcrich", seed, tmp / f"s{seed}", SHARED, database)
            fresh = []
            for extra in FRESH_SEEDS:
                f = generate_standalone("gcrich", seed + extra, tmp / f"s{seed}" / "fresh", SHARED, database)
                neg = read_fasta(f.neg).codes
                fresh.append((f.planted, read_fasta(f.pos).codes, neg, SiteBackground.fit(neg, 2)))
            sites, pos, neg, kw = captured_inputs(scenario, tmp / f"s{seed}" / "run")[0]
            out = sp.scanning_motifs(sites, pos, neg, **kw)
            got = {"written": recall(out.scanning[0].pwm, fresh)}
            written_kind = out.stats.iloc[0]["scan_pwm"]
            saved = sp.FIT_KINDS
            try:
                for kind in saved:  # each kind first: the one fitted on all sequences without the check
                    sp.FIT_KINDS = (kind,) + tuple(k for k in saved if k != kind)
                    fit = sp.scanning_motifs(sites, pos, neg, **{**kw, "held_out": False})
                    got[kind] = recall(fit.scanning[0].pwm, fresh)
            finally:
                sp.FIT_KINDS = saved
            motif = sites.motifs[0]
            table = sites.sites[sites.sites["motif"] == motif.name]
            got[sp.SITES] = recall(sp.site_pwm(table, pos, motif.length, SiteBackground.fit(neg, 2).letters), fresh)
            got["planted"] = recall(planted, fresh)
            draws = [recall(flanked(planted, fresh[0][3].letters, rng), fresh) for _ in range(args.flank_draws)]
            got["planted, random flanks"] = float(np.mean(draws))
            rows.append((seed, written_kind, got, (min(draws), max(draws))))
            print(f"seed {seed} done", file=sys.stderr, flush=True)
    print("| seed | written (kind) | " + " | ".join(kinds[1:]) + " | flank draws, least-most |")
    print("|---" * (len(kinds) + 2) + "|")
    for seed, kind, got, (lo, hi) in rows:
        print(f"| {seed} | {got['written']:.3f} ({kind}) | " + " | ".join(f"{got[k]:.3f}" for k in kinds[1:])
              + f" | {lo:.3f}-{hi:.3f} |")
    means = {k: np.mean([got[k] for _s, _k, got, _r in rows]) for k in kinds}
    print("| mean | " + " | ".join(f"{means[k]:.3f}" for k in kinds) + " | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
