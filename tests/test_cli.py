import pytest

import seqimp
from seqimp.cli import main
from seqimp.cli._output_folder import output_dir


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"seqimp {seqimp.__version__}"


def test_help_has_examples(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "seqimp demo --out" in out and "inspect" in out


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "usage: seqimp" in capsys.readouterr().err


def test_inspect(capsys, tmp_path):
    path = tmp_path / "s.fa"
    path.write_text(">a\nAACG\n>b\nTTCG\n")
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "records:     2" in out and "length:      4" in out
    assert "A=25.0%" in out and "C=25.0%" in out and "T=25.0%" in out and "GC content:  50.0%" in out


def test_inspect_unequal_lengths_and_invalid_symbols(capsys, tmp_path):
    path = tmp_path / "ragged.fa"
    path.write_text(">a\nAACGTT\n>b\nacg\n>c\nTTCGA\n")
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "records:     3" in out and "length:      3..6 (lengths differ" in out
    assert "A=28.6%" in out and "C=21.4%" in out and "G=21.4%" in out and "T=28.6%" in out  # 4, 3, 3, 4 of 14
    path.write_text(">a\nAACGTT\n>b\nACNG\n>c\nZACG\n")
    assert main(["inspect", str(path)]) == 0  # reported, not refused
    out = capsys.readouterr().out
    assert "records:     3" in out and "other symbols: Z=1 in 1 of 3 records" in out
    assert "unknown:     1 base (N or IUPAC codes) in 1 of 3 records; read as unknown" in out
    assert "A=33.3%" in out  # 4 of the 12 known bases: N and Z are not counted
    assert main(["inspect", "--skip-invalid", str(path)]) == 0
    captured = capsys.readouterr()
    assert "records:     2" in captured.out and "length:      4..6" in captured.out  # the record with N is kept
    assert "skipped 1 of 3 records" in captured.err


def test_inspect_embedded_demo(capsys):
    from seqimp.datasets import demo_paths

    pos, neg = demo_paths()
    assert main(["inspect", str(pos), str(neg)]) == 0
    assert capsys.readouterr().out.count("records:     500") == 2


def test_user_error_is_one_line_exit_2(capsys, tmp_path):
    code = main(["inspect", str(tmp_path / "missing.fa")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("seqimp: error: ") and "missing.fa: no such file" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_option_is_one_line_exit_2(capsys):
    assert main(["inspect", "--bogus", "x.fa"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("seqimp: error: unrecognized arguments: --bogus") and err.count("\n") == 1
    assert "(see 'seqimp inspect --help')" in err  # the command's help, where its options are


def test_bad_option_before_a_command_names_the_top_level_help(capsys):
    assert main(["--bogus"]) == 2
    err = capsys.readouterr().err
    assert err == "seqimp: error: unrecognized arguments: --bogus (see 'seqimp --help')\n"


def test_invalid_symbol_message_from_cli(capsys, tmp_path):
    path = tmp_path / "n.fa"
    path.write_text(">r1\nACGT\n>r2\nAC1T\n>r3\nACNT\n")
    other = tmp_path / "other.fa"
    other.write_text(">r1\nACGT\n")
    assert main(["poim", "--positive", str(path), "--negative", str(other), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "record 'r2': invalid symbol '1' at position 3" in err and "--skip-invalid" in err
    assert main(["inspect", "--skip-invalid", str(path)]) == 0
    captured = capsys.readouterr()
    assert "records:     2" in captured.out and "skipped 1 of 3 records" in captured.err  # r3's N: an unknown base


def test_debug_shows_traceback(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        main(["--debug", "inspect", str(tmp_path / "missing.fa")])


def test_quiet_silences_log(capsys):
    from seqimp.cli._logging import configure, log

    configure(quiet=True)
    try:
        log("hidden")
        assert capsys.readouterr().err == ""
    finally:
        configure(quiet=False)


def test_output_dir_writes_nothing_on_failure(tmp_path):
    out = tmp_path / "results"
    with pytest.raises(RuntimeError, match="boom"):
        with output_dir(out) as stage:
            (stage / "half.tsv").write_text("x")
            raise RuntimeError("boom")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []
    with output_dir(out) as stage:
        (stage / "done.tsv").write_text("y")
    assert (out / "done.tsv").read_text() == "y"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


def test_output_dir_rejects_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    with pytest.raises(ValueError, match="exists and is not a directory"):
        with output_dir(f):
            pass


def test_every_subcommand_accepts_quiet_after_it():
    from seqimp.cli import _COMMANDS, build_parser

    parser = build_parser()
    extra = {"inspect": ["x.fa"], "demo": ["--out", "x"], "train": ["--positive", "p", "--negative", "n",
                                                                    "--model-out", "m.npz"],
             "poim": ["--out", "x"], "motifs": ["--out", "x"], "encode": ["--fasta", "a.fa", "--out", "s"],
             "cite": [], "scan": ["--db", "m.meme", "--out", "x"], "enrich": ["--db", "m.meme", "--out", "x"],
             "variants": ["--model-file", "m.npz", "--vcf", "v.vcf", "--genome", "g.fa", "--out", "x"],
             "predict": ["--model-file", "m.npz", "--fasta", "s.fa", "--out", "x"]}
    assert set(extra) == set(_COMMANDS)
    for name in _COMMANDS:
        assert parser.parse_args([name] + extra[name] + ["-q"]).quiet is True
        assert parser.parse_args([name] + extra[name] + ["--debug"]).debug is True
        assert parser.parse_args([name] + extra[name]).debug is False
