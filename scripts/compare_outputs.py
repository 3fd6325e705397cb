"""Fingerprint the files that seqimp's commands write, to prove a refactoring changed no output.

Runs a fixed set of commands on tests/data (``seqimp poim`` in memory and streamed, on a saved
model, the table route and a sampled route; ``seqimp motifs`` on a POIM and on the gapped-k-mer
route; ``seqimp train``; ``seqimp demo``; ``seqimp scan``; ``seqimp enrich``)
into a scratch folder and records the SHA-256 of every file written. ``--save M.json`` keeps the
fingerprints; ``--against M.json`` compares with a kept set and prints each file that differs
(exit 1 if any does).

A key that a newer version adds to ``summary.json`` (listed in ``ADDED_SUMMARY_KEYS``) is left out
of its fingerprint, so a record added on purpose does not hide a change elsewhere in the file.

    python scripts/compare_outputs.py --save /tmp/before.json      # on the old code
    python scripts/compare_outputs.py --against /tmp/before.json   # on the new code
    python scripts/compare_outputs.py --against /tmp/before.json --work /tmp/seqimp-compare-outputs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

#: summary.json keys left out of its fingerprint: ones a later version adds on purpose, and the
#: wall-clock seconds of each step (they differ from run to run).
ADDED_SUMMARY_KEYS = ("files", "timings", "model_route")

#: Timings recorded outside summary.json's ``timings`` (``gkm_metrics`` of motifs.json, shown in the report).
_TIMING = re.compile(r"(train_seconds|seconds_per_1000)(&quot;|\")?:\s*[-+0-9.eE]+")

#: The default scratch folder: fixed, because the files record the paths of their inputs and outputs
#: (compare fingerprints made in the same folder; ``--work`` names another one).
WORK = Path(tempfile.gettempdir()) / "seqimp-compare-outputs"

_SCORER = textwrap.dedent('''
    import numpy as np

    def score(X):
        """A fixed scorer: +1 for each TGACTCA-like GA at positions 20-21 (0-based)."""
        X = np.asarray(X)
        return (X[:, 20] == 2).astype(float) + (X[:, 21] == 0).astype(float) + 0.1 * (X[:, 5] == 1)
''')


def _commands(work: Path) -> list[list[str]]:
    """The commands, with paths relative to ``work`` (the inputs are copied there), so that what the
    files record of their paths does not depend on where the checkout lies."""
    import shutil

    shutil.copytree(DATA, work / "data")
    pos, neg, db = "data/planted_pos.fa", "data/planted_neg.fa", "data/toy_motifs.meme"
    table = work / "table.tsv"
    from seqimp.io import read_fasta
    p, n = read_fasta(work / pos), read_fasta(work / neg)
    lines = ["id\tseq\tvalue"] + [f"p{i}\t{s}\t{1.0 + 0.01 * i}" for i, s in enumerate(p.sequences()[:60])] + \
            [f"n{i}\t{s}\t{0.02 * i}" for i, s in enumerate(n.sequences()[:60])]
    table.write_text("\n".join(lines) + "\n")
    (work / "toy_scorer.py").write_text(_SCORER)
    out = Path("out")
    (work / out / "train").mkdir(parents=True)
    return [
        ["poim", "--positive", pos, "--negative", neg, "--out", str(out / "poim"), "--db", db],
        ["poim", "--positive", pos, "--negative", neg, "--out", str(out / "stream"), "--max-order", "8",
         "--degree", "4", "--max-memory", "30M", "--no-motifs"],
        ["poim", "--positive", pos, "--negative", neg, "--out", str(out / "full"), "--max-order", "5",
         "--full-tables", "--no-motifs", "--background", "all", "--background-order", "1"],
        ["motifs", "--poim", str(out / "poim" / "poim.npz"), "--positive", pos, "--negative", neg,
         "--out", str(out / "motifs"), "--db", db, "--strand", "both"],
        ["train", "--positive", pos, "--negative", neg, "--model-out", str(out / "train" / "model.npz"),
         "--degree", "4"],
        ["poim", "--model-file", str(out / "train" / "model.npz"), "--background-fasta", neg,
         "--out", str(out / "model"), "--max-order", "4"],
        ["poim", "--table", table.name, "--sequence-column", "seq", "--value-column", "value",
         "--out", str(out / "table"), "--max-order", "4"],
        ["poim", "--scorer", "toy_scorer:score", "--background-fasta", neg, "--out", str(out / "scorer"),
         "--max-order", "2", "--n-samples", "200"],
        ["demo", "--out", str(out / "demo"), "--db", db],
        ["motifs", "--positive", pos, "--negative", neg, "--out", str(out / "gkm"), "--model", "gkm",
         "--db", db, "--strand", "both"],
        ["scan", "--db", db, "--fasta", pos, "--out", str(out / "scan")],
        ["enrich", "--positive", pos, "--negative", neg, "--db", db, "--out", str(out / "enrich")],
    ]


def _digest(path: Path) -> str:
    """SHA-256 of a file; in text files the path of the installed demo data (it differs between two
    checkouts) reads as ``<seqimp data>``."""
    from seqimp.datasets import demo_paths

    data_dir = str(Path(demo_paths()[0]).resolve().parent)
    if path.suffix in (".json", ".html", ".tsv"):
        text = path.read_text().replace(data_dir, "<seqimp data>")
        # a trained model's seconds (motifs.json of the gapped-k-mer route and its report) vary by run
        text = _TIMING.sub(r"\1\2: <seconds>", text)
    if path.name == "summary.json":
        data = json.loads(text)
        for key in ADDED_SUMMARY_KEYS:
            data.pop(key, None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
    if path.suffix in (".json", ".html", ".tsv"):
        return hashlib.sha256(text.encode()).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fingerprints(work: Path = WORK) -> dict[str, str]:
    """Run every command in the scratch folder ``work``; {relative path: sha256} of the files written."""
    import os
    import shutil

    from seqimp.cli import main

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    cwd = os.getcwd()
    os.chdir(work)
    sys.path.insert(0, str(work))
    try:
        for argv in _commands(work):
            rc = main(["--quiet", *argv])
            if rc != 0:
                raise SystemExit(f"seqimp {' '.join(argv)} exited {rc}")
    finally:
        os.chdir(cwd)
        sys.path.remove(str(work))
    out = work / "out"
    return {str(p.relative_to(out)): _digest(p) for p in sorted(out.rglob("*")) if p.is_file()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", metavar="M.json", help="write the fingerprints here")
    group.add_argument("--against", metavar="M.json", help="compare with fingerprints saved before")
    parser.add_argument("--work", metavar="DIR", type=Path, default=WORK,
                        help=f"scratch folder, emptied first (default {WORK}); use the same one for both runs")
    args = parser.parse_args(argv)
    prints = fingerprints(args.work.resolve())
    if args.save:
        Path(args.save).write_text(json.dumps(prints, indent=1, sort_keys=True) + "\n")
        print(f"{len(prints)} files fingerprinted into {args.save}")
        return 0
    before = json.loads(Path(args.against).read_text())
    differ = [f for f in sorted(set(before) | set(prints)) if before.get(f) != prints.get(f)]
    for f in differ:
        state = "missing now" if f not in prints else "new" if f not in before else "differs"
        print(f"{state}: {f}")
    print(f"{len(prints)} files, {len(differ)} differ from {args.against}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
