"""The scenario sets of the ``seqimp motifs`` benchmark (docs/benchmarks/motifs.md;
``scripts/motif_scenarios.py`` runs and scores the tools on them): the five public sets of
``../shared/data/motif_benchmark_2`` with STREME 5.5.8's stored answers (:func:`public_scenario`),
and a generator of the same kinds of scenario with other factors and seeds (:func:`generate`,
:data:`GENERATED`: JASPAR 2024 sites pasted into a human-like first-order background,
:data:`TRANSITIONS`), each set a :class:`Scenario` with its planted sites and matrices.
``scripts/motif_standalone.py`` draws its kinds of set with the same pieces.

Kinds: a motif anywhere in long sequences at low prevalence, a dominant motif masking a second
one, a composite pair, a weak long motif, few sequences.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SHARED = Path(os.path.abspath(__file__)).parents[1].parent / "shared" / "data"
PUBLIC = ("anywhere", "masked", "composite", "weaklong", "few")
#: a generated set's fresh twins (:attr:`Scenario.fresh`) are drawn with its seed plus each of these
FRESH_SEEDS = (1000, 2000, 3000)

# Human-like first-order background: dinucleotide frequencies (%) of the human genome, rows
# normalised into transition probabilities (41% GC, CpG depleted); written here for the
# generator, not taken from another generator.
_DINUC = np.array([[9.8, 5.0, 7.0, 7.6],
                   [7.3, 5.2, 1.0, 7.0],
                   [5.9, 4.3, 5.2, 5.0],
                   [6.5, 5.9, 7.3, 9.8]])
TRANSITIONS = _DINUC / _DINUC.sum(axis=1, keepdims=True)


@dataclass
class Scenario:
    """One benchmark set: FASTA files, the planted sites and the planted matrices.

    ``planted`` has one row per planted site in a positive: ``sequence`` (0-based), ``motif``
    (JASPAR ID), ``start``/``end`` (1-based, inclusive, on the + strand). ``truths`` maps a
    JASPAR ID to its Motif (``start`` the planted sites' median start, None where placed
    anywhere). ``streme`` holds the stored STREME answer (motif file, site table) or None;
    ``fresh`` sets of the same kind drawn with other seeds (generated sets; empty for the
    public ones), on which every tool's PWM alone is scanned too: the mean recall on sequences
    neither tool saw."""

    name: str
    pos: Path
    neg: Path
    planted: object
    truths: dict
    streme: tuple | None = None
    note: str = ""
    ids: list = field(default_factory=list)
    fresh: list = field(default_factory=list)


def jaspar(shared=SHARED):
    from seqimp.motifs import read_motifs

    return read_motifs(Path(shared) / "tomtom_reference" / "JASPAR2024_CORE_vertebrates_non-redundant.meme")


def _truth_motifs(database, planted, anywhere=()):
    out = {}
    for mid, rows in planted.groupby("motif"):
        m = next(x for x in database if x.name.split("_")[0] == mid)
        m.description = m.name
        m.start = None if mid in anywhere else int(np.median(rows["start"]))
        out[mid] = m
    return out


def public_scenario(name, shared=SHARED, database=None):
    """A set of ``motif_benchmark_2`` with STREME's stored answer (the composite unit's rows are
    left out: its halves are the planted matrices)."""
    import pandas as pd

    folder = Path(shared) / "motif_benchmark_2"
    truth = pd.read_csv(folder / f"{name}_truth.tsv", sep="\t")
    truth = truth[(truth["label"] == "pos") & truth["motif"].str.startswith("MA")].copy()
    truth["sequence"] = truth["seq_id"].str.rsplit("_", n=1).str[1].astype(int) - 1
    database = jaspar(shared) if database is None else database
    planted = truth[["sequence", "motif", "start", "end"]].reset_index(drop=True)
    # no offset for a factor placed anywhere, nor for the halves of the composite unit: the unit on
    # either strand puts each half at two places, so no one start is "true"
    anywhere = set(planted["motif"]) if name in ("anywhere", "composite") else ()
    truths = _truth_motifs(database, planted, anywhere=anywhere)
    return Scenario(name, folder / f"{name}_pos.fa", folder / f"{name}_neg.fa", planted, truths,
                    streme=(folder / f"streme_{name}.txt", folder / f"streme_{name}_sites.tsv"))


# ---------------------------------------------------------------- generator ----

GENERATED = {  # kind: (JASPAR IDs, sequences per class, length, description)
    "anywhere": (("MA0143.5",), 1000, 250, "SOX2 anywhere in 250 nt, 25% of positives"),
    "masked": (("MA0466.4", "MA0114.5"), 1000, 200, "CEBPB at 50+-5 in all, HNF4A at 140+-5 in 60%"),
    "composite": (("MA0098.4", "MA0090.4"), 1000, 100, "ETS1 + 3 nt + TEAD1 at 35+-3 in all; one half in each negative"),
    "weaklong": (("MA0139.2",), 1600, 90, "CTCF (19 columns) at 20-30, each column from the matrix with p 0.65"),
    "few": (("MA0052.5",), 100, 80, "MEF2A at 40+-2 in 75% of 100 positives"),
}


def _background(rng, n, L):
    first = rng.choice(4, size=n, p=np.full(4, 0.25) @ np.linalg.matrix_power(TRANSITIONS, 50))
    X = np.empty((n, L), dtype=np.uint8)
    X[:, 0] = first
    cum = np.cumsum(TRANSITIONS, axis=1)
    for j in range(1, L):
        X[:, j] = (rng.random((n, 1)) > cum[X[:, j - 1]]).sum(axis=1)
    return X


def _site(rng, pwm, keep=1.0):
    p = 0.98 * pwm + 0.005
    p /= p.sum(axis=1, keepdims=True)
    letters = (rng.random((len(p), 1)) > np.cumsum(p, axis=1)).sum(axis=1).astype(np.uint8)
    noisy = rng.random(len(p)) > keep
    letters[noisy] = rng.integers(0, 4, int(noisy.sum()))
    return letters


def _paste(X, i, start0, letters, strand):
    X[i, start0:start0 + len(letters)] = letters if strand == "+" else (3 - letters)[::-1]


def generate(kind, seed, out, shared=SHARED, database=None) -> Scenario:
    """Write a generated scenario of ``kind`` (see :data:`GENERATED`) with ``seed`` into ``out``."""
    ids, n, L, note = GENERATED[kind]
    database = jaspar(shared) if database is None else database
    pwms = {mid: next(x for x in database if x.name.split("_")[0] == mid).pwm for mid in ids}
    rng = np.random.default_rng([seed, list(GENERATED).index(kind)])
    pos, neg = _background(rng, n, L), _background(rng, n, L)
    rows = []

    def plant(i, mid, start0, keep=1.0, strand=None):
        strand = strand or ("+" if rng.random() < 0.5 else "-")
        letters = _site(rng, pwms[mid], keep)
        _paste(pos, i, start0, letters, strand)
        rows.append((i, mid, start0 + 1, start0 + len(letters)))

    if kind == "anywhere":
        m = len(pwms[ids[0]])
        for i in rng.choice(n, size=n // 4, replace=False):
            plant(int(i), ids[0], int(rng.integers(0, L - m + 1)))
    elif kind == "masked":
        for i in range(n):
            plant(i, ids[0], 49 + int(rng.integers(-5, 6)))
        for i in rng.choice(n, size=int(0.6 * n), replace=False):
            plant(int(i), ids[1], 139 + int(rng.integers(-5, 6)))
    elif kind == "composite":
        a, b = (len(pwms[x]) for x in ids)
        for i in range(n):
            s = 34 + int(rng.integers(-3, 4))
            left, right = _site(rng, pwms[ids[0]]), _site(rng, pwms[ids[1]])
            unit = np.concatenate([left, _background(rng, 1, 3)[0], right])
            strand = "+" if rng.random() < 0.5 else "-"
            _paste(pos, i, s, unit, strand)
            if strand == "+":
                rows += [(i, ids[0], s + 1, s + a), (i, ids[1], s + a + 4, s + a + 3 + b)]
            else:
                rows += [(i, ids[1], s + 1, s + b), (i, ids[0], s + b + 4, s + b + 3 + a)]
        for i in range(n):  # each negative carries one half anywhere
            mid = ids[int(rng.random() < 0.5)]
            letters = _site(rng, pwms[mid])
            _paste(neg, i, int(rng.integers(0, L - len(letters) + 1)), letters, "+" if rng.random() < 0.5 else "-")
    elif kind == "weaklong":
        for i in range(n):
            plant(i, ids[0], 19 + int(rng.integers(0, 11)), keep=0.65)
    elif kind == "few":
        for i in rng.choice(n, size=int(0.75 * n), replace=False):
            plant(int(i), ids[0], 39 + int(rng.integers(-2, 3)))
    return write_scenario(out, kind, seed, pos, neg, rows, database,
                          anywhere=ids if kind in ("anywhere", "composite") else (), note=note)


def write_scenario(out, kind, seed, pos, neg, rows, database, *, anywhere=(), note=""):
    """A generated set written as ``gen_<kind>_<seed>_{pos,neg}.fa`` into ``out``, with its planted
    sites (``rows``: sequence, motif, start, end) and the motifs that count as found
    (``anywhere``: the planted ids whose sites may lie anywhere)."""
    import pandas as pd

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    name = f"gen_{kind}_{seed}"
    for label, X in (("pos", pos), ("neg", neg)):
        (out / f"{name}_{label}.fa").write_text(
            "".join(f">{name}_{label}_{i + 1}\n{''.join('ACGT'[c] for c in x)}\n" for i, x in enumerate(X)))
    planted = pd.DataFrame(rows, columns=["sequence", "motif", "start", "end"])
    truths = _truth_motifs(database, planted, anywhere=anywhere)
    return Scenario(name, out / f"{name}_pos.fa", out / f"{name}_neg.fa", planted, truths, note=note)
