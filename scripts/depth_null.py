"""How often the deeper motif search reports a motif on sequences without one.

On ``--sets`` sets of uniform random letters (positives and negatives alike, ``--n`` of each,
``--length`` nt), the deeper search (``seqimp.motifs.search._depth.search_deeper``) runs with the
word's Bonferroni bound lifted (every set yields candidates: only the held-out test decides,
which is what this measures), once per held-out choice given in ``--choices`` (the words of a
fold's fitting half its seed may be taken from, ``half_seed(choices=)``; the held-out p-value
paying for them) and once with the folds started from the candidate's word chosen on all the
sequences (``not blind``: the held-out halves helped choose it). Prints per rule the sets with at
least one motif, the motifs and the candidates tested::

    python scripts/depth_null.py --sets 30 --choices 1 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd


def run(rule, sets, n, length, seed0):
    """``(sets with a motif, motifs, candidates tested)`` of one rule."""
    import seqimp.motifs.search._depth as depth
    from seqimp.io._labelled import LabelledSequences
    from seqimp.motifs.search._run import MotifRun, empty_sites, empty_stats
    from seqimp.options import MotifOptions

    import logging

    log = logging.getLogger("seqimp")
    original_half_seed, original_bound, original_level = depth.half_seed, depth.DEPTH_WORD_PVALUE, log.level
    log.setLevel(logging.WARNING)  # the search's lines, thousands of them, are not the figure
    depth.DEPTH_WORD_PVALUE = 1e12
    if rule == "not blind":
        depth.half_seed = lambda *args, **kwargs: None
    else:
        depth.half_seed = lambda *args, **kwargs: original_half_seed(*args, **{**kwargs, "choices": rule})
    found, motifs, tested = 0, 0, 0
    try:
        for s in range(sets):
            rng = np.random.default_rng(seed0 + s)
            data = LabelledSequences(rng.integers(0, 4, (n, length)).astype(np.uint8),
                                     rng.integers(0, 4, (n, length)).astype(np.uint8))
            empty = MotifRun([], None, pd.DataFrame(), stats=empty_stats(), sites=empty_sites())
            out = depth.search_deeper(empty, data, options=MotifOptions(scan_pwm=False), random_state=0,
                                      first_round=2)
            found += bool(out.motifs)
            motifs += len(out.motifs)
            tested += out.parameters["depth"]["candidates_tested"]
    finally:
        depth.half_seed, depth.DEPTH_WORD_PVALUE = original_half_seed, original_bound
        log.setLevel(original_level)
    return found, motifs, tested


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=30, help="random sets per rule (default 30)")
    parser.add_argument("--n", type=int, default=150, help="positives and negatives per set (default 150)")
    parser.add_argument("--length", type=int, default=80, help="sequence length (default 80)")
    parser.add_argument("--choices", type=int, nargs="+", default=[1, 3], help="held-out choices to run")
    parser.add_argument("--seed", type=int, default=100, help="first set's seed (default 100)")
    args = parser.parse_args(argv)
    rules = [*args.choices, "not blind"]
    print(f"depth_null: {args.sets} random sets of {args.n} + {args.n} x {args.length} nt, the word's bound lifted")
    print("| held-out seed | sets with a motif | motifs | candidates tested | seconds |")
    print("|---|---|---|---|---|")
    for rule in rules:
        t = time.perf_counter()
        found, motifs, tested = run(rule, args.sets, args.n, args.length, args.seed)
        name = rule if rule == "not blind" else f"the first of {rule} word(s) of the fitting half"
        print(f"| {name} | {found} of {args.sets} | {motifs} | {tested} | {time.perf_counter() - t:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
