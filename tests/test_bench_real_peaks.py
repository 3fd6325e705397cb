"""scripts/bench_real_peaks.py: reading STREME's text output and TOMTOM's ``-text`` output, the
family table built from them, and the script's run with stand-in executables (no MEME suite)."""

import os
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import bench_real_peaks as bench  # noqa: E402

FIX = Path(__file__).resolve().parent / "data" / "bench_real_peaks"
KRUPPEL = "Three-zinc finger Kruppel-related"
GATA = "C4-GATA-related"


def test_streme_text_motifs_and_footer():
    text = (FIX / "streme.txt").read_text()
    motifs = bench.parse_meme(text)
    assert [m["id"] for m in motifs] == ["1-CCACACCC", "2-AGATAA", "3-GGGCGGG", "4-ATATATAT"]
    assert [m["alt"] for m in motifs] == ["STREME-1", "STREME-2", "STREME-3", "STREME-4"]
    assert [m["width"] for m in motifs] == [8, 6, 7, 8]
    assert [m["nsites"] for m in motifs] == [120, 85, 64, 30]
    assert [m["evalue"] for m in motifs] == [2.5e-10, 3.1e-2, 1.2, 6.0]
    footer = bench.parse_streme_footer(text)
    assert footer == {"version": "5.5.8", "finaltime_s": 12.34,
                      "stopped": "Stopped because 3 consecutive motifs exceeded the p-value threshold (0.05)."}


def test_meme_widths_agree_with_the_matrix_rows():
    """The width read from the header equals the number of matrix rows under it (counted here)."""
    blocks = (FIX / "streme.txt").read_text().split("MOTIF ")[1:]
    rows = [sum(1 for line in b.splitlines()[2:] if line.strip() and line.split()[0][0] in "0.")
            for b in blocks]
    assert rows == [m["width"] for m in bench.parse_meme((FIX / "streme.txt").read_text())]


def test_tomtom_text_rows():
    rows = bench.parse_tomtom((FIX / "tomtom.tsv").read_text())
    assert len(rows) == 7  # header and '#' trailer skipped
    first = rows[0]
    assert first["Query_ID"] == "1-CCACACCC" and first["Target_ID"] == "MA9003.1_KLFX"
    assert first["Optimal_offset"] == -1 and first["Overlap"] == 8 and first["Orientation"] == "+"
    assert first["p-value"] == 2.1e-08 and first["q-value"] == 3.0e-05
    with pytest.raises(ValueError, match="fields"):
        bench.parse_tomtom("1-A\tMA1\t0\t0.1\n")


def test_jaspar_families_first_factor_then_class_then_name():
    fam = bench.read_jaspar_families(FIX / "families.transfac")
    assert fam == {"MA9001.1": ("SPX", KRUPPEL), "MA9002.1": ("GATAX", GATA),
                   "MA9003.1": ("KLFX", KRUPPEL), "MA9004.1": ("GATAX::TALX", GATA),
                   "MA9005.1": ("TBPX", "TATA-binding proteins"), "MA9006.1": ("NOFAMX", "NOFAMX")}
    # a target not in the annotation is its own family, named after the TF
    assert bench.target_family("MA0000.9_FOO", fam) == ("FOO", "FOO")


def test_family_table_best_target_threshold_and_order():
    motifs = bench.parse_meme((FIX / "streme.txt").read_text())
    rows = bench.parse_tomtom((FIX / "tomtom.tsv").read_text())
    fam = bench.read_jaspar_families(FIX / "families.transfac")
    per_motif, found, unmatched = bench.family_table(motifs, rows, fam)
    # motif 1: two targets tie on q and p -> the smaller target ID; motif 2: equal q -> smaller p
    # (the heterodimer, family of its first factor); motif 4: best q 0.06 > 0.05 -> unmatched
    assert [m["target"] for m in per_motif] == ["MA9001.1_SPX", "MA9004.1_GATAX::TALX",
                                                "MA9001.1_SPX", None]
    assert [m["rank"] for m in per_motif] == [1, 2, 3, 4]
    assert (per_motif[3]["nearest"], per_motif[3]["nearest_q"]) == ("MA9005.1_TBPX", 0.06)
    assert [m["consensus"] for m in per_motif] == ["CCACACCC", "AGATAA", "GGGCGGG", "ATATATAT"]
    assert found == [(KRUPPEL, 2), (GATA, 1)] and unmatched == 1
    # a looser threshold takes motif 4 in; a stricter one leaves only motif 1 (q 3e-5)
    assert bench.family_table(motifs, rows, fam, q_max=0.1)[2] == 0
    strict = bench.family_table(motifs, rows, fam, q_max=1e-4)
    assert strict[1] == [(KRUPPEL, 1)] and strict[2] == 3


