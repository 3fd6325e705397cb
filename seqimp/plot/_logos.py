"""Sequence logos: motifs by information content, POIMs by per-position importance.

Both functions draw on ``ax`` (a new figure when ``ax=None``) and return the Axes; positions
are 1-based (a placed motif shows its positions in the sequences). The letters are drawn as
logomaker draws them (its colour schemes, bold sans glyphs stretched to fill their box, the
largest value on top of each stack), by :func:`draw_letters`: each letter's outline is made
once and placed by an affine map, one patch per letter and position, outside the layout
engine's bounding-box pass (logomaker makes a text path per glyph and position, which made
the logos of a motif run a few seconds of its time).
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError
from ..importance._result import measure_tables
from ._text import plot_text

__all__ = ["logo", "importance_logo", "letter_importance", "draw_letters"]

#: Glyph box width in position units, and the letter no glyph is stretched wider than
#: (logomaker's Glyph defaults).
GLYPH_WIDTH = 0.95
WIDEST_LETTER = "E"


def _outlines(letters):
    """Each letter's outline (a matplotlib Path, bold sans) and its bounding box, and the
    widest letter's box width; memoised per font (TextPath is the costly step)."""
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.textpath import TextPath

    font = FontProperties(family="sans", weight="bold")
    key = (findfont(font), tuple(letters))
    if key not in _OUTLINES:
        paths = {c: TextPath((0, 0), c, size=1, prop=font) for c in set(letters) | {WIDEST_LETTER}}
        boxes = {c: path.get_extents() for c, path in paths.items()}
        _OUTLINES[key] = (paths, boxes)
    return _OUTLINES[key]


_OUTLINES: dict = {}


def draw_letters(ax, values, positions, letters, color_scheme, *, flip_below=True, fade_below=0.0):
    """Stacked letters of a logo on ``ax``, as ``logomaker.Logo`` draws them; return the
    y range ``(bottom, top)`` of the stacks.

    Parameters
    ----------
    ax : matplotlib Axes
    values : ndarray of shape (n, A)
        Letter heights per position (negative: below the axis).
    positions : array-like of shape (n,)
        x of each row (1-based positions).
    letters : list of A str
    color_scheme : str
        A logomaker colour scheme (``logomaker.src.colors.get_color_dict``).
    flip_below : bool, default=True
        Letters of negative values upside down.
    fade_below : float, default=0.0
        Opacity lost by letters of negative values (0..1).

    Each column is stacked from its most negative value upwards, smallest first (the largest
    on top, logomaker's ``big_on_top``); a letter fills a box of width :data:`GLYPH_WIDTH` and
    its value's height, stretched no wider than :data:`WIDEST_LETTER` would be.
    """
    from logomaker.src.colors import get_color_dict
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    values = np.asarray(values, dtype=np.float64)
    colours = get_color_dict(color_scheme, letters)
    paths, boxes = _outlines(letters)
    widest = boxes[WIDEST_LETTER].width
    bottom, top = np.inf, -np.inf
    for x, row in zip(positions, values):
        order = np.argsort(row, kind="stable")
        floor = float(row[row < 0].sum())
        bottom = min(bottom, floor)
        for i in order:
            v = float(row[i])
            ceiling = floor + abs(v)
            if ceiling > floor:
                c = letters[i]
                box = boxes[c]
                stretch = GLYPH_WIDTH / max(box.width, widest)
                width = stretch * box.width
                verts = paths[c].vertices.copy()
                if v < 0 and flip_below:  # logomaker flips the outline before measuring it
                    verts[:, 1] = -verts[:, 1]
                    ymin = -box.y1
                else:
                    ymin = box.y0
                verts[:, 0] = (verts[:, 0] - box.x0) * stretch + x - GLYPH_WIDTH / 2 + (GLYPH_WIDTH - width) / 2
                verts[:, 1] = (verts[:, 1] - ymin) * ((ceiling - floor) / box.height) + floor
                patch = PathPatch(Path(verts, paths[c].codes), facecolor=colours[c], edgecolor="none", linewidth=0.0,
                                  alpha=1.0 - fade_below if v < 0 else 1.0, zorder=0)
                patch.set_in_layout(False)
                ax.add_artist(patch)
            floor = ceiling
        top = max(top, floor)
    ax.axhline(zorder=-1, color="black", linewidth=0.5)
    return bottom, top


