"""Log levels of the command line (-q, default, -v, -vv), progress bars that never cut through log
lines, the lazy start-up of ``seqimp`` (only the command that runs is imported), and ``seqimp cite``."""

import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from seqimp._utils import progress as _progress
from seqimp.cli import _COMMANDS, _SUMMARIES, build_parser, main
from seqimp.cli._logging import configure, log_level
from seqimp.training._classifier import metrics_line

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def _reset():
    yield
    configure(quiet=False)
    logging.getLogger("seqimp").setLevel(logging.NOTSET)


def test_levels_quiet_default_verbose(capsys):
    assert log_level(quiet=True) == logging.WARNING and log_level() == logging.INFO
    assert log_level(verbose=1) == log_level(verbose=2) == logging.DEBUG
    library = logging.getLogger("seqimp.kernels")
    for verbose, shown in ((0, "step\n"), (1, "step\ndetail\n")):
        configure(verbose=verbose)
        logging.getLogger("seqimp.pipeline").info("step")
        library.debug("detail")
        assert capsys.readouterr().err == shown
    configure(verbose=2)
    library.debug("detail")
    err = capsys.readouterr().err
    assert err.endswith(" seqimp.kernels: detail\n") and err[2] == ":"  # HH:MM:SS name: message


def test_verbose_flags_before_and_after_the_command(tmp_path, capsys):
    assert main(["-v", "inspect", str(DATA / "planted_pos.fa")]) == 0
    assert main(["inspect", "-vv", str(DATA / "planted_pos.fa")]) == 0
    assert build_parser().parse_args(["inspect", "-vv", "x.fa"]).verbose == 2
    capsys.readouterr()


def test_training_solver_lines_only_with_verbose(tmp_path, capsys):
    pos, neg = str(DATA / "planted_pos.fa"), str(DATA / "planted_neg.fa")
    argv = ["train", "--positive", pos, "--negative", neg, "--degree", "2"]
    assert main(argv + ["--model-out", str(tmp_path / "a.npz")]) == 0
    err = capsys.readouterr().err
    assert "training a WD classifier" in err and "DCD pass 1: active" not in err  # (a slow pass shows a bar)
    assert main(["-v"] + argv + ["--model-out", str(tmp_path / "b.npz")]) == 0
    assert "DCD pass 1: active 160/160" in capsys.readouterr().err


def test_bars_on_a_log_file_are_whole_lines_and_log_lines_go_through_tqdm():
    stream = io.StringIO()
    with _progress.progress_bar(3, "poim levels", file=stream) as bar:
        _progress.write_line("a log line", file=stream)
        bar.update(3)
    text = stream.getvalue()
    assert "\r" not in text
    assert text.splitlines() == ["a log line", text.splitlines()[1]]
    assert text.splitlines()[1].startswith("poim levels: 3/3 in ")


def test_progress_default_follows_the_seqimp_logger_level():
    logger = logging.getLogger("seqimp")
    assert _progress.progress_default()  # level not set: bars on
    logger.setLevel(logging.WARNING)
    assert not _progress.progress_default()
    stream = io.StringIO()
    with _progress.progress_bar(2, "silent", enabled=None, file=stream) as bar:
        bar.update(2)
    assert stream.getvalue() == ""
    logger.setLevel(logging.INFO)
    assert _progress.progress_default()


