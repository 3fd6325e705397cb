"""``seqimp poim``: train (or load) a model, compute POIM/FIRM, write tables, figures and a report."""

from __future__ import annotations

import argparse
import contextlib

from ._options import BACKGROUND_DETAILS, BACKGROUND_HELP, BACKGROUNDS  # the pipeline's, not importing it (start-up)
from ._inputs import add_input_options, read_inputs
from ._logging import UserError, progress_enabled
from ._options import (MODEL_KIND_DETAILS, MODEL_KIND_HELP, MODEL_KINDS, add_dask_options, add_data_options,
                       add_db_option, add_gkm_options, add_model_options, add_quiet, check_degree, dask_client,
                       details, memory_size, nonneg_int, positive_int)
from ._vocabulary import MAX_MEMORY_HELP, ModelKind, add_strand_option
from ._output_folder import check_output_path, input_paths, output_dir
from ._printing import print_motifs, print_outcome

HELP = """\
Find the positional oligomers a sequence classifier relies on: train a WD/WDS
classifier (or take a saved or external model), compute the exact POIM and
FIRM of every k-mer at every position, and find the motifs of the POIM.
Writes into OUT: top_oligomers.tsv (.bed for BED input), the heatmaps
(differential_poim, maximal_poim, poim_order<k>, weights_vs_firm), poim.npz,
poim_tables.h5 (--full-tables), model.npz, summary.json, report.html, the
motifs as 'seqimp motifs' writes them (motifs.*, motif_candidates.tsv,
candidate_tests.tsv, motif_sites.*, logos/) and matches.tsv (--db). Full reference: docs/cli/poim.md

examples:
  seqimp poim --positive pos.fa --negative neg.fa --out results
  seqimp poim --positive pos.fa --negative neg.fa --out results --db JASPAR2024 --max-order 10
  seqimp poim --model-file model.npz --background-fasta neg.fa --out results
  seqimp poim --positive-bed peaks.narrowPeak --genome hg38.fa --width 100 --negatives shuffle --out results
  seqimp poim --onnx-model cnn.onnx --positive pos.fa --negative neg.fa --max-order 3 --out results
"""

#: The details of 'seqimp poim' (its docs/cli page; ``--help`` shows :data:`HELP`).
DETAILS = """\
Default route: train a WD/WDS classifier on `--positive` vs `--negative`, report held-out accuracy and auROC,
compute the exact POIM and FIRM of every k-mer at every position (k = 1..`--max-order`) under a Markov
background, and write into OUT: top_oligomers.tsv, differential_poim.FMT, maximal_poim.FMT, poim_order<k>.FMT
(k <= 4), weights_vs_firm.FMT, poim.npz (summaries: maximal and differential POIM, the top 1000 oligomers per
order, full tables for k <= 4), model.npz, summary.json and report.html; with `--full-tables` also
poim_tables.h5.

Whenever a run has DNA `--positive` and `--negative` sequences (FASTA or BED windows: training, and
`--model-file`, `--scorer`, `--sklearn-model` or `--onnx-model` given both) it also finds the motifs of its POIM
and refines their sites on those sequences, as `seqimp motifs` does (no second model): motifs.tsv,
motifs.meme, motifs.jaspar, motifs.transfac, motifs.json, motif_candidates.tsv, candidate_tests.tsv, motif_sites.tsv,
motif_sites.bed and logos/, the best motif in summary.json and a motif section in the report; sites are
looked for on both strands (`--strand given`: the given strand only), `--db` adds matches.tsv (TOMTOM; a motif
file or a JASPAR release such as JASPAR2024 through pyjaspar), `--no-motifs` skips the step. Runs without
both classes of DNA sequences (`--table` with measured values, only `--background-fasta` or one of
`--positive`/`--negative`, `--alphabet rna`/`protein`) write no motifs and refuse `--db` and `--strand both`.

Long sequences and high orders that do not fit `--max-memory` in memory are computed exactly by the
streaming engine. Nothing is written to OUT when a step fails. Positions in all outputs are 1-based.

Inputs (instead of `--positive`/`--negative` FASTA of one length):

- `--positive-bed P --genome G --width W`: windows around peak summits cut from a genome, with
  `--negative-bed N`, `--negatives shuffle` or `--negatives genome`; adds top_oligomers.bed (genome
  coordinates of the top oligomers' hits); positions count from the window centre (+1) unless
  `--position-origin N`.
- `--table F --sequence-column S --value-column V`: sequences with measured values (TSV/CSV): a WD regressor
  (held-out R^2, Spearman), or the classifier when the column holds two labels.
- `--alphabet dna|rna|protein`: FASTA and table input of any alphabet.

Other models:

- `--model-file MODEL.npz`: a model saved by `seqimp train`.
- `--scorer module:function`: sampled POIM/FIRM of any score function taking an encoded (n, L) array.
- `--sklearn-model M.joblib`: sampled POIM/FIRM of a scikit-learn model trained on `seqimp.scorers.onehot(X)`.
- `--onnx-model M.onnx`: sampled POIM/FIRM of a deep-learning model exported to ONNX: input one-hot float32
  (n, 4, L) (`--onnx-layout NLC`: (n, L, 4)), output (n,) or (n, m) (column `--output-index`).

The sampled routes write no weights_vs_firm and no model.npz, and score their batches on threads on every
core (`--scorer`, `--sklearn-model`), on `--n-jobs N` local processes or on a Dask cluster
(`--dask-workers N`, `--dask-scheduler ADDRESS`; `pip install "seqimp[dask]"`); the results do not depend on
either.

More examples:

```text
seqimp poim --positive pos.fa --negative neg.fa --out results --db data/known_motifs.meme
seqimp poim --positive pos.fa --negative neg.fa --out results --degree 6 --max-order 10
seqimp poim --positive pos.fa --negative neg.fa --out results --no-motifs
seqimp poim --positive pos.fa --negative neg.fa --out results --max-order 12 --max-memory 4G
seqimp poim --model-file model.npz --positive pos.fa --negative neg.fa --out results
seqimp poim --sklearn-model gb.joblib --background-fasta neg.fa --max-order 3 --out results
seqimp poim --table mpra.tsv --sequence-column seq --value-column activity --out results
seqimp poim --positive prot.fa --negative prot_bg.fa --alphabet protein --degree 2 --out results
seqimp poim --onnx-model cnn.onnx --background-fasta neg.fa --out results --dask-scheduler tcp://host:8786
```
"""