def _letters_and_colors(alphabet, color_scheme):
    """Letters of an alphabet and a logomaker colour scheme that has them (any alphabet)."""
    from ..io import get_alphabet

    alpha = get_alphabet(alphabet)
    if color_scheme is None:
        color_scheme = "chemistry" if alpha.name == "protein" else "classic"
    return list(alpha.symbols), color_scheme


def _axes(ax, width):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(min(max(1.0 + 0.45 * width, 3.5), 16), 2.4), layout="constrained")
    return ax


def _ticks(ax, first, n):
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(nbins=min(n, 15), integer=True))
    ax.set_xlim(first - 0.5, first + n - 0.5)


def _origin_ticks(ax, origin, length):
    """Tick labels of 1-based positions 1..``length`` counted from ``origin`` (+1 at it, no 0)."""
    from matplotlib.ticker import FuncFormatter

    from ..io import position_labels
    from ..io._positions import format_position

    labels = position_labels(int(length), origin=origin)
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda v, _pos: format_position(labels[int(round(v)) - 1]) if 1 <= round(v) <= length else ""))


def logo(motif, ax=None, *, color_scheme=None, title=None, ymax=None, alphabet=None, origin=None):
    """Information-content logo of a motif.

    Letter heights are ``p(a) * IC`` with IC the column's information content in bits
    (uniform background, 0..2 bits; 0..log2(20) for protein).

    Parameters
    ----------
    motif : Motif, or array-like / DataFrame of shape (m, A)
        A DNA :class:`~seqimp.motifs.Motif`, or a PWM of any alphabet (rows sum to 1).
    ax : matplotlib Axes, optional
    color_scheme : str, optional
        A logomaker colour scheme; default ``"classic"`` (A green, C blue, G orange, T/U red),
        ``"chemistry"`` for protein.
    alphabet : str or Alphabet, optional
        Letters of the columns: default DNA for a Motif, inferred from A (4: DNA, 20:
        protein) for a bare PWM; ``"rna"`` draws U for T.
    title : str, optional
        Default: name, consensus and start of the motif.
    ymax : float, optional
        Top of the y axis in bits. Default 2, or 1.15 times the tallest column when no column
        reaches 0.5 bit (flat PWMs, such as those fitted to a POIM alone, would be invisible
        on a 0-2 bit axis; the title then says that the axis is zoomed).
    origin : int, optional
        The 1-based position labelled +1 (-1 before it, no 0): a placed motif's axis counts
        from it (:func:`seqimp.io.position_labels`).

    Returns
    -------
    matplotlib Axes
    """
    from ..motifs._motif import information_content
    from ..motifs import Motif

    if not isinstance(motif, Motif):   # a bare PWM of any alphabet
        pwm = np.asarray(motif, dtype=np.float64)
        if pwm.ndim != 2 or pwm.shape[1] not in (4, 20) and alphabet is None:
            raise SeqimpError(f"logo: a PWM must have shape (m, A) with A = 4 or 20 (or pass alphabet=), "
                              f"got {pwm.shape}")
        name = getattr(motif, "name", None) or "PWM"
        motif = _BarePWM(name, pwm)
        alphabet = alphabet or ("protein" if pwm.shape[1] == 20 else "dna")
    letters, color_scheme = _letters_and_colors(alphabet or "dna", color_scheme)
    pwm = np.asarray(motif.pwm, dtype=np.float64)
    if pwm.shape[1] != len(letters):
        raise SeqimpError(f"logo: the PWM has {pwm.shape[1]} columns, the alphabet {len(letters)} letters")
    # a position-free motif has no place: its columns are numbered, not given absolute positions
    placed = motif.start is not None and not getattr(motif, "position_free", False)
    first = motif.start if placed else 1
    heights = pwm * information_content(pwm)[:, None]
    ax = _axes(ax, len(pwm))
    draw_letters(ax, heights, np.arange(first, first + len(pwm)), letters, color_scheme)
    tallest = float(heights.sum(axis=1).max())
    zoomed = ymax is None and tallest < 0.5
    if ymax is None:
        ymax = 1.15 * tallest if zoomed and tallest > 0 else float(np.log2(len(letters)))
    ax.set_ylim(0, ymax)
    ax.set_ylabel("bits")
    ax.set_xlabel("position (1-based)" if placed else "motif column")
    _ticks(ax, first, len(pwm))
    if placed and origin is not None:
        _origin_ticks(ax, origin, first + len(pwm) - 1)
        ax.set_xlabel(f"position (+1 at {origin})")
    ax.spines[["top", "right"]].set_visible(False)
    if title is None:
        where = f" at {motif.start}" if placed else " (position-free)" if motif.start is not None else ""
        spread = f" (± {motif.spread:.1f})" if placed and motif.spread >= 0.05 else ""
        consensus = "".join(letters[i] for i in pwm.argmax(axis=1))
        title = f"{motif.name}: {consensus}{where}{spread}" + ("\nflat PWM: y axis zoomed" if zoomed else "")
    ax.set_title(plot_text(title), fontsize=10)  # a name from a file may hold control characters
    return ax


