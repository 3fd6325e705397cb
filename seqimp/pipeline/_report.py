"""A self-contained HTML report of a results folder.

:func:`write_report` shows a run's summary (the dict in memory that ``summary.json`` holds,
or that file) and what ``seqimp poim`` (and optionally ``seqimp motifs``) wrote into a folder
-- ``top_oligomers.tsv``, the figures, ``motifs.tsv`` and motif logos -- and writes
``report.html`` beside them.
PNG and SVG figures are embedded (base64), so the page reads offline even when
moved on its own; PDF figures and data files are linked relatively.
"""

from __future__ import annotations

import base64
import csv
import html
import json
import os
import re
from pathlib import Path

from ..errors import SeqimpError
from .._tables import format_value

__all__ = ["write_report", "build_report", "write_page", "page_table"]

_IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml"}
_FIGURE_EXTS = (".png", ".svg", ".pdf")
_FIGURE_CAPTIONS = {
    "maximal_poim": ("Maximal POIM: the largest |POIM| of any k-mer at each order k and 1-based start "
                     "position j."),
    "differential_poim": "Differential POIM Ω(k, j): peaks give the length k and the 1-based start j "
                         "of the motifs the model relies on.",
    "weights_vs_firm": "Model weight of every positional oligomer against its FIRM. Weights describe one "
                       "k-mer in isolation; FIRM adds the overlapping k-mers that come with it.",
}
_MOTIF_FILES = ("motifs.meme", "motifs.jaspar", "motifs.transfac", "motif_candidates.tsv", "matches.tsv",
                "motif_sites.tsv", "motif_sites.bed", "motifs.json")

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1180px;
color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;max-width:100%;table-layout:auto}
td,th{border:1px solid #ddd;padding:.2em .5em;text-align:right;overflow-wrap:anywhere;word-break:break-word}
th{background:#f3f3f3}td.s{text-align:left;font-family:ui-monospace,Menlo,Consolas,monospace;max-width:22em}
.scroll{max-height:32em;max-width:100%;overflow-y:auto;overflow-x:hidden;display:block}figure{margin:1.5em 0}
figure img{max-width:100%;border:1px solid #eee}figcaption{color:#555;font-size:.9em}
dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:600}dd{margin:0}
.note{color:#666;font-size:.9em}
.cards{display:flex;flex-wrap:wrap;gap:1em}.card{border:1px solid #ddd;border-radius:6px;padding:.6em;
flex:1 1 340px;max-width:560px}.card img{max-width:100%}.card h3{margin:.1em 0 .3em}
details summary{cursor:pointer;color:#335}
"""


def _read_tsv(path: Path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    if not rows:
        return [], []
    return rows[0], rows[1:]


def _html_table(header, rows, *, limit=None) -> str:
    shown = rows if limit is None else rows[:limit]
    numeric = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^nan$")
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f"<th>{html.escape(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for row in shown:
        out.append("<tr>" + "".join(
            f'<td{"" if numeric.match(c) else " class=s"}>{html.escape(c)}</td>' for c in row) + "</tr>")
    out.append("</tbody></table></div>")
    if limit is not None and len(rows) > limit:
        out.append(f'<p class="note">first {limit} of {len(rows)} rows</p>')
    return "".join(out)


def _figure(path: Path, base: Path, caption: str, embed: bool) -> str:
    rel = html.escape(os.path.relpath(path, base))
    mime = _IMAGE_TYPES.get(path.suffix.lower())
    if mime and embed:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        body = f'<img src="data:{mime};base64,{data}" alt="{rel}">'
    elif mime:
        body = f'<img src="{rel}" alt="{rel}">'
    else:  # PDF: browsers show it through a link / object, not inline as an image
        body = (f'<object data="{rel}" type="application/pdf" width="100%" height="600">'
                f'<a href="{rel}">{rel}</a></object>')
    return (f'<figure>{body}<figcaption><a href="{rel}">{rel}</a> &mdash; {html.escape(caption)}'
            "</figcaption></figure>")


def _figure_order(path: Path):
    stem = path.stem
    if stem in ("differential_poim", "maximal_poim"):
        return (0, int(stem == "maximal_poim"), stem)
    m = re.fullmatch(r"poim_order(\d+)", stem)
    if m:
        return (1, int(m.group(1)), stem)
    if stem == "weights_vs_firm":
        return (2, 0, stem)
    return (3, 0, stem)


def _caption(stem: str) -> str:
    if stem in _FIGURE_CAPTIONS:
        return _FIGURE_CAPTIONS[stem]
    m = re.fullmatch(r"poim_order(\d+)", stem)
    if m:
        k = int(m.group(1))
        which = "all" if k <= 3 else "the top"
        return (f"POIM of order {k}: {which} {k}-mers × 1-based start position; red raises the expected "
                "score, blue lowers it.")
    return stem.replace("_", " ")


def _summary_html(summary: dict) -> str:
    rows = []
    data = summary.get("data", {})
    metrics = summary.get("metrics", {})
    params = summary.get("parameters", {})
    for label, value in (("positive", data.get("positive")), ("negative", data.get("negative")),
                         ("table", data.get("table")),
                         ("sequences", _sizes(data)), ("sequence length", data.get("length")),
                         ("dropped", _dropped(summary.get("dropped"))),
                         ("positions", _origin(summary.get("position_origin"))),
                         ("accuracy", _fmt(metrics.get("accuracy"))),
                         ("auROC", _fmt(metrics.get("auroc"))),
                         ("warning", metrics.get("warning")),
                         ("R² (held out)", _fmt(metrics.get("r2"))),
                         ("Spearman ρ (held out)", _fmt(metrics.get("spearman"))),
                         ("evaluated on", metrics.get("evaluated_on", "held-out split" if metrics.get("n_test")
                                                      else None)),
                         ("test sequences", metrics.get("n_test")),
                         ("method", summary.get("method")),
                         ("background", summary.get("background", {}).get("description")),
                         ("expected score E[s(X)]", _fmt(summary.get("expected_score")))):
        if value not in (None, ""):
            rows.append(f"<dt>{html.escape(label)}</dt><dd>{html.escape(str(value))}</dd>")
    out = "<dl>" + "".join(rows) + "</dl>"
    if params:
        out += "<h3>Parameters</h3><dl>" + "".join(
            f"<dt>{html.escape(str(k))}</dt><dd>{html.escape(json.dumps(v))}</dd>" for k, v in params.items()) + "</dl>"
    per_order = summary.get("top_per_order", [])
    if per_order:
        header = ["order", "oligomer", "position"] + (["position_label"] if "position_label" in per_order[0] else []) \
            + ["poim", "firm"]
        rows = [[format_value(r.get(h)) for h in header] for r in per_order]
        out += "<h3>Top oligomer of each order (by |FIRM|)</h3>" + _html_table(header, rows)
    # no timings here: they live in summary.json only, so that a re-run gives the same report
    versions = summary.get("versions", {})
    if versions:
        out += '<p class="note">' + ", ".join(f"{html.escape(k)} {html.escape(str(v))}"
                                              for k, v in versions.items()) + "</p>"
    return out


def _dropped(dropped):
    if not dropped:
        return None
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in dropped.items())


def _origin(origin):
    if origin is None:
        return None
    return (f"counted from 1-based position {origin} (+1; the one before it is -1, there is no 0); "
            "the position column of the tables stays 1-based")


def _sizes(data: dict):
    if "n_sequences" in data:
        return data["n_sequences"]
    if "n_positive" not in data:
        return None
    return f"{data['n_positive']} positive, {data.get('n_negative', 0)} negative"


def _fmt(value):
    return None if value is None else f"{value:.4f}" if isinstance(value, float) else value


def _motif_section(folder: Path, embed: bool, database=None) -> str:
    """The motif section of the folder ``folder``: ``motifs.tsv``, links to the motif files,
    matches (``database``: the summary's ``motif_database``) and logos."""
    header, rows = _read_tsv(folder / "motifs.tsv")
    parts = ["<h2>Motifs</h2>"]
    if rows:  # the headline: the best motif (motifs.tsv is ranked strongest first)
        best = dict(zip(header, rows[0]))
        parts.append(f"<p><b>Best motif: {html.escape(best.get('consensus', ''))}</b> at "
                     f"{html.escape(best.get('start', ''))}, score {html.escape(best.get('score', ''))}, "
                     f"sites {html.escape(best.get('sites', ''))}</p>")
    else:  # "no motif" is an answer
        parts.append("<p><b>No motif found</b>: no candidate's sites are enriched in the positives and held out "
                     "(the best candidate's figures are in the log).</p>")
    parts.append(_html_table(header, rows, limit=50))
    links = [name for name in _MOTIF_FILES if (folder / name).exists()]
    if links:
        parts.append("<p>Files: " + ", ".join(
            f'<a href="{html.escape(n)}">{n}</a>' for n in links) + "</p>")
    if (folder / "matches.tsv").exists():
        mh, mr = _read_tsv(folder / "matches.tsv")
        parts += ["<h3>Matches to known motifs</h3>", _database_line(database), _verdicts(mh, mr),
                  _html_table(mh, mr, limit=50)]
        parts += [_figure(p, folder, f"{p.stem.replace('_match', '')}: compared columns (top) aligned with the "
                          "matched motif (bottom) at the reported offset and strand", embed)
                  for ext in (".png", ".svg") for p in sorted((folder / "logos").glob(f"*_match{ext}"))]
    logos = sorted(p for ext in (".png", ".svg") for p in folder.glob(f"*{ext}")
                   if "logo" in p.stem.lower() or "motif" in p.stem.lower())
    logos += sorted(p for ext in (".png", ".svg") for p in (folder / "logos").glob(f"*{ext}")
                    if not p.stem.endswith("_match")) \
        if (folder / "logos").is_dir() else []
    parts += [_figure(p, folder, p.stem.replace("_", " "), embed) for p in logos]
    return "".join(parts)


def _database_line(info) -> str:
    """Which database the motifs were matched against (``motif_database`` of the summary, as in
    ``motifs.json``), with its credit line."""
    from ..motifs import database_label

    if not info:
        return ""
    credit = f" &middot; {html.escape(info['attribution'])}" if info.get("attribution") else ""
    return f"<p>Database: {html.escape(database_label(info))}{credit}</p>"


def _verdicts(header, rows) -> str:
    """One line per motif: its best significant match, or "no significant match" /
    "not compared: uninformative" (matches.tsv of :func:`seqimp.motifs.compare_motifs`)."""
    if "significant" not in header:
        return ""
    col = {h: i for i, h in enumerate(header)}
    verdict = {}
    for row in rows:
        significant = row[col["significant"]] == "True"
        name = row[col["query"]]
        if name not in verdict or (significant and not verdict[name][0]):
            verdict[name] = (significant, row)
    items = []
    for name, (significant, row) in verdict.items():
        if significant:
            text = (f"best match {row[col['target']]} {row[col['target_description']]} "
                    f"(q = {row[col['q_value']]}, calibrated q = {row[col['calibrated_q']]}, "
                    f"strand {row[col['strand']]}, offset {row[col['offset']]})")
        else:
            text = row[col["target_description"]]
        items.append(f"<li><b>{html.escape(name)}</b>: {html.escape(text)}</li>")
    return ('<p class="note">A match is significant when its TOMTOM q-value and its decoy-calibrated q-value '
            "are both at most 0.05.</p><ul>" + "".join(items) + "</ul>")


def build_report(directory, *, summary=None, title=None, embed=True) -> str:
    """The HTML text of the report for a results folder.

    Parameters
    ----------
    directory : path-like
        Folder with ``top_oligomers.tsv``, figures and, from ``seqimp motifs``, ``motifs.tsv``
        and motif logos (any of them may be missing; the report shows what is there). Links
        are relative to it.
    summary : dict, optional
        The run's summary, as written to ``summary.json`` (JSON values); default: the
        folder's ``summary.json``, if any.
    title : str, optional
    embed : bool, default=True
        Embed PNG/SVG figures as base64 (offline and movable) instead of linking them.

    Returns
    -------
    str
    """
    base = Path(directory)
    if not base.is_dir():
        raise SeqimpError(f"{base}: not a directory")
    if summary is None:
        summary = json.loads((base / "summary.json").read_text()) if (base / "summary.json").exists() else {}
    title = title or summary.get("title") or "seqimp POIM report"
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
             f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"]
    if summary:
        parts += ["<h2>Summary</h2>", _summary_html(summary)]
    has_motifs = (base / "motifs.tsv").exists()
    if (base / "top_oligomers.tsv").exists():
        header, rows = _read_tsv(base / "top_oligomers.tsv")
        parts += ["<h2>Top positional oligomers</h2>",
                  '<p class="note">Sorted by |FIRM| within the top of every order; positions are 1-based '
                  '(start of the oligomer)' + ('; position_label counts from the origin'
                                               if "position_label" in header else "")
                  + '. <a href="top_oligomers.tsv">top_oligomers.tsv</a>'
                  + (' &middot; <a href="#motifs">motifs</a>' if has_motifs else "") + "</p>",
                  _html_table(header, rows, limit=200)]
    figures = sorted((p for p in base.iterdir() if p.suffix.lower() in _FIGURE_EXTS
                      and not ("logo" in p.stem.lower() or "motif" in p.stem.lower())),
                     key=_figure_order)
    if figures:
        parts.append("<h2>Figures</h2>")
        parts += [_figure(p, base, _caption(p.stem), embed) for p in figures]
    if has_motifs:
        parts.append('<div id="motifs">' + _motif_section(base, embed, summary.get("motif_database")) + "</div>")
    files = [n for n in ("poim.npz", "model.npz", "summary.json", "top_oligomers.bed") if (base / n).exists()]
    if files:
        parts.append('<h2>Files</h2><p>' + ", ".join(f'<a href="{n}">{n}</a>' for n in files)
                     + ' &mdash; load <code>poim.npz</code> with <code>seqimp.load_poim</code>.</p>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(directory, *, summary=None, path=None, title=None, embed=True) -> Path:
    """Write ``report.html`` for a results folder (see :func:`build_report`); return its path.

    Run it again after ``seqimp motifs --out DIR`` has added ``motifs.tsv`` to the
    folder to include the motif section.
    """
    text = build_report(directory, summary=summary, title=title, embed=embed)
    path = Path(directory) / "report.html" if path is None else Path(path)
    path.write_text(text, encoding="utf-8")
    return path


def page_table(table, *, limit=50) -> str:
    """A pandas DataFrame as an HTML table of the report (:func:`_html_table`: cells wrap, the
    first ``limit`` rows, floats ``%.6g``)."""
    header = [str(c) for c in table.columns]
    rows = [[format_value(v) for v in row] for row in table.itertuples(index=False)]
    return _html_table(header, rows, limit=limit)


def write_page(folder, *, title, lead="", summary=None, sections=(), files=(), embed=True) -> Path:
    """``report.html`` of ``seqimp scan`` and ``seqimp enrich``: the answer first (``lead``,
    HTML), then a summary list, the ``sections`` and links to ``files``.

    Parameters
    ----------
    folder : path-like
        Where ``report.html`` goes; figures and links are relative to it.
    title : str
    lead : str
        HTML shown right below the title (what the run found).
    summary : dict, optional
        Label -> value, shown as a list.
    sections : sequence of (heading, html) or (heading, Path, caption)
        A block of HTML, or a figure of this run (embedded); only the figures named here are
        shown, never other files of the folder.
    files : sequence of str
        Names (relative to ``folder``) to link at the end.
    """
    folder = Path(folder)
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
             f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>", lead]
    if summary:
        parts.append("<dl>" + "".join(f"<dt>{html.escape(str(k))}</dt><dd>{html.escape(str(v))}</dd>"
                                      for k, v in summary.items() if v not in (None, "")) + "</dl>")
    for section in sections:
        parts.append(f"<h2>{html.escape(section[0])}</h2>")
        if len(section) == 2:
            parts.append(section[1])
        else:
            parts.append(_figure(Path(section[1]), folder, section[2], embed))
    if files:
        parts.append("<h2>Files</h2><p>" + ", ".join(f'<a href="{html.escape(n)}">{html.escape(n)}</a>'
                                                    for n in files) + "</p>")
    parts.append("</body></html>\n")
    path = folder / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
