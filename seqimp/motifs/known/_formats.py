"""Motif files: MEME (minimal text format), JASPAR, TRANSFAC and HOMER.

* MEME minimal: written and read (letter-probability matrices; ``nsites`` kept).
* JASPAR (``>ID name`` then ``A [ counts ]`` rows): written and read.
* TRANSFAC (``AC``/``ID``/``DE``/``PO`` blocks ending in ``//``, as distributed by JASPAR):
  written and read.
* HOMER (``>CONSENSUS<tab>NAME<tab>THRESHOLD`` and rows of A C G T probabilities): written
  and read.
* MEME, STREME and DREME text output (``meme.txt``, ``streme.txt``): read as MEME (their
  ``MEME version`` line follows a banner).

All readers return a list of :class:`~seqimp.motifs.Motif` and raise
:class:`~seqimp.errors.SeqimpError` naming the file and line on malformed input, on an
alphabet other than A, C, G, T, and on a file that holds no motif at all.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from ...errors import SeqimpError
from .._motif import DNA_LETTERS, Motif

__all__ = ["read_motifs", "write_motifs", "read_meme", "write_meme", "read_jaspar", "write_jaspar",
           "read_transfac", "write_transfac", "read_homer", "write_homer", "FORMATS"]

#: file suffix -> format name
FORMATS = {".meme": "meme", ".txt": None, ".jaspar": "jaspar", ".pfm": "jaspar", ".transfac": "transfac",
           ".tf": "transfac", ".dat": "transfac", ".motif": "homer", ".motifs": "homer", ".homer": "homer"}



def _emit(text, path):
    """Join lines (if a list) into text, write it to ``path`` when given, and return it."""
    if isinstance(text, list):
        text = "\n".join(text) + "\n"
    if path is not None:
        Path(os.fspath(path)).write_text(text)
    return text

def _text(path) -> tuple[Path, list[str]]:
    path = Path(os.fspath(path))
    if not path.exists():
        raise SeqimpError(f"{path}: no such motif file")
    if path.is_dir():
        raise SeqimpError(f"{path}: is a directory, expected a motif file")
    return path, path.read_text(encoding="ascii", errors="replace").splitlines()


def _numbers(path, lineno, fields, what):
    try:
        return [float(x) for x in fields]
    except ValueError:
        raise SeqimpError(f"{path}, line {lineno}: expected numbers in {what}, got {' '.join(fields)!r}") from None


def _finish(path, motifs):
    if not motifs:
        raise SeqimpError(f"{path}: no motifs found (empty motif database)")
    return motifs


def _make(path, lineno, name, counts, **kwargs):
    try:
        return Motif.from_counts(name, np.asarray(counts, dtype=np.float64).reshape(-1, 4), **kwargs)
    except SeqimpError as exc:
        raise SeqimpError(f"{path}, line {lineno}: {exc}") from None


# ---------------------------------------------------------------- MEME ----

def write_meme(motifs, path=None, *, background=None) -> str:
    """Write motifs in MEME minimal format; return the text (also written to ``path``).

    Parameters
    ----------
    motifs : sequence of Motif
    path : path-like, optional
    background : ndarray of shape (4,), optional
        Letter frequencies for the ``Background letter frequencies`` line (uniform default).
    """
    bg = np.full(4, 0.25) if background is None else np.asarray(background, dtype=np.float64)
    lines = ["MEME version 4", "", "ALPHABET= ACGT", "", "strands: + -", "",
             "Background letter frequencies",
             " ".join(f"{a} {p:.4f}" for a, p in zip(DNA_LETTERS, bg)), ""]
    for m in motifs:
        alt = f" {'_'.join(m.description.split())}" if m.description else ""
        lines.append(f"MOTIF {m.name}{alt}")
        # E= only where an E-value is known (it is optional in MEME's format), never a made-up 0
        evalue = f" E= {_meme_evalue(m)}" if np.isfinite(m.evalue) or np.isfinite(m.log10_evalue) else ""
        lines.append(f"letter-probability matrix: alength= 4 w= {m.length} nsites= {max(m.sites, 0)}{evalue}")
        lines.extend(" " + "  ".join(f"{p:.6f}" for p in row) for row in m.pwm)
        lines.append("")
    return _emit("\n".join(lines), path)


def _meme_evalue(motif) -> str:
    """A motif's E-value as MEME writes it (``8.60e-09``, ``1.23e-345``): from its log10 where known,
    so that an E-value below the smallest float is not written as 0."""
    from .._stats import format_pvalue

    log10 = motif.log10_evalue
    if not np.isfinite(log10):
        return f"{motif.evalue:.2e}"
    return format_pvalue(log10, digits=3) if log10 < -4 else f"{10.0 ** log10:.2e}"


_MATRIX = re.compile(r"letter-probability matrix:(.*)", re.IGNORECASE)


#: the fields of a letter-probability matrix line: (integer, smallest value)
_MEME_FIELDS = {"alength": (True, 4), "w": (True, 1), "nsites": (False, 0), "E": (False, 0)}


def _matrix_header(path, lineno, name, text) -> dict:
    """The ``alength= w= nsites= E=`` fields of a letter-probability matrix line, checked: finite
    numbers, ``w`` and ``alength`` whole, ``alength`` 4, none negative; a bad one is a
    SeqimpError naming the file, line, motif and field."""
    spec = {}
    for key, value in re.findall(r"(\w+)=\s*(\S+)", text):
        if key not in _MEME_FIELDS:
            continue
        integer, low = _MEME_FIELDS[key]
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        bad = not np.isfinite(number) or number < low or (integer and number != int(number))
        if key == "alength" and not bad and number != 4:
            raise SeqimpError(f"{path}, line {lineno}: motif {name}: alength= {value}; only DNA (4 letters) is "
                              "supported")
        if bad:
            kind = "a whole number" if integer else "a finite number"
            raise SeqimpError(f"{path}, line {lineno}: motif {name}: {key}= {value!r} is not {kind} >= {low}")
        spec[key] = int(number) if integer else number
    return spec


def read_meme(path) -> list:
    """Read motifs from a MEME (minimal or full) text file."""
    path, lines = _text(path)
    motifs = []
    i = 0
    if not any(line.startswith("MEME version") for line in lines):
        if any(line.strip() for line in lines):
            raise SeqimpError(f"{path}: not a MEME motif file (no 'MEME version' line)")
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("ALPHABET"):
            letters = line.split("=", 1)[1].strip() if "=" in line else line.split()[-1]
            if letters.upper() != DNA_LETTERS:
                raise SeqimpError(f"{path}, line {i + 1}: alphabet {letters!r} is not supported; "
                                  "seqimp motifs are DNA (ACGT)")
        if line.startswith("MOTIF"):
            parts = line.split()
            if len(parts) < 2:
                raise SeqimpError(f"{path}, line {i + 1}: MOTIF line without a name")
            name, desc = parts[1], " ".join(parts[2:])
            j = i + 1
            while j < len(lines) and not _MATRIX.search(lines[j]):
                if lines[j].startswith("MOTIF"):
                    break
                j += 1
            if j >= len(lines) or not _MATRIX.search(lines[j]):
                raise SeqimpError(f"{path}, line {i + 1}: motif {name} has no letter-probability matrix")
            spec = _matrix_header(path, j + 1, name, _MATRIX.search(lines[j]).group(1))
            width = spec.get("w")
            rows, k = [], j + 1
            while k < len(lines) and (width is None or len(rows) < width):
                fields = lines[k].split()
                if not fields:
                    if rows and width is None:
                        break
                    k += 1
                    continue
                if fields[0] in ("MOTIF", "URL") or (width is None and not re.match(r"^[-+0-9.]", fields[0])):
                    break
                if len(fields) != 4:
                    raise SeqimpError(f"{path}, line {k + 1}: motif {name}: expected 4 probabilities "
                                      f"(A C G T), got {len(fields)}")
                rows.append(_numbers(path, k + 1, fields, f"motif {name}"))
                k += 1
            if width is not None and len(rows) != width:
                raise SeqimpError(f"{path}, line {k}: motif {name}: w= {width} but {len(rows)} rows")
            motifs.append(_make(path, j + 1, name, rows, sites=int(round(spec.get("nsites", 0))), description=desc,
                                evalue=spec.get("E", float("nan"))))
            i = k
            continue
        i += 1
    return _finish(path, motifs)


# -------------------------------------------------------------- JASPAR ----

def write_jaspar(motifs, path=None) -> str:
    """Write motifs in JASPAR count-matrix format (``>ID name`` and four ``X [ ... ]`` rows)."""
    lines = []
    for m in motifs:
        counts = m.counts()
        integral = np.allclose(counts, np.round(counts), atol=1e-6)
        lines.append(f">{m.name}" + (f" {m.description}" if m.description else ""))
        for a, col in zip(DNA_LETTERS, counts.T):
            cells = (f"{c:6.0f}" for c in col) if integral else (f"{c:9.3f}" for c in col)
            lines.append(f"{a}  [ " + " ".join(cells) + " ]")
    return _emit(lines, path)


def read_jaspar(path) -> list:
    """Read motifs from a JASPAR count-matrix file (bracketed or plain rows)."""
    path, lines = _text(path)
    motifs = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if not line:
            i += 1
            continue
        if not line.startswith(">"):
            raise SeqimpError(f"{path}, line {i + 1}: expected a '>ID name' header, got {line[:40]!r}")
        header = line[1:].split(None, 1)
        if not header:
            raise SeqimpError(f"{path}, line {i + 1}: header without a motif id")
        name, desc = header[0], header[1] if len(header) > 1 else ""
        rows, letters, j = [], [], i + 1
        while j < len(lines) and len(rows) < 4:
            text = lines[j].strip()
            j += 1
            if not text:
                continue
            if text.startswith(">"):
                break
            text = text.replace("[", " ").replace("]", " ")
            fields = text.split()
            if fields and not re.match(r"^[-+0-9.]", fields[0]):
                letters.append(fields[0].upper())
                fields = fields[1:]
            rows.append(_numbers(path, j, fields, f"motif {name}"))
        if len(rows) != 4:
            raise SeqimpError(f"{path}, line {i + 1}: motif {name} needs 4 rows (A, C, G, T), got {len(rows)}")
        if letters and letters != list(DNA_LETTERS):
            raise SeqimpError(f"{path}, line {i + 1}: motif {name} has rows {''.join(letters)!r}; "
                              "only DNA rows A, C, G, T are supported")
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            raise SeqimpError(f"{path}, line {i + 1}: motif {name}: rows differ in length {sorted(widths)}")
        motifs.append(_make(path, i + 1, name, np.array(rows).T, description=desc))
        i = j
    return _finish(path, motifs)


# ------------------------------------------------------------ TRANSFAC ----

def write_transfac(motifs, path=None) -> str:
    """Write motifs as TRANSFAC matrix blocks (``AC``, ``ID``, ``DE``, ``PO`` rows, ``//``)."""
    lines = []
    for m in motifs:
        lines += [f"AC {m.name}", "XX", f"ID {m.description or m.name}", "XX",
                  f"DE {m.name} {m.description or m.name} ; from seqimp", "PO\tA\tC\tG\tT"]
        for pos, row in enumerate(m.counts(), start=1):
            lines.append(f"{pos:02d}\t" + "\t".join(f"{c:.3f}" for c in row))
        lines.append("XX")
        if m.start is not None:
            lines += [f"CC seqimp_start:{m.start}", f"CC seqimp_spread:{m.spread:.4g}", "XX"]
        lines.append("//")
    return _emit(lines, path)


def read_transfac(path) -> list:
    """Read motifs from a TRANSFAC matrix file (such as JASPAR's ``*_pfms_transfac.txt``)."""
    path, lines = _text(path)
    motifs = []
    block = {"rows": [], "letters": None, "place": {}}

    def flush(lineno):
        if block["rows"] or block.get("ac"):
            name = block.get("ac") or block.get("id") or f"motif{len(motifs) + 1}"
            if not block["rows"]:
                raise SeqimpError(f"{path}, line {lineno}: motif {name} has no matrix rows")
            desc = block.get("id", "") if block.get("id") != name else ""
            motifs.append(_make(path, lineno, name, block["rows"], description=desc, **block["place"]))
        block.clear()
        block.update({"rows": [], "letters": None, "place": {}})

    for n, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        fields = line.split()
        if fields[0].startswith("//"):
            flush(n)
        elif fields[0] in ("PO", "P0"):
            letters = [f.upper() for f in fields[1:]]
            if letters != list(DNA_LETTERS):
                raise SeqimpError(f"{path}, line {n}: matrix columns {''.join(letters)!r}; "
                                  "only DNA columns A C G T are supported")
            block["letters"] = letters
        elif fields[0] == "AC":
            block["ac"] = fields[1] if len(fields) > 1 else ""
        elif fields[0] == "ID":
            block["id"] = " ".join(fields[1:])
        elif block["letters"] is not None and fields[0].isdigit():
            if len(fields) < 5:
                raise SeqimpError(f"{path}, line {n}: expected a position and 4 counts, got {len(fields) - 1} fields")
            block["rows"].append(_numbers(path, n, fields[1:5], "a matrix row"))
        elif fields[0] == "CC" and len(fields) > 1 and fields[1].startswith(("seqimp_start:", "seqimp_spread:")):
            key, _, value = fields[1].partition(":")
            block["place"][key[len("seqimp_"):]] = _numbers(path, n, [value], key)[0]
        elif fields[0] == "XX":
            block["letters"] = None  # a matrix ends at the next XX line
        elif not re.fullmatch(r"[A-Z][A-Z0-9]", fields[0]):
            raise SeqimpError(f"{path}, line {n}: unexpected line {line[:40]!r} in a TRANSFAC file")
    flush(len(lines))
    return _finish(path, motifs)


# --------------------------------------------------------------- HOMER ----

#: HOMER's detection threshold of a written motif: the log-odds score (natural log, uniform
#: background) whose exact p-value is 1e-4
HOMER_PVALUE = 1e-4


def write_homer(motifs, path=None, *, thresholds=None) -> str:
    """Write motifs in HOMER's format: ``>CONSENSUS<tab>NAME<tab>THRESHOLD`` then one row of
    A C G T probabilities per column. THRESHOLD, HOMER's log-odds detection threshold
    (natural log against a uniform background), is ``thresholds[name]`` where given (a
    ``seqimp motifs`` run gives the score that at most 1% of its control sequences' best
    windows reach, :func:`seqimp.motifs.scanning_motifs`), else the score of p-value
    :data:`HOMER_PVALUE` under that background (:func:`seqimp.motifs.known._scan.score_pvalues`)."""
    from ._scan import SCALE, pvalue_threshold, score_matrix, score_pvalues

    bg = np.full(4, 0.25)
    thresholds = thresholds or {}
    lines = []
    for m in motifs:
        low, tail = score_pvalues(score_matrix(m, bg), bg)
        threshold = pvalue_threshold(low, tail, HOMER_PVALUE) / SCALE * np.log(2)
        if m.name in thresholds and np.isfinite(thresholds[m.name]):
            threshold = float(thresholds[m.name])
        name = m.name if not m.description else f"{m.name}/{'_'.join(m.description.split())}"
        lines.append(f">{m.consensus}\t{name}\t{threshold:.6f}")
        lines.extend("\t".join(f"{p:.3f}" for p in row) for row in m.pwm)
    return _emit(lines, path)


def read_homer(path) -> list:
    """Read motifs from a HOMER motif file (``>`` header with tab-separated consensus, name and
    threshold; one row of 4 probabilities A C G T per column). The name is the header's second
    field (its first part before ``/`` for HOMER's ``NAME/SOURCE/Homer`` names, the whole field
    as description)."""
    path, lines = _text(path)
    motifs, header, rows, start = [], None, [], 0

    def flush(lineno):
        if header is None:
            return
        if not rows:
            raise SeqimpError(f"{path}, line {start}: motif {header[0]} has no rows")
        motifs.append(_make(path, start, header[0], rows, description=header[1], sites=0))

    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(">"):
            flush(n)
            fields = line[1:].split("\t")
            if not fields[0].strip():
                raise SeqimpError(f"{path}, line {n}: HOMER header without a consensus")
            full = fields[1].strip() if len(fields) > 1 and fields[1].strip() else fields[0].strip()
            header, rows, start = (full.split("/")[0] or full, full if full != fields[0].strip() else ""), [], n
            continue
        if header is None:
            raise SeqimpError(f"{path}, line {n}: expected a '>' header, got {line[:40]!r}")
        fields = line.split()
        if len(fields) != 4:
            raise SeqimpError(f"{path}, line {n}: motif {header[0]}: expected 4 numbers (A C G T), got {len(fields)}")
        rows.append(_numbers(path, n, fields, f"motif {header[0]}"))
    flush(len(lines))
    return _finish(path, motifs)


# ------------------------------------------------------------- dispatch ----

_READERS = {"meme": read_meme, "jaspar": read_jaspar, "transfac": read_transfac, "homer": read_homer}
_WRITERS = {"meme": write_meme, "jaspar": write_jaspar, "transfac": write_transfac, "homer": write_homer}


def _sniff(path, lines) -> str:
    """The format of a motif file from its content: MEME (a ``MEME version`` line, also in the
    text output of MEME, STREME and DREME, which begins with a banner), JASPAR or HOMER (``>``
    headers: HOMER's rows hold 4 numbers and its header tab-separated fields), TRANSFAC."""
    content = [line.strip() for line in lines if line.strip()]
    if not content:
        raise SeqimpError(f"{path}: no motifs found (empty motif database)")
    if any(line.startswith("MEME version") for line in content[:200]):
        return "meme"
    first = content[0]
    if first.startswith(">"):
        nxt = content[1].split() if len(content) > 1 else []
        if "\t" in first and len(nxt) == 4 and all(re.match(r"^[-+0-9.]", f) for f in nxt):
            return "homer"
        return "jaspar"
    if first.split()[0] in ("AC", "ID", "PO", "P0", "DE", "XX", "//"):
        return "transfac"
    raise SeqimpError(f"{path}: cannot tell the motif format (expected MEME, JASPAR, HOMER or TRANSFAC)")


def read_motifs(path, format=None) -> list:
    """Read a motif file; the format comes from ``format`` or the file's content.

    Parameters
    ----------
    path : path-like
    format : {"meme", "jaspar", "transfac", "homer"}, optional
        Recognised from the content when omitted (MEME also in the text output of MEME and
        STREME).

    Returns
    -------
    list of Motif
    """
    if format is None:
        p, lines = _text(path)
        format = _sniff(p, lines)
    if format not in _READERS:
        raise SeqimpError(f"unknown motif format {format!r}; choose one of {', '.join(_READERS)}")
    return _READERS[format](path)


def write_motifs(motifs, path, format) -> str:
    """Write motifs in ``format`` (``"meme"``, ``"jaspar"``, ``"transfac"`` or ``"homer"``); return the text."""
    if format not in _WRITERS:
        raise SeqimpError(f"unknown motif format {format!r}; choose one of {', '.join(_WRITERS)}")
    return _WRITERS[format](motifs, path)
