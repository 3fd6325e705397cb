"""Variants from a VCF file: plain text, gzip or bgzip, read line by line.

Only the first five columns are read (CHROM, POS, ID, REF, ALT); samples, genotypes and
filters are not. A record is one allele change: REF replaced by ALT at the 1-based POS.
Sequence alleles only (A, C, G, T): SNVs, multi-base substitutions and indels whose alleles
are at most :data:`MAX_ALLELE` bases (an indel of up to 50 nt beside VCF's anchor base).
Symbolic alleles (``<DEL>``, breakends, ``*``) are refused, as are several ALTs on one line
unless ``split_multiallelic`` (each becomes a record, as ``bcftools norm -m -any`` makes them).

With ``regions`` and a bgzip-compressed VCF, the records in the regions can be read through
the VCF's tabix (``.tbi``) or CSI index, by pysam when it is installed (the optional extra
``vcf``: ``pip install 'seqimp[vcf]'``); without pysam the file is read whole and the same
records kept. The index is required in that case either way, so a run gives the same answer
with and without the extra.
"""

from __future__ import annotations

import gzip
import os
import re

import numpy as np
import pandas as pd

from ..errors import SeqimpError, check_file

__all__ = ["MAX_ALLELE", "MAX_INDEL", "VCF_COLUMNS", "read_vcf", "vcf_index"]

#: Columns of the table :func:`read_vcf` returns.
VCF_COLUMNS = ["chrom", "pos", "id", "ref", "alt", "line"]
#: The longest indel scored (bases inserted or deleted).
MAX_INDEL = 50
#: The longest allele: an indel of :data:`MAX_INDEL` bases and its anchor base.
MAX_ALLELE = MAX_INDEL + 1

_BASES = re.compile(r"^[ACGTacgt]+$")
_REF = re.compile(r"^[ACGTNacgtn]+$")


