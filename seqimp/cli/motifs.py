"""``seqimp motifs``: motifs from a POIM -- PWMs, logos, motif files, matches to known motifs."""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path

from ..errors import SeqimpError

from .common import UserError, check_output_path, log, output_dir, positive_int, progress_enabled
from .train import add_data_options, add_model_options, add_quiet, check_degree, read_pair

HELP = """\
Find the motifs a sequence model relies on: candidates from the peaks of the
differential POIM, a greedy PWM from overlapping top positional oligomers, and
a least-squares fit of PWMs, start positions and spreads whose implied POIM
matches the observed one. Either train a WD classifier on --positive vs
--negative first, or start from a saved POIM (poim.npz of 'seqimp poim').

Writes into DIR: motifs.meme, motifs.jaspar, motifs.transfac, motifs.tsv
(name, consensus, 1-based start, length, spread, score, sites),
motif_candidates.tsv, logos/ (one logo per motif and a letter-importance logo),
poim.npz (when trained here), and matches.tsv (TOMTOM p- and q-values) when
--db is given. If DIR holds a 'seqimp poim' report, it is rewritten with a
motif section.

A POIM fixes a motif's consensus and position but not how sharp its PWM is
(the model's score has no natural scale). With --positive/--negative the PWMs
are therefore the letter frequencies of the motif's sites in the positive
sequences; from --poim alone they are the fitted PWMs, flatter than the sites.

examples:
  seqimp motifs --positive pos.fa --negative neg.fa --out motifs
  seqimp poim --positive pos.fa --negative neg.fa --out results
  seqimp motifs --poim results/poim.npz --out results --db JASPAR2024_CORE.txt \
                --positive pos.fa --negative neg.fa
"""


def register(sub) -> None:
    p = sub.add_parser("motifs", help="motifs (PWMs, logos, files, database matches) from a POIM",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_options(p, required=False)
    p.add_argument("--poim", metavar="POIM.npz", help="a saved POIM result instead of training")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    add_model_options(p)
    g = p.add_argument_group("importance (when training)")
    g.add_argument("--max-order", type=positive_int, default=None,
                   help="longest oligomer of the POIM (default: the degree)")
    g.add_argument("--background", choices=["uniform", "negative", "all"], default="negative",
                   help="background of the POIM (default negative: order-0 fitted on the negatives)")
    m = p.add_argument_group("motifs")
    m.add_argument("--max-motifs", type=positive_int, default=3, help="most motifs reported (default 3)")
    m.add_argument("--measure", choices=["poim", "firm"], default="poim",
                   help="importance the motifs are fitted to (default poim)")
    m.add_argument("--fit-order", type=positive_int, default=3,
                   help="fit POIM orders 1..N (default 3; at most the POIM's max order)")
    m.add_argument("--min-score", type=float, default=0.02,
                   help="drop motifs explaining less than this share of the fitted POIM (default 0.02)")
    m.add_argument("--db", metavar="MOTIFS", help="known motifs (MEME, JASPAR or TRANSFAC) to match with TOMTOM")
    m.add_argument("--db-format", choices=["meme", "jaspar", "transfac"], default=None,
                   help="format of --db (default: recognised from the file)")
    m.add_argument("--matches", type=positive_int, default=5, help="best matches listed per motif (default 5)")
    m.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="logo format (default png)")
    add_quiet(p)
    p.set_defaults(func=run)