def test_best_matches_against_a_sort_of_all_rows():
    """best_matches equals the first row of each query after sorting every row by (q, p, target)."""
    rows = bench.parse_tomtom((FIX / "tomtom.tsv").read_text())
    for q_max in (1e-5, 1e-4, 0.012, 0.05, 1.0):
        expect = {}
        for row in sorted(rows, key=lambda r: (r["q-value"], r["p-value"], r["Target_ID"])):
            if row["q-value"] <= q_max:
                expect.setdefault(row["Query_ID"], row)
        assert bench.best_matches(rows, q_max) == expect


def test_summary_row_and_tables():
    set_ = bench.Set("x", "x", "a.fa", None, ((KRUPPEL,), (GATA,), ("TBP-related factors",)))
    record = {"rc": 0, "wall_s": 12.345, "max_rss_mib": 210.4, "skip_invalid": True,
              "refused": "seqimp: error: N", "reused": False}
    motifs = [{}] * 4
    row = bench.summary_row(set_, "seqimp", record, motifs, [(KRUPPEL, 2), (GATA, 1)], 1, True)
    assert row["motifs"] == 4 and row["matched"] == 3 and row["unmatched"] == 1
    assert row["families"] == f"{KRUPPEL} (2); {GATA} (1)" and row["expected_found"] == "2/3"
    assert row["wall_s"] == "12.3" and row["max_rss_mib"] == "210"
    assert row["note"] == "--skip-invalid (refused without: seqimp: error: N)"
    failed = bench.summary_row(set_, "seqimp", {**record, "rc": 2, "error": "boom", "skip_invalid": False},
                               [], [], 0, False)
    assert failed["motifs"] == "" and failed["note"] == "failed (exit 2): boom"
    again = bench.summary_row(set_, "seqimp", {**record, "rc": 2, "error": "boom"}, [], [], 0, False)
    assert again["note"] == "failed (exit 2, also with --skip-invalid): boom"
    absent = bench.summary_row(set_, "streme", None, [], [], None, False)
    assert absent["note"] == "not run (tool absent)"
    tsv = bench.to_tsv([row], bench.SUMMARY_COLUMNS).splitlines()
    assert tsv[0].split("\t") == list(bench.SUMMARY_COLUMNS) and len(tsv) == 2
    md = bench.to_markdown([row], bench.SUMMARY_COLUMNS).splitlines()
    assert md[0].startswith("| set | tool |") and md[2].startswith("| x | seqimp | 4 | 3 | 1 |")
    other = bench.Set("y", "second set", "b.fa", None)
    per_set = bench.per_set_markdown([{**row, "set": "y"}, row, absent], [set_, other]).splitlines()
    assert per_set[0] == "### x: x" and per_set[2].startswith("| tool | motifs |")
    assert [line.split(" | ")[0] for line in per_set if line.startswith("| s")] == ["| seqimp", "| streme", "| seqimp"]
    assert "### y: second set" in per_set


def test_uci_classes_written_as_fasta(tmp_path):
    (tmp_path / "uci_splice").mkdir()
    (tmp_path / "uci_splice" / "splice.data").write_text(
        "EI,  A-1,   ACGTACGT\nN,  B-1,   TTTTAAAA\nEI,  A-2,  ACGNACGT\nEI, A-3, acgtacgg\n")
    path, note = bench.resolve("uci_splice:EI", tmp_path, tmp_path / "inputs")
    assert path.read_text() == ">A-1\nACGTACGT\n>A-3\nACGTACGG\n"
    assert note == "EI: 1 records with ambiguity codes left out"
    assert bench.resolve("uci_promoters:+", tmp_path, tmp_path / "inputs") == (None, "")
    assert bench.resolve("real_peaks/absent.fa", tmp_path, tmp_path / "inputs") == (None, "")