def letter_importance(result, *, order=1, measure="poim") -> np.ndarray:
    """Per-position, per-letter importance of a POIM (the data of :func:`importance_logo`).

    For order k, entry ``[j, a]`` averages over the k windows that cover position j the largest
    importance of a k-mer that has letter a at j; each position is then centred over the A
    letters (4 for DNA/RNA, 20 for protein). For k = 1 this is the order-1 POIM ``Q(a, j)`` centred.

    Returns
    -------
    ndarray of shape (L, A), float64
    """
    tables = measure_tables(result, measure)
    k = int(order)
    if not 1 <= k <= result.max_order:
        raise SeqimpError(f"order must lie in 1..{result.max_order}, got {order}")
    L, a = result.length, result.alphabet.size
    table = np.where(np.isfinite(tables[k - 1]), tables[k - 1], -np.inf)
    out = np.zeros((L, a))
    covered = np.zeros(L)
    for p in range(k):  # letter a at offset p of a window starting at j - p
        shaped = table.reshape(table.shape[0], a ** p, a, a ** (k - 1 - p))
        best = shaped.max(axis=(1, 3))  # (L-k+1, A)
        best = np.where(np.isfinite(best), best, 0.0)
        out[p:p + table.shape[0]] += best
        covered[p:p + table.shape[0]] += 1
    out /= np.maximum(covered, 1)[:, None]
    return out - out.mean(axis=1, keepdims=True)


def importance_logo(result, ax=None, *, order=1, measure="poim", positions=None, color_scheme=None,
                    title=None):
    """Logo of per-position letter importance from a POIM or FIRM.

    Letters above the axis raise the score when they occur at that position, letters below
    lower it (see :func:`letter_importance`).

    Parameters
    ----------
    result : POIMResult
    ax : matplotlib Axes, optional
    order : int, default=1
    measure : {"poim", "firm"}, default="poim"
    positions : (int, int), optional
        1-based first and last position shown (default: all).
    color_scheme : str, optional
        Default ``"classic"`` for DNA/RNA, ``"chemistry"`` for protein (the result's alphabet).

    Returns
    -------
    matplotlib Axes
    """
    block, first = importance_block(result, order=order, measure=measure, positions=positions)
    return block_logo(block, first, result.alphabet, ax=ax, order=order, measure=measure, color_scheme=color_scheme,
                      title=title)


def importance_block(result, *, order=1, measure="poim", positions=None):
    """The rows of :func:`letter_importance` that :func:`importance_logo` draws, shape
    (last - first + 1, A), and the 1-based position ``first`` of the first row."""
    values = letter_importance(result, order=order, measure=measure)
    first, last = (1, result.length) if positions is None else (int(positions[0]), int(positions[1]))
    if not 1 <= first <= last <= result.length:
        raise SeqimpError(f"positions must satisfy 1 <= first <= last <= {result.length}, got {positions}")
    return values[first - 1:last], first


def block_logo(block, first, alphabet, ax=None, *, order=1, measure="poim", color_scheme=None, title=None):
    """:func:`importance_logo` of the rows ``block`` (:func:`importance_block`), the first at
    the 1-based position ``first``: what a figure process draws from the few numbers it is sent."""
    last = first + len(block) - 1
    letters, color_scheme = _letters_and_colors(alphabet, color_scheme)
    ax = _axes(ax, last - first + 1)
    bottom, top = draw_letters(ax, block, np.arange(first, last + 1), letters, color_scheme, flip_below=False,
                               fade_below=0.4)
    if top > bottom:  # logomaker's limits: the stacks' extent
        ax.set_ylim(bottom, top)
    ax.axhline(0, color="0.3", lw=0.6)
    ax.set_xlabel("position (1-based)")
    ax.set_ylabel(f"{measure.upper()} (order {order})")
    _ticks(ax, first, last - first + 1)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(plot_text(title or f"letter importance, {measure.upper()} order {order}"), fontsize=10)
    return ax


