"""``seqimp motifs``: motifs from a POIM -- PWMs, logos, motif files, matches to known motifs."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ._inputs import add_input_options, default_negatives, read_motif_inputs, read_motif_source
from ._logging import UserError, progress_enabled
from ._options import (BACKGROUND_DETAILS, BACKGROUND_HELP, BACKGROUNDS, add_data_options, add_db_option,
                       add_gkm_options, add_model_options, add_quiet, check_degree, details, mask_option, nonneg_int,
                       positive_int, share)
from ._vocabulary import add_strand_option
from ._output_folder import check_output_path, input_paths, output_dir, owned_files
from ._printing import print_motifs

HELP = """\
Find the motifs a sequence model relies on: train a classifier on --positive
vs --negative (or start from a saved --poim), take candidates from the peaks
of its differential POIM, fit PWMs and refine them on their sites; a motif is
kept when its sites are enriched in the positives, also held out (without
negatives: against dinucleotide shuffles). Or: the motifs of any model's
attributions (TF-MoDISco's job). Writes into DIR: motifs.meme/.jaspar/
.transfac/.homer, motifs.tsv/.json, motif_candidates.tsv, candidate_tests.tsv,
motif_sites.tsv/.bed, logos/, motifs_poim.npz, report.html, matches.tsv (--db); seqlets.tsv,
motif_cwms.npz, attributions.npz (attributions). Reference: docs/cli/motifs.md

examples:
  seqimp motifs --positive pos.fa --negative neg.fa --out motifs
  seqimp motifs --positive peaks.fa --out motifs --width 100
  seqimp motifs --positive pos.fa --negative neg.fa --out motifs --model gkm --strand given
  seqimp motifs --positive-bed peaks.narrowPeak --genome hg38.fa --width 100 --out motifs
  seqimp motifs --poim results/poim.npz --positive pos.fa --negative neg.fa --out results --db JASPAR2024
  seqimp motifs --table data.tsv --value-column bound --out motifs --min-width 8 --max-width 15
  seqimp motifs --sequences ohe.npz --attributions attr.npz --out motifs --db JASPAR2024
"""

#: The details of 'seqimp motifs' (its docs/cli page; ``--help`` shows :data:`HELP`).
DETAILS = """\
`seqimp motifs` finds the motifs a sequence model relies on: candidates from the peaks of the differential
POIM, a greedy PWM from overlapping top positional oligomers, and a least-squares fit of PWMs, start positions
and spreads whose implied POIM matches the observed one. Either train a classifier on `--positive` vs
`--negative` first, or start from a saved POIM (poim.npz of `seqimp poim`).

### Sequences

Sequences, as STREME takes them: FASTA of any lengths. Records of one length go to the positional WD model (or
the gkm model, `--model`); records of different lengths take the position-free gapped-k-mer (gkm) model, each
record padded to the longest with dinucleotide shuffles of itself (no site is reported in the padding), or,
with `--width W`, the central W nt of every record go to the positional model. Without negatives
(`--negative`, `--negative-bed`, `--negatives`) the controls are dinucleotide-preserving shuffles of the
positives. The log says which route a run took, and motifs.json records it (model_route, negatives, padded).
The sequences may also be windows cut from a genome (`--positive-bed PEAKS --genome G --width W`, with
`--negative-bed BG`, `--negatives shuffle` or `--negatives genome`: GC-matched genomic windows; site ids are
then chrom:start-end(strand)) or a `--table` with a binary label column (`--sequence-column`,
`--value-column`); `--alphabet rna` reads U as T. Positions count from `--position-origin N` (or the window
centre for BED input) in motifs.tsv (start_label), motif_sites.tsv (position_label) and the plots.
`--min-width`/`--max-width` bound the motifs' widths (as STREME's `--minw`/`--maxw`).

### Files

