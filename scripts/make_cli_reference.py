"""Write the command-line reference, docs/cli/<command>.md and docs/cli/README.md, from the parsers.

Each page holds the command's ``--help`` (at 100 columns), its details, a table of every option with
its value, its default and its help, each option's details, and the files the command writes.
``--help`` stays short (one or two lines per option, issue 59); the long explanations -- how a command
works, when to use which value -- are written in the parsers too, as the ``details`` of a command's
parser or of an option's action (:func:`seqimp.cli._options.details`), which ``--help`` leaves out and
the pages show. Nothing on a page is written by hand, so it cannot drift from the parser:
``tests/test_cli_reference.py`` regenerates the pages and compares them with the files, and their help
blocks with ``seqimp COMMAND --help``.

    python scripts/make_cli_reference.py            # rewrite docs/cli/
    python scripts/make_cli_reference.py --check    # exit 1 if a page differs from its parser
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from seqimp.cli import _SUMMARIES, build_parser  # noqa: E402
from seqimp.cli._vocabulary import OLD_OPTIONS, Choice, ModelKind, allowed_values  # noqa: E402

#: The width ``--help`` is formatted at on the pages (and in the test that compares them).
COLUMNS = "100"

#: The files each command writes (into ``--out``, or ``--model-out`` for train); every name appears
#: in the command's ``--help`` too (tests/test_cli_reference.py checks it).
OUTPUTS = {
    "inspect": [("(stdout)", "records, lengths, alphabet and composition of each file")],
    "demo": [("top_oligomers.tsv, heatmaps, poim.npz, model.npz, summary.json, report.html", "as 'seqimp poim'"),
             ("motifs.tsv, motifs.meme, motif_sites.tsv, logos/", "as 'seqimp motifs', the motif section of the report"),
             ("matches.tsv", "TOMTOM matches of the motif (JASPAR 2024 with pyjaspar, or --db)")],
    "encode": [("the store folder (--out)", "the codes (.npy, read-only memory maps), labels and a JSON header")],
    "train": [("MODEL.npz (--model-out)", "the model's positional weights (gkm: its gapped-k-mer weights) and "
                                          "metadata: data, options, solver record, held-out figures"),
              ("MODEL.cvpred.tsv, MODEL.cv.json, MODEL.cv.png (--cv)", "cross-validation beside the model: each "
               "sequence's fold, label and held-out score; per-fold and mean auROC, auPRC; the folds' curves")],
    "predict": [("predictions.tsv", "one row per record in input order: id, score (with labels also label)"),
                ("predictions.json", "model, counts, score distribution, auROC and auPRC with labels"),
                ("roc_pr.png", "ROC and precision-recall curves (with labels)"),
                ("report.html", "the page of the run")],
    "poim": [("top_oligomers.tsv", "the top positional oligomers per order by |FIRM|"),
             ("differential_poim.FMT, maximal_poim.FMT, poim_order<k>.FMT", "heatmaps"),
             ("weights_vs_firm.FMT", "model weights against FIRM (not on the sampled routes)"),
             ("poim.npz", "summaries: maximal and differential POIM, the top oligomers, full tables for k <= 4"),
             ("poim_tables.h5", "every order's full POIM/FIRM tables (--full-tables)"),
             ("model.npz", "the trained model (not on the sampled routes)"),
             ("top_oligomers.bed", "genome coordinates of the top oligomers' hits (BED input)"),
             ("summary.json, report.html", "what the run did and found"),
             ("motifs.tsv, motifs.meme, motifs.jaspar, motifs.transfac, motifs.json, motif_candidates.tsv, "
              "motif_sites.tsv, motif_sites.bed, logos/", "the motifs, as 'seqimp motifs' (runs with DNA "
                                                          "--positive and --negative)"),
             ("matches.tsv", "TOMTOM matches (--db)")],
    "motifs": [("motifs.meme, motifs.jaspar, motifs.transfac", "the motifs in three formats"),
               ("motifs.homer", "HOMER's format (--homer)"),
               ("motifs.tsv", "one row per motif: name, consensus, start, length, sites, p-values, ..."),
               ("motifs.json", "seed, options, model route, negatives, padding"),
               ("motif_candidates.tsv", "the seeds the search started from"),
               ("motif_sites.tsv, motif_sites.bed", "each motif's sites in the positives"),
               ("logos/", "a logo and a site-position plot per motif, a letter-importance logo"),
               ("motifs_poim.npz", "the POIM of the model trained here"),
               ("report.html", "the motifs first (in a 'seqimp poim' folder: its report gains a motif section)"),
               ("matches.tsv", "TOMTOM matches (--db)"),
               ("seqlets.tsv, motif_cwms.npz", "with --attributions: each motif's seqlets; CWM, hypothetical CWM, PWM"),
               ("attributions.npz", "with a model on --positive: the one-hot sequences and their hypothetical "
                                    "contributions, (n, 4, L), and how they were computed (method: ism or gradient)")],
    "scan": [("scan.tsv", "every site: motif, id, position, strand, score, p_value, q_value, matched"),
             ("scan.bed", "the sites as BED6"),
             ("scan.json", "options, background, windows scored per motif"),
             ("scan_positions.png", "where the sites lie"), ("report.html", "the page of the scan")],
    "enrich": [("enrichment.tsv", "per motif: sequences with a site, p_value, q_value, counts, threshold, ..."),
               ("enrichment.json", "options and counts"), ("enrichment.png", "the motifs' shares with a site"),
               ("report.html", "the page of the test")],
    "variants": [("variants.tsv", "per variant and window: scores, delta, p_value, the oligomer changed most"),
                 ("variants.bed", "the variants as BED6"), ("variants.json", "options, counts, versions"),
                 ("variants_delta.png, top_variants.png", "the delta distribution, the top variants' bases"),
                 ("report.html", "the page of the run")],
    "cite": [("(stdout)", "what to cite: seqimp and the methods a run used")],
}


def _subparsers(parser):
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def command_parsers() -> dict:
    """Every subcommand's parser, in the order of ``seqimp --help``."""
    parser = build_parser()
    return {name: parser for name, parser in _subparsers(parser).items()}


