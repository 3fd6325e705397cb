"""``seqimp inspect``: what is in a FASTA file."""

from __future__ import annotations

from ._options import add_mask_option, add_quiet

HELP = """\
Print the number of records, the sequence length (or the range of lengths when
they differ), the alphabet and the symbol composition of one or more FASTA
files (plain or .gz, also pipes such as /dev/stdin), the unknown bases (N and
the other IUPAC codes, read as unknown; with --mask-lowercase soft-masked
letters too) and the records holding them, the lower-case (soft-masked) bases
read as bases, and the symbols outside the alphabet and its codes: how many of
each and in how many records.

The alphabet is detected from the letters (DNA, RNA with U, protein with letters
such as E, F, I, L, P, Q that no nucleotide code uses) unless --alphabet names it;
the GC content is printed for DNA and RNA only.

examples:
  seqimp inspect data/demo_positive.fa
  seqimp inspect --alphabet protein proteins.fa.gz
  seqimp inspect --mask-lowercase hg38_peaks.fa  # count soft-masked repeats as unknown
  zcat reads.fa.gz | seqimp inspect /dev/stdin
"""


def register(sub) -> None:
    import argparse

    p = sub.add_parser("inspect", help="summarise FASTA files", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("fasta", nargs="+", metavar="FASTA", help="FASTA file(s), plain or gzip")
    p.add_argument("--alphabet", default="auto", choices=["auto", "dna", "rna", "protein"],
                   help="alphabet of the files (default auto: detected from the letters)")
    p.add_argument("--skip-invalid", action="store_true",
                   help="drop records with symbols outside the alphabet and its ambiguity codes instead of failing")
    add_mask_option(p)
    add_quiet(p)
    p.set_defaults(func=run)


def describe(summary) -> str:
    """Human-readable summary of :func:`seqimp.io._fasta.fasta_summary`'s dict."""
    from ..io._unknown import unknown_words

    alpha, comp = summary["alphabet"], summary["composition"]
    lo, hi = summary["min_length"], summary["max_length"]
    length = str(lo) if lo == hi else (f"{lo}..{hi} (lengths differ; positional methods need one common length: "
                                       "cut windows of one width from a genome with --positive-bed, --genome and "
                                       "--width, or trim the records)")
    lines = [
        f"file:        {summary['source']}",
        f"records:     {summary['records']}",
        f"length:      {length}",
        f"alphabet:    {alpha.name} ({alpha.symbols})" + _SOURCES.get(summary.get("alphabet_source"), ""),
        "composition: " + "  ".join(f"{s}={100 * f:.1f}%" for s, f in zip(alpha.symbols, comp)),
    ]
    if alpha.name in ("dna", "rna"):
        gc = comp[1] + comp[2]
        lines.append(f"GC content:  {100 * gc:.1f}%")
    what, letters = unknown_words(alpha)  # bases (residues), and the letters read as unknown
    if summary.get("unknown"):
        lines.append(f"unknown:     {summary['unknown']:,} {what if summary['unknown'] > 1 else what[:-1]} ({letters}"
                     + (", soft-masked lower case" if summary.get("masked") else "")
                     + f") in {summary['unknown_records']:,} of {summary['records']:,} records; read as unknown")
    if summary.get("lowercase"):
        lines.append(f"lower case:  {summary['lowercase']:,} {what if summary['lowercase'] > 1 else what[:-1]} in "
                     f"{summary['lowercase_records']:,} of {summary['records']:,} records (soft-masked repeats?), "
                     f"read as {what}; --mask-lowercase reads them as unknown")
    if summary.get("invalid"):
        symbols = "  ".join(f"{s}={n}" for s, n in sorted(summary["invalid"].items(), key=lambda t: (-t[1], t[0])))
        lines.append(f"other symbols: {symbols} in {summary['invalid_records']} of {summary['records']} records "
                     f"({_kind_of_symbols(summary['invalid'], alpha)})")
    if summary.get("skipped"):
        lines.append(f"skipped:     {summary['skipped']} records with symbols outside the alphabet (--skip-invalid)")
    if summary.get("duplicate_ids"):
        lines.append(f"duplicate ids: {summary['duplicate_ids']} records repeat an earlier record id")
    return "\n".join(lines)


#: How the alphabet line ends, by how the alphabet was chosen (``fasta_summary``'s ``alphabet_source``).
_SOURCES = {"detected": " -- detected from the letters; --alphabet to choose",
            "assumed": " -- assumed: the letters fit no alphabet exactly; --alphabet to choose"}

def _kind_of_symbols(invalid, alpha) -> str:
    """What the symbols outside the alphabet and its ambiguity codes are, and what to do: bytes that are
    not letters (not a text FASTA file), characters beyond ASCII, or letters of another alphabet."""
    symbols = set(invalid)
    beyond = {s for s in symbols if "U+" in s}  # é(U+00E9): characters beyond ASCII
    if any(len(s) > 1 and s not in beyond or not s.isprintable() or s.isspace() for s in symbols):  # 0x.. bytes
        return ("bytes that are not sequence letters: is this a text FASTA file? (binary or compressed "
                "other than gzip files are not read)")
    if beyond:
        return ("characters beyond ASCII, which no sequence alphabet has (a word processor's?): replace them, or "
                "drop those records with --skip-invalid")
    return (f"symbols outside the {alpha.name} alphabet; choose another with --alphabet, or drop those records "
            "with --skip-invalid")


def run(args) -> int:
    from ..io._fasta import fasta_summary

    on_invalid = "skip" if args.skip_invalid else "report"
    summaries = [{**fasta_summary(path, args.alphabet, on_invalid=on_invalid, mask_lowercase=args.mask_lowercase),
                  "masked": args.mask_lowercase} for path in args.fasta]
    print("\n\n".join(describe(s) for s in summaries))
    return 0
