"""``seqimp inspect``: what is in a FASTA file."""

from __future__ import annotations

from ..fasta import read_fasta

HELP = """\
Print the number of records, the sequence length, the alphabet and the symbol
composition of one or more FASTA files (plain or .gz).

examples:
  seqimp inspect data/demo_positive.fa
  seqimp inspect --alphabet protein proteins.fa.gz
  seqimp inspect --skip-invalid reads.fa      drop records with N, R, Y, ...
"""


def register(sub) -> None:
    import argparse

    p = sub.add_parser("inspect", help="summarise FASTA files", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("fasta", nargs="+", metavar="FASTA", help="FASTA file(s), plain or gzip")
    p.add_argument("--alphabet", default="dna", choices=["dna", "rna", "protein"])
    p.add_argument("--skip-invalid", action="store_true",
                   help="drop records with symbols outside the alphabet instead of failing")
    p.set_defaults(func=run)


def describe(seqset) -> str:
    """Human-readable summary of a SequenceSet."""
    comp = seqset.composition()
    lines = [
        f"file:        {seqset.source}",
        f"records:     {len(seqset)}",
        f"length:      {seqset.length}",
        f"alphabet:    {seqset.alphabet.name} ({seqset.alphabet.symbols})",
        "composition: " + "  ".join(f"{s}={100 * f:.1f}%" for s, f in zip(seqset.alphabet.symbols, comp)),
    ]
    if seqset.alphabet.name in ("dna", "rna"):
        gc = comp[1] + comp[2]
        lines.append(f"GC content:  {100 * gc:.1f}%")
    return "\n".join(lines)


def run(args) -> int:
    on_invalid = "skip" if args.skip_invalid else "error"
    sets = [read_fasta(path, args.alphabet, on_invalid=on_invalid) for path in args.fasta]
    print("\n\n".join(describe(s) for s in sets))
    return 0
