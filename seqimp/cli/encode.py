"""``seqimp encode``: stream FASTA files into an on-disk codes store for training at scale."""

from __future__ import annotations

import argparse

from ..errors import SeqimpError
from ._logging import UserError, progress_enabled
from ._options import add_mask_option, add_quiet, positive_int
from ._output_folder import check_output_path, input_paths, output_dir, owned_files

HELP = """\
Encode FASTA files (plain or gzip) chunk by chunk into a codes store: a folder with
codes.npy (n x L uint8, memory-mapped), labels.npy, ids.txt and meta.json. Training
and scoring read the store row by row without loading it whole
(seqimp.io.open_codes_store; docs/training-at-scale.md).

--out is a new or empty folder; --overwrite replaces an earlier codes store there and
nothing else (a folder holding other files is refused, and nothing is deleted).

N and the other IUPAC codes (protein: X, B, Z, J) are stored as the unknown code 4
(20 for protein); the log counts the records holding them. --mask-lowercase stores
soft-masked (lower-case) letters as unknown too.

examples:
  seqimp encode --fasta pos.fa.gz neg.fa.gz --labels 1 0 --out train.codes
  seqimp encode --fasta all.fa --labels labels.txt --out train.codes
"""


def register(sub) -> None:
    p = sub.add_parser("encode", help="stream FASTA into an on-disk codes store", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fasta", nargs="+", required=True, metavar="FA", help="FASTA files, read in order")
    p.add_argument("--labels", nargs="+", metavar="LABEL",
                   help="one number per FASTA file (e.g. 1 0), or one text file with a number per record")
    p.add_argument("--out", required=True, metavar="DIR", help="the store folder to create (new or empty)")
    p.add_argument("--alphabet", choices=["dna", "rna", "protein"], default="dna", help="alphabet (default dna)")
    p.add_argument("--skip-invalid", action="store_true",
                   help="drop records with symbols outside the alphabet and its ambiguity codes")
    add_mask_option(p)
    p.add_argument("--chunk-size", type=positive_int, default=100_000,
                   help="records encoded and written at a time (default 100000)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier codes store at --out (never anything else)")
    add_quiet(p)
    p.set_defaults(func=run)


def _labels(values):
    if values is None:
        return None
    try:
        return [float(v) for v in values]
    except ValueError:
        if len(values) == 1:
            return values[0]  # a labels file
        raise UserError(f"--labels: expected one number per FASTA file or one labels file, "
                        f"got {' '.join(values)}") from None


def run(args) -> int:
    from ..io import open_codes_store
    from ..io._store import STORE_FILES, check_store_out, fill_codes_store

    labels = _labels(args.labels)
    out = check_output_path(args.out)
    try:
        check_store_out(out, overwrite=args.overwrite, name="--out")
    except SeqimpError as exc:  # in the option's words
        raise UserError(str(exc).replace("overwrite=True", "--overwrite")) from None
    # an earlier store of the library (no manifest) is this command's to replace, file by file
    adopt = [] if owned_files(out, "encode") else [n for n in STORE_FILES if (out / n).is_file()]
    with output_dir(out, "encode", inputs=input_paths(args), group=(), adopt=adopt) as stage:
        fill_codes_store(args.fasta, stage, labels=labels, alphabet=args.alphabet,
                         on_invalid="skip" if args.skip_invalid else "error", chunk_size=args.chunk_size,
                         verbose=progress_enabled(), mask_lowercase=args.mask_lowercase)
    store = open_codes_store(out)
    print(f"{len(store):,} sequences of length {store.length} written to {store.path}")
    return 0
