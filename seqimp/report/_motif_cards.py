"""The motif part of a report: a card per motif on the first screen (logo, sites and their
share, the held-out p-value and E-value, where the sites lie, the best significant database match with its JASPAR family and
class, and the matches that tie with it in p), then the details further down (the full motif
table, what became of every candidate tested, the match table, match logos)."""

from __future__ import annotations

import html
from pathlib import Path

from ._html import figure_html, html_table, read_tsv
from ._record import MOTIF_FILES

__all__ = ["motif_cards", "motif_details", "MOTIF_FILES", "LINKED_FILES", "CARDS"]

#: the motif files the details link: all of a motif run's but its table (shown), the background and the logos
LINKED_FILES = tuple(n for n in MOTIF_FILES if n not in ("motifs.tsv", "background.txt", "logos/"))
#: motifs shown as cards on the first screen (the others are in the table below)
CARDS = 6
_FIGURE_SUFFIXES = (".png", ".svg")


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


def _find(folder: Path, stem: str, allowed) -> Path | None:
    """``logos/<stem>.png`` or ``.svg`` when this run wrote it (``allowed``)."""
    for ext in _FIGURE_SUFFIXES:
        path = folder / "logos" / f"{stem}{ext}"
        if allowed(path):
            return path
    return None


def _matches_by_query(folder: Path, allowed):
    if not allowed(folder / "matches.tsv"):
        return {}
    header, rows = read_tsv(folder / "matches.tsv")
    grouped = {}
    for row in rows:
        record = dict(zip(header, row))
        grouped.setdefault(record.get("query", ""), []).append(record)
    return grouped


def match_text(records) -> str:
    """A motif's best significant match (target, factor, JASPAR family and class, p and q) and a
    line naming the significant matches that tie with it in p; or the verdict ("no significant
    match", "not compared: uninformative")."""
    significant = sorted((r for r in records if r.get("significant") == "True"), key=lambda r: _float(r["p_value"]))
    if not significant:
        verdict = next((r.get("target_description", "") for r in records if not r.get("target")), "")
        return f"<p>Database: {html.escape(verdict or 'no significant match')}</p>"
    best = significant[0]
    kind = "; ".join(f"{label} {html.escape(best[key])}" for label, key in (("family", "target_family"),
                                                                          ("class", "target_class"))
                     if best.get(key))
    text = (f"<p>Best significant match: <b>{html.escape(best['target'])} "
            f"{html.escape(best.get('target_description', ''))}</b>" + (f" ({kind})" if kind else "")
            + f", p = {_float(best['p_value']):.2g}, q = {_float(best['q_value']):.2g}</p>")
    p = _float(best["p_value"])
    ties = [r for r in significant[1:] if abs(_float(r["p_value"]) - p) <= 1e-9 * max(abs(p), 1e-300)]
    if ties:
        names = ", ".join(html.escape(f"{r['target']} {r.get('target_description', '')}".strip()
                                      + (f" ({r['target_family']})" if r.get("target_family") else ""))
                          for r in ties)
        text += (f'<p class="note">{len(ties)} more match{"es" if len(ties) > 1 else ""} tie in p: {names}; '
                 "the matrix does not tell these factors apart.</p>")
    return text


def _place(record, origin) -> str:
    if record.get("position_free") == "True":
        return "position-free (sites anywhere in the sequences)"
    start = record.get("start", "")
    if origin is not None and start.lstrip("-").isdigit():
        from ..io import position_labels
        from ..io._positions import format_position

        label = position_labels(int(start), origin=origin)[-1]
        return f"starts at {start} ({format_position(label)} from the origin)"
    return f"starts at {html.escape(start)}"


def _sites(record) -> str:
    sites = record.get("sites", "")
    share = [f"{_float(record[k]):.0%} of {what}" for k, what in (("fraction_positive", "positives"),
                                                                   ("fraction_negative", "negatives"))
             if k in record and _float(record[k]) == _float(record[k])]
    return f"{html.escape(sites)} sites" + (f" ({', '.join(share)})" if share else "")