Writes into DIR: motifs.meme, motifs.jaspar, motifs.transfac (and motifs.homer with `--homer`: the PWMs for
scanning, fitted over whole sequences against the negatives' order-2 Markov background), background.txt (that
background, MEME's `--bfile` format), motifs.tsv (one row per motif, in the order found: name, consensus,
1-based start, length, direction, position_free, spread, score, sites, ...), motifs.json (seed, options, model
route, negatives), motif_candidates.tsv, candidate_tests.tsv (with sequences: what became of every candidate
tested, in the order tested -- reported, a copy of a motif, its sites those of another, not enriched or not
tested held out -- with its sites and p-values), motif_sites.tsv and motif_sites.bed (with sequences; BED in genome
coordinates for genomic windows), logos/ (one logo and one site-position plot per motif and a
letter-importance logo), motifs_poim.npz (the POIM, when trained here; a poim.npz of `seqimp poim` in DIR is
left alone), report.html (the motifs first; in a `seqimp poim` folder its report gains the motif section
instead), and matches.tsv (TOMTOM p- and q-values, a decoy-calibrated q, "no significant match" rows; with a
JASPAR release also each target's TF class) when `--db` is given: a motif file, a `seqimp motifs` folder, or a
JASPAR release by name (JASPAR2024 = CORE vertebrates, 879 matrices; RELEASE:COLLECTION:TAX_GROUP for others)
read from the pyjaspar package (`pip install 'seqimp[jaspar]'`; JASPAR is CC BY 4.0).

### PWMs, sites and significance

A POIM fixes a motif's consensus and position but not how sharp its PWM is (the model's score has no natural
scale). With sequences the PWMs are therefore the letter frequencies of the motif's sites in the positive
sequences (EM within the motif's window, on both strands by default), with a site threshold that 1% of the
negatives pass; from `--poim` alone they are the fitted PWMs, flatter than the sites. A motif is kept when its
sites are enriched in the positives (p <= 1e-3) and also held out: refitted on one half of the sequences,
counted in the other (p <= 0.05, held_out_p_value in motifs.tsv); where none is, no motif is reported ("no
motif found"; the log gives the best candidate's figures). A motif as frequent in the positives' dinucleotide
shuffles is flagged as composition and not matched to `--db`.

The motif files hold each motif's PWM for scanning whole sequences: fitted to pass most positives over every
window of both strands at the score that 1% of the negatives' best windows pass, against their order-2 Markov
background, kept where it does so held out (scan_* columns of motifs.tsv; motif_sites.tsv keeps the sites
within the motif's window). `seqimp scan --db DIR --motif-thresholds` scans with them at that score
(scan_threshold).

### Explaining away

When the model is trained here, the motifs found are explained away (their sites erased, the model retrained)
and motifs looked for again, up to `--rounds` times, until nothing more is enriched. The model whose importance
gives the motifs is trained on all sequences (the held-out split only reports accuracy), so the motifs do not
depend on `--seed` (except through negatives that `--negatives` draws).

### Motifs from any model's attributions

`--sequences OHE.npz --attributions ATTR.npz` take TF-MoDISco's inputs instead: one-hot sequences and any
model's hypothetical contributions, arrays of shape (n, 4, L) or (n, L, 4) (.npy, or .npz: the first array or
`FILE.npz:NAME`). No model is trained: seqlets are the windows whose summed contribution stands out of a
Laplace null fitted to the map itself (false discovery rate 0.05), clustered by their aligned hypothetical
contributions (both strands), copies merged; each motif has its CWM, hypothetical CWM and PWM
(motif_cwms.npz), its seqlets (seqlets.tsv: row, id, 1-based start and end, strand, contribution) and its
sign (motifs.tsv). A map of noise gives no motif. Or `--scorer`/`--onnx-model` with `--positive SEQS.fa`: the
attributions by in-silico mutagenesis, kept in attributions.npz. Details: docs/motifs.md, "Motifs from a
model's attributions".

More examples:

```text
seqimp motifs --positive peaks.fa --out motifs
seqimp motifs --positive pos.fa --negative neg.fa --out motifs --strand given
seqimp motifs --positive pos.fa --negative neg.fa --out motifs --model gkm
seqimp motifs --poim results/poim.npz --positive pos.fa --negative neg.fa --out results --db data/known_motifs.meme
seqimp motifs --positive pos.fa --negative neg.fa --out motifs --db JASPAR2024
seqimp motifs --positive pos.fa --negative neg.fa --out motifs --db JASPAR2022:CORE:plants
```
"""


def register(sub) -> None:
    p = details(sub.add_parser("motifs", help="motifs (PWMs, logos, files, database matches) from a POIM",
                               description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter), DETAILS)
    add_data_options(p, required=False, shuffle_default=True, any_length=True)
    add_input_options(p, table="classifier", regression=False, alphabets=("dna", "rna"), fasta_width=True)
    p.add_argument("--poim", metavar="POIM.npz", help="a saved POIM result instead of training")
    a = p.add_argument_group("attributions (any model's, TF-MoDISco's inputs; no training)")
    details(a.add_argument("--sequences", metavar="OHE.npz",
                           help="one-hot sequences (n, 4, L) or (n, L, 4); .npy/.npz[:NAME]"),
            "A C G T order; an .npz file gives its first array, or the one named after a colon (OHE.npz:x).")
    a.add_argument("--attributions", metavar="ATTR.npz",
                   help="hypothetical contributions, same shape; .npy/.npz[:NAME]")
    details(a.add_argument("--scorer", metavar="MOD:FUNC",
                           help="or explain a model on --positive (attributions.npz): a score function"),
            "The models of this group explain the --positive sequences (one length): by in-silico mutagenesis "
            "(ISM) of every position, in batches, each letter's score change minus the mean over the four letters; "
            "or, with --attribution gradient, by gradient x input: the gradient of the score with respect to the "
            "one-hot input, minus its mean over the four letters at each position (the hypothetical contribution; "
            "times the one-hot input, the contribution). DIR/attributions.npz keeps them (arrays sequences and "
            "attributions, (n, 4, L)) for reuse with --sequences and --attributions.")
    details(a.add_argument("--onnx-model", metavar="M.onnx", help="an ONNX model, one-hot input (n, 4, L)"),
            "Run by onnxruntime (pip install 'seqimp[onnx]'); explained by ISM.")
    a.add_argument("--model-file", metavar="MODEL", help="a saved model (seqimp train's, LS-GKM's)")
    details(a.add_argument("--sklearn-model", metavar="MODEL.joblib",
                           help="a joblib-saved scikit-learn model on seqimp.scorers.onehot"),
            "Loading a joblib file runs its pickle code: trusted files only. Explained by ISM; a model linear in the "
            "one-hot features (coef_ of 4L values: logistic regression, linear SVM, ridge) also by --attribution "
            "gradient, whose gradient is its coefficients.")
    details(a.add_argument("--torch-model", metavar="M.pt",
                           help="a TorchScript model, one-hot input (n, 4, L) (gradient x input)"),
            "Loaded with torch.jit.load (save one with torch.jit.save(torch.jit.script(model))); one-hot float32 "
            "input (n, 4, L), output (n,) or (n, m) (column 0). PyTorch is the extra 'torch' (pip install "
            "'seqimp[torch]', or a wheel from pytorch.org for your CUDA). Gradients in batches of 256 sequences on "
            "--device.")
    details(a.add_argument("--attribution", choices=["ism", "gradient"], default=None, metavar="HOW",
                           help="ism or gradient (x input; default: gradient for --torch-model)"),
            "ism works for every model (3L + 1 scores per sequence); gradient needs a differentiable model "
            "(--torch-model, or a linear --sklearn-model) and costs one forward and one backward pass per sequence. "
            "For a model linear in its one-hot input the two give the same hypothetical contributions.")
    a.add_argument("--device", default="auto", help="torch device of --torch-model (default: cuda if any, else cpu)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    add_gkm_options(add_model_options(p, "model (when training)"))
    g = p.add_argument_group("importance (when training)")
    g.add_argument("--max-order", type=positive_int, default=None, metavar="K",
                   help="longest oligomer of the POIM (default: the degree)")
    details(g.add_argument("--background", choices=BACKGROUNDS, default="negative", help=BACKGROUND_HELP),
            BACKGROUND_DETAILS)
    m = p.add_argument_group("motifs")
    m.add_argument("--max-motifs", type=positive_int, default=None, metavar="N",
                   help="most positional motifs (default: every differential-POIM peak above the noise)")
    add_strand_option(m, default=None)
    m.add_argument("--homer", action="store_true",
                   help="also write the motifs in HOMER's motif format (motifs.homer)")
    details(m.add_argument("--no-scan-pwm", dest="scan_pwm", action="store_false",
                           help="write the refined PWMs to the motif files, not PWMs fitted for scanning"),
            "The motif files then hold the refined PWMs instead of PWMs fitted for scanning whole sequences: no "
            "scan_threshold, no background.txt.")
    details(m.add_argument("--background-order", type=int, choices=range(0, 6), default=2, metavar="K",
                           help="Markov order of the scanning PWMs' background (background.txt; default 2)"),
            "The order (0..5) of the control's Markov background the PWMs for scanning are fitted and thresholded "
            "against (background.txt); the default 2 is STREME's.")
    m.add_argument("--measure", choices=["poim", "firm"], default="poim",
                   help="importance the motifs are fitted to (default poim)")
    m.add_argument("--fit-order", type=positive_int, default=3, metavar="N",
                   help="fit POIM orders 1..N (default 3; at most the POIM's max order)")
    m.add_argument("--rounds", type=positive_int, default=5, metavar="N",
                   help="most rounds of explaining away when training (default 5; 1: a single search)")
    details(m.add_argument("--central-width", type=nonneg_int, default=100, metavar="W",
                           help="also count words in the records' central W nt (default 100; 0: no)"),
            "Where the longest record is at least 3 x W long (ChIP-seq peaks of 300 nt or more at the default): "
            "the words most enriched in the records' centres, where the factors' sites gather, are candidates "
            "beside those of whole records, the word bound halved for the two views.")
    m.add_argument("--min-score", type=share, default=0.0, metavar="S",
                   help="drop motifs explaining less than this share of the POIM (default 0: keep all)")
    details(m.add_argument("--min-width", type=positive_int, default=1, metavar="W",
                           help="narrowest motif (default 1)"),
            "Narrower candidates are widened before refinement (as STREME's --minw).")
    details(m.add_argument("--max-width", type=positive_int, default=30, metavar="W",
                           help="widest motif (default 30)"),
            "As STREME's --maxw.")
    add_db_option(m)
    m.add_argument("--matches", type=positive_int, default=5, metavar="N",
                   help="best matches listed per motif (default 5)")
    m.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="logo format (default png)")
    add_quiet(p, solver=True)
    p.set_defaults(func=run)


def _inputs(args):
    """The checked inputs before any work: the database, the sequences and the --poim result."""
    from ..importance import load_poim

    check_output_path(args.out)
    if args.min_width > args.max_width:
        raise UserError(f"--min-width {args.min_width} exceeds --max-width {args.max_width}")
    database = read_motif_source(args.db, args.db_format, "--db") if args.db else None
    default_negatives(args, "seqimp motifs")
    inputs = read_motif_inputs(args)  # FASTA of any lengths, BED windows cut from --genome or a table
    if inputs.regression:
        raise UserError(f"--table {args.table}: motifs need two classes; the value column {args.value_column!r} "
                        "holds measured values (seqimp poim --table takes them)")
    args.origin = inputs.origin
    pos, neg = inputs.positive, inputs.negative
    if args.alphabet == "rna":  # U reads as T: the same codes, motifs in A, C, G, T
        from dataclasses import replace

        pos, neg = (None if s is None or s.alphabet.name == "dna" else replace(s, alphabet="dna") for s in (pos, neg))
    if (pos is None) != (neg is None):
        raise UserError("--negative needs --positive (alone, --positive gets dinucleotide-shuffled controls; or "
                        "give neither, with --poim)")
    if args.poim:
        if args.model != "auto":
            raise UserError(f"--model {args.model} chooses the model trained on the sequences; --poim starts from "
                            "a saved POIM instead")
        path = Path(args.poim)
        result = load_poim(path, name=f"--poim {path}")
        if pos is not None and pos.length != result.length:
            given = f"--positive {args.positive}" if args.positive else f"--positive-bed {args.positive_bed}"
            raise UserError(f"{given} has length {pos.length}, but --poim {path} "
                            f"describes sequences of length {result.length}")
        return database, pos, neg, result
    if pos is None:
        raise UserError("give the sequences: --positive POS.fa (with --negative NEG.fa, or alone for shuffled "
                        "controls), --positive-bed PEAKS.bed --genome G --width W, --table, or a saved --poim "
                        "poim.npz")
    check_degree(args, pos.length)
    max_order = args.max_order or args.degree
    if max_order > pos.length:
        raise UserError(f"--max-order {max_order} exceeds the sequence length {pos.length}")
    return database, pos, neg, None


def run(args) -> int:
    from ..motifs.known._compare import tomtom_warmup
    from ..plot._figure_process import figure_process
    from ._resources import agg_backend, sleeping_openmp_threads

    sleeping_openmp_threads()  # before the first parallel kernel loads the OpenMP runtime
    agg_backend()
    # a first run with --db compiles TOMTOM (once) in a second process while this one works; the
    # figures are drawn by another, which imports matplotlib meanwhile (seqimp.plot._figure_process)
    with tomtom_warmup(bool(args.db)), figure_process():
        return _run(args)


def _attribution_array(spec, option):
    """The array of ``--sequences``/``--attributions``: a .npy file, an .npz file's first array or
    ``FILE.npz:NAME``."""
    import numpy as np

    path, name = spec, None
    if not Path(spec).exists() and ":" in spec:
        path, name = spec.rsplit(":", 1)
    if not Path(path).is_file():
        raise UserError(f"{option} {spec}: no such file")
    try:
        data = np.load(path, allow_pickle=False)
        if not hasattr(data, "files"):
            return np.asarray(data)
        with data:
            if data.files and (name is None or name in data.files):
                return data[name or data.files[0]]
    except (OSError, ValueError, EOFError) as exc:
        raise UserError(f"{option} {spec}: not a .npy or .npz array file ({exc})") from None
    raise UserError(f"{option} {spec}: " + (f"no array {name!r} (it holds {', '.join(data.files)})" if data.files
                                              else "holds no array"))


#: The options of a model explained on --positive (attribution route), in the order they are checked.
ATTRIBUTION_MODELS = ("scorer", "onnx_model", "model_file", "sklearn_model", "torch_model")


def _attribution_motifs(args) -> int:
    """``--sequences`` and ``--attributions`` (or the attributions of a model on ``--positive``: ISM or
    gradient x input): motifs from any model's attributions."""
    import numpy as np

    from .._utils.npz import save_npz
    from ..motifs._attribution_seqlets import check_attribution_arrays
    from ..options import MotifOptions, OutputOptions
    from ..pipeline import run_motifs

    check_output_path(args.out)
    model = ["--" + o.replace("_", "-") for o in ATTRIBUTION_MODELS if getattr(args, o)]
    given = [o for o, v in (("--positive", args.positive and not model), ("--positive-bed", args.positive_bed),
                            ("--table", args.table), ("--poim", args.poim), ("--negative", args.negative),
                            ("--sequences", args.sequences and model), (model[-1] if model else "", len(model) > 1))
             if v]
    if model and not args.positive:
        raise UserError(f"{model[0]}: give the sequences to explain (--positive SEQS.fa)")
    if given or not (model or (args.sequences and args.attributions)):
        raise UserError("--sequences and --attributions go together (or a model, --scorer/--onnx-model/"
                        "--model-file/--sklearn-model/--torch-model, with --positive), "
                        "without " + (given[0] if given else "the other inputs"))
    if not model and (args.attribution or args.device != "auto" or args.width is not None):
        option = "--attribution" if args.attribution else "--device" if args.device != "auto" else "--width"
        raise UserError(f"{option} is for a model explained on --positive; --sequences and --attributions give the "
                        "attributions themselves")
    if model:
        onehot, hyp, method = _model_attributions(args, model[0])
    else:
        names = (f"--sequences {args.sequences}", f"--attributions {args.attributions}")
        onehot, hyp = check_attribution_arrays(  # before anything is written; the files' arrays not kept
            *(_attribution_array(spec, option) for spec, option in zip((args.sequences, args.attributions),
                                                                       ("--sequences", "--attributions"))),
            names=names)
    database = read_motif_source(args.db, args.db_format, "--db") if args.db else None
    motifs = MotifOptions(database=database, top_matches=args.matches)
    with output_dir(args.out, "motifs", inputs=input_paths(args)) as tmp:
        run = run_motifs(tmp, sequences=onehot, attributions=hyp, motifs=motifs,
                         output=OutputOptions(fmt=args.format, progress=progress_enabled()), random_state=args.seed)
        if model:  # for reuse: --sequences DIR/attributions.npz:sequences --attributions ...:attributions
            save_npz(Path(tmp) / "attributions.npz", {"sequences": onehot.transpose(0, 2, 1),
                                                       "attributions": hyp.transpose(0, 2, 1),
                                                       "method": np.array(method)})
    print_motifs(run, args.out)
    return 0


def _model_attributions(args, option):
    """One-hot --positive and the hypothetical contributions of the model of ``option`` on them: ISM, or
    gradient x input (``--attribution``; the default for --torch-model). Returns (onehot, hyp, method)."""
    import numpy as np

    from ..importance._attributions import gradient_attributions, has_gradient, ism_attributions

    method = args.attribution or ("gradient" if args.torch_model else "ism")
    if args.device != "auto" and not args.torch_model:
        raise UserError(f"--device {args.device}: the device of --torch-model; {option} does not run on torch")
    sequences = _positive_of_one_length(args)
    unknown = np.argwhere(sequences.codes >= 4)
    if method == "ism" and len(unknown):  # a scorer reads A, C, G, T only; a gradient reads N as zeros
        row, position = (int(v) for v in unknown[0])
        raise UserError(f"--positive {args.positive}: record {sequences.ids[row]!r} holds an unknown base (N) at "
                        f"position {position + 1}; in-silico mutagenesis scores A, C, G and T only: remove or cut "
                        "such records" + (", or explain the model by --attribution gradient"
                                          if args.sklearn_model or args.torch_model else ""))
    model = _attribution_model(args)
    if method == "gradient" and not has_gradient(model):
        raise UserError(f"--attribution gradient: {option} has no gradient (a --torch-model or a linear "
                        "--sklearn-model has one); explain it by ISM (--attribution ism)")
    logging.getLogger(__name__).info(f"attributions of {option} on {len(sequences)} sequences by "
                                     f"{'gradient x input' if method == 'gradient' else 'in-silico mutagenesis'}")
    if method == "gradient":
        onehot, hyp = gradient_attributions(model, sequences, progress=progress_enabled())
    else:
        onehot, hyp = ism_attributions(model, sequences, progress=progress_enabled())
    return onehot, hyp, method


def _positive_of_one_length(args):
    """--positive as a SequenceSet of one length: as read, or the central --width W nt of every record
    (shorter records left out, the log says how many)."""
    import numpy as np

    from ..io import SequenceSet
    from ..io._any_length import centred_windows, read_any_length

    ids, codes, source, _skipped = read_any_length(args.positive, on_invalid="skip" if args.skip_invalid else "error",
                                                   mask_lowercase=mask_option(args))
    lengths = {c.size for c in codes}
    if args.width is not None:
        windows, short = centred_windows(ids, codes, args.width, source=source)
        logging.getLogger(__name__).info(f"--positive {args.positive}: the central {args.width} nt of each record"
                                         + (f" ({short} shorter records left out)" if short else ""))
        return windows
    if len(lengths) > 1:
        raise UserError(f"--positive {args.positive}: records of {min(lengths)} to {max(lengths)} nt; a model "
                        "explains sequences of one length: add --width W (the central W nt of every record)")
    return SequenceSet(np.stack(codes), ids, "dna", source)


def _attribution_model(args):
    """The score function of --scorer/--onnx-model/--model-file/--sklearn-model/--torch-model."""
    from ..scorers import OnnxScorer, load_scorer, load_sklearn_model

    if args.model_file:
        from ..training._predict import load_predictor, score_in_batches

        model = load_predictor(args.model_file)[0]

        def score_fn(codes):
            return score_in_batches(model, codes, progress=False)
        return score_fn
    if args.torch_model:
        from ..importance._torch import load_torch_model

        return load_torch_model(args.torch_model, device=args.device)
    if args.sklearn_model:
        return load_sklearn_model(args.sklearn_model)
    return load_scorer(args.scorer) if args.scorer else OnnxScorer(args.onnx_model)


def _run(args) -> int:
    if args.sequences or args.attributions or any(getattr(args, o) for o in ATTRIBUTION_MODELS):
        return _attribution_motifs(args)
    from ..options import BackgroundOptions, ImportanceOptions, ModelOptions, MotifOptions, OutputOptions
    from ..pipeline import run_motifs
    from ..pipeline._motif_files import update_report
    from ..report._page import write_motif_report

    database, pos, neg, result = _inputs(args)
    strand = args.strand or ("given" if args.alphabet == "rna" else "both")  # RNA: one strand
    motifs = MotifOptions(strand=strand, database=database, top_matches=args.matches,
                          max_motifs=args.max_motifs, measure=args.measure, fit_order=args.fit_order,
                          min_score=args.min_score, rounds=args.rounds, min_width=args.min_width,
                          max_width=args.max_width, homer=args.homer,
                          position_origin=args.origin, scan_pwm=args.scan_pwm,
                          background_order=args.background_order, central_width=args.central_width)
    options = dict(model=ModelOptions(degree=args.degree, shifts=args.shifts, C=args.C,
                                      test_fraction=args.test_fraction, kind=args.model,
                                      word_length=args.gkm_length, informative=args.gkm_informative),
                   background=BackgroundOptions(kind=args.background),
                   importance=ImportanceOptions(max_order=args.max_order), motifs=motifs,
                   output=OutputOptions(fmt=args.format, progress=progress_enabled()), random_state=args.seed)

    def finish(shared):  # a 'seqimp poim' folder: its summary and report get the motifs, in the same commit
        if "summary.json" in owned_files(args.out, "poim"):
            update_report(args.out, run, written_in=tmp, into=shared, announce=False)

    with output_dir(args.out, "motifs", finish=finish, inputs=input_paths(args)) as tmp:
        run = run_motifs(tmp, poim=result, positive=pos, negative=neg, **options)
        if not (Path(args.out) / "summary.json").exists():  # a folder of its own: the run's own report
            run.files.append(write_motif_report(tmp, run))
    print_motifs(run, args.out)
    return 0
