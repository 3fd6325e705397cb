"""Fixed-width windows cut from an indexed genome around BED regions, and GC-matched
genomic negatives.

The genome is read through pyfaidx (optional dependency: ``pip install seqimp[genome]``):
plain FASTA or bgzip-compressed FASTA; the ``.fai`` index is written next to the file when
missing. Windows carry their genomic coordinates (:class:`GenomicWindows`), so positions in
the windows can be written back as BED (:func:`seqimp.io._bed.hits_to_bed`).
"""

from __future__ import annotations

import bisect
import os
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._alphabet import INVALID, get_alphabet, kmer_index
from ._bed import read_bed
from ._fasta import SequenceSet
from ._strand import require_dna, reverse_complement_codes
from ._unknown import log_unknown, lookup_table
from .._utils.sizes import available_memory, format_size
from ..errors import SeqimpError, check_file, check_int, check_random_state

__all__ = ["GenomicWindows", "open_genome", "index_mismatch", "extract_windows", "genome_negatives", "oligomer_hits",
           "COORD_COLUMNS", "DROP_REASONS"]

#: Columns of ``GenomicWindows.coords``.
COORD_COLUMNS = ["chrom", "start", "end", "strand", "name"]
#: Why :func:`extract_windows` drops a region (keys of ``GenomicWindows.dropped``).
DROP_REASONS = ("unknown_chromosome", "off_chromosome", "ambiguous_base")


@dataclass(repr=False)
class GenomicWindows(SequenceSet):
    """A :class:`~seqimp.io.SequenceSet` of genomic windows with their coordinates.

    Attributes
    ----------
    codes : ndarray of shape (n, width), uint8
        The window sequences as read on the window's strand ('-' rows are reverse complements).
    ids : list of str
        ``chrom:start-end(strand)`` with BED coordinates (0-based start, end exclusive).
    coords : pandas.DataFrame
        One row per window: ``chrom``, ``start`` (0-based), ``end`` (exclusive), ``strand``
        (``+`` or ``-``), ``name`` (the BED name). Subsetting keeps it aligned.
    dropped : dict of str -> int
        Regions not turned into windows, by reason (:data:`DROP_REASONS`, or
        ``gc_unmatched`` for :func:`genome_negatives`).
    """

    coords: pd.DataFrame | None = None
    dropped: dict = field(default_factory=dict)

    def __post_init__(self):
        super().__post_init__()
        if self.coords is None or len(self.coords) != self.codes.shape[0]:
            raise SeqimpError("GenomicWindows: coords must have one row per window")
        self.coords = self.coords.reset_index(drop=True)

    @property
    def width(self) -> int:
        """Window width (= ``length``)."""
        return self.length

    @property
    def origin(self) -> int:
        """1-based position of the centre (summit) base: ``width // 2 + 1`` on either strand.

        ``seqimp.io.position_labels(width, origin=windows.origin)`` labels it ``+1``.
        """
        return self.length // 2 + 1

    def subset(self, index) -> "GenomicWindows":
        index = np.asarray(index)
        rows = np.flatnonzero(index) if index.dtype == bool else index
        return GenomicWindows(self.codes[rows], [self.ids[r] for r in rows], self.alphabet, self.source,
                              coords=self.coords.iloc[rows].reset_index(drop=True), dropped=dict(self.dropped))

    def __repr__(self) -> str:
        return (f"GenomicWindows(n={len(self)}, width={self.length}, alphabet={self.alphabet.name!r}"
                + (f", dropped={self.dropped}" if any(self.dropped.values()) else "") + ")")


