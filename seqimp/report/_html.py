"""The HTML pieces every report page shares: the style sheet (tables that wrap to fit a
1280-px page), tables, figures (embedded as base64 or linked) and TSV reading."""

from __future__ import annotations

import base64
import csv
import html
import os
import re
from pathlib import Path

__all__ = ["STYLE", "read_tsv", "html_table", "figure_html", "IMAGE_TYPES", "FIGURE_EXTS"]

IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml"}
FIGURE_EXTS = (".png", ".svg", ".pdf")

#: Tables never scroll sideways: cells wrap (``overflow-wrap: anywhere``), the page is at most
#: 1180 px wide, and long tables scroll down inside their box.
STYLE = """
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
flex:1 1 340px;max-width:560px;min-width:0}.card img{max-width:100%}.card h3{margin:.1em 0 .3em}
.card figure{margin:.4em 0}details summary{cursor:pointer;color:#335}
"""

_NUMERIC = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^nan$")


def read_tsv(path: Path):
    """``(header, rows)`` of a TSV file (lists of strings); ``([], [])`` for an empty file."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    if not rows:
        return [], []
    return rows[0], rows[1:]


def html_table(header, rows, *, limit=None) -> str:
    """An HTML table of strings (the first ``limit`` rows, a note saying how many there are);
    numbers right-aligned, text in monospace, every cell escaped."""
    shown = rows if limit is None else rows[:limit]
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f"<th>{html.escape(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for row in shown:
        out.append("<tr>" + "".join(
            f'<td{"" if _NUMERIC.match(c) else " class=s"}>{html.escape(c)}</td>' for c in row) + "</tr>")
    out.append("</tbody></table></div>")
    if limit is not None and len(rows) > limit:
        out.append(f'<p class="note">first {limit} of {len(rows)} rows</p>')
    return "".join(out)


def figure_html(path: Path, base: Path, caption: str, embed: bool) -> str:
    """A figure: PNG/SVG embedded as base64 (``embed``) or linked, PDF as an object with a link;
    the caption links the file (relative to ``base``)."""
    rel = html.escape(os.path.relpath(path, base))
    mime = IMAGE_TYPES.get(path.suffix.lower())
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