def register(sub) -> None:
    p = details(sub.add_parser("poim", help="POIM/FIRM analysis: tables, heatmaps, report", description=HELP,
                               formatter_class=argparse.RawDescriptionHelpFormatter), DETAILS)
    add_data_options(p, required=False)
    add_input_options(p)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    k = add_model_options(p, "model (when training)")
    details(k.add_argument("--model", action=ModelKind, allowed=MODEL_KINDS, default="auto", help=MODEL_KIND_HELP),
            MODEL_KIND_DETAILS)
    add_gkm_options(k, kind=False)
    g = p.add_argument_group("importance")
    details(g.add_argument("--max-order", type=positive_int, default=None, metavar="K",
                           help="longest oligomer (default: the degree; 3 for --scorer/--sklearn-model)"),
            "The longest oligomer analysed; it may exceed the degree.")
    details(g.add_argument("--background", choices=BACKGROUNDS, default="negative", help=BACKGROUND_HELP),
            BACKGROUND_DETAILS)
    g.add_argument("--background-order", type=nonneg_int, default=0, metavar="K",
                   help="Markov order of the background (default 0)")
    g.add_argument("--positional-background", action="store_true", help="position-specific background tables")
    g.add_argument("--background-fasta", metavar="FA", help="fit the background on these sequences instead")
    details(g.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                           help="memory budget, e.g. 4G (default: half the RAM available now for a POIM)"),
            f"Default: {MAX_MEMORY_HELP.split(': ', 1)[1]}. POIM jobs whose full tables need more are computed "
            "by the streaming engine (one log line says so); "
            "jobs that do not fit even streaming are refused before training, and so is a training set whose fit "
            "would need more.")
    details(g.add_argument("--full-tables", action="store_true",
                           help="also write every order's full POIM/FIRM tables (poim_tables.h5; large)"),
            "HDF5, float32; large: 4^k x L values per order. poim.npz always holds the summaries.")
    m = p.add_argument_group("motifs (runs with DNA --positive and --negative sequences)")
    m.add_argument("--no-motifs", action="store_true", help="skip the motifs (POIM outputs only)")
    add_strand_option(m, default=None, what="sites")
    m.add_argument("--homer", action="store_true",
                   help="also write the motifs in HOMER's motif format (motifs.homer)")
    add_db_option(m)
    p.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="figure format (default png)")
    p.add_argument("--top", type=positive_int, default=50, metavar="N",
                   help="rows per order in top_oligomers.tsv (default 50)")
    other = p.add_argument_group("other models (Dask: optional extra 'dask')")
    r = other.add_mutually_exclusive_group()
    r.add_argument("--model-file", metavar="MODEL.npz", help="analyse a model saved by 'seqimp train'")
    r.add_argument("--scorer", metavar="MODULE:FUNCTION",
                   help="sampled route: a function (module or file.py) scoring (n, L) uint8 codes")
    r.add_argument("--sklearn-model", metavar="MODEL.joblib",
                   help="sampled route: a joblib-saved scikit-learn model (trusted files only)")
    r.add_argument("--onnx-model", metavar="MODEL.onnx",
                   help="sampled route: a deep-learning model exported to ONNX, run by onnxruntime")
    other.add_argument("--output-index", type=nonneg_int, default=None, metavar="I",
                   help="column of the ONNX model's (n, m) output used as the score (default 0)")
    other.add_argument("--onnx-layout", choices=["NCL", "NLC"], default="NCL",
                   help="ONNX input: one-hot (n, 4, L) (NCL, default) or (n, L, 4) (NLC)")
    other.add_argument("--sklearn-features", choices=["onehot", "codes", "strings"], default="onehot",
                   help="what the scikit-learn model was trained on (default onehot)")
    other.add_argument("--n-samples", type=positive_int, default=1000, metavar="N",
                   help="background samples of the sampled route (default 1000)")
    other.add_argument("--n-jobs", type=positive_int, default=None, metavar="N",
                   help="sampled route: score the batches on N local processes (same results)")
    add_dask_options(p, "score the sampled batches", other)
    add_quiet(p, solver=True)
    p.set_defaults(func=run)