def _importance(args):
    """The POIMResult: loaded from --poim or computed from a model trained on the FASTA pair."""
    from ..importance._exact import POIMResult

    pos, neg = read_pair(args)
    if (pos is None) != (neg is None):
        raise UserError("give both --positive and --negative (or neither, with --poim)")
    if args.poim:
        path = Path(args.poim)
        if not path.is_file():
            raise UserError(f"--poim {path}: " + ("is a directory, expected poim.npz" if path.is_dir()
                                                   else "no such file"))
        try:
            result = POIMResult.load(path)
        except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            if isinstance(exc, SeqimpError):
                raise
            raise UserError(f"--poim {path}: not a poim.npz written by 'seqimp poim'") from None
        if pos is not None and pos.length != result.length:
            raise UserError(f"--positive {args.positive} has length {pos.length}, but --poim {path} "
                            f"describes sequences of length {result.length}")
        return result, pos, neg
    if pos is None:
        raise UserError("--positive and --negative are required (or start from a saved --poim poim.npz)")
    check_degree(args, pos.length)
    from ..pipeline._run import check_job, compute_importance, make_background, train_model

    max_order = args.max_order or args.degree
    if max_order > pos.length:
        raise UserError(f"--max-order {max_order} exceeds the sequence length {pos.length}")
    check_job(pos.length, degree=args.degree, max_order=max_order)
    weights, _info = train_model(pos, neg, degree=args.degree, shifts=args.shifts, C=args.C,
                                test_fraction=args.test_fraction, random_state=args.seed, log=log,
                                progress=progress_enabled())
    bg, text = make_background(args.background, positive=pos, negative=neg, length=pos.length)
    log(f"computing POIM and FIRM up to order {max_order} ({text})")
    return compute_importance(weights, bg, max_order=max_order, progress=progress_enabled()), pos, neg


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..motifs import (compare_motifs, count_sites, discover_motifs, read_motifs, write_jaspar, write_meme,
                          write_transfac)
    from ..plot._logos import importance_logo, logo
    from .._tables import write_tsv

    check_output_path(args.out)
    database = read_motifs(args.db, args.db_format) if args.db else None
    result, pos, neg = _importance(args)
    fit_order = min(args.fit_order, result.max_order)
    log(f"finding motifs in a POIM of length {result.length}, orders 1..{result.max_order}")
    found = discover_motifs(result, max_motifs=args.max_motifs, measure=args.measure,
                            orders=range(1, fit_order + 1), min_score=args.min_score)
    motifs = found.motifs
    if pos is not None:
        log("counting motif sites in the positive sequences")
        counted = [count_sites(m, pos, neg) for m in motifs]
        enriched = [m for m in counted if m.sites > 0]
        for m in counted:
            if m.sites == 0:
                log(f"{m.name} ({m.consensus} at {m.start}) has no sites enriched in the positives"
                    + ("; dropped" if enriched else ""))
        motifs = found.motifs = enriched or counted
    matches = None
    if database is not None:
        log(f"comparing {len(motifs)} motif(s) with {len(database)} known motifs (TOMTOM)")
        matches = compare_motifs(motifs, database, top=args.matches)
    with output_dir(args.out) as tmp:
        write_meme(motifs, tmp / "motifs.meme")
        write_jaspar(motifs, tmp / "motifs.jaspar")
        write_transfac(motifs, tmp / "motifs.transfac")
        write_tsv(found.table(), tmp / "motifs.tsv")
        write_tsv(found.candidates, tmp / "motif_candidates.tsv")
        if matches is not None:
            write_tsv(matches, tmp / "matches.tsv")
        if args.poim is None:
            result.save(tmp / "poim.npz")
        (tmp / "logos").mkdir()
        for m in motifs:
            ax = logo(m)
            ax.figure.savefig(tmp / "logos" / f"{m.name}_logo.{args.format}", dpi=130)
            plt.close(ax.figure)
        lo = max(min(m.start for m in motifs) - 5, 1)
        hi = min(max(m.start + m.length - 1 for m in motifs) + 5, result.length)
        if hi - lo + 1 > 120:  # motifs far apart: show the strongest one's neighbourhood only
            centre = motifs[0].start + motifs[0].length // 2
            lo, hi = max(centre - 60, 1), min(centre + 59, result.length)
        ax = importance_logo(result, measure=args.measure, positions=(lo, hi))
        ax.figure.savefig(tmp / "logos" / f"importance_logo.{args.format}", dpi=130)
        plt.close(ax.figure)
    out = Path(args.out)
    if (out / "summary.json").exists():  # a 'seqimp poim' folder: add the motif section to its report
        from ..pipeline._report import write_report

        write_report(out, motifs_dir=out)
        log(f"report updated: {out}/report.html")
    for row in found.table().to_dict("records"):
        print(f"{row['name']}\t{row['consensus']}\tstart {row['start']}\tlength {row['length']}\t"
              f"score {row['score']:.3f}")
    if matches is not None and len(matches):
        best = {}
        for row in matches.to_dict("records"):
            best.setdefault(row["query"], row)
        for q, row in best.items():
            print(f"{q}: best match {row['target']} {row['target_description']} "
                  f"(p = {row['p_value']:.2g}, q = {row['q_value']:.2g})")
    print(f"motifs: {out}/motifs.tsv")
    return 0