def test_help_lists_every_command_and_imports_none():
    # the one-line help of each command is the one its module registers
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    registered = {choice.dest: choice.help for choice in sub._choices_actions}
    for name, summary in _SUMMARIES.items():
        assert registered[name] == summary, name
    assert set(_SUMMARIES) <= set(_COMMANDS)
    code = ("import sys; from seqimp.cli import main; main(['--help']); "
            "print(sorted(m for m in sys.modules if m.startswith(('seqimp.', 'numba', 'sklearn', 'pandas'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = eval(out.strip().splitlines()[-1])
    assert not [m for m in loaded if m.startswith(("numba", "sklearn", "pandas"))], loaded
    assert not [m for m in loaded if m.startswith("seqimp.cli.") and m.split(".")[-1] in _COMMANDS], loaded


def test_poim_help_needs_not_the_pipeline():
    from seqimp.cli import _options
    from seqimp.options import BACKGROUNDS, MODEL_KINDS

    assert _options.BACKGROUNDS == BACKGROUNDS  # --background's choices, without importing the pipeline
    assert _options.MODEL_KINDS == MODEL_KINDS
    code = ("import sys; from seqimp.cli import main; main(['poim', '--help']); "
            "print(sorted(m for m in sys.modules if m.startswith(('seqimp.pipeline', 'sklearn', 'numba'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out.strip().splitlines()[-1]) == []


def test_a_missing_input_is_reported_before_the_library_loads(tmp_path, capsys):
    assert main(["train", "--positive", str(tmp_path / "nope.fa"), "--negative", str(tmp_path / "nope.fa"),
                 "--model-out", str(tmp_path / "m.npz")]) == 2
    assert capsys.readouterr().err == f"seqimp: error: --positive {tmp_path / 'nope.fa'}: no such file\n"


def test_metrics_line_names_what_was_measured():
    held = {"accuracy": 0.95, "auroc": 0.98, "n_test": 200}
    assert metrics_line(held) == "accuracy 0.9500, auROC 0.9800 on 200 held-out sequences"
    given = dict(held, evaluated_on="the given sequences (not held out)")
    line = metrics_line(given)
    assert line.startswith("accuracy 0.9500, auROC 0.9800 on the given sequences, NOT held out: the model may")
    assert "sequences the model never saw" in line and "'seqimp train'" in line
    assert metrics_line({"auroc": None}) is None


def test_accuracy_on_training_sequences_is_labelled_with_the_held_out_route(tmp_path, capsys):
    pos, neg = str(DATA / "planted_pos.fa"), str(DATA / "planted_neg.fa")
    model = tmp_path / "m.npz"
    assert main(["train", "--positive", pos, "--negative", neg, "--degree", "2", "--model-out", str(model)]) == 0
    assert "on 40 held-out sequences" in capsys.readouterr().out
    assert main(["poim", "--model-file", str(model), "--positive", pos, "--negative", neg, "--max-order", "2",
                 "--no-motifs", "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    assert "on the given sequences, NOT held out: the model may have been trained on them" in err
    assert "score sequences the model never saw" in err
    assert main(["poim", "--positive", pos, "--negative", neg, "--degree", "2", "--max-order", "2", "--no-motifs",
                 "--out", str(tmp_path / "s")]) == 0
    assert "on 40 held-out sequences" in capsys.readouterr().err


def test_cite_lists_every_method_or_those_a_run_used(tmp_path, capsys):
    assert main(["cite"]) == 0
    text = capsys.readouterr().out
    for needle in ("the seqimp developers", "POIMs: positional oligomer importance matrices",
                   "The feature importance ranking measure", "Quantifying similarity between motifs",
                   "JASPAR 2024", "RASE"):
        assert needle in text, needle
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.json").write_text(json.dumps({"method": "sampled", "parameters": {"scorer": "m:f"}}))
    assert main(["cite", "--run", str(run)]) == 0
    text = capsys.readouterr().out
    assert "The feature importance ranking measure" in text and "RASE" not in text and "JASPAR" not in text
    (run / "summary.json").write_text(json.dumps({"method": "exact", "parameters": {"degree": 6},
                                                  "motif_database": {"release": "JASPAR2024", "motifs": 879}}))
    assert main(["cite", "--run", str(run)]) == 0
    text = capsys.readouterr().out
    assert all(n in text for n in ("RASE", "Quantifying similarity", "JASPAR 2024: 20th anniversary"))
    (run / "summary.json").write_text(json.dumps({"method": "exact", "parameters": {"degree": 6},
                                                  "motif_database": {"release": "JASPAR2022", "motifs": 10}}))
    assert main(["cite", "--run", str(run)]) == 0
    assert "cite the JASPAR paper of that release" in capsys.readouterr().out


def test_cite_errors(tmp_path, capsys):
    assert main(["cite", "--run", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["cite", "--run", str(tmp_path)]) == 2
    assert "no summary.json or motifs.json" in capsys.readouterr().err
    (tmp_path / "summary.json").write_text("{not json")
    assert main(["cite", "--run", str(tmp_path)]) == 2
    assert "not a seqimp summary" in capsys.readouterr().err


def test_licence_and_citation_files():
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License") and "the seqimp developers" in licence
    citation = (ROOT / "CITATION.cff").read_text()
    assert "cff-version: 1.2.0" in citation and "license: MIT" in citation
    import seqimp

    assert f"version: {seqimp.__version__}" in citation


def test_a_closed_pipe_ends_the_command_quietly(monkeypatch, capsys):
    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["cite"]) == 141  # as a Unix tool killed by SIGPIPE; no "seqimp: error" line
    assert capsys.readouterr().err == ""
