"""Motif discovery on real sequence sets: ``seqimp motifs`` beside STREME, both judged by TOMTOM.

Each tool runs with its defaults on each set (``seqimp motifs --positive P [--negative N] --out D``;
``streme --p P [--n N] --dna --oc D``); the MEME-format motifs each writes (``motifs.meme``,
``streme.txt``) go through the same TOMTOM command against JASPAR 2024 CORE vertebrates
non-redundant (``tomtom -no-ssc -min-overlap 5 -dist pearson -evalue -thresh 10 -text``), and a
motif is matched when one target has q <= 0.05. A motif's family is the JASPAR ``tf_family`` of its
best target (smallest q, then p; targets tied with it on both count too); for a heterodimer
(``GATA1::TAL1``) the family of its first factor (``real_peaks_judging.py``). Per set and tool the
table gives the families found (in the tool's motif order, with the number of motifs in each),
the motifs with no match, the whole command's wall time and its peak resident memory
(``ru_maxrss`` of the child and the processes it waited for, from ``wait4``); then the motifs
that pass their held-out test (p <= 0.05: STREME also writes the last three it tested, which
failed it), their families, and on seqimp's row the families of STREME's passing motifs that
seqimp's motifs lack (``missing_vs_streme``).

    python scripts/bench_real_peaks.py --out bench_real_peaks \\
        --streme /tmp/meme/bin/streme --tomtom /tmp/meme/bin/tomtom [--sets klf1,nfe2] [--reuse streme]

Writes into ``--out``: ``summary.tsv``, ``summary.md`` (also printed), ``motifs.tsv`` (every
motif with its best target), ``versions.json``, and per set ``SET/TOOL/`` (the tool's own output),
``SET/TOOL.run.json`` (command, wall time, memory, exit status) and ``SET/TOOL.tomtom.tsv``.
``--reuse TOOL`` takes a stored run of that tool instead of running it again when its command is
the same (STREME's answers do not change while seqimp's code does). A tool that is absent is
skipped with one line. When seqimp refuses a set's letters (N in peaks), the run is repeated with
``--skip-invalid`` and the table says so. The data sets are read from ``../shared/data`` (not in
the repository); a set whose files are absent is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from real_peaks_judging import (PASS_PVALUE, Q_MAX, TOMTOM_COLUMNS, best_matches, family_table,  # noqa: F401
                                held_out_pvalues, other_families, passing_families,
                                parse_meme, parse_streme_footer, parse_streme_xml, parse_tomtom,
                                read_jaspar_families, target_family)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
JASPAR_MEME = DATA / "tomtom_reference" / "JASPAR2024_CORE_vertebrates_non-redundant.meme"
JASPAR_TRANSFAC = DATA / "jaspar" / "JASPAR2024_CORE_vertebrates_non-redundant_pfms_transfac.txt"
TOOLS = ("seqimp", "streme")
TOMTOM_ARGS = ["-no-ssc", "-min-overlap", "5", "-dist", "pearson", "-evalue", "-thresh", "10", "-text"]


@dataclass(frozen=True)
class Set:
    key: str
    label: str
    positive: str            # a path under DATA, "uci_splice:EI" / "uci_promoters:+", or paths joined by "+"
    negative: str | None
    expected: tuple = ()     # the known biology: per factor, the JASPAR families that name it


SETS = (
    Set("klf1", "Klf1 ChIP-seq peaks, mouse erythroid (904 x 500 nt, N runs); shuffled controls",
        "real_peaks/Klf1.fa", None,
        (("Three-zinc finger Kruppel-related",), ("C4-GATA-related",))),
    Set("nfe2", "ENCODE NFE2 peaks, GM12878 (644 x 235 nt) vs 644 genomic negatives",
        "lsgkm_nfe2/nfe2.tr.fa", "lsgkm_nfe2/nfe2.neg.tr.fa",
        (("Jun-related", "Maf-related"),)),
    Set("klf1_nfe2", "Klf1 and NFE2 peaks in one set (904 x 500 + 644 x 235 nt, the factors and their co-factors "
        "together); shuffled controls", "real_peaks/Klf1.fa+lsgkm_nfe2/nfe2.tr.fa", None,
        (("Three-zinc finger Kruppel-related",), ("C4-GATA-related",), ("Jun-related", "Maf-related"))),
    Set("mouse_tata", "Mouse TATA promoters, -200..+50 (1,255 x 251 nt) vs 3,530 non-promoters",
        "umarov_promoters/Mouse_tata.fa", "umarov_promoters/Mouse_nonprom.fa",
        (("TBP-related factors",),)),
    Set("ecoli_sigma70", "E. coli sigma70 promoters, -60..+20 (839 x 81 nt) vs 3,000 non-promoters",
        "umarov_promoters/Ecoli_prom.fa", "umarov_promoters/Ecoli_non_prom.fa"),
    Set("uci_promoters", "UCI E. coli promoters, -50..+7 (53 x 57 nt) vs 53 non-promoters",
        "uci_promoters:+", "uci_promoters:-"),
    Set("splice_donor", "UCI primate splice donors EI (60 nt) vs neither N",
        "uci_splice:EI", "uci_splice:N"),
    Set("splice_acceptor", "UCI primate splice acceptors IE (60 nt) vs neither N",
        "uci_splice:IE", "uci_splice:N"),
)


# ------------------------------------------------------------------------------ inputs ----

def uci_records(source: str, data: Path):
    """``(name, sequence)`` of one class of a UCI file (``uci_splice:EI``, ``uci_promoters:+``),
    in file order, upper case; records with letters other than ACGT are left out (counted)."""
    kind, _, cls = source.partition(":")
    path = data / kind / ("splice.data" if kind == "uci_splice" else "promoters.data")
    kept, dropped = [], 0
    for line in path.read_text().splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 3 or fields[0] != cls:
            continue
        seq = fields[2].upper()
        if set(seq) <= set("ACGT"):
            kept.append((fields[1], seq))
        else:
            dropped += 1
    return kept, dropped


def resolve(source: str, data: Path, inputs: Path):
    """The FASTA path of a set's side and a note (records left out), writing UCI classes, and the
    files of a ``+``-joined source one after the other, as FASTA under ``inputs``; ``None`` when a
    data file is absent."""
    if ":" not in source and "+" in source:
        parts = [data / part for part in source.split("+")]
        if not all(part.exists() for part in parts):
            return None, ""
        path = inputs / ("_".join(part.stem for part in parts) + ".fa")
        inputs.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(part.read_bytes().rstrip(b"\n") + b"\n" for part in parts))
        return path, ""
    if ":" not in source:
        path = data / source
        return (path, "") if path.exists() else (None, "")
    kind, _, cls = source.partition(":")
    if not (data / kind).is_dir():
        return None, ""
    records, dropped = uci_records(source, data)
    name = {"+": "pos", "-": "neg"}.get(cls, cls)
    path = inputs / f"{kind}_{name}.fa"
    inputs.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f">{n}\n{s}\n" for n, s in records))
    return path, (f"{cls}: {dropped} records with ambiguity codes left out" if dropped else "")


# ------------------------------------------------------------------------------ running ---

def run_timed(cmd: list, log: Path, cwd: Path | None = None) -> dict:
    """Run ``cmd`` with stdout and stderr to ``log``: exit status, wall seconds and peak resident
    memory in MiB (``ru_maxrss`` of the child and the processes it waited for, from ``wait4``)."""
    with open(log, "wb") as fh:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"cmd": [str(c) for c in cmd], "rc": proc.returncode, "wall_s": round(wall, 2),
            "max_rss_mib": round(usage.ru_maxrss / 1024, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}


def last_error(log: Path) -> str:
    lines = [x for x in log.read_text(errors="replace").splitlines() if x.strip()]
    errors = [x for x in lines if "error" in x.lower()]
    return (errors or lines or [""])[-1].strip()


def tool_command(tool: str, exe: list, pos: Path, neg: Path | None, out: Path) -> list:
    if tool == "streme":
        return [*exe, "--p", pos, *(["--n", neg] if neg else []), "--dna", "--oc", out]
    return [*exe, "motifs", "--positive", pos, *(["--negative", neg] if neg else []),
            "--out", out]


def motif_file(tool: str, out: Path) -> Path:
    return out / ("streme.txt" if tool == "streme" else "motifs.meme")


def run_tool(tool: str, exe: list, pos: Path, neg: Path | None, set_dir: Path, reuse: bool,
             commit: str = "") -> dict:
    """Run one tool on one set (or take its stored run): the run record written to
    ``SET/TOOL.run.json`` (``commit``: the seqimp tree it ran on)."""
    out = set_dir / tool
    record_path = set_dir / f"{tool}.run.json"
    cmd = [str(c) for c in tool_command(tool, exe, pos, neg, out)]
    if reuse and record_path.exists():
        record = json.loads(record_path.read_text())
        if record.get("base_cmd") == cmd and (record["rc"] != 0 or motif_file(tool, out).exists()):
            record["reused"] = True
            return record
    if out.exists():
        shutil.rmtree(out)
    log = set_dir / f"{tool}.log"
    record = run_timed(cmd, log)
    record.update(base_cmd=cmd, skip_invalid=False, error="", reused=False)
    refused = ("unknown symbol", "letters other than", "--skip-invalid", "not a, c, g, t")
    if tool == "seqimp" and record["rc"] != 0 and any(s in last_error(log).lower() for s in refused):
        first_error = last_error(log)
        if out.exists():
            shutil.rmtree(out)
        retry = run_timed(cmd + ["--skip-invalid"], log)
        record.update(retry, skip_invalid=True, refused=first_error)
    if record["rc"] != 0:
        record["error"] = last_error(log)
    record["date"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    record["commit"] = commit
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    record["reused"] = False
    return record


def run_tomtom(tomtom: str, query: Path, db: Path, dest: Path) -> list:
    with open(dest, "wb") as fh:
        proc = subprocess.run([tomtom, *TOMTOM_ARGS, query, db], stdout=fh,
                              stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"tomtom failed on {query}: {proc.stderr.decode(errors='replace')[-300:]}")
    return parse_tomtom(dest.read_text())


def version_of(cmd: list) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    except OSError:
        return ""
    return (proc.stdout.strip() or proc.stderr.strip()).splitlines()[0] if (proc.stdout or proc.stderr) else ""


def git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "seqimp"], cwd=ROOT,
                           capture_output=True, text=True, check=False).stdout.strip()
    return head + (" (seqimp/ modified)" if dirty else "")


# ------------------------------------------------------------------------------ tables ----

SUMMARY_COLUMNS = ("set", "tool", "motifs", "matched", "unmatched", "families", "expected_found",
                   "wall_s", "max_rss_mib", "note", "passing", "passing_families", "missing_vs_streme",
                   "missing_but_matched")


def summary_row(set_: Set, tool: str, record: dict | None, motifs: list, found: list,
                unmatched: int | None, judged: bool) -> dict:
    if record is None:
        return {"set": set_.key, "tool": tool, "motifs": "", "matched": "", "unmatched": "",
                "families": "", "expected_found": "", "wall_s": "", "max_rss_mib": "",
                "note": "not run (tool absent)"}
    notes = []
    if record["rc"] != 0:
        again = ", also with --skip-invalid" if record.get("skip_invalid") else ""
        notes.append(f"failed (exit {record['rc']}{again}): {record['error']}")
    elif record.get("skip_invalid"):
        notes.append(f"--skip-invalid (refused without: {record.get('refused', '')})")
    if record.get("reused"):
        notes.append(f"stored run ({record.get('date', '?')})")
    if not judged and record["rc"] == 0:
        notes.append("not judged (no TOMTOM)")
    ok = record["rc"] == 0
    fams = "; ".join(f"{f} ({n})" for f, n in found) if ok and judged else ""
    expected = ""
    if ok and judged and set_.expected:
        names = {f for f, _ in found}
        expected = f"{sum(bool(names & set(e)) for e in set_.expected)}/{len(set_.expected)}"
    return {"set": set_.key, "tool": tool, "motifs": len(motifs) if ok else "",
            "matched": len(motifs) - unmatched if ok and judged else "",
            "unmatched": unmatched if ok and judged else "", "families": fams or ("-" if ok and judged else ""),
            "expected_found": expected, "wall_s": f"{record['wall_s']:.1f}",
            "max_rss_mib": f"{record['max_rss_mib']:.0f}", "note": "; ".join(notes)}


def missing_vs_streme(summary: list) -> None:
    """On every other tool's row of a set STREME ran on: ``missing_vs_streme``, the families of
    STREME's passing motifs (held-out p <= 0.05) that the tool's families lack ("-" for none); and
    ``missing_but_matched``, those of them that one of the tool's motifs matches at q <= 0.05 though
    not as its best target (the row's ``other_families``, :func:`first_other_families`): ``family:
    motif (target, q)``, "-" for none."""
    streme = {r["set"]: r for r in summary if r["tool"] == "streme" and r.get("passing_families") is not None
              and "passing" in r}
    for r in summary:
        ref = streme.get(r["set"])
        if r["tool"] == "streme" or ref is None or r.get("families") in ("", None):
            continue
        have = {f.rsplit(" (", 1)[0] for f in r["families"].split("; ")} if r["families"] != "-" else set()
        wanted = [f for f in ref["passing_families"].split("; ") if f]
        missing = [f for f in wanted if f not in have]
        r["missing_vs_streme"] = "; ".join(missing) or "-"
        other = r.get("other_families", {})
        r["missing_but_matched"] = "; ".join(f"{f}: {other[f]}" for f in missing if f in other) or "-"


def first_other_families(per_motif: list) -> dict:
    """``{family: "motif (target, q = ...)"}``: for every family among the motifs' other targets at
    q <= 0.05 (``other_families`` of :func:`family_table`), the first motif (the tool's order) with it."""
    out = {}
    for m in per_motif:
        for family, (target, q) in m.get("other_families", {}).items():
            out.setdefault(family, f"{m['id']} ({target}, q = {q:.2g})")
    return out


def to_tsv(rows: list, columns) -> str:
    return "".join("\t".join(str(r.get(c, "")) for c in columns) + "\n"
                   for r in [dict(zip(columns, columns)), *rows])


def to_markdown(rows: list, columns) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(r.get(c, "")).replace("|", "/") for c in columns) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def per_set_markdown(rows: list, sets: list) -> str:
    """One Markdown table per set (its label as a heading), the rows in the given order."""
    parts = []
    for set_ in sets:
        mine = [r for r in rows if r["set"] == set_.key]
        if mine:
            parts.append(f"### {set_.key}: {set_.label}\n\n" + to_markdown(mine, SUMMARY_COLUMNS[1:]))
    return "\n".join(parts)


MOTIF_COLUMNS = ("set", "tool", "rank", "id", "consensus", "width", "nsites", "evalue", "target", "tf",
                 "family", "q",
                 "nearest", "nearest_q", "held_out_p")


# ------------------------------------------------------------------------------ main ------

def find_exe(given: str | None, name: str):
    if given:
        return given if Path(given).is_file() and os.access(given, os.X_OK) else None
    return shutil.which(name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("bench_real_peaks"))
    ap.add_argument("--streme", help="STREME executable (default: streme on PATH)")
    ap.add_argument("--tomtom", help="TOMTOM executable (default: tomtom on PATH)")
    ap.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    ap.add_argument("--sets", default=",".join(s.key for s in SETS),
                    help="comma-separated set keys (default: all): " + ", ".join(s.key for s in SETS))
    ap.add_argument("--tools", default=",".join(TOOLS), help="comma-separated tools to take part")
    ap.add_argument("--reuse", default="", help="comma-separated tools whose stored runs are taken "
                    "when their command is the same (e.g. streme)")
    args = ap.parse_args(argv)

    keys = [k for k in args.sets.split(",") if k]
    unknown = [k for k in keys if k not in {s.key for s in SETS}]
    tools = [t for t in args.tools.split(",") if t]
    reuse = {t for t in args.reuse.split(",") if t}
    bad_tools = [t for t in tools + sorted(reuse) if t not in TOOLS]
    if unknown or bad_tools:
        print(f"bench_real_peaks: unknown set(s) {unknown} or tool(s) {bad_tools}", file=sys.stderr)
        return 2
    streme = find_exe(args.streme, "streme")
    exes = {"streme": [streme] if streme else None, "seqimp": [sys.executable, "-m", "seqimp"]}
    tomtom = find_exe(args.tomtom, "tomtom")
    if exes["streme"] is None and "streme" in tools and "streme" not in reuse:
        print(f"bench_real_peaks: STREME not found ({args.streme or 'streme on PATH'}): skipped",
              file=sys.stderr)
    if tomtom is None:
        print(f"bench_real_peaks: TOMTOM not found ({args.tomtom or 'tomtom on PATH'}): motifs are "
              "counted but not matched to JASPAR", file=sys.stderr)
    data = args.data
    db = JASPAR_MEME if data == DATA else data / JASPAR_MEME.relative_to(DATA)
    transfac = JASPAR_TRANSFAC if data == DATA else data / JASPAR_TRANSFAC.relative_to(DATA)
    if tomtom and not (db.exists() and transfac.exists()):
        print(f"bench_real_peaks: JASPAR files absent ({db}, {transfac}): not matched", file=sys.stderr)
        tomtom = None
    families = read_jaspar_families(transfac) if tomtom else {}

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    commit = git_commit()  # at the start: the tree may change while the sets run
    summary, motif_rows, ran_on = [], [], {}
    for set_ in (s for s in SETS if s.key in keys):
        set_dir = out / set_.key
        set_dir.mkdir(exist_ok=True)
        pos, pos_note = resolve(set_.positive, data, out / "inputs")
        neg, neg_note = resolve(set_.negative, data, out / "inputs") if set_.negative else (None, "")
        if pos is None or (set_.negative and neg is None):
            print(f"bench_real_peaks: {set_.key}: data absent under {data}: skipped", file=sys.stderr)
            continue
        for tool in tools:
            exe = exes[tool]
            stored = set_dir / f"{tool}.run.json"
            if exe is None and not (tool in reuse and stored.exists()):
                summary.append(summary_row(set_, tool, None, [], [], None, False))
                continue
            print(f"bench_real_peaks: {set_.key}: {tool} ...", file=sys.stderr, flush=True)
            record = run_tool(tool, exe or json.loads(stored.read_text())["base_cmd"][:1],
                              pos, neg, set_dir, tool in reuse, commit)
            ran_on.setdefault(tool, set()).add(record.get("commit", ""))
            motifs = parse_meme(motif_file(tool, set_dir / tool).read_text()) if record["rc"] == 0 else []
            rows, judged = [], False
            if tomtom and record["rc"] == 0 and motifs:
                rows = run_tomtom(tomtom, motif_file(tool, set_dir / tool), db,
                                  set_dir / f"{tool}.tomtom.tsv")
                judged = True
            elif record["rc"] == 0 and not motifs:
                judged = tomtom is not None
            per_motif, found, unmatched = family_table(motifs, rows, families)
            row = summary_row(set_, tool, record, motifs, found, unmatched, judged)
            row["other_families"] = first_other_families(per_motif)
            pvalues = held_out_pvalues(tool, set_dir / tool) if record["rc"] == 0 else {}
            if pvalues:
                row["passing"] = sum(pvalues.get(m["id"], 1.0) <= PASS_PVALUE for m in motifs)
                row["passing_families"] = "; ".join(passing_families(per_motif, pvalues)) if judged else ""
            extra = "; ".join(n for n in (pos_note, neg_note) if n)
            if extra:
                row["note"] = "; ".join(n for n in (row["note"], extra) if n)
            summary.append(row)
            for m in per_motif:
                motif_rows.append({"set": set_.key, "tool": tool, **m,
                                   "q": "" if m["q"] is None else f"{m['q']:.3g}",
                                   "nearest_q": "" if m["nearest_q"] is None else f"{m['nearest_q']:.3g}",
                                   "evalue": "" if m["evalue"] is None else f"{m['evalue']:.3g}",
                                   "held_out_p": f"{pvalues[m['id']]:.3g}" if m["id"] in pvalues else "",
                                   **{k: ("" if m[k] is None else m[k])
                                      for k in ("consensus", "target", "tf", "family", "nearest")}})
            print(f"bench_real_peaks: {set_.key}: {tool}: {row['motifs']} motifs, families "
                  f"{row['families'] or '-'} ({row['wall_s']} s)", file=sys.stderr, flush=True)

    missing_vs_streme(summary)
    streme_text = ""
    for s in summary:
        if s["tool"] == "streme":
            p = out / s["set"] / "streme" / "streme.txt"
            if p.exists():
                streme_text = p.read_text()
                break
    versions = {
        "seqimp": version_of([sys.executable, "-m", "seqimp", "--version"]).removeprefix("seqimp ")
        if "seqimp" in tools else "",
        "seqimp_commit": commit,
        "seqimp_runs_commits": sorted(ran_on.get("seqimp", ())),
        "streme": version_of([*exes["streme"], "--version"]) if exes["streme"] else
        (parse_streme_footer(streme_text)["version"] or ""),
        "tomtom": version_of([tomtom, "--version"]) if tomtom else "",
        "jaspar": db.name,
        "q_max": Q_MAX,
        "tomtom_args": " ".join(TOMTOM_ARGS),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    (out / "versions.json").write_text(json.dumps(versions, indent=1, sort_keys=True) + "\n")
    (out / "summary.tsv").write_text(to_tsv(summary, SUMMARY_COLUMNS))
    md = per_set_markdown(summary, [s for s in SETS if s.key in keys])
    (out / "summary.md").write_text(md)
    (out / "motifs.tsv").write_text(to_tsv(motif_rows, MOTIF_COLUMNS))
    print(md, end="")
    print(f"versions: seqimp {versions['seqimp']} ({versions['seqimp_commit']}), STREME "
          f"{versions['streme']}, TOMTOM {versions['tomtom']}; load {versions['loadavg_before']} -> "
          f"{versions['loadavg_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
