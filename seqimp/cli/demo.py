"""``seqimp demo``: the whole ``seqimp poim`` pipeline on the embedded planted-motif data."""

from __future__ import annotations

import argparse

from ._logging import log, progress_enabled
from ._options import add_db_option, add_quiet
from ._output_folder import check_output_path, output_dir
from ._printing import match_lines, print_outcome

HELP = """\
Run the complete POIM/FIRM pipeline on the embedded demo data
(data/demo_positive.fa vs data/demo_negative.fa: the AP-1 site TGACTCA planted
at 1-based positions 21-23 of 60 nt random DNA, one base mutated in 20% of the
records) and write the results into OUT -- the same files as 'seqimp poim':
top_oligomers.tsv, heatmaps, poim.npz, model.npz, summary.json, report.html --
then find the motif ('seqimp motifs' on the same POIM and sequences): motifs.tsv,
motifs.meme, motif_sites.tsv/.bed, logos/, and a motif section in the report.

It then names the motif: TOMTOM (p and q, a decoy-calibrated q) against the
JASPAR 2024 CORE vertebrates matrices (879), read from the pyjaspar package
when it is installed (pip install 'seqimp[jaspar]'; seqimp itself ships no
JASPAR files), and writes matches.tsv; the run ends with the motif's best
match or "no significant match". --db names another database (a motif file or
a JASPAR release such as JASPAR2022), --no-db skips the match. Without pyjaspar
and --db the demo prints how to get the match.

The demo uses a WD kernel of degree 6 and analyses oligomers up to length 8,
longer than the kernel's k-mers, which is how FIRM recovers a whole 7-mer.

The first run on a fresh install compiles numba kernels and caches them: about
20 s of CPU for seqimp's and about 60 s for the motif comparison (TOMTOM),
which compiles in a second process while the first does the rest, so about
1 minute on two idle cores; later runs take about 10 s (docs/pipeline.md,
"First run and start-up").

examples:
  seqimp demo --out demo-results
  seqimp demo --out demo-results --db data/known_motifs.meme
  seqimp demo --out demo-results --db JASPAR2022:CORE:vertebrates
  seqimp demo --out demo-results --no-db
"""

#: Settings of the demo run (about 10 s on two cores once numba's kernels are cached).
DEMO_SETTINGS = dict(degree=6, shifts=0, max_order=8, C=1.0, background="negative", test_fraction=0.2,
                     random_state=0, top=20)


def register(sub) -> None:
    p = sub.add_parser("demo", help="run the pipeline on the embedded demo data", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    g = p.add_mutually_exclusive_group()
    add_db_option(g, "to name the motif with (default JASPAR2024, with pyjaspar)", format_group=p)
    g.add_argument("--no-db", action="store_true", help="do not match the motif against known motifs")
    add_quiet(p, solver=True)
    p.set_defaults(func=run)


def _database(args):
    """The demo's known motifs: --db, else JASPAR 2024 CORE vertebrates when pyjaspar is
    installed; None with --no-db or without either."""
    from ..motifs import jaspar_motifs, load_database
    from ..motifs.known._jaspar import pyjaspar_available

    if args.no_db:
        return None
    if args.db:
        return load_database(args.db, args.db_format)
    return jaspar_motifs() if pyjaspar_available() else None


def run(args) -> int:
    from ..motifs.known._compare import tomtom_warmup
    from ..motifs.known._jaspar import pyjaspar_available

    check_output_path(args.out)
    # a first run compiles TOMTOM (once, ~1 min of CPU) in a second process from the start, while
    # this one loads the data, trains and computes the POIM on the other core
    with tomtom_warmup(not args.no_db and bool(args.db or pyjaspar_available())):
        return _run(args)


def _run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..datasets import demo_paths
    from ..io import read_fasta
    from ..motifs.known._jaspar import INSTALL_HINT
    from ..options import BackgroundOptions, ImportanceOptions, ModelOptions, MotifOptions, OutputOptions
    from ..pipeline import run_poim

    database = _database(args)
    pos_path, neg_path = demo_paths()
    pos, neg = read_fasta(pos_path), read_fasta(neg_path)
    log(f"demo: {len(pos)} positive and {len(neg)} negative sequences of length {pos.length}")
    settings = DEMO_SETTINGS
    with output_dir(args.out, "poim") as tmp:  # the files of 'seqimp poim', its motifs included
        result = run_poim(
            tmp, pos, neg,
            model=ModelOptions(degree=settings["degree"], shifts=settings["shifts"], C=settings["C"],
                               test_fraction=settings["test_fraction"]),
            background=BackgroundOptions(kind=settings["background"]),
            importance=ImportanceOptions(max_order=settings["max_order"]), motifs=MotifOptions(database=database),
            output=OutputOptions(top=settings["top"], progress=progress_enabled(),
                                 title="seqimp demo: AP-1 site TGACTCA planted at positions 21-23"),
            random_state=settings["random_state"])
    motifs = result.motifs
    print_outcome(result, args.out, note=" -- planted: TGACTCA at 21-23")
    if motifs is None:
        print("motifs: none (the differential POIM has no positive peak)")
        return 0
    print("motifs (strongest first):")
    for line in motifs.lines():
        print(f"  {line}")
    if motifs.matches is not None:
        for line in match_lines(motifs.matches, {m.name: m.consensus for m in motifs.motifs}, database.info):
            print(line)
    elif not args.no_db:
        print(f"to name it, install the JASPAR matrices ({INSTALL_HINT}) or give a motif database you have "
              f"(MEME, JASPAR or TRANSFAC file):\n  seqimp demo --out {args.out} --db JASPAR.meme")
    return 0