def test_joined_sources_are_one_fasta_file_after_the_other(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.fa").write_text(">r1\nACGT\n>r2\nNNAC")  # no newline at the end
    (tmp_path / "b" / "y.fa").write_text(">r3\nGGGG\n")
    path, note = bench.resolve("a/x.fa+b/y.fa", tmp_path, tmp_path / "inputs")
    assert path == tmp_path / "inputs" / "x_y.fa" and note == ""
    assert path.read_text() == ">r1\nACGT\n>r2\nNNAC\n>r3\nGGGG\n"
    assert bench.resolve("a/x.fa+b/absent.fa", tmp_path, tmp_path / "inputs") == (None, "")
    mix = next(s for s in bench.SETS if s.key == "klf1_nfe2")
    assert mix.positive == "real_peaks/Klf1.fa+lsgkm_nfe2/nfe2.tr.fa" and mix.negative is None


def test_run_timed_reports_exit_status_and_peak_memory(tmp_path):
    code = "import sys; b = bytearray(80 * 2**20); b[::4096] = b'x' * len(b[::4096]); sys.exit(3)"
    record = bench.run_timed([sys.executable, "-c", code], tmp_path / "log")
    assert record["rc"] == 3 and record["wall_s"] > 0
    assert record["max_rss_mib"] >= 80  # the 80 MiB touched page by page


def _exe(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_main_with_stand_in_streme_and_tomtom(tmp_path, capsys):
    """The script end to end on a UCI-shaped set, STREME and TOMTOM replaced by shell scripts that
    write the fixtures; a second run with --reuse streme takes the stored STREME run."""
    if os.name != "posix":
        pytest.skip("shell stand-ins need a POSIX shell")
    data = tmp_path / "data"
    (data / "uci_promoters").mkdir(parents=True)
    (data / "uci_promoters" / "promoters.data").write_text("+,P1,\t\tacgtacgtac\n-,N1,\t\tttttgggggc\n")
    (data / "tomtom_reference").mkdir()
    (data / "tomtom_reference" / bench.JASPAR_MEME.name).write_text("MEME version 4\n")
    (data / "jaspar").mkdir()
    (data / "jaspar" / bench.JASPAR_TRANSFAC.name).write_text((FIX / "families.transfac").read_text())
    streme = _exe(tmp_path / "streme", "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 5.5.8; exit 0; fi\n"
                  "while [ $# -gt 0 ]; do if [ \"$1\" = --oc ]; then out=$2; fi; shift; done\n"
                  f"mkdir -p \"$out\" && cp '{FIX / 'streme.txt'}' \"$out/streme.txt\""
                  f" && cp '{FIX / 'streme.xml'}' \"$out/streme.xml\"\n")
    tomtom = _exe(tmp_path / "tomtom", "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 5.5.8; exit 0; fi\n"
                  f"cat '{FIX / 'tomtom.tsv'}'\n")
    out = tmp_path / "out"
    argv = ["--out", str(out), "--data", str(data), "--sets", "uci_promoters", "--tools", "streme",
            "--streme", str(streme), "--tomtom", str(tomtom)]
    assert bench.main(argv) == 0
    first = (out / "summary.tsv").read_text()
    row = dict(zip(bench.SUMMARY_COLUMNS, first.splitlines()[1].split("\t")))
    assert row["set"] == "uci_promoters" and row["tool"] == "streme"
    assert (row["motifs"], row["matched"], row["unmatched"]) == ("4", "3", "1")
    assert row["families"] == f"{KRUPPEL} (2); {GATA} (1)"
    # streme.xml's held-out p-values: motifs 1 and 2 pass (2.3e-9, 0.012), 3 and 4 fail (0.3, 0.5)
    assert (row["passing"], row["passing_families"]) == ("2", f"{KRUPPEL}; {GATA}")
    assert (out / "inputs" / "uci_promoters_pos.fa").read_text() == ">P1\nACGTACGTAC\n"
    motifs = (out / "motifs.tsv").read_text().splitlines()
    assert len(motifs) == 5
    assert motifs[1].split("\t")[:5] == ["uci_promoters", "streme", "1", "1-CCACACCC", "CCACACCC"]
    printed = capsys.readouterr().out
    assert printed.startswith("### uci_promoters: UCI E. coli promoters") and "| streme | 4 | 3 | 1 |" in printed
    # stored run taken: the stand-in is gone, the table is the same but for the note
    streme.unlink()
    assert bench.main(argv[:-4] + ["--tomtom", str(tomtom), "--reuse", "streme"]) == 0
    again = dict(zip(bench.SUMMARY_COLUMNS, (out / "summary.tsv").read_text().splitlines()[1].split("\t")))
    assert again["families"] == row["families"] and again["note"].startswith("stored run (")
    # an absent tool is a line in the table, not a failure
    assert bench.main(argv[:-4] + ["--streme", str(tmp_path / "nowhere")] + ["--tomtom", str(tomtom)]) == 0
    assert "not run (tool absent)" in (out / "summary.tsv").read_text()
    assert "STREME not found" in capsys.readouterr().err


def test_real_streme_output_when_present():
    """STREME 5.5.8's stored answer on Klf1 (shared data; skipped when absent)."""
    path = bench.DATA / "real_peaks" / "Klf1_streme_defaults.txt"
    if not path.exists():
        pytest.skip("shared data absent")
    text = path.read_text()
    motifs = bench.parse_meme(text)
    assert len(motifs) == 7 and motifs[0]["id"] == "1-RGCCACACCCWNNBY" and motifs[0]["width"] == 15
    assert motifs[2]["id"] == "3-RGAGATAAGRVD" and motifs[2]["nsites"] == 336
    assert bench.parse_streme_footer(text)["finaltime_s"] == 96.62


def test_real_jaspar_families_when_present():
    if not bench.JASPAR_TRANSFAC.exists():
        pytest.skip("shared data absent")
    fam = bench.read_jaspar_families(bench.JASPAR_TRANSFAC)
    assert len(fam) == 879
    assert fam["MA0493.3"] == ("KLF1", KRUPPEL)
    assert fam["MA0140.3"] == ("GATA1::TAL1", GATA)
    assert fam["MA0108.3"] == ("TBP", "TBP-related factors")


def _row(query, target, p, q):
    return {"Query_ID": query, "Target_ID": target, "p-value": p, "q-value": q, "E-value": p * 879,
            "Optimal_offset": 0, "Overlap": 8, "Query_consensus": "CACGTGAC", "Target_consensus": "CACGTGAC",
            "Orientation": "+"}


def test_targets_tied_on_q_and_p_give_every_family():
    """An E-box matching TFEB and Arntl with the same p and q counts for both families, the best
    row's (smallest target ID: USF2) first; a target with a larger p does not count."""
    families = {"MA0692.2": ("TFEB", "bHLH-ZIP"), "MA0603.2": ("Arntl", "PAS domain factors"),
                "MA0526.5": ("USF2", "bHLH-ZIP"), "MA0004.1": ("Arnt", "Other")}
    rows = [_row("m1", "MA0692.2_TFEB", 7e-7, 2e-4), _row("m1", "MA0603.2_Arntl", 7e-7, 2e-4),
            _row("m1", "MA0526.5_USF2", 7e-7, 2e-4), _row("m1", "MA0004.1_Arnt", 9e-7, 2e-4)]
    per_motif, found, unmatched = bench.family_table([{"id": "m1"}], rows, families)
    assert per_motif[0]["target"] == "MA0526.5_USF2"
    assert per_motif[0]["family"] == "bHLH-ZIP; PAS domain factors"
    assert found == [("bHLH-ZIP", 1), ("PAS domain factors", 1)] and unmatched == 0


def test_held_out_pvalues_of_streme_xml_and_seqimp_table(tmp_path):
    (tmp_path / "streme").mkdir()
    (tmp_path / "streme" / "streme.xml").write_text(
        '<motifs>\n<motif id="1-CCACACCC" alt="STREME-1" width="8" test_pvalue="2.3e-009" '
        'test_evalue="1e-8">\n</motif>\n<motif id="2-AGATAA" alt="STREME-2" test_pvalue="2.5e-001">\n</motif>\n')
    assert bench.held_out_pvalues("streme", tmp_path / "streme") == {"1-CCACACCC": 2.3e-9, "2-AGATAA": 0.25}
    (tmp_path / "seqimp").mkdir()
    (tmp_path / "seqimp" / "motifs.tsv").write_text("name\tconsensus\theld_out_p_value\nmotif1\tAGATAA\t1e-05\n"
                                                    "motif2\tCCCC\tnan\n")
    assert bench.held_out_pvalues("seqimp", tmp_path / "seqimp") == {"motif1": 1e-5}
    assert bench.held_out_pvalues("seqimp", tmp_path / "absent") == {}


def test_passing_families_and_what_seqimp_misses():
    """Only motifs whose held-out p is at most 0.05 give passing families; seqimp's row lists
    STREME's passing families it lacks."""
    per_motif = [{"id": "a", "family": KRUPPEL}, {"id": "b", "family": f"{GATA}; Other"},
                 {"id": "c", "family": "Ets-related"}, {"id": "d", "family": None}]
    pvalues = {"a": 1e-9, "b": 0.05, "c": 0.25, "d": 1e-3}
    assert bench.passing_families(per_motif, pvalues) == [KRUPPEL, GATA, "Other"]
    summary = [{"set": "s", "tool": "seqimp", "families": f"{KRUPPEL} (2)", "passing": 2},
               {"set": "s", "tool": "streme", "families": "x", "passing": 3,
                "passing_families": f"{KRUPPEL}; {GATA}"},
               {"set": "t", "tool": "seqimp", "families": "-", "passing": 0}]
    bench.missing_vs_streme(summary)
    assert summary[0]["missing_vs_streme"] == GATA
    assert "missing_vs_streme" not in summary[1] and "missing_vs_streme" not in summary[2]


def test_other_families_of_a_motif_and_the_families_missing_but_matched():
    """A GC box whose best target is PATZ1: its other targets at q <= 0.05 give the KLF family
    (its first target, SP2, by q then p), not a target past q 0.05 nor the best's own family; the
    row of the tool lists a missing family that a motif matches though not first, by the first motif."""
    families = {"MA1961.2": ("PATZ1", "Dispersed"), "MA0516.3": ("SP2", KRUPPEL),
                "MA0742.2": ("KLF12", KRUPPEL), "MA0035.5": ("GATA1", GATA), "MA9999.1": ("PATZX", "Dispersed")}
    rows = [_row("m1", "MA1961.2_PATZ1", 1.0e-6, 8e-4), _row("m1", "MA0742.2_KLF12", 2.3e-6, 8e-4),
            _row("m1", "MA0516.3_SP2", 1.6e-6, 8e-4), _row("m1", "MA9999.1_PATZX", 3e-6, 9e-4),
            _row("m1", "MA0035.5_GATA1", 1e-3, 0.2),
            _row("m2", "MA0035.5_GATA1", 1e-7, 1e-4), _row("m2", "MA0516.3_SP2", 1e-4, 0.04)]
    per_motif, found, _ = bench.family_table([{"id": "m1"}, {"id": "m2"}], rows, families)
    assert found == [("Dispersed", 1), (GATA, 1)]
    assert per_motif[0]["other_families"] == {KRUPPEL: ("MA0516.3_SP2", 8e-4)}
    assert per_motif[1]["other_families"] == {KRUPPEL: ("MA0516.3_SP2", 0.04)}
    first = bench.first_other_families(per_motif)
    assert first == {KRUPPEL: "m1 (MA0516.3_SP2, q = 0.0008)"}
    summary = [{"set": "s", "tool": "seqimp", "families": "Dispersed (1); " + f"{GATA} (1)",
                "other_families": first},
               {"set": "s", "tool": "streme", "families": "x", "passing": 2,
                "passing_families": f"{KRUPPEL}; {GATA}; CEBP-related"}]
    bench.missing_vs_streme(summary)
    assert summary[0]["missing_vs_streme"] == f"{KRUPPEL}; CEBP-related"
    assert summary[0]["missing_but_matched"] == f"{KRUPPEL}: m1 (MA0516.3_SP2, q = 0.0008)"
    summary[0]["other_families"] = {}
    bench.missing_vs_streme(summary)
    assert summary[0]["missing_but_matched"] == "-"
