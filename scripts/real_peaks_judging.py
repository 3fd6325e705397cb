"""How scripts/bench_real_peaks.py judges a tool's motifs: reading STREME's and seqimp's outputs
and TOMTOM's ``-text`` rows, and the JASPAR family of every motif.

A motif is matched when a target has q <= :data:`Q_MAX`. Its family is the JASPAR ``tf_family``
of its best target (smallest q, then p); targets that tie on both (the same p-value: the same
columns matched, as TFEB's CACGTGAC and Arntl's CACGTGAC) are equally its best, and the motif
counts for each of their families. A motif *passes* when its held-out p-value (STREME's
``test_pvalue`` in ``streme.xml``, seqimp's ``held_out_p_value`` in ``motifs.tsv``) is at most
:data:`PASS_PVALUE`: STREME writes the last ``--patience`` motifs it tested, which failed that
test, beside those that passed.
"""

from __future__ import annotations

import re
from pathlib import Path

Q_MAX = 0.05
#: The held-out p-value a motif must reach to pass (STREME's ``--thresh``, seqimp's ``--max-pvalue``).
PASS_PVALUE = 0.05
TOMTOM_COLUMNS = ("Query_ID", "Target_ID", "Optimal_offset", "p-value", "E-value", "q-value",
                  "Overlap", "Query_consensus", "Target_consensus", "Orientation")


def parse_meme(text: str) -> list:
    """The motifs of a MEME-format text (STREME's ``streme.txt``, seqimp's ``motifs.meme``), in file
    order: dicts with ``id``, ``alt``, ``width``, ``nsites`` and ``evalue`` (``None`` when absent)."""
    motifs = []
    for line in text.splitlines():
        if line.startswith("MOTIF"):
            fields = line.split()
            motifs.append({"id": fields[1], "alt": " ".join(fields[2:]), "width": None,
                           "nsites": None, "evalue": None})
        elif line.startswith("letter-probability matrix") and motifs:
            info = dict(re.findall(r"(\w+)=\s*(\S+)", line))
            motifs[-1]["width"] = int(info["w"]) if "w" in info else None
            motifs[-1]["nsites"] = float(info["nsites"]) if "nsites" in info else None
            motifs[-1]["evalue"] = float(info["E"]) if "E" in info else None
    return motifs


def parse_streme_footer(text: str) -> dict:
    """STREME's version, stop reason and own time from its text output."""
    out = {}
    m = re.search(r"^MEME version (\S+)", text, re.M)
    out["version"] = m.group(1) if m else None
    m = re.search(r"^(Stopped because .*)$", text, re.M)
    out["stopped"] = m.group(1).strip() if m else None
    m = re.search(r"^FINALTIME:\s*(\S+) seconds", text, re.M)
    out["finaltime_s"] = float(m.group(1)) if m else None
    return out


def parse_tomtom(text: str) -> list:
    """The rows of TOMTOM's ``-text`` output as dicts (numbers as floats/ints); comment lines
    (``#``), the header and blank lines are skipped."""
    rows = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("Query_ID"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) < len(TOMTOM_COLUMNS):
            raise ValueError(f"TOMTOM output line has {len(fields)} fields, expected "
                             f"{len(TOMTOM_COLUMNS)}: {line[:60]!r}")
        row = dict(zip(TOMTOM_COLUMNS, fields))
        for key in ("p-value", "E-value", "q-value"):
            row[key] = float(row[key])
        row["Optimal_offset"] = int(row["Optimal_offset"])
        row["Overlap"] = int(row["Overlap"])
        rows.append(row)
    return rows


def read_jaspar_families(path: Path) -> dict:
    """``{matrix ID: (TF name, family)}`` from JASPAR's TRANSFAC file: the family is the first
    factor's ``tf_family`` (a heterodimer's families are joined by ``; ``), else its ``tf_class``,
    else the TF name."""
    out = {}
    for block in path.read_text().split("\n//"):
        ac = re.search(r"^AC (\S+)", block, re.M)
        if not ac:
            continue
        name = re.search(r"^ID (.+)$", block, re.M)
        name = name.group(1).strip() if name else ac.group(1)
        fam = re.search(r"^CC tf_family:(.*)$", block, re.M)
        cls = re.search(r"^CC tf_class:(.*)$", block, re.M)
        label = next((x.group(1).split(";")[0].strip() for x in (fam, cls) if x and x.group(1).strip()),
                     name)
        out[ac.group(1)] = (name, label)
    return out


def target_family(target_id: str, families: dict):
    """``(TF name, family)`` of a TOMTOM target ID such as ``MA0493.3_KLF1``."""
    matrix = target_id.split("_", 1)[0]
    if matrix in families:
        return families[matrix]
    name = target_id.split("_", 1)[1] if "_" in target_id else target_id
    return name, name