def _is_bgzf(path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(18)
    return (len(head) >= 18 and head[:4] == b"\x1f\x8b\x08\x04" and head[12:14] == b"BC")


def open_genome(genome, *, name="--genome"):
    """Open an indexed genome FASTA with pyfaidx (or pass an open ``pyfaidx.Fasta`` through).

    Plain FASTA or bgzip-compressed FASTA (``bgzip genome.fa``); the ``.fai`` (and ``.gzi``)
    index is built next to the file when missing. A gzip file that is not bgzip is refused
    with a message saying to recompress it with bgzip.
    """
    try:
        import pyfaidx
    except ImportError:
        raise SeqimpError("reading a genome needs pyfaidx: pip install 'seqimp[genome]' (or pip install pyfaidx)") \
            from None
    if isinstance(genome, pyfaidx.Fasta):
        return genome
    path = check_file(genome, name)
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    if gz and not _is_bgzf(path):
        raise SeqimpError(f"{name} {path}: gzip-compressed but not bgzip; random access needs bgzip: "
                          f"zcat {path} | bgzip > {os.path.splitext(str(path))[0]}.bgz (or gunzip it)")
    try:
        fa = pyfaidx.Fasta(os.fspath(path), as_raw=True)  # soft-masked case kept: mask_lowercase reads it
    except PermissionError as exc:
        raise SeqimpError(f"{name} {path}: cannot write the index {exc.filename} (make it with "
                          f"'samtools faidx {path}' where the directory is writable)") from None
    except Exception as exc:  # noqa: BLE001 - pyfaidx raises many kinds for a bad file
        raise SeqimpError(f"{name} {path}: cannot index the genome FASTA ({type(exc).__name__}: {exc})") from None
    if not gz:
        problem = index_mismatch(path, fa.faidx.index)
        if problem:
            fa.close()
            raise SeqimpError(f"{name} {path}: its index {fa.faidx.indexname} does not match the FASTA ({problem}); "
                              f"the FASTA changed after the index was built: delete {fa.faidx.indexname} and run "
                              f"again (it is rebuilt), or run 'samtools faidx {path}'")
    return fa


def index_mismatch(path, index) -> str | None:
    """Why the ``.fai`` records ``index`` (pyfaidx ``IndexRecord``\\s: ``rlen`` bases from byte
    ``offset``, ``lenc`` bases in ``lenb`` bytes per line) do not describe the plain FASTA
    ``path``, or None when they do. Checked per record, a few bytes each: the header line ends
    just before ``offset``, the first and the last sequence line end where the layout says,
    and the next record's header (or the end of the file) follows the sequence. A FASTA
    edited, extended or re-wrapped after its index was built fails one of these."""
    size = os.path.getsize(path)
    records = sorted(index.items(), key=lambda item: item[1].offset)
    with open(path, "rb") as fh:
        def at(pos, n=1):
            fh.seek(pos)
            return fh.read(n)

        for i, (chrom, rec) in enumerate(records):
            rlen, offset, lenc, lenb = int(rec.rlen), int(rec.offset), int(rec.lenc), int(rec.lenb)
            if rlen == 0:
                continue
            eol = lenb - lenc
            if lenc <= 0 or eol not in (1, 2) or not 0 < offset <= size:
                return f"record {chrom!r}: an impossible line layout ({lenc} bases in {lenb} bytes per line)"
            if at(offset - 1) != b"\n":
                return f"record {chrom!r}: its sequence does not start at byte {offset}"
            full, rem = divmod(rlen, lenc)
            if rlen > lenc and at(offset + lenc) not in (b"\n", b"\r"):
                return f"record {chrom!r}: its lines are no longer {lenc} bases long (re-wrapped?)"
            end = offset + full * lenb + rem  # just past the last base (past the line end when rem == 0)
            last_eol = end if rem else end - eol
            if last_eol < size and at(last_eol) not in (b"\n", b"\r"):
                return f"record {chrom!r}: it no longer ends after {rlen:,} bases (longer or re-wrapped?)"
            after = end + (eol if rem else 0)
            if i + 1 < len(records):
                if at(after, 64).lstrip(b"\r\n")[:1] != b">":
                    return f"record {chrom!r}: the next record does not follow its {rlen:,} bases"
            elif last_eol > size or at(after, 64).strip() or size - after > 64:
                return f"record {chrom!r}: the file does not end after its {rlen:,} bases"
    return None


def _chrom_lengths(fa) -> dict:
    return {k: len(fa[k]) for k in fa.keys()}


def _fetch(fa, chrom, starts, width, alpha, mask_lowercase=False):
    """Codes of windows [s, s + width) on chromosome ``chrom``, shape (m, width): N and the other
    IUPAC codes (with ``mask_lowercase`` lower-case letters too) unknown, other bytes INVALID."""
    rec = fa[chrom]
    blob = "".join(rec[int(s):int(s) + width] for s in starts)
    raw = np.frombuffer(blob.encode("ascii", "replace"), dtype=np.uint8)
    return lookup_table(alpha, mask_lowercase)[raw].reshape(len(starts), width)


def _window_starts(table, width):
    start = table["start"].to_numpy(np.int64)
    end = table["end"].to_numpy(np.int64)
    summit = table["summit"].to_numpy(np.int64) if "summit" in table.columns else np.full(len(table), -1)
    centre = np.where(summit >= 0, start + summit, (start + end) // 2)
    minus = table["strand"].to_numpy(object) == "-" if "strand" in table.columns else np.zeros(len(table), bool)
    # the centre base lies at 0-based index width // 2 of the window sequence on either strand
    return np.where(minus, centre - (width - 1 - width // 2), centre - width // 2), minus


def extract_windows(bed, genome, width, *, alphabet="dna", name=None, mask_lowercase=False) -> GenomicWindows:
    """Fixed-width windows centred on the summits (narrowPeak) or centres of BED regions.

    Parameters
    ----------
    bed : str, path-like or pandas.DataFrame
        A BED3/BED6/narrowPeak file or a table from :func:`seqimp.io.read_bed`.
    genome : str, path-like or pyfaidx.Fasta
        Genome FASTA (plain or bgzip), see :func:`open_genome`.
    width : int
        Window width in nt. The summit (``start + column 10``) or the region centre
        (``(start + end) // 2``) becomes 0-based index ``width // 2`` of the window sequence.
    alphabet : {"dna", "rna"}, default="dna"
    name : str, optional
        Option name for messages (``--positive-bed``).
    mask_lowercase : bool, default=False
        Read the genome's lower-case (soft-masked, repeat) bases as unknown.

    Returns
    -------
    GenomicWindows
        Codes (n, width); rows on the '-' strand are reverse-complemented; '.' counts as '+'.
        N and the other IUPAC codes are kept as the unknown code (4; one log line counts the
        windows and bases). Regions whose window runs off the chromosome, whose chromosome is
        not in the genome, or whose window holds a byte that is no IUPAC letter are dropped and
        counted in ``.dropped`` (keys :data:`DROP_REASONS`; ``ambiguous_base`` counts the
        last).

    Raises
    ------
    SeqimpError
        When no window is left (the message gives the counts by reason).
    """
    alpha = require_dna(alphabet, "cutting windows from a genome", rna_ok=True)
    width = check_int(width, "--width")
    table = bed if isinstance(bed, pd.DataFrame) else read_bed(bed, name=name)
    fa = open_genome(genome)
    lengths = _chrom_lengths(fa)
    source = table.attrs.get("source", name or "BED")
    longest = max(lengths.items(), key=lambda item: item[1], default=(None, 0))
    if width > longest[1]:  # before any allocation: no window can fit
        raise SeqimpError(f"--width {width:,}: longer than every chromosome of the genome (the longest, "
                          f"{longest[0]!r}, has {longest[1]:,} bases)")
    need = len(table) * width
    if need > available_memory():
        raise SeqimpError(f"--width {width:,}: {len(table):,} windows of {width:,} bases need {format_size(need)}, "
                          f"more than the {format_size(available_memory())} of memory available; "
                          "use a smaller --width or fewer regions")
    ws, minus = _window_starts(table, width)
    chroms = table["chrom"].to_numpy(object)
    known = np.array([c in lengths for c in chroms], dtype=bool)
    warn_chr_prefix(chroms[~known], lengths, source)
    chrom_len = np.array([lengths.get(c, 0) for c in chroms], dtype=np.int64)
    inside = known & (ws >= 0) & (ws + width <= chrom_len)
    codes = np.full((len(table), width), INVALID, dtype=np.uint8)
    for chrom in pd.unique(chroms[inside]):
        rows = np.flatnonzero(inside & (chroms == chrom))
        codes[rows] = _fetch(fa, chrom, ws[rows], width, alpha, mask_lowercase)
    clean = inside & (codes != INVALID).all(axis=1)
    dropped = {"unknown_chromosome": int(np.count_nonzero(~known)),
               "off_chromosome": int(np.count_nonzero(known & ~inside)),
               "ambiguous_base": int(np.count_nonzero(inside & ~clean))}
    if not clean.any():
        missing = next((c for c in chroms if c not in lengths), None)
        hint = f"; e.g. chromosome {missing!r} is not in the genome" if missing is not None else ""
        raise SeqimpError(f"{source}: no window of width {width} is left (dropped: "
                          + ", ".join(f"{k} {v}" for k, v in dropped.items()) + f"){hint}")
    keep = np.flatnonzero(clean)
    codes = codes[keep]
    minus_keep = minus[keep]
    if minus_keep.any():
        codes[minus_keep] = reverse_complement_codes(codes[minus_keep], alpha)
    strand = np.where(minus_keep, "-", "+").astype(object)
    coords = pd.DataFrame({
        "chrom": chroms[keep],
        "start": ws[keep],
        "end": ws[keep] + width,
        "strand": strand,
        "name": table["name"].to_numpy(object)[keep] if "name" in table.columns else
        [f"region{i + 1}" for i in keep],
    })
    ids = [f"{c}:{s}-{e}({st})" for c, s, e, st in zip(coords["chrom"], coords["start"], coords["end"], strand)]
    log_unknown(source, codes, alpha, masked=mask_lowercase)
    return GenomicWindows(codes, ids, alpha, str(source), coords=coords, dropped=dropped)


def warn_chr_prefix(unknown, lengths, source) -> None:
    """One warning (shown even with ``-q``) when chromosome names of ``source`` that the genome
    lacks are in it with the ``chr`` prefix added or removed ('1' vs 'chr1'): those regions are
    dropped, and the warning gives the command that renames them."""
    unknown = pd.unique(np.asarray(unknown, dtype=object))
    if not len(unknown):
        return
    add = [c for c in unknown if f"chr{c}" in lengths]
    drop = [c for c in unknown if str(c).startswith("chr") and str(c)[3:] in lengths]
    if not add and not drop:
        return
    example = add[0] if add else drop[0]
    other = f"chr{example}" if add else str(example)[3:]
    fix = (f"awk 'BEGIN{{OFS=\"\\t\"}} !/^(#|track|browser)/{{$1=\"chr\"$1}} 1' {source} > renamed.bed" if add else
           f"sed 's/^chr//' {source} > renamed.bed")
    warnings.warn(f"{source}: {len(add) + len(drop)} chromosome name(s) are not in the genome, which names them "
                  f"{'with' if add else 'without'} the 'chr' prefix (e.g. {example!r} is {other!r} there); "
                  f"their regions are dropped; rename them: {fix}", UserWarning, stacklevel=3)


def _merge(starts, ends):
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    if s.size == 0:
        return s, e
    # merge overlapping or touching intervals
    run_end = np.maximum.accumulate(e)
    new = np.ones(s.size, dtype=bool)
    new[1:] = s[1:] > run_end[:-1]
    group = np.cumsum(new) - 1
    ms = s[new]
    me = np.zeros(ms.size, dtype=np.int64)
    np.maximum.at(me, group, e)
    return ms, me


def _overlaps(bs, be, s, width):
    """Whether [s, s + width) overlaps any merged interval [bs, be) (vectorised over s)."""
    i = np.searchsorted(bs, s + width, side="left") - 1
    return (i >= 0) & (be[np.maximum(i, 0)] > s)


def _gc_bin(codes, bins):
    known = np.maximum(np.count_nonzero(codes < 4, axis=1), 1)
    gc = np.count_nonzero(np.isin(codes, (1, 2)), axis=1) / known
    return np.minimum((gc * bins).astype(np.int64), bins - 1)


def genome_negatives(positives, genome, *, per_positive=1, gc_bins=20, exclude=None, random_state=None,
                     max_rounds=50, mask_lowercase=False) -> GenomicWindows:
    """Random GC-matched genomic windows from the positives' chromosomes, not overlapping them.

    For every positive window, ``per_positive`` negatives of the same width are drawn on the
    same chromosome whose GC fraction (of the known bases) falls in the same of ``gc_bins``
    equal-width bins of [0, 1]. Candidates are uniform start positions; those overlapping a
    positive window, a region in ``exclude`` or an earlier negative, or holding N or another
    letter that is no base (assembly gaps), are rejected: negatives are drawn, not given.

    Parameters
    ----------
    positives : GenomicWindows
        From :func:`extract_windows`.
    genome : str, path-like or pyfaidx.Fasta
    per_positive : int, default=1
    gc_bins : int, default=20
        Bins of width 0.05 in GC fraction.
    exclude : pandas.DataFrame, optional
        More regions (``chrom, start, end``) to avoid, e.g. the full BED regions from
        :func:`seqimp.io.read_bed` when they are wider than the windows.
    random_state : int, Generator or None
        ``None`` is the fixed default seed 0: the same call gives the same windows.
    max_rounds : int, default=50
        Rounds of candidate draws per chromosome; quotas still open after them are counted
        in ``dropped["gc_unmatched"]``.
    mask_lowercase : bool, default=False
        Read the drawn windows' soft-masked (lower-case) bases as unknown, as the positives were
        read (``extract_windows(mask_lowercase=True)``); a window is still rejected for an
        assembly gap (N), not for a masked repeat.

    Returns
    -------
    GenomicWindows
        Strand '+', names ``neg1, neg2, ...`` (``coords["matched"]`` is the 0-based row of the
        positive each negative matches); ``dropped = {"gc_unmatched": m}``.
    """
    if not isinstance(positives, GenomicWindows):
        raise SeqimpError("genome_negatives: positives must be GenomicWindows (from extract_windows)")
    per_positive = check_int(per_positive, "per_positive")
    gc_bins = check_int(gc_bins, "gc_bins")
    max_rounds = check_int(max_rounds, "max_rounds")
    rng = check_random_state(random_state)
    fa = open_genome(genome)
    lengths = _chrom_lengths(fa)
    alpha, width = positives.alphabet, positives.width
    pos_bin = _gc_bin(positives.codes, gc_bins)
    blocks = [positives.coords[["chrom", "start", "end"]]]
    if exclude is not None:
        blocks.append(exclude[["chrom", "start", "end"]])
    blocked_all = pd.concat(blocks, ignore_index=True)
    out_codes, out_rows = [], []
    unmatched = 0
    pos_chroms = positives.coords["chrom"].to_numpy(object)
    for chrom in pd.unique(pos_chroms):   # in order of first appearance: deterministic
        rows = np.flatnonzero(pos_chroms == chrom)
        # quota[b] lists the positives (repeated per_positive times) waiting for a negative in GC bin b
        quota = {}
        for r in np.repeat(rows, per_positive):
            quota.setdefault(int(pos_bin[r]), []).append(int(r))
        need = sum(len(v) for v in quota.values())
        sel = blocked_all["chrom"].to_numpy(object) == chrom
        bs, be = _merge(blocked_all["start"].to_numpy(np.int64)[sel], blocked_all["end"].to_numpy(np.int64)[sel])
        span = lengths[chrom] - width
        for _ in range(max_rounds):
            if need == 0 or span < 0:
                break
            cand = np.sort(rng.integers(0, span + 1, size=max(64, 8 * need)))
            cand = cand[~_overlaps(bs, be, cand, width)]
            if cand.size == 0:
                continue
            codes = _fetch(fa, chrom, cand, width, alpha)
            ok = (codes < alpha.size).all(axis=1)
            cand, codes = cand[ok], codes[ok]
            if mask_lowercase and cand.size:  # the repeats of windows without a gap, unknown as in the positives
                codes = _fetch(fa, chrom, cand, width, alpha, mask_lowercase=True)
            bins = _gc_bin(codes, gc_bins)
            order = rng.permutation(cand.size)   # accept in random order, not left to right
            taken_s = []                          # starts taken this round, sorted
            for i in order:
                waiting = quota.get(int(bins[i]))
                if not waiting:
                    continue
                s = int(cand[i])
                at = bisect.bisect_left(taken_s, s)
                if (at > 0 and s - taken_s[at - 1] < width) or (at < len(taken_s) and taken_s[at] - s < width):
                    continue
                taken_s.insert(at, s)
                out_codes.append(codes[i])
                out_rows.append((chrom, s, waiting.pop(0)))
                need -= 1
                if need == 0:
                    break
            if taken_s:
                t = np.asarray(taken_s, dtype=np.int64)
                bs, be = _merge(np.concatenate([bs, t]), np.concatenate([be, t + width]))
        unmatched += need
    if not out_rows:
        raise SeqimpError(f"genome_negatives: no GC-matched window found on {', '.join(pd.unique(pos_chroms))} "
                          f"(chromosomes too short or covered by the positives?)")
    coords = pd.DataFrame({
        "chrom": pd.Series([r[0] for r in out_rows], dtype=object),
        "start": np.array([r[1] for r in out_rows], dtype=np.int64),
        "end": np.array([r[1] for r in out_rows], dtype=np.int64) + width,
        "strand": pd.Series(["+"] * len(out_rows), dtype=object),
        "name": pd.Series([f"neg{i + 1}" for i in range(len(out_rows))], dtype=object),
        "matched": np.array([r[2] for r in out_rows], dtype=np.int64),
    })
    ids = [f"{c}:{s}-{e}(+)" for c, s, e in zip(coords["chrom"], coords["start"], coords["end"])]
    return GenomicWindows(np.stack(out_codes), ids, alpha, "genome negatives", coords=coords,
                          dropped={"gc_unmatched": int(unmatched)})


def oligomer_hits(sequences, table, *, alphabet=None) -> pd.DataFrame:
    """Where ranked positional oligomers occur in the sequences (for BED output of top hits).

    Parameters
    ----------
    sequences : SequenceSet, GenomicWindows or ndarray of shape (n, L)
    table : pandas.DataFrame or Table
        Columns ``oligomer`` and ``position`` (1-based start), e.g. ``POIMResult.top(n)``.
    alphabet : optional
        Defaults to the SequenceSet's alphabet (DNA for a bare array).

    Returns
    -------
    pandas.DataFrame
        One row per (sequence, oligomer) occurrence at the oligomer's position (a window
        holding an unknown letter there is no occurrence): ``window``
        (0-based sequence row), ``position`` (1-based), ``length``, ``oligomer``. Feed to
        :func:`seqimp.io._bed.hits_to_bed` with ``name=hits["oligomer"]``.
    """
    alpha = get_alphabet(alphabet if alphabet is not None else getattr(sequences, "alphabet", "dna"))
    codes = np.asarray(getattr(sequences, "codes", sequences))
    if hasattr(table, "to_pandas"):
        table = table.to_pandas()
    L = codes.shape[1]
    parts = []
    for oligo, pos in zip(table["oligomer"], table["position"]):
        k, p = len(oligo), int(pos) - 1
        if p < 0 or p + k > L:
            raise SeqimpError(f"oligomer_hits: {oligo} at position {pos} does not fit sequences of length {L}")
        idx = np.zeros(codes.shape[0], dtype=np.int64)
        for t in range(k):
            idx = idx * alpha.size + codes[:, p + t]
        known = (codes[:, p:p + k] < alpha.size).all(axis=1)
        rows = np.flatnonzero((idx == kmer_index(oligo, alpha)) & known)
        parts.append(pd.DataFrame({"window": rows, "position": np.full(rows.size, p + 1, np.int64),
                                   "length": np.full(rows.size, k, np.int64),
                                   "oligomer": pd.Series([oligo] * rows.size, dtype=object)}))
    if not parts:
        return pd.DataFrame({"window": np.zeros(0, np.int64), "position": np.zeros(0, np.int64),
                             "length": np.zeros(0, np.int64), "oligomer": pd.Series([], dtype=object)})
    return pd.concat(parts, ignore_index=True)
