"""The windows a model scores around variants: cut from the genome, each variant placed in
them, REF checked against the genome.

Two ways to place variants: in every window of ``windows`` (the fixed-width windows a
positional model scores, :func:`~seqimp.io.extract_windows` of BED regions) whose span holds
the variant's REF, or, without windows, in one window of ``width`` bases centred on the
variant (its first REF base at 0-based index ``width // 2``). Windows on the '-' strand are read
as their reverse complement, as the model saw them: a variant's offset and alleles are then
those of that strand. Every window comes with ``flank`` bases on each side (in the window's
orientation), from which an indel's alternative window is re-cut to the same width.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import SeqimpError, check_int
from ._alphabet import DNA, INVALID
from ._genome import GenomicWindows, _chrom_lengths, _fetch, open_genome, warn_chr_prefix
from ._strand import reverse_complement_codes
from ._unknown import log_unknown
from ._vcf import MAX_ALLELE

__all__ = ["PAIR_COLUMNS", "VariantWindows", "variant_windows"]

#: Columns of ``VariantWindows.pairs``.
PAIR_COLUMNS = ["variant", "window", "offset", "ref", "alt"]

_COMPLEMENT = str.maketrans("ACGTN", "TGCAN")


def _revcomp(text: str) -> str:
    return text.translate(_COMPLEMENT)[::-1]


@dataclass
class VariantWindows:
    """Variants placed in windows.

    Attributes
    ----------
    variants : pandas.DataFrame
        The variants kept (rows of the input table, index reset; ``line`` etc. kept).
    windows : GenomicWindows
        The windows, codes (m, width) as the model reads them.
    left, right : ndarray of shape (m, flank), uint8
        The bases before and after each window in its orientation: 4 (unknown) for N and the
        other IUPAC codes, INVALID off the chromosome.
    pairs : pandas.DataFrame
        One row per variant and window holding it: ``variant`` (row of ``variants``), ``window``
        (row of ``windows``), ``offset`` (0-based index of the REF's first base in the window,
        as read), ``ref``, ``alt`` (alleles as read: complemented and reversed on '-').
    dropped : dict of str -> int
        Variants left out, by reason: ``mismatch`` (REF differs from the genome, with
        ``skip_mismatch``), ``outside`` (in no window, with ``skip_outside``), ``off_chromosome``
        and ``ambiguous_base`` (a centred window that runs off the chromosome, or holds a byte that
        is no IUPAC letter; N and the other ambiguity codes are kept as unknown, 4).
    """

    variants: pd.DataFrame
    windows: GenomicWindows
    left: np.ndarray
    right: np.ndarray
    pairs: pd.DataFrame
    dropped: dict = field(default_factory=dict)


def _where(vcf, line, chrom, pos) -> str:
    return f"{vcf}: line {line}: {chrom}:{pos}" if line else f"{vcf}: {chrom}:{pos}"


def variant_windows(variants, genome, width, *, windows=None, skip_mismatch=False, skip_outside=False,
                    flank=MAX_ALLELE, mask_lowercase=False) -> VariantWindows:
    """Place the variants of :func:`~seqimp.io._vcf.read_vcf` in the windows a model scores.

    Parameters
    ----------
    variants : pandas.DataFrame
        Columns ``chrom, pos`` (1-based), ``ref, alt``, optionally ``line``.
    genome : str, path-like or pyfaidx.Fasta
    width : int
        The model's window width.
    windows : GenomicWindows, optional
        Windows of that width (BED regions cut by :func:`~seqimp.io.extract_windows`): each variant
        goes into every window that holds its REF. None: one window centred on each variant.
    skip_mismatch : bool
        Leave out variants whose REF differs from the genome (else SeqimpError naming the first).
    skip_outside : bool
        Leave out variants in no window (else SeqimpError naming the first).
    flank : int
        Bases kept on each side of every window.
    mask_lowercase : bool, default=False
        Read the genome's lower-case (soft-masked) bases as unknown in the centred windows and
        the flanks (windows given are taken as they are).

    Returns
    -------
    VariantWindows
    """
    width = check_int(width, "width")
    flank = check_int(flank, "flank", minimum=0)
    vcf = variants.attrs.get("source", "VCF")
    fa = open_genome(genome)
    lengths = _chrom_lengths(fa)
    chroms = variants["chrom"].to_numpy(object)
    lines = variants["line"].to_numpy(np.int64) if "line" in variants.columns else np.zeros(len(variants), np.int64)
    pos = variants["pos"].to_numpy(np.int64)
    refs = variants["ref"].to_list()
    unknown = [i for i, c in enumerate(chroms) if c not in lengths]
    if unknown:
        warn_chr_prefix(chroms[unknown], lengths, vcf)
        i = unknown[0]
        raise SeqimpError(f"{_where(vcf, lines[i], chroms[i], pos[i])}: chromosome {chroms[i]!r} is not in the "
                          f"genome ({len(unknown)} record{'s' if len(unknown) > 1 else ''} on chromosomes it lacks)")
    dropped = {"mismatch": 0, "outside": 0, "off_chromosome": 0, "ambiguous_base": 0}
    keep = np.ones(len(variants), dtype=bool)
    for i in range(len(variants)):  # REF against the genome
        chrom, g, ref = chroms[i], int(pos[i]) - 1, refs[i]
        seq = fa[chrom][g:g + len(ref)] if g < lengths[chrom] else ""
        if seq.upper() != ref:
            if skip_mismatch:
                keep[i] = False
                dropped["mismatch"] += 1
                continue
            found = f"the genome has {seq.upper()!r}" if seq else f"the chromosome has {lengths[chrom]:,} bases"
            raise SeqimpError(f"{_where(vcf, lines[i], chrom, pos[i])}: REF {ref!r} does not match the genome "
                              f"({found}); is the VCF for another assembly? (--skip-mismatch leaves such records "
                              "out)")
    variants = variants[keep].reset_index(drop=True)
    chroms, pos, lines = chroms[keep], pos[keep], lines[keep]
    refs = variants["ref"].to_list()
    alts = variants["alt"].to_list()
    starts0 = pos - 1
    ref_len = np.array([len(r) for r in refs], dtype=np.int64)
    if windows is None:
        ws = starts0 - width // 2
        chrom_len = np.array([lengths[c] for c in chroms], dtype=np.int64)
        inside = (ws >= 0) & (ws + width <= chrom_len)
        codes = np.full((len(variants), width), INVALID, dtype=np.uint8)
        for chrom in pd.unique(chroms[inside]):
            rows = np.flatnonzero(inside & (chroms == chrom))
            codes[rows] = _fetch(fa, chrom, ws[rows], width, DNA, mask_lowercase)
        clean = inside & (codes != INVALID).all(axis=1)
        dropped["off_chromosome"] = int(np.count_nonzero(~inside))
        dropped["ambiguous_base"] = int(np.count_nonzero(inside & ~clean))
        rows = np.flatnonzero(clean)
        coords = pd.DataFrame({"chrom": chroms[rows], "start": ws[rows], "end": ws[rows] + width,
                               "strand": pd.Series(["+"] * rows.size, dtype=object),
                               "name": [f"{chroms[r]}:{pos[r]}" for r in rows]})
        ids = [f"{c}:{s}-{e}(+)" for c, s, e in zip(coords["chrom"], coords["start"], coords["end"])]
        win = GenomicWindows(codes[rows], ids, DNA, "variants", coords=coords)
        log_unknown(f"{vcf}: the windows around the variants", win.codes, DNA, masked=mask_lowercase)
        pairs = pd.DataFrame({"variant": rows, "window": np.arange(rows.size), "offset": np.full(rows.size, width // 2),
                              "ref": pd.Series([refs[r] for r in rows], dtype=object),
                              "alt": pd.Series([alts[r] for r in rows], dtype=object)})
    else:
        if windows.width != width:
            raise SeqimpError(f"the windows are {windows.width} nt wide; the model scores {width} nt")
        win = windows
        pairs = _in_windows(windows, chroms, starts0, ref_len, refs, alts)
        held = np.zeros(len(variants), dtype=bool)
        held[pairs["variant"].to_numpy(np.int64)] = True
        if not held.all():
            i = int(np.flatnonzero(~held)[0])
            if not skip_outside:
                raise SeqimpError(f"{_where(vcf, lines[i], chroms[i], pos[i])}: the variant lies in no window of "
                                  f"the regions ({int((~held).sum())} such variant{'s' if (~held).sum() > 1 else ''}; "
                                  f"windows are {width} nt around each region's summit or centre, regions off the "
                                  "chromosome are left out); --skip-outside leaves such variants out")
            dropped["outside"] = int(np.count_nonzero(~held))
    if not len(pairs):
        raise SeqimpError(f"{vcf}: no variant left to score (left out: "
                          + ", ".join(f"{k} {v}" for k, v in dropped.items() if v) + ")")
    left, right = _flanks(fa, lengths, win.coords, flank, mask_lowercase)
    return VariantWindows(variants, win, left, right, pairs.reset_index(drop=True), dropped)


def _in_windows(windows, chroms, starts0, ref_len, refs, alts) -> pd.DataFrame:
    """Every (variant, window) with the variant's REF inside the window, in variant order, then window order."""
    coords = windows.coords
    width = windows.width
    wchrom = coords["chrom"].to_numpy(object)
    wstart = coords["start"].to_numpy(np.int64)
    minus = coords["strand"].to_numpy(object) == "-"
    by_chrom = {}
    for chrom in pd.unique(wchrom):
        rows = np.flatnonzero(wchrom == chrom)
        order = rows[np.argsort(wstart[rows], kind="stable")]
        by_chrom[chrom] = (order, wstart[order])
    out = {c: [] for c in PAIR_COLUMNS}
    for i, chrom in enumerate(chroms):
        if chrom not in by_chrom:
            continue
        order, st = by_chrom[chrom]
        g, r = int(starts0[i]), int(ref_len[i])
        lo = np.searchsorted(st, g + r - width, side="left")
        hi = np.searchsorted(st, g, side="right")
        for w in sorted(order[lo:hi].tolist()):
            if minus[w]:
                offset = int(wstart[w] + width - (g + r))
                ref, alt = _revcomp(refs[i]), _revcomp(alts[i])
            else:
                offset, ref, alt = g - int(wstart[w]), refs[i], alts[i]
            for key, value in zip(PAIR_COLUMNS, (i, w, offset, ref, alt)):
                out[key].append(value)
    return pd.DataFrame({"variant": np.asarray(out["variant"], dtype=np.int64),
                         "window": np.asarray(out["window"], dtype=np.int64),
                         "offset": np.asarray(out["offset"], dtype=np.int64),
                         "ref": pd.Series(out["ref"], dtype=object), "alt": pd.Series(out["alt"], dtype=object)})


def _flanks(fa, lengths, coords, flank, mask_lowercase=False):
    """``flank`` bases before and after each window, in its orientation (N unknown, INVALID off the
    chromosome)."""
    m = len(coords)
    left = np.full((m, flank), INVALID, dtype=np.uint8)
    right = np.full((m, flank), INVALID, dtype=np.uint8)
    if flank == 0:
        return left, right
    for r, (chrom, s, e) in enumerate(zip(coords["chrom"], coords["start"], coords["end"])):
        n = lengths[chrom]
        a = max(0, int(s) - flank)
        if a < s:
            left[r, flank - (int(s) - a):] = _fetch(fa, chrom, [a], int(s) - a, DNA, mask_lowercase)[0]
        b = min(n, int(e) + flank)
        if b > e:
            right[r, :b - int(e)] = _fetch(fa, chrom, [int(e)], b - int(e), DNA, mask_lowercase)[0]
    minus = (coords["strand"].to_numpy(object) == "-")
    if minus.any():
        left[minus], right[minus] = reverse_complement_codes(right[minus]), reverse_complement_codes(left[minus])
    return left, right