def best_matches(rows: list, q_max: float = Q_MAX) -> dict:
    """``{query: its best row}`` among rows with q <= ``q_max``: smallest q, then p, then target."""
    best = {}
    for row in rows:
        if row["q-value"] > q_max:
            continue
        key = (row["q-value"], row["p-value"], row["Target_ID"])
        old = best.get(row["Query_ID"])
        if old is None or key < (old["q-value"], old["p-value"], old["Target_ID"]):
            best[row["Query_ID"]] = row
    return best


def tied_families(rows: list, best: dict, families: dict) -> dict:
    """``{query: [family, ...]}``: the families of the query's best row and of every row that
    ties it on both q and p (the best row's first, then in target order, each once)."""
    out = {}
    for query, top in best.items():
        tied = sorted((r for r in rows if r["Query_ID"] == query and r["q-value"] == top["q-value"]
                       and r["p-value"] == top["p-value"]), key=lambda r: r["Target_ID"] != top["Target_ID"])
        names = [target_family(r["Target_ID"], families)[1] for r in tied]
        out[query] = list(dict.fromkeys(names))
    return out


def other_families(rows: list, query: str, best: list, families: dict, q_max: float = Q_MAX) -> dict:
    """``{family: (target, q)}``: the families of the query's targets at q <= ``q_max`` other than
    its best ones (``best``), each with its first target in the order (q, p, target) -- a motif
    matched, though not first, by a family's matrix (a GC box whose best target is PATZ1 and whose
    next are SP2 and KLF12)."""
    out = {}
    for r in sorted((r for r in rows if r["Query_ID"] == query and r["q-value"] <= q_max),
                    key=lambda r: (r["q-value"], r["p-value"], r["Target_ID"])):
        family = target_family(r["Target_ID"], families)[1]
        if family not in best and family not in out:
            out[family] = (r["Target_ID"], r["q-value"])
    return out


def family_table(motifs: list, rows: list, families: dict, q_max: float = Q_MAX):
    """Per motif (the tool's order): its best target and family at q <= ``q_max`` (``None`` when
    unmatched; ``family`` joins with ``; `` the families of targets tied with the best on q and
    p, :func:`tied_families`), its nearest target at any q (``nearest``, ``nearest_q``) and
    TOMTOM's consensus of it; and the families found, in the order of the tool's first motif in
    each, with the number of motifs in each, and the count of unmatched motifs. ``other_families``:
    the families of a matched motif's other targets at q <= ``q_max`` (:func:`other_families`)."""
    best = best_matches(rows, q_max)
    nearest = best_matches(rows, float("inf"))
    tied = tied_families(rows, best, families)
    per_motif, found = [], {}
    for rank, motif in enumerate(motifs, start=1):
        row, near = best.get(motif["id"]), nearest.get(motif["id"])
        entry = {**motif, "rank": rank, "target": None, "tf": None, "family": None, "q": None,
                 "consensus": near["Query_consensus"] if near else None,
                 "nearest": near["Target_ID"] if near else None,
                 "nearest_q": near["q-value"] if near else None, "other_families": {}}
        if row is not None:
            tf = target_family(row["Target_ID"], families)[0]
            names = tied[motif["id"]]
            entry.update(target=row["Target_ID"], tf=tf, family="; ".join(names), q=row["q-value"],
                         other_families=other_families(rows, motif["id"], names, families, q_max))
            for family in names:
                found[family] = found.get(family, 0) + 1
        per_motif.append(entry)
    unmatched = sum(m["target"] is None for m in per_motif)
    return per_motif, list(found.items()), unmatched


def parse_streme_xml(text: str) -> dict:
    """``{motif id: held-out p-value}`` from STREME's ``streme.xml`` (each ``<motif>``'s
    ``test_pvalue``)."""
    out = {}
    for tag in re.findall(r"<motif\s[^>]*>", text):
        ident = re.search(r'\sid="([^"]*)"', tag)
        p = re.search(r'\stest_pvalue="([^"]*)"', tag)
        if ident and p:
            out[ident.group(1)] = float(p.group(1))
    return out


def held_out_pvalues(tool: str, out: Path) -> dict:
    """``{motif id: held-out p-value}`` of one tool's output folder: STREME's ``streme.xml``,
    seqimp's ``motifs.tsv`` (``name``, ``held_out_p_value``); empty where the file is absent."""
    if tool == "streme":
        path = out / "streme.xml"
        return parse_streme_xml(path.read_text()) if path.exists() else {}
    path = out / "motifs.tsv"
    if not path.exists():
        return {}
    lines = path.read_text().splitlines()
    header = lines[0].split("\t")
    name, p = header.index("name"), header.index("held_out_p_value")
    return {f[name]: float(f[p]) for f in (line.split("\t") for line in lines[1:]) if f[p] not in ("", "nan", "NaN")}


def passing_families(per_motif: list, pvalues: dict, p_max: float = PASS_PVALUE) -> list:
    """The families (in the tool's order, each once) of the matched motifs whose held-out p-value
    is at most ``p_max``."""
    names = [f for m in per_motif if m["family"] and pvalues.get(m["id"], 1.0) <= p_max
             for f in m["family"].split("; ")]
    return list(dict.fromkeys(names))
