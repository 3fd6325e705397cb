"""The command line's help applies and its reference pages are its parsers.

- the parser walk: every option (and every value of an option with choices) that a command's
  ``--help`` lists is accepted by the command in at least one context -- the run reaches the
  library call (stubbed here) instead of a ``seqimp: error:`` line that refuses it;
- docs/cli/<command>.md equal what scripts/make_cli_reference.py writes, and their help blocks
  equal ``seqimp COMMAND --help``; every file a page lists is named by the command's ``--help``;
- examples in ``--help`` are one line each;
- ``--help`` stays short: at most 120 lines at 100 columns, every option listed with a help
  of one or two lines; the long explanations are the parsers' ``details``, shown on the pages only.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def _script():
    spec = importlib.util.spec_from_file_location("make_cli_reference", ROOT / "scripts" / "make_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _script()
PARSERS = REF.command_parsers()


class Reached(Exception):
    """The command got past its option checks to the library call."""


def _stub(*args, **kwargs):
    raise Reached()


class _Differentiable:
    """A model with a gradient (a torch module's scorer) whose every use reaches the library."""

    __call__ = input_gradient = staticmethod(_stub)


class _Dummy:
    length = 30
    alphabet = None

    def close(self):
        pass


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("walk")
    rng = np.random.default_rng(0)
    seqs = lambda n, L: ["".join(rng.choice(list("ACGT"), size=L)) for _ in range(n)]  # noqa: E731
    pos, neg = seqs(20, 30), seqs(20, 30)
    (d / "pos.fa").write_text("".join(f">p{i}\n{s}\n" for i, s in enumerate(pos)))
    (d / "neg.fa").write_text("".join(f">n{i}\n{s}\n" for i, s in enumerate(neg)))
    (d / "rna.fa").write_text("".join(f">r{i}\n{s.replace('T', 'U')}\n" for i, s in enumerate(pos)))
    (d / "rna_neg.fa").write_text("".join(f">r{i}\n{s.replace('T', 'U')}\n" for i, s in enumerate(neg)))
    chrom = "".join(rng.choice(list("ACGT"), size=2000))
    (d / "g.fa").write_text(">chr1\n" + chrom + "\n")
    (d / "p.bed").write_text("".join(f"chr1\t{s}\t{s + 40}\n" for s in range(100, 1800, 90)))
    (d / "n.bed").write_text("".join(f"chr1\t{s}\t{s + 40}\n" for s in range(150, 1800, 90)))
    (d / "t.tsv").write_text("sequence\tlabel\n" + "".join(f"{s}\t1\n" for s in pos) + "".join(f"{s}\t0\n" for s in neg))
    (d / "v.vcf").write_text("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n" + f"chr1\t121\trs1\t{chrom[120]}\t"
                             + ("C" if chrom[120] != "C" else "G") + "\n")
    np.savez(d / "ohe.npz", np.eye(4, dtype=np.float32)[rng.integers(0, 4, size=(20, 40))])  # --sequences
    np.save(d / "attr.npy", rng.normal(size=(20, 40, 4)))  # --attributions
    (d / "score.py").write_text("def score(x):\n    return x.sum(axis=1) * 1.0\n")
    for ext in ("meme", "jaspar", "transfac"):
        shutil.copy(DATA / f"toy_motifs.{ext}", d / f"toy.{ext}")
    from seqimp.motifs import read_motifs
    from seqimp.motifs.known._formats import write_homer

    write_homer(read_motifs(d / "toy.meme"), d / "toy.homer")
    (d / "bg.txt").write_text("# order 0\nA 0.25\nC 0.25\nG 0.25\nT 0.25\n")
    found = d / "found"  # a 'seqimp motifs' folder: motifs.meme, motifs.tsv with scan_threshold, background.txt
    found.mkdir()
    shutil.copy(d / "toy.meme", found / "motifs.meme")
    shutil.copy(d / "bg.txt", found / "background.txt")
    names = [m.name for m in read_motifs(d / "toy.meme")]
    (found / "motifs.tsv").write_text("name\tscan_threshold\n" + "".join(f"{n}\t5.0\n" for n in names))
    run = d / "run"
    run.mkdir()
    (run / "summary.json").write_text('{"parameters": {"degree": 2}}')
    assert main(["encode", "--fasta", str(d / "pos.fa"), str(d / "neg.fa"), "--labels", "1", "0",
                 "--out", str(d / "store")]) == 0
    return d


def _contexts(command, d):
    """Command lines (after the command) that a run accepts, each a different route."""
    fa = ["--positive", f"{d}/pos.fa", "--negative", f"{d}/neg.fa"]
    bed = ["--positive-bed", f"{d}/p.bed", "--genome", f"{d}/g.fa", "--width", "30"]
    table = ["--table", f"{d}/t.tsv", "--value-column", "label"]
    out = ["--out", f"{d}/out"]
    return {
        "inspect": [[f"{d}/pos.fa"], [f"{d}/rna.fa"]],
        "demo": [out],
        "encode": [["--fasta", f"{d}/pos.fa", "--labels", "1", "--out", f"{d}/store2"]],
        "train": [fa + ["--model-out", f"{d}/m.npz"], bed + ["--negatives", "shuffle", "--model-out", f"{d}/m.npz"],
                  table + ["--model-out", f"{d}/m.npz"], ["--codes", f"{d}/store", "--model-out", f"{d}/m.npz"],
                  bed + ["--negative-bed", f"{d}/n.bed", "--model-out", f"{d}/m.npz"]],
        "poim": [fa + out, bed + ["--negatives", "shuffle"] + out, table + out, bed + ["--negative-bed", f"{d}/n.bed"]
                 + out, ["--model-file", f"{d}/m.npz"] + fa + out, ["--scorer", f"{d}/score.py:score"] + fa + out,
                 ["--onnx-model", f"{d}/m.onnx"] + fa + out, ["--sklearn-model", f"{d}/m.joblib"] + fa + out,
                 ["--scorer", f"{d}/score.py:score", "--background-fasta", f"{d}/neg.fa"] + out,
                 ["--positive", f"{d}/rna.fa", "--negative", f"{d}/rna.fa", "--alphabet", "rna"] + out],
        "motifs": [fa + out, bed + out, table + out, ["--poim", f"{d}/p.npz"] + out,
                   bed + ["--negative-bed", f"{d}/n.bed"] + out,
                   ["--sequences", f"{d}/ohe.npz", "--attributions", f"{d}/attr.npy"] + out,
                   ["--positive", f"{d}/pos.fa"] + out],  # alone: shuffled negatives, or ISM of --scorer/--onnx-model
        "scan": [["--db", f"{d}/toy.meme", "--fasta", f"{d}/pos.fa"] + out, ["--db", f"{d}/toy.meme"] + bed + out,
                 ["--db", f"{d}/toy.meme"] + table + out],
        "enrich": [["--db", f"{d}/toy.meme"] + fa + out, ["--db", f"{d}/toy.meme"] + bed + out,
                   ["--db", f"{d}/toy.meme"] + table + out,
                   ["--db", f"{d}/toy.meme"] + bed + ["--negative-bed", f"{d}/n.bed"] + out],
        "variants": [["--model-file", f"{d}/m.npz", "--vcf", f"{d}/v.vcf", "--genome", f"{d}/g.fa"] + out,
                     ["--model-file", f"{d}/m.npz", "--vcf", f"{d}/v.vcf", "--genome", f"{d}/g.fa", "--regions",
                      f"{d}/p.bed"] + out,
                     ["--vcf", f"{d}/v.vcf", "--genome", f"{d}/g.fa", "--width", "30"] + out],
        "predict": [["--model-file", f"{d}/m.npz", "--fasta", f"{d}/pos.fa"] + out, ["--model-file", f"{d}/m.npz"]
                    + fa + out, ["--model-file", f"{d}/m.npz"] + bed + ["--negative-bed", f"{d}/n.bed"] + out,
                    ["--model-file", f"{d}/m.npz"] + table + out, ["--fasta", f"{d}/pos.fa"] + out],
        "cite": [[]],
    }[command]


def _samples(d):
    """A value for each option that takes a free value (by its flag)."""
    return {"--positive": f"{d}/pos.fa", "--negative": f"{d}/neg.fa", "--positive-bed": f"{d}/p.bed",
            "--negative-bed": f"{d}/n.bed", "--genome": f"{d}/g.fa", "--width": "30", "--position-origin": "5",
            "--table": f"{d}/t.tsv", "--sequence-column": "sequence", "--value-column": "label", "--alpha": "1",
            "--out": f"{d}/out", "--degree": "2", "--shifts": "1", "--C": "1", "--test-fraction": "0.2",
            "--seed": "1", "--max-order": "3", "--background-order": "1", "--background-fasta": f"{d}/neg.fa",
            "--max-memory": "4G", "--top": "5", "--model-file": f"{d}/m.npz", "--scorer": f"{d}/score.py:score",
            "--sklearn-model": f"{d}/m.joblib", "--onnx-model": f"{d}/m.onnx", "--output-index": "0",
            "--n-samples": "10", "--n-jobs": "1", "--dask-workers": "1", "--dask-scheduler": "tcp://h:1",
            "--gkm-length": "8", "--gkm-informative": "4", "--db": f"{d}/toy.meme", "--poim": f"{d}/p.npz",
            "--max-motifs": "2", "--fit-order": "2", "--rounds": "1", "--central-width": "50", "--min-score": "0.1",
            "--min-width": "4",
            "--max-width": "12", "--matches": "3", "--fasta": f"{d}/pos.fa", "--site-pvalue": "1e-3",
            "--pseudocount": "0.1", "--max-q": "0.1", "--codes": f"{d}/store", "--test-codes": f"{d}/store",
            "--model-out": f"{d}/m.npz", "--validation-fraction": "0.1", "--validation-tol": "0.01",
            "--weight-tol": "0.01", "--patience": "2", "--optimum-tol": "0.1", "--shrink-margin": "0.5",
            "--average": "3", "--threads": "1", "--labels": "1", "--chunk-size": "10", "--vcf": f"{d}/v.vcf",
            "--regions": f"{d}/p.bed", "--null-windows": "5", "--batch-size": "10", "--cv": "2", "--run": f"{d}/run", "--bfile": f"{d}/bg.txt",
            "--sequences": f"{d}/ohe.npz", "--attributions": f"{d}/attr.npy", "--torch-model": f"{d}/m.pt",
            "--device": "cpu"}


def _extra(command, option, value, d):
    """What a value needs beside it (its companion option)."""
    if option == "--db-format":
        return ["--db", f"{d}/toy.{value}"]
    if option in ("--output-index", "--onnx-layout"):
        return ["--onnx-model", f"{d}/m.onnx"]
    if option == "--sklearn-features":
        return ["--sklearn-model", f"{d}/m.joblib"]
    if option in ("--attribution", "--device"):
        return ["--torch-model", f"{d}/m.pt"]
    if option == "--solver" or option in ("--validation-fraction", "--validation-tol", "--weight-tol", "--patience"):
        return ["--solver", "fast"] if option != "--solver" else []
    if option in ("--optimum-tol", "--shrink-margin", "--average", "--no-refit", "--extrapolate"):
        return ["--solver", "fast"]
    if option == "--motif-thresholds":
        return ["--db", f"{d}/found"]
    if option == "--skip-outside":
        return ["--regions", f"{d}/p.bed"]
    if option == "--test-codes":
        return ["--codes", f"{d}/store", "--test-fraction", "0"]
    if option == "--alphabet" and value == "rna":
        return {"inspect": [], "encode": ["--fasta", f"{d}/rna.fa"], "scan": ["--fasta", f"{d}/rna.fa"]}.get(
            command, ["--positive", f"{d}/rna.fa", "--negative", f"{d}/rna_neg.fa"])
    if option == "--model" and value == "wds":
        return ["--shifts", "1"]
    if option == "--model-format" and value == "lsgkm":
        return ["--model", "gkm", "--model-out", f"{d}/m.model.txt"]
    return []


def _values(action, samples):
    if action.nargs == 0:
        return [None]
    allowed = REF.allowed_values(action)
    if allowed:
        return [str(v) for v in allowed]
    return [samples[action.option_strings[0]]]


def _merge(context, extra):
    """``context`` with ``extra``'s options set (replacing the same option's value there)."""
    argv = list(context)
    i = 0
    while i < len(extra):
        option = extra[i]
        value = extra[i + 1] if i + 1 < len(extra) and not extra[i + 1].startswith("--") else None
        if option in argv:
            j = argv.index(option)
            del argv[j:j + (2 if value is not None and j + 1 < len(argv) and not argv[j + 1].startswith("--")
                            else 1)]
        argv += [option] + ([value] if value is not None else [])
        i += 2 if value is not None else 1
    return argv


def _stub_library(monkeypatch):
    import seqimp.importance
    import seqimp.io
    import seqimp.kernels
    import seqimp.pipeline
    import seqimp.scorers
    import seqimp.training

    for name in ("run_poim", "run_model", "run_sampled", "run_regression", "run_motifs", "run_scan", "run_enrich",
                 "run_variants", "run_predict"):
        monkeypatch.setattr(seqimp.pipeline, name, _stub, raising=False)
    for name in ("train_model", "train_gkm", "train_on_store", "load_model"):
        monkeypatch.setattr(seqimp.training, name, _stub, raising=False)
    monkeypatch.setattr(seqimp.training, "load_model_file", lambda path: (None, "wd", {}), raising=False)
    import seqimp.training._model_file

    monkeypatch.setattr(seqimp.training._model_file, "load_model_file", lambda path: (None, "wd", {}))
    import seqimp.training._predict

    monkeypatch.setattr(seqimp.training._predict, "load_predictor", _stub)  # seqimp predict's model file
    monkeypatch.setattr(seqimp.importance, "load_poim", lambda *a, **k: _Dummy(), raising=False)
    monkeypatch.setattr(seqimp.kernels, "connect", _stub, raising=False)
    for name in ("load_scorer", "load_sklearn_model", "OnnxScorer"):
        monkeypatch.setattr(seqimp.scorers, name, lambda *a, **k: _stub, raising=False)
    import seqimp.importance._torch

    monkeypatch.setattr(seqimp.importance._torch, "load_torch_model", lambda *a, **k: _Differentiable())
    import seqimp.io._store

    monkeypatch.setattr(seqimp.io._store, "fill_codes_store", _stub)
    import seqimp.cli.inspect
    import seqimp.cli.cite

    monkeypatch.setattr(seqimp.cli.inspect, "run", lambda args: _stub(), raising=False)
    monkeypatch.setattr(seqimp.cli.cite, "run", lambda args: _stub(), raising=False)


def _accepted(command, argv, capsys) -> str | None:
    """None when the command line reaches the library; else its error line."""
    try:
        status = main([command] + argv)
    except Reached:
        return None
    err = capsys.readouterr().err.strip().splitlines()
    return (err[-1] if err else f"exit {status}")


def _refused(command, parser, files, capsys) -> list:
    """The options (and values) of ``parser`` that ``command`` refuses in every context."""
    samples = _samples(files)
    refused = []
    for action in parser._actions:
        if not REF.visible(action) or not action.option_strings or action.option_strings[0] in ("-q", "-v", "--debug"):
            continue
        option = action.option_strings[0]
        for value in _values(action, samples):
            extra = [option] + ([] if value is None else [value])
            lines = []
            for context in _contexts(command, files):
                line = _accepted(command, _merge(context, _extra(command, option, value, files) + extra), capsys)
                if line is None:
                    break
                lines.append(line)
            else:
                refused.append(f"seqimp {command} {' '.join(extra)}: {lines[0] if lines else ''}")
    return refused


def test_every_listed_option_is_honoured(files, monkeypatch, capsys):
    _stub_library(monkeypatch)
    # inspect and cite print: their run() is stubbed, so for them the walk checks the parser
    refused = [line for command, parser in PARSERS.items() for line in _refused(command, parser, files, capsys)]
    assert not refused, "options listed in --help that the command refuses in every context:\n" + "\n".join(refused)


def test_the_walk_reports_a_refused_option(files, monkeypatch, capsys):
    """The walk can fail: a command that refuses every value of one of its options is reported."""
    _stub_library(monkeypatch)
    from seqimp.cli import scan
    from seqimp.cli._logging import UserError

    real = scan._sequences

    def refusing(args):
        if args.q_method == "storey":
            raise UserError("--q-method storey: refused here")
        return real(args)

    monkeypatch.setattr(scan, "_sequences", refusing)
    refused = _refused("scan", PARSERS["scan"], files, capsys)
    assert [line.split(":")[0] for line in refused] == ["seqimp scan --q-method storey"]


@pytest.mark.parametrize("command", list(PARSERS))
def test_reference_page_is_the_parser(command, monkeypatch, capsys):
    path = ROOT / "docs" / "cli" / f"{command}.md"
    assert path.read_text() == REF.command_page(command, PARSERS[command]), (
        f"{path} differs from its parser: run python scripts/make_cli_reference.py")
    monkeypatch.setenv("COLUMNS", REF.COLUMNS)
    assert main([command, "--help"]) == 0
    shown = capsys.readouterr().out
    block = path.read_text().split("```text\n", 1)[1].split("\n```", 1)[0]
    assert block == shown.rstrip("\n")
    for files, _what in REF.OUTPUTS[command]:
        for name in re.findall(r"[\w<>]+\.[\w]+|logos/", files):
            if name not in ("MODEL.npz", "FMT"):
                assert name.split("<")[0].split(".")[0] in shown, f"{name} (docs/cli/{command}.md) not in --help"
    examples = shown.split("examples:\n", 1)[1].split("\n\n", 1)[0] if "examples:\n" in shown else ""
    for line in examples.splitlines():  # one line each: no continuation, no run of spaces (a comment after "  # ")
        code = line.split("  # ", 1)[0]
        assert code.startswith("  ") and "seqimp " in code, f"an example of {command} spans lines: {line!r}"
        assert not code.rstrip().endswith("\\") and "   " not in code.strip(), line


def test_index_page_is_the_parsers():
    assert (ROOT / "docs" / "cli" / "README.md").read_text() == REF.index_page(PARSERS)
    assert "docs/cli/" in (ROOT / "README.md").read_text()


#: The most lines ``seqimp COMMAND --help`` may print at 100 columns (``COLUMNS=100 seqimp COMMAND --help | wc -l``).
MAX_HELP_LINES = 120


@pytest.mark.parametrize("command", list(PARSERS))
def test_help_is_at_most_120_lines(command, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", REF.COLUMNS)
    assert main([command, "--help"]) == 0
    shown = capsys.readouterr().out
    assert shown.count("\n") <= MAX_HELP_LINES, (
        f"seqimp {command} --help prints {shown.count(chr(10))} lines at {REF.COLUMNS} columns (at most "
        f"{MAX_HELP_LINES}): move the long explanations to the parser's details (seqimp.cli._options.details)")


@pytest.mark.parametrize("command", list(PARSERS))
def test_every_option_is_listed_with_a_short_help(command, monkeypatch):
    """No option is hidden (argparse.SUPPRESS) and each help takes one or two lines of ``--help``."""
    monkeypatch.setenv("COLUMNS", REF.COLUMNS)
    parser = PARSERS[command]
    formatter = parser._get_formatter()
    for group in parser._action_groups:  # as format_help measures the options (argparse.HelpFormatter)
        formatter.add_arguments(group._group_actions)
    help_width = max(formatter._width - min(formatter._action_max_length + 2, formatter._max_help_position), 11)
    for action in parser._actions:
        assert action.help and action.help is not argparse.SUPPRESS, f"seqimp {command}: {action.option_strings} hidden"
        lines = formatter._split_lines(formatter._expand_help(action), help_width)
        name = (action.option_strings or [action.dest])[0]
        assert len(lines) <= 2, f"seqimp {command} {name}: {len(lines)} lines of help: {lines}"


def test_details_are_on_the_pages_not_in_help(monkeypatch, capsys):
    """A command's and an option's details (seqimp.cli._options.details) are on its page, not in --help."""
    monkeypatch.setenv("COLUMNS", REF.COLUMNS)
    with_details = 0
    for command, parser in PARSERS.items():
        page = REF.command_page(command, parser)
        assert main([command, "--help"]) == 0
        shown = " ".join(capsys.readouterr().out.split())
        for target in [parser] + parser._actions:
            text = REF.details(target)
            if text:
                with_details += 1
                first = " ".join(text.split())[:60]
                assert first in " ".join(page.split()), (command, first)
                assert first not in shown, (command, first)
    assert with_details >= 10