def _magic(path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(18)


def _is_bgzf(head: bytes) -> bool:
    return len(head) >= 18 and head[:4] == b"\x1f\x8b\x08\x04" and head[12:14] == b"BC"


def vcf_index(path) -> str | None:
    """The tabix (``.tbi``) or CSI (``.csi``) index next to ``path``, or None."""
    for suffix in (".tbi", ".csi"):
        if os.path.isfile(os.fspath(path) + suffix):
            return os.fspath(path) + suffix
    return None


def _symbolic(allele: str) -> bool:
    return allele.startswith("<") or "[" in allele or "]" in allele or allele == "*" or allele.startswith(".") \
        or allele.endswith(".")


def _records(lines, where, split, rows, skipped):
    """Parse ``(line_number, text)`` pairs into ``rows`` (dict of lists); ``line_number`` None: a
    record fetched through the index (messages name chrom:pos instead)."""
    for lineno, raw in lines:
        line = raw.rstrip("\r\n")
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        at = f"line {lineno}" if lineno is not None else f"record {f[0]}:{f[1] if len(f) > 1 else '?'}"
        if len(f) < 5:
            raise SeqimpError(f"{where}: {at}: a VCF record needs tab-separated CHROM, POS, ID, REF and ALT, "
                              f"got {len(f)} column{'s' if len(f) != 1 else ''}")
        chrom, pos, vid, ref, alt = (x.strip() for x in f[:5])
        if not chrom:
            raise SeqimpError(f"{where}: {at}: CHROM is empty")
        try:
            pos = int(pos)
        except ValueError:
            raise SeqimpError(f"{where}: {at}: POS must be a positive integer, got {f[1]!r}") from None
        if pos < 1:
            raise SeqimpError(f"{where}: {at}: POS must be a positive integer (1-based), got {pos}")
        if not _REF.match(ref):
            raise SeqimpError(f"{where}: {at}: REF must be bases (A, C, G, T, N), got {ref!r}")
        if alt == ".":
            skipped["no_alt"] += 1  # a reference-only record: nothing to score
            continue
        alts = alt.split(",")
        if len(alts) > 1 and not split:
            raise SeqimpError(f"{where}: {at}: {len(alts)} ALT alleles ({alt}); split them into one record each "
                              "(--split-multiallelic, or 'bcftools norm -m -any')")
        for a in alts:
            if _symbolic(a):
                raise SeqimpError(f"{where}: {at}: symbolic ALT allele {a!r}; seqimp scores sequence alleles "
                                  "(A, C, G, T) only: remove such records (e.g. 'bcftools view -V other')")
            if not _BASES.match(a):
                raise SeqimpError(f"{where}: {at}: ALT must be bases (A, C, G, T), got {a!r}")
            if max(len(ref), len(a)) > MAX_ALLELE:
                raise SeqimpError(f"{where}: {at}: allele of {max(len(ref), len(a))} bases; seqimp scores indels "
                                  f"of up to {MAX_INDEL} nt (alleles of at most {MAX_ALLELE} bases): remove longer "
                                  f"ones (e.g. 'bcftools view -e \"strlen(REF)>{MAX_ALLELE} || "
                                  f"strlen(ALT)>{MAX_ALLELE}\"')")
            if a.upper() == ref.upper():
                raise SeqimpError(f"{where}: {at}: ALT {a!r} equals REF")
            rows["chrom"].append(chrom)
            rows["pos"].append(pos)
            rows["id"].append(vid if vid else ".")
            rows["ref"].append(ref.upper())
            rows["alt"].append(a.upper())
            rows["line"].append(0 if lineno is None else lineno)


def _merged(regions):
    """Regions (``chrom, start, end``) merged per chromosome, chromosomes in order of appearance."""
    out = []
    for chrom in pd.unique(regions["chrom"].to_numpy(object)):
        sel = regions["chrom"].to_numpy(object) == chrom
        spans = sorted(zip(regions["start"].to_numpy(np.int64)[sel], regions["end"].to_numpy(np.int64)[sel]))
        cur_s, cur_e = spans[0]
        for s, e in spans[1:]:
            if s > cur_e:
                out.append((chrom, int(cur_s), int(cur_e)))
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        out.append((chrom, int(cur_s), int(cur_e)))
    return out


def read_vcf(path, *, regions=None, split_multiallelic=False, name="--vcf") -> pd.DataFrame:
    """Read the variants of a VCF file (plain, gzip or bgzip).

    Parameters
    ----------
    path : str or path-like
    regions : pandas.DataFrame, optional
        ``chrom, start, end`` (BED: 0-based, end exclusive). Only records whose REF lies in a
        region are kept. A bgzip-compressed VCF then needs its index (``.tbi`` or ``.csi``):
        with pysam installed only the regions are read through it.
    split_multiallelic : bool, default=False
        One record per ALT of a line with several; False: such a line is refused.
    name : str
        The option the file came from, for messages.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`VCF_COLUMNS`: ``chrom``, ``pos`` (1-based), ``id`` (``.`` when none),
        ``ref`` and ``alt`` (upper case), ``line`` (1-based line in the file; 0 for records read
        through the index). ``attrs["skipped"]``: records not kept, by reason (``no_alt``: ALT
        ``.``).

    Raises
    ------
    SeqimpError
        One line naming the file and the line: fewer than 5 columns, a POS that is not a
        positive integer, REF or ALT that are not bases, a symbolic allele, several ALTs
        (unless split), an allele longer than :data:`MAX_ALLELE`; a bgzip VCF with ``regions``
        and no index; a file with no record.
    """
    path = check_file(path, name, expected="a VCF file")
    where = f"{name} {path}" if name else str(path)
    head = _magic(path)
    gz = head[:2] == b"\x1f\x8b"
    rows = {c: [] for c in VCF_COLUMNS}
    skipped = {"no_alt": 0, "outside_regions": 0}
    index = vcf_index(path) if gz else None
    if regions is not None and _is_bgzf(head) and index is None:
        raise SeqimpError(f"{where}: bgzip-compressed without its index ({path}.tbi or .csi), which reading the "
                          f"records of --regions needs: make it with 'tabix -p vcf {path}' (or 'bcftools index -t "
                          f"{path}'), or give the VCF uncompressed")
    try:
        pysam = None
        if regions is not None and index is not None:
            try:
                import pysam
            except ImportError:
                pysam = None
        if pysam is not None:
            with pysam.TabixFile(os.fspath(path), index=index) as tbx:
                contigs = set(tbx.contigs)
                for chrom, start, end in _merged(regions):
                    if chrom in contigs:
                        _records(((None, line) for line in tbx.fetch(chrom, start, end)), where,
                                 split_multiallelic, rows, skipped)
        else:
            opener = gzip.open if gz else open
            with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
                _records(enumerate(fh, start=1), where, split_multiallelic, rows, skipped)
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise SeqimpError(f"{where}: cannot read ({exc})") from None
    table = pd.DataFrame({
        "chrom": pd.Series(rows["chrom"], dtype=object),
        "pos": np.asarray(rows["pos"], dtype=np.int64),
        "id": pd.Series(rows["id"], dtype=object),
        "ref": pd.Series(rows["ref"], dtype=object),
        "alt": pd.Series(rows["alt"], dtype=object),
        "line": np.asarray(rows["line"], dtype=np.int64),
    })
    if regions is not None and len(table):
        keep = _in_regions(table, regions)
        skipped["outside_regions"] = int(np.count_nonzero(~keep))
        table = table[keep].reset_index(drop=True)
        if pysam is not None:  # file order, as a read of the whole file gives
            table = table.drop_duplicates(["chrom", "pos", "ref", "alt", "id"]).reset_index(drop=True)
    if not len(table) and not skipped["outside_regions"]:
        raise SeqimpError(f"{where}: no variant records" + (f" ({skipped['no_alt']} with ALT '.')"
                                                             if skipped["no_alt"] else ""))
    table.attrs["skipped"] = skipped
    table.attrs["source"] = str(path)
    return table


def _in_regions(table, regions) -> np.ndarray:
    """Which records' REF spans lie inside one of the regions."""
    keep = np.zeros(len(table), dtype=bool)
    start = table["pos"].to_numpy(np.int64) - 1
    end = start + table["ref"].str.len().to_numpy(np.int64)
    chroms = table["chrom"].to_numpy(object)
    for chrom, s, e in _merged(regions):
        sel = chroms == chrom
        keep[sel] |= (start[sel] >= s) & (end[sel] <= e)
    return keep
