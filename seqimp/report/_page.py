"""A self-contained HTML report of a results folder.

:func:`write_report` shows a run's summary (the dict in memory that ``summary.json`` holds,
or that file) and what ``seqimp poim`` (and optionally ``seqimp motifs``) wrote into a folder,
the answer first: the motifs found, each with its logo, sites, where they lie and its best
database match (``_motif_cards``); then the summary, the top positional oligomers of order
>= 3, the heatmaps and the motif details. It writes ``report.html`` beside them.

Only this run's files are shown: the names the summary records (``files``), among the names
seqimp writes (heatmaps, ``logos/<motif>_logo`` ...); another PNG in the folder is never
embedded. PNG and SVG figures are embedded (base64), so the page reads offline even when
moved on its own; PDF figures and data files are linked relatively. :func:`write_page` is the
page of ``seqimp scan`` and ``seqimp enrich``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from ..errors import SeqimpError
from .._utils.tables import format_value
from ._html import FIGURE_EXTS, STYLE, figure_html, html_table, read_tsv
from ._motif_cards import motif_cards, motif_details
from ._record import file_sizes, json_ready

__all__ = ["write_report", "build_report", "write_page", "page_table", "run_files", "write_motif_report"]

_FIGURE_CAPTIONS = {
    "maximal_poim": ("Maximal POIM: the largest |POIM| of any k-mer at each order k and 1-based start "
                     "position j."),
    "differential_poim": "Differential POIM Ω(k, j): peaks give the length k and the 1-based start j "
                         "of the motifs the model relies on.",
    "weights_vs_firm": "Model weight of every positional oligomer against its FIRM. Weights describe one "
                       "k-mer in isolation; FIRM adds the overlapping k-mers that come with it.",
}

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
        out += "<h3>Parameters</h3>" + _parameter_html(params)
    per_order = summary.get("top_per_order", [])
    if per_order:
        header = ["order", "oligomer", "position"] + (["position_label"] if "position_label" in per_order[0] else []) \
            + ["poim", "firm"]
        rows = [[format_value(r.get(h)) for h in header] for r in per_order]
        out += "<h3>Top oligomer of each order (by |FIRM|)</h3>" + html_table(header, rows)
    # no timings here: they live in summary.json only, so that a re-run gives the same report
    versions = summary.get("versions", {})
    if versions:
        out += '<p class="note">' + ", ".join(f"{html.escape(k)} {html.escape(str(v))}"
                                              for k, v in versions.items()) + "</p>"
    return out


def _parameter_html(value) -> str:
    """A run's parameter as a person reads it: a record of several (``{"candidates_tested": 7, ...}``)
    as a list of its names and values, one level inside the other, a list of plain values joined
    by commas, text as it is, anything else as JSON writes it (numbers, true/false, null)."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "<dl>" + "".join(f"<dt>{html.escape(str(k))}</dt><dd>{_parameter_html(v)}</dd>"
                                for k, v in value.items()) + "</dl>"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (str, int, float, bool)) or v is None
                                                          for v in value):
        return ", ".join(_parameter_html(v) for v in value)
    if isinstance(value, str):
        return html.escape(value)
    return html.escape(json.dumps(value))


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


def _database_line(info) -> str:
    """Which database the motifs were matched against (``motif_database`` of the summary, as in
    ``motifs.json``), with its credit line."""
    from ..motifs.known._database import database_label

    if not info:
        return ""
    credit = f" &middot; {html.escape(info['attribution'])}" if info.get("attribution") else ""
    return f"<p>Database: {html.escape(database_label(info))}{credit}</p>"


#: the heatmaps of a poim run (stems; ``poim_order<k>`` too)
_HEATMAPS = ("differential_poim", "maximal_poim", "weights_vs_firm")
#: orders of the top-oligomer table shown first (the others are in top_oligomers.tsv)
MIN_TABLE_ORDER = 3


def run_files(directory, summary=None):
    """Which files of ``directory`` the report may show: a predicate on paths.

    A path counts when it exists and, where the summary records what the run wrote (its
    ``files``, names relative to the folder), when it is among them. The report only ever
    asks for names seqimp writes, so a stray file in the folder is never shown.
    """
    base = Path(directory)
    recorded = (summary or {}).get("files", {}).get("bytes") if isinstance(summary, dict) else None
    names = None if recorded is None else set(recorded)

    def allowed(path) -> bool:
        path = Path(path)
        if not path.is_file():
            return False
        return names is None or path.relative_to(base).as_posix() in names

    return allowed