def _options(args, inputs, background_fasta) -> dict:
    """The pipeline options every route of this run takes: background, importance, output and the seed."""
    from ..options import BackgroundOptions, ImportanceOptions, OutputOptions

    return dict(background=BackgroundOptions(kind=args.background, order=args.background_order,
                                             positional=args.positional_background, fasta=background_fasta),
                importance=ImportanceOptions(max_order=args.max_order, max_memory=args.max_memory,
                                             full_tables=args.full_tables, n_samples=args.n_samples,
                                             n_jobs=args.n_jobs),
                output=OutputOptions(fmt=args.format, top=args.top, position_origin=inputs.origin,
                                     windows=inputs.windows, dropped=inputs.dropped, progress=progress_enabled()),
                random_state=args.seed)


def _scorer(args):
    """The score function and its name for the sampled routes (--scorer, --sklearn-model, --onnx-model)."""
    from ..scorers import OnnxScorer, load_scorer, load_sklearn_model

    if args.scorer:
        return load_scorer(args.scorer), args.scorer
    if args.sklearn_model:
        return load_sklearn_model(args.sklearn_model, features=args.sklearn_features), args.sklearn_model
    return OnnxScorer(args.onnx_model, layout=args.onnx_layout, output_index=args.output_index or 0,
                      alphabet=args.alphabet), args.onnx_model


def _check_route(args, inputs, external) -> None:
    """UserError for options that do not fit the chosen route, before any work."""
    if args.output_index is not None and not args.onnx_model:
        raise UserError("--output-index selects an output column of --onnx-model; give the model")
    if inputs.table is not None and (args.model_file or external):
        raise UserError("--table trains a model; analyse a saved or external model with FASTA or BED input")
    if not external and (args.n_jobs or args.dask_workers or args.dask_scheduler):
        raise UserError("--n-jobs/--dask-workers/--dask-scheduler spread the batches of the sampled route; "
                        "give --scorer, --sklearn-model or --onnx-model (train on a cluster with 'seqimp train')")
    if external and args.alphabet != "dna":
        from ..io._strand import require_dna

        require_dna(args.alphabet, "the sampled POIM (--scorer, --sklearn-model, --onnx-model)")


def _motif_route(args, inputs, external) -> bool:
    """Whether this run finds motifs: DNA --positive and --negative sequences (FASTA or BED
    windows) on any classifier route -- training, --model or a sampled one -- and no
    --no-motifs; one UserError, saying why, for motif options on a run without them."""
    dna = args.alphabet == "dna"
    both = inputs.positive is not None and inputs.negative is not None and not inputs.regression
    wanted = both and dna and not args.no_motifs
    if not wanted and (args.db or args.strand == "both"):
        given = "--db" if args.db else "--strand both"
        if args.no_motifs:
            raise UserError(f"{given} is for the motifs, which --no-motifs skips")
        if not dna:
            raise UserError(f"{given}: motifs are found on DNA sequences only (--alphabet {args.alphabet})")
        if inputs.regression:
            raise UserError(f"{given} is for the motifs, which are refined on positive and negative sequences; "
                            "--table with measured values (the regression route) has none")
        raise UserError(f"{given} is for the motifs, which are refined on the sequences: give both --positive "
                        "and --negative (or --positive with --negatives shuffle, or --positive-bed with "
                        "--negative-bed or --negatives), or run 'seqimp motifs --poim OUT/poim.npz --positive P "
                        "--negative N' afterwards")
    return wanted