def _significance(record) -> str:
    """A motif's held-out p-value and E-value (``motifs.tsv`` as written) and, for a motif the
    composition explains, that flag; "" where the table has none of them."""
    parts = [f"{label} = {html.escape(record[key])}" for label, key in (("held-out p", "held_out_p_value"),
                                                                        ("E", "evalue"))
             if record.get(key, "nan") not in ("", "nan")]
    text = f"; {', '.join(parts)}" if parts else ""
    if record.get("composition") == "True":
        text += "; composition, not a motif (as frequent in the positives' dinucleotide shuffles)"
    return text


def motif_cards(folder: Path, allowed, embed: bool, *, origin=None) -> str:
    """The first screen of a report with motifs: one card per motif (at most :data:`CARDS`),
    strongest first, or the answer that there is none."""
    header, rows = read_tsv(folder / "motifs.tsv")
    parts = ['<div id="motifs"><h2>Motifs</h2>']
    if not rows:  # "no motif" is an answer
        parts.append("<p><b>No motif found</b>: no candidate's sites are enriched in the positives and held out "
                     "(the best candidate's figures are in the log).</p></div>")
        return "".join(parts)
    matches = _matches_by_query(folder, allowed)
    parts.append('<div class="cards">')
    for row in rows[:CARDS]:
        record = dict(zip(header, row))
        name = record.get("name", "")
        card = [f'<div class="card"><h3>{html.escape(name)}: {html.escape(record.get("consensus", ""))}</h3>',
                f"<p>{_place(record, origin)}; {_sites(record)}{_significance(record)}</p>"]
        if name in matches:
            card.append(match_text(matches[name]))
        for stem, caption in ((f"{name}_logo", "logo"), (f"{name}_positions", "where the sites lie")):
            path = _find(folder, stem, allowed)
            if path is not None:
                card.append(figure_html(path, folder, caption, embed))
        parts.append("".join(card) + "</div>")
    parts.append("</div>")
    if len(rows) > CARDS:
        parts.append(f'<p class="note">{len(rows) - CARDS} more motifs in the table below.</p>')
    parts.append("</div>")
    return "".join(parts)


def motif_details(folder: Path, allowed, embed: bool, database_line="") -> str:
    """The motif details: ``motifs.tsv`` (all columns, collapsed), the motif files, the match
    table with the database it came from, match logos and the letter-importance logo."""
    header, rows = read_tsv(folder / "motifs.tsv")
    parts = ['<h2 id="motif-details">Motif details</h2>',
             f"<details><summary>motifs.tsv: {len(rows)} motifs, {len(header)} columns</summary>"
             + html_table(header, rows, limit=50) + "</details>"]
    if allowed(folder / "candidate_tests.tsv"):  # what became of every candidate, in the order tested
        th, tr = read_tsv(folder / "candidate_tests.tsv")
        kept = sum(r[th.index("outcome")].startswith("reported") for r in tr) if "outcome" in th else 0
        parts.append(f"<details><summary>candidate_tests.tsv: {len(tr)} candidates tested, {kept} reported"
                     "</summary>" + html_table(th, tr, limit=100) + "</details>")
    links = [name for name in LINKED_FILES if allowed(folder / name)]
    if links:
        parts.append("<p>Files: " + ", ".join(f'<a href="{html.escape(n)}">{n}</a>' for n in links) + "</p>")
    if allowed(folder / "matches.tsv"):
        mh, mr = read_tsv(folder / "matches.tsv")
        parts += ["<h3>Matches to known motifs</h3>", database_line,
                  '<p class="note">A match is significant when its TOMTOM q-value and its decoy-calibrated '
                  "q-value are both at most 0.05.</p>",
                  f"<details><summary>matches.tsv: {len(mr)} rows</summary>" + html_table(mh, mr, limit=50)
                  + "</details>"]
        for name in (r[0] for r in rows):
            path = _find(folder, f"{name}_match", allowed)
            if path is not None:
                parts.append(figure_html(path, folder, f"{name}: compared columns (top) aligned with the matched "
                                         "motif (bottom) at the reported offset and strand", embed))
    path = _find(folder, "importance_logo", allowed)
    if path is not None:
        parts.append(figure_html(path, folder, "letter importance around the motifs", embed))
    return "".join(parts)