class _BarePWM:
    """A PWM without a Motif (any alphabet), for :func:`logo`."""

    def __init__(self, name, pwm):
        sums = pwm.sum(axis=1)
        if not np.all(np.isfinite(pwm)) or (pwm < 0).any() or np.abs(sums - 1).max(initial=0) > 1e-3:
            raise SeqimpError(f"logo: {name}: PWM rows must be non-negative and sum to 1")
        self.name, self.pwm, self.start, self.spread = name, pwm / sums[:, None], None, 0.0


def site_positions(sites, motif, length, ax=None, *, origin=None):
    """Where a motif's sites start: counts per 1-based start position, stacked by strand.

    Parameters
    ----------
    sites : pandas.DataFrame
        Columns ``motif, position`` (1-based), ``strand`` (``+``/``-``), e.g.
        :attr:`seqimp.motifs.MotifSites.sites`.
    motif : Motif
        Its ``name`` selects the rows.
    length : int
        Sequence length L (starts 1..L - m + 1 are shown).
    ax : matplotlib Axes, optional
    origin : int, optional
        The 1-based position labelled +1 (:func:`seqimp.io.position_labels`: -1 before it,
        no 0); default plain 1-based positions.

    Returns
    -------
    matplotlib.axes.Axes
    """
    n = max(int(length) - motif.length + 1, 1)
    ax = _axes(ax, min(n, 40))
    rows = sites[sites["motif"] == motif.name]
    edges = np.arange(n + 1) + 0.5  # bars of width 1 around starts 1..n, one step patch per strand
    bottom = np.zeros(n)
    for strand, colour in (("+", "#1b6fa8"), ("-", "#d95f02")):
        pos = rows.loc[rows["strand"] == strand, "position"].to_numpy(dtype=np.int64)
        counts = np.bincount(pos - 1, minlength=n)[:n].astype(np.float64)
        ax.stairs(bottom + counts, edges, baseline=bottom.copy(), fill=True, color=colour, label=f"strand {strand}")
        bottom += counts
    ax.set_ylim(0, max(float(bottom.max()), 1.0) * 1.05)
    _ticks(ax, 1, n)
    if origin is not None:
        _origin_ticks(ax, origin, int(length))
    ax.set_xlabel("site start (1-based)" if origin is None else f"site start (+1 at position {origin})")
    ax.set_ylabel("sites")
    ax.set_title(plot_text(f"{motif.name} {motif.consensus}: {len(rows)} sites"))
    ax.legend(fontsize="small", frameon=False)
    return ax


def match_logo(query, target, *, offset, strand="+", ax=None, title=None):
    """The query's logo above the matched motif's, aligned as TOMTOM aligned them.

    Parameters
    ----------
    query, target : Motif
        The matrices that were compared (the query's trimmed columns, the database motif).
    offset : int
        The target column (0-based, on ``strand``) under the query's first column, as in
        :func:`seqimp.motifs.compare_motifs`; negative when the query starts to its left.
    strand : {"+", "-"}
        ``-``: the target's reverse complement is drawn (what was aligned).
    ax : pair of matplotlib Axes, optional
        Two stacked Axes (query, target); a new figure when None.
    title : str, optional

    Returns
    -------
    ndarray of two matplotlib Axes
        Both on one x axis: aligned columns 1.. from the leftmost column of either motif.
    """
    from ..motifs import Motif

    tpwm = target.pwm[::-1, ::-1] if strand == "-" else target.pwm
    q_first, t_first = (1 + offset, 1) if offset >= 0 else (1, 1 - offset)
    q = Motif(query.name, query.pwm, start=q_first)
    t = Motif(target.name, tpwm, start=t_first)
    width = max(q_first + q.length, t_first + t.length) - 1
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(2, 1, figsize=(min(max(1.0 + 0.45 * width, 3.5), 16), 4.2), sharex=True,
                             layout="constrained")
    ax = np.asarray(ax)
    logo(q, ax=ax[0], ymax=2.0, title=title or f"{query.name}: {query.consensus}")
    logo(t, ax=ax[1], ymax=2.0, title=f"{target.name} {target.description} ({strand} strand)".replace("  ", " "))
    for a in ax:
        _ticks(a, 1, width)
    ax[0].set_xlabel("")
    ax[1].set_xlabel("aligned column")
    return ax