def _heatmaps(base: Path, allowed) -> list:
    found = []
    for path in base.iterdir():
        if path.suffix.lower() in FIGURE_EXTS and (path.stem in _HEATMAPS
                                                   or re.fullmatch(r"poim_order\d+", path.stem)) and allowed(path):
            found.append(path)
    return sorted(found, key=_figure_order)


def _top_table(base: Path, allowed) -> list:
    header, rows = read_tsv(base / "top_oligomers.tsv")
    note = ("Sorted by |FIRM| within the top of every order; positions are 1-based (start of the oligomer)"
            + ("; position_label counts from the origin" if "position_label" in header else ""))
    if "order" in header:
        k = header.index("order")
        long = [r for r in rows if r[k].isdigit() and int(r[k]) >= MIN_TABLE_ORDER]
        if long and len(long) < len(rows):
            note += (f". Oligomers of order &ge; {MIN_TABLE_ORDER} first; all orders below and in "
                     '<a href="top_oligomers.tsv">top_oligomers.tsv</a>')
            return ["<h2>Top positional oligomers</h2>", f'<p class="note">{note}.</p>',
                    html_table(header, long, limit=200),
                    f"<details><summary>all orders ({len(rows)} rows)</summary>"
                    + html_table(header, rows, limit=200) + "</details>"]
    return ["<h2>Top positional oligomers</h2>",
            f'<p class="note">{note}. <a href="top_oligomers.tsv">top_oligomers.tsv</a></p>',
            html_table(header, rows, limit=200)]


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
        folder's ``summary.json``, if any. Its record of the files written (``files``)
        limits what is shown (:func:`run_files`).
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
    allowed = run_files(base, summary)
    title = title or summary.get("title") or "seqimp POIM report"
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"]
    has_motifs = allowed(base / "motifs.tsv")
    if has_motifs:  # the answer first
        parts.append(motif_cards(base, allowed, embed, origin=summary.get("position_origin")))
    if summary:
        parts += ["<h2>Summary</h2>", _summary_html(summary)]
    if allowed(base / "top_oligomers.tsv"):
        parts += _top_table(base, allowed)
    figures = _heatmaps(base, allowed)
    if figures:
        parts.append("<h2>Figures</h2>")
        parts += [figure_html(p, base, _caption(p.stem), embed) for p in figures]
    if has_motifs:
        parts.append(motif_details(base, allowed, embed, _database_line(summary.get("motif_database"))))
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


def write_motif_report(folder, run) -> Path:
    """``report.html`` of a ``seqimp motifs`` run in a folder of its own (no ``seqimp poim``
    summary): the motif cards and details of the files ``run.files`` (a MotifRun), positions
    counted from the run's origin, the database it was matched against."""
    folder = Path(folder)
    parameters = run.parameters
    summary = {"title": "seqimp motifs", "files": file_sizes(folder, [p for p in run.files if Path(p).is_file()]),
               "position_origin": parameters.get("position_origin"), "motif_database": parameters.get("database"),
               "parameters": {k: v for k, v in parameters.items() if k not in ("database", "metrics")}}
    return write_report(folder, summary=json_ready(summary))


def page_table(table, *, limit=50) -> str:
    """A pandas DataFrame as an HTML table of the report (:func:`html_table`: cells wrap, the
    first ``limit`` rows, floats ``%.6g``)."""
    header = [str(c) for c in table.columns]
    rows = [[format_value(v) for v in row] for row in table.itertuples(index=False)]
    return html_table(header, rows, limit=limit)


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
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>", lead]
    if summary:
        parts.append("<dl>" + "".join(f"<dt>{html.escape(str(k))}</dt><dd>{html.escape(str(v))}</dd>"
                                      for k, v in summary.items() if v not in (None, "")) + "</dl>")
    for section in sections:
        parts.append(f"<h2>{html.escape(section[0])}</h2>")
        if len(section) == 2:
            parts.append(section[1])
        else:
            parts.append(figure_html(Path(section[1]), folder, section[2], embed))
    if files:
        parts.append("<h2>Files</h2><p>" + ", ".join(f'<a href="{html.escape(n)}">{html.escape(n)}</a>'
                                                    for n in files) + "</p>")
    parts.append("</body></html>\n")
    path = folder / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