def help_text(parser) -> str:
    """``--help`` as ``seqimp COMMAND --help`` prints it at :data:`COLUMNS` columns."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = COLUMNS
    try:
        return parser.format_help()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _default(action) -> str:
    if action.default is argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
        return ""
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreConstAction)) and action.nargs == 0:
        return "off"
    if isinstance(action, argparse._CountAction):
        return "0"
    if action.default is None:
        return "none"
    if isinstance(action.default, (list, tuple)):
        return " ".join(map(str, action.default))
    return str(action.default)


def _value(action) -> str:
    if action.nargs == 0:
        return ""
    values = allowed_values(action)
    if values:
        return " \\| ".join(f"`{v}`" for v in values)
    return f"`{action.metavar or action.dest.upper()}`"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _help(parser, action) -> str:
    formatter = parser._get_formatter()
    return _cell(formatter._expand_help(action)) if action.help else ""


def details(target) -> str:
    """The long explanation of a command's parser or an option (:func:`seqimp.cli._options.details`), or ''."""
    return getattr(target, "details", "") or ""


def _names(action) -> str:
    return ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.metavar or action.dest}`"


def visible(action) -> bool:
    """An option ``--help`` shows (not an old spelling, not -h)."""
    return action.help is not argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)


def old_spellings(name, parser) -> list:
    """``(old, new)`` of every old spelling the command still takes."""
    out = list(OLD_OPTIONS.get(name, {}).items())
    for action in parser._actions:
        if isinstance(action, ModelKind):
            out.append((f"{action.option_strings[-1]} FILE", "--model-file FILE"))
        elif isinstance(action, Choice):
            opt = action.option_strings[-1]
            out += [(f"{opt} {old}", f"{opt} {new}") for old, new in action.old_values.items()]
    return out


def command_page(name, parser) -> str:
    lines = [f"# seqimp {name}", "", _SUMMARIES[name][0].upper() + _SUMMARIES[name][1:] + ".", "",
             "Generated by `scripts/make_cli_reference.py` from the command's parser (do not edit by hand: the "
             "long explanations are the `details` of the parser and its options in `seqimp/cli/`; "
             "`tests/test_cli_reference.py` compares the page with `seqimp " + name + " --help`).", "",
             f"## `seqimp {name} --help`", "", "```text", help_text(parser).rstrip("\n"), "```", ""]
    if details(parser):
        lines += ["## Details", "", details(parser), ""]
    lines += ["## Options", ""]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if visible(a)]
        if not actions:
            continue
        lines += [f"### {group.title}", "", "| option | value | default | what it does |", "|---|---|---|---|"]
        for a in actions:
            lines.append(f"| {_names(a)} | {_value(a)} | {_cell(_default(a))} | {_help(parser, a)} |")
        lines.append("")
        for a in actions:
            if details(a):
                lines += [f"**{_names(a)}**: {' '.join(details(a).split())}", ""]
    lines += ["## Files written", "", "| file | what it holds |", "|---|---|"]
    lines += [f"| {_cell(f)} | {_cell(what)} |" for f, what in OUTPUTS[name]]
    old = old_spellings(name, parser)
    if old:
        lines += ["", "## Old spellings", "", "Still taken, each with one line `seqimp: warning: ...`:", "",
                  "| old | now |", "|---|---|"] + [f"| `{a}` | `{b}` |" for a, b in old]
    return "\n".join(lines) + "\n"


def index_page(parsers) -> str:
    lines = ["# The seqimp command line", "",
             "Generated by `scripts/make_cli_reference.py` (do not edit by hand). One page per command: usage, "
             "every option with its default, the details `--help` leaves out, every file it writes.", "",
             "| command | what it does |", "|---|---|"]
    lines += [f"| [`seqimp {n}`]({n}.md) | {_cell(_SUMMARIES[n])} |" for n in parsers]
    lines += ["", "## One vocabulary", "",
              "The same flag means the same thing in every command that takes it:", "",
              "| concept | option | commands |", "|---|---|---|"]
    concepts = [("known motifs (file, run folder, JASPAR release)", "--db"), ("their format", "--db-format"),
                ("a saved model", "--model-file"), ("the kind of model to train", "--model"),
                ("the exact p-value of a site", "--site-pvalue"), ("strands", "--strand"),
                ("background / null letter frequencies", "--background"),
                ("generated negatives", "--negatives"), ("random seed", "--seed"),
                ("memory budget", "--max-memory"), ("figure format", "--format")]
    for what, option in concepts:
        having = [n for n, p in parsers.items() if any(option in a.option_strings and visible(a) for a in p._actions)]
        lines.append(f"| {what} | `{option}` | {', '.join(having)} |")
    lines += ["", "## Old spellings", "", "Spellings of earlier releases still work; each prints one line "
              "`seqimp: warning: ... is now ...` and will be removed:", "", "| command | old | now |", "|---|---|---|"]
    lines += [f"| {n} | `{a}` | `{b}` |" for n, p in parsers.items() for a, b in old_spellings(n, p)]
    return "\n".join(lines) + "\n"


def pages() -> dict:
    """``{relative path: text}`` of every reference page."""
    parsers = command_parsers()
    out = {f"docs/cli/{name}.md": command_page(name, p) for name, p in parsers.items()}
    out["docs/cli/README.md"] = index_page(parsers)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 if a page differs")
    args = ap.parse_args(argv)
    stale = []
    for rel, text in pages().items():
        path = ROOT / rel
        if path.exists() and path.read_text() == text:
            continue
        stale.append(rel)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    print(("differs from its parser: " if args.check else "written: ") + (", ".join(stale) or "none"))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
