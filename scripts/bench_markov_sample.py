"""MarkovBackground.sample: the numba kernel against the letter-by-letter numpy sampler it
replaced (:func:`letter_by_letter`, also the test's reference: the same sequences bit for bit),
in one process, on the control sizes ``seqimp.motifs.scanning_motifs`` draws (8 times the
negatives: 8,000 x 200 nt, 7,000 x 500 nt at the window cap, 12,800 x 90 nt).

    python scripts/bench_markov_sample.py
    python scripts/bench_markov_sample.py --order 3 --repeats 5
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def letter_by_letter(bg, n, length, seed):
    """The sampler written out: one ``rng.random(n)`` per position, the cumulative transitions of
    each sequence's context summed there (as MarkovBackground.sample drew before its kernel)."""
    rng = np.random.default_rng(seed)
    d, a = bg.order, 4
    trans = bg.transition_table(length)
    out = np.empty((n, length), dtype=np.uint8)
    ctx = rng.choice(a ** d, size=n, p=bg.initial_ / bg.initial_.sum())
    for t in range(d):
        out[:, t] = (ctx // a ** (d - 1 - t)) % a
    for i in range(d, length):
        cdf = np.cumsum(trans[i - d][ctx], axis=1)
        sym = (rng.random(n)[:, None] * cdf[:, -1:] >= cdf).sum(axis=1).clip(0, a - 1)
        out[:, i] = sym
        ctx = (ctx * a + sym) % a ** d if d else ctx
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--order", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="the fastest of this many runs each (default 3)")
    args = parser.parse_args(argv)
    from seqimp import MarkovBackground

    rng = np.random.default_rng(0)
    bg = MarkovBackground.from_arrays(rng.dirichlet(np.ones(4 ** args.order)),
                                      rng.dirichlet(np.ones(4), size=4 ** args.order))
    bg.sample(10, length=50)  # compile (or load the cache) outside the timing
    print("| sequences x length | kernel s | letter by letter s | ratio | same |")
    print("|---|---|---|---|---|")
    for n, length in ((8000, 200), (7000, 500), (12800, 90)):
        times = {}
        for name, draw in (("kernel", lambda: bg.sample(n, length=length, random_state=3)),
                           ("letters", lambda: letter_by_letter(bg, n, length, 3))):
            best = np.inf
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                got = draw()
                best = min(best, time.perf_counter() - t0)
            times[name] = (best, got)
        same = np.array_equal(times["kernel"][1], times["letters"][1])
        print(f"| {n:,} x {length} | {times['kernel'][0]:.3f} | {times['letters'][0]:.3f} | "
              f"{times['letters'][0] / times['kernel'][0]:.1f} | {same} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
