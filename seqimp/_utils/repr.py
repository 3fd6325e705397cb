"""How results show themselves: a short ``repr`` and a small HTML card for Jupyter (``_repr_html_``).

One look for every result type: a title, a few lines of figures (label: value), optionally a
table (the top rows) and small inline images -- a heatmap drawn as a PNG, a sequence logo drawn as
SVG -- so a notebook shows what a result holds without printing its arrays. Stage-free: the result
types pass plain values (numbers, DataFrames, arrays); nothing here imports a seqimp stage.
"""

from __future__ import annotations

import base64
import html
import io

import numpy as np

__all__ = ["short_repr", "html_card", "heatmap_png", "logo_svg"]

#: Letter colours of the inline logos (A, C, G, T), as in the report's logos.
_COLOURS = {"A": "#109648", "C": "#255c99", "G": "#f7b32b", "T": "#d62839", "U": "#d62839"}


def short_repr(name: str, **fields) -> str:
    """``Name(key=value, ...)`` on one line; floats with 4 significant digits, long strings cut."""
    parts = []
    for key, value in fields.items():
        if isinstance(value, (float, np.floating)):
            text = f"{value:.4g}"
        elif isinstance(value, str):
            text = repr(value if len(value) <= 40 else value[:37] + "...")
        else:
            text = str(value)
        parts.append(f"{key}={text}")
    return f"{name}({', '.join(parts)})"


def _cell(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "nan" if np.isnan(value) else f"{value:.4g}"
    return html.escape(str(value))


def html_card(title: str, lines=(), *, table=None, images=(), note: str = "") -> str:
    """An HTML block: ``title``, ``lines`` (pairs label, value), then ``table`` (a DataFrame, shown
    whole: pass its top rows) and ``images`` (pairs caption, HTML of an ``<img>`` or ``<svg>``)."""
    out = ["<div class='seqimp-result' style='font-family:sans-serif;font-size:13px;max-width:900px'>",
           f"<b>{html.escape(title)}</b>"]
    if lines:
        out.append("<table style='border-collapse:collapse;margin:4px 0'>")
        for label, value in lines:
            out.append(f"<tr><td style='padding:1px 10px 1px 0;color:#555'>{html.escape(str(label))}</td>"
                       f"<td style='padding:1px 0'>{_cell(value)}</td></tr>")
        out.append("</table>")
    if images:
        out.append("<div style='display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end'>")
        for caption, image in images:
            out.append(f"<figure style='margin:0'>{image}<figcaption style='color:#555'>{html.escape(caption)}"
                       "</figcaption></figure>")
        out.append("</div>")
    if table is not None and len(table):
        head = "".join(f"<th style='padding:1px 6px;text-align:right'>{html.escape(str(c))}</th>"
                       for c in table.columns)
        rows = "".join("<tr>" + "".join(f"<td style='padding:1px 6px;text-align:right'>{_cell(v)}</td>"
                                        for v in row) + "</tr>" for row in table.itertuples(index=False))
        out.append(f"<table style='border-collapse:collapse;margin-top:4px'><tr>{head}</tr>{rows}</table>")
    if note:
        out.append(f"<div style='color:#555;margin-top:4px'>{html.escape(note)}</div>")
    out.append("</div>")
    return "".join(out)


def heatmap_png(values, *, ylabels=None, xlabel="position (1-based)", width=4.0, height=1.6) -> str:
    """A small heatmap of a 2-D array (rows over 1-based columns) as an inline ``<img>`` (PNG, base64).

    ``values`` of shape (rows, columns); NaN cells are left blank. Drawn with matplotlib's Agg
    canvas directly, so it neither needs nor changes pyplot's state.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    values = np.asarray(values, dtype=np.float64)
    fig = Figure(figsize=(width, height), dpi=72)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    finite = values[np.isfinite(values)]
    limit = float(np.abs(finite).max()) if finite.size else 1.0
    ax.imshow(values, aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest",
              extent=(0.5, values.shape[1] + 0.5, values.shape[0] + 0.5, 0.5))
    ax.set_xlabel(xlabel, fontsize=8)
    if ylabels is not None:
        ax.set_yticks(np.arange(1, len(ylabels) + 1), [str(y) for y in ylabels])
    ax.tick_params(labelsize=7)
    fig.tight_layout(pad=0.3)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"<img src='data:image/png;base64,{data}' alt='heatmap'/>"


def logo_svg(pwm, symbols="ACGT", *, column_width=14, height=40) -> str:
    """A sequence logo of a PWM (shape (m, A), rows summing to 1) as inline SVG: each column's letters
    stacked by probability times the column's information content (bits), the largest on top."""
    pwm = np.asarray(pwm, dtype=np.float64)
    bits = np.log2(pwm.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.nansum(np.where(pwm > 0, pwm * np.log2(pwm), 0.0), axis=1)
    info = np.clip(bits - entropy, 0.0, bits)
    width = column_width * pwm.shape[0]
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
             f"viewBox='0 0 {width} {height}'>"]
    for j, (column, ic) in enumerate(zip(pwm, info)):
        y = float(height)
        for a in np.argsort(column):  # smallest at the bottom
            h = column[a] * ic / bits * height
            if h < 0.5:
                continue
            letter = symbols[a]
            # a capital's glyph is ~0.72 of the font size tall: scale it to fill h
            parts.append(f"<text x='0' y='0' font-family='monospace' font-weight='bold' font-size='10' "
                         f"fill='{_COLOURS.get(letter, '#444')}' transform='translate({j * column_width:.1f},"
                         f"{y:.2f}) scale({column_width / 6.0:.3f},{h / 7.2:.3f})'>{html.escape(letter)}</text>")
            y -= h
    parts.append("</svg>")
    return "".join(parts)