def run(args) -> int:
    from ..motifs.known._compare import tomtom_warmup

    # a first run with --db compiles TOMTOM (once) in a second process while this one trains
    with tomtom_warmup(bool(args.db) and not args.no_motifs):
        return _run(args)


def _run(args) -> int:
    from ..io import read_fasta
    from ..options import ModelOptions, MotifOptions
    from ..pipeline import run_model, run_poim, run_regression, run_sampled
    from ..training import load_model

    check_output_path(args.out)
    kind = args.model  # auto|wd|wds|gkm; a saved model is --model-file
    external = args.scorer or args.sklearn_model or args.onnx_model
    others = [o for o, v in (("--scorer", args.scorer), ("--sklearn-model", args.sklearn_model),
                             ("--onnx-model", args.onnx_model)) if v]
    if args.model_file and others:  # the old spelling --model FILE is outside their exclusive group
        raise UserError(f"--model-file and {others[0]} both give the model; use one")
    inputs = read_inputs(args)
    _check_route(args, inputs, external)
    pos, neg = inputs.positive, inputs.negative
    background_fasta = None
    if args.background_fasta:
        background_fasta = read_fasta(args.background_fasta, args.alphabet,
                                      on_invalid="skip" if args.skip_invalid else "error",
                                      mask_lowercase=args.mask_lowercase)
    if inputs.regression:
        if args.background_fasta:
            raise UserError("--background-fasta is for --model-file/--scorer/--sklearn-model/--onnx-model runs; "
                            "use --background when training")
        check_degree(args, inputs.table.length)
    elif not (args.model_file or external):
        if pos is None or neg is None:
            raise UserError("--positive and --negative are required (or --positive with --negatives shuffle, "
                            "--positive-bed with --negative-bed or --negatives, --table; or analyse a saved model "
                            "with --model-file, --scorer, --sklearn-model or --onnx-model)")
        if args.background_fasta:
            raise UserError("--background-fasta is for --model-file/--scorer/--sklearn-model/--onnx-model runs; "
                            "use --background when training")
        check_degree(args, pos.length)
    elif background_fasta is None and (args.background == "negative" and neg is None
                                       or args.background == "all" and pos is None and neg is None):
        raise UserError(f"--background {args.background} needs --negative (or --positive) sequences; "
                        "give them, --background-fasta FA or --background uniform")
    motifs = _motif_route(args, inputs, external)
    if kind != "auto" and (external or args.model_file or inputs.regression):
        raise UserError(f"--model {kind} chooses the classifier trained on --positive/--negative; runs with a saved "
                        "or external model or with --table train none")
    if kind == "gkm" and not motifs:
        raise UserError("--model gkm finds the motifs of a gapped-k-mer model; this run has no motif step "
                        "(--no-motifs, or not both classes of DNA sequences)")
    database = None
    if motifs and args.db:
        from ..motifs import load_database

        database = load_database(args.db, args.db_format)  # a bad database fails before any work
    score_fn = source = None
    if external:
        score_fn, source = _scorer(args)  # a model that cannot be loaded fails before the output folder
    options = _options(args, inputs, background_fasta)
    # motifs: the POIM just computed, refined on the sequences at hand (no second model)
    motif_options = (MotifOptions(strand=args.strand or "both", database=database, homer=args.homer) if motifs
                     else None)
    with dask_client(args) as client, output_dir(args.out, "poim", inputs=input_paths(args)) as tmp:
        if args.model_file:
            weights, metadata = load_model(args.model_file)
            run = run_model(tmp, weights, metadata=metadata, positive=pos, negative=neg, motifs=motif_options,
                            **options)
        elif external:
            import joblib

            with joblib.parallel_config(backend="dask") if client else contextlib.nullcontext():
                run = run_sampled(tmp, score_fn, source=source, positive=pos, negative=neg, motifs=motif_options,
                                  **options)
        elif inputs.regression:
            run = run_regression(tmp, inputs.table, inputs.table.values,
                                 model=ModelOptions(degree=args.degree, shifts=args.shifts, alpha=args.alpha,
                                                    test_fraction=args.test_fraction), **options)
        else:
            run = run_poim(tmp, pos, neg, model=ModelOptions(degree=args.degree, shifts=args.shifts, C=args.C,
                                                             test_fraction=args.test_fraction, kind=kind,
                                                             word_length=args.gkm_length,
                                                             informative=args.gkm_informative),
                           motifs=motif_options, **options)
    print_outcome(run, args.out)
    if run.motifs is not None:
        print_motifs(run.motifs, args.out)
    elif motifs:
        from ..motifs.search._poim_route import no_motifs_reason

        print(f"motifs: none ({no_motifs_reason(run.result)})")
    return 0
