"""Where a run's sequences come from: a FASTA pair, regions of a BED file cut from a genome
(with given, shuffled or genomic negatives), or a table of sequences with measured values.

The subcommands add its options (``add_input_options``) and read their sequences with
``read_inputs``; it uses the argument types of :mod:`seqimp.cli._options`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ._logging import UserError, log
from ._options import add_mask_option, details, mask_option, position_origin, positive_float, positive_int, read_pair

__all__ = ["Inputs", "Records", "add_input_options", "read_inputs", "read_records", "read_motif_source", "ALPHABETS",
           "default_negatives", "read_motif_inputs", "TABLE_HELP"]

ALPHABETS = ("dna", "rna", "protein")


@dataclass
class Records:
    """FASTA records of any lengths, as read (what ``seqimp scan`` and ``seqimp enrich`` take).

    ``ids``: the record ids; ``sequences``: the sequences as strings (upper case; letters
    other than A, C, G, T/U are kept, and the windows holding them are not scored; with
    ``--mask-lowercase`` soft-masked letters are N); ``source``: the file.
    """

    ids: list = field(default_factory=list)
    sequences: list = field(default_factory=list)
    source: str | None = None

    def __len__(self) -> int:
        return len(self.sequences)


def read_records(path, option, *, mask_lowercase=False, alphabet="dna", skip_invalid=None) -> Records:
    """The records of a FASTA file (plain or gzip) of any lengths; a file without a sequence is
    a one-line error naming ``option``. ``mask_lowercase``: lower-case letters of ``alphabet``
    are written N. Records holding N or another IUPAC code are counted in one log line. A letter
    outside the alphabet and its IUPAC codes (U in DNA is T, as the scan reads it) is a one-line
    error naming the file, the record, the 1-based position and the letter; with
    ``skip_invalid`` (``--skip-invalid``) its record is left out and counted in a log line (None:
    the command has no such option, and the error does not offer it)."""
    import numpy as np

    from ..errors import check_file
    from ..io import get_alphabet
    from ..io._alphabet import INVALID, describe_char, symbol_bytes
    from ..io._fasta import iter_fasta
    from ..io._unknown import log_counts, mask_text, unknown_words

    alpha = get_alphabet(alphabet)
    path = check_file(path, option, expected="a FASTA file")
    ids, seqs = [], []
    records = bases = skipped = 0
    for rid, seq in iter_fasta(path):
        seq = mask_text(seq, alpha, mask_lowercase).upper()
        raw = np.frombuffer(symbol_bytes(seq), np.uint8)
        codes = alpha.lut[raw]
        wrong = np.flatnonzero((codes == INVALID) & ~((raw == ord("U")) & (alpha.name == "dna")))  # U: T
        if wrong.size:
            if skip_invalid:
                skipped += 1
                continue
            at = int(wrong[0])
            hint = "; --skip-invalid leaves such records out" if skip_invalid is not None else ""
            # the words of the library's reader (seqimp.io._any_length): the same fault reads the same
            raise UserError(f"{option} {path}: record {rid!r}: invalid symbol {describe_char(seq[at])} at position "
                            f"{at + 1} (alphabet {alpha.name}: {alpha.symbols}); {unknown_words(alpha)[1]} "
                            f"({alpha.ambiguous}) are read as unknown{hint}")
        ids.append(rid)
        seqs.append(seq)
        unknown = int(np.count_nonzero(codes == alpha.unknown))
        records, bases = records + bool(unknown), bases + unknown
    if skipped:
        log(f"{option} {path}: {skipped} record(s) with letters outside the {alpha.name} alphabet and its IUPAC "
            "codes left out (--skip-invalid)")
    if not any(seqs):
        raise UserError(f"{option} {path}: the records hold no sequence")
    log_counts(f"{option} {path}", len(seqs), records, bases, alpha, masked=mask_lowercase)
    return Records(ids, seqs, str(path))


def read_motif_source(spec, db_format, option):
    """The known motifs of ``--motifs``/``--db`` (:func:`seqimp.motifs.load_database`: a motif
    file, a run folder or a JASPAR release), logged with what they are -- the file, or the
    JASPAR release, collection and tax group -- on every run."""
    from ..motifs import load_database

    database = load_database(spec, db_format)
    log(f"{option}: {database.label}" + (f" -- {database.info['attribution']}"
                                         if database.info.get("attribution") else ""))
    return database


def _shuffled_records(records, seed) -> Records:
    """Dinucleotide-preserving shuffles of records of any lengths (one per record, ids
    ``{id}_shuffle1``), from one random generator seeded by ``seed``: N and the other IUPAC codes
    stay in place (written N) and every stretch of bases between them is shuffled on its own.
    Records holding other letters (or shorter than 2) have no shuffle; the log says how many."""
    import numpy as np

    from ..errors import check_random_state
    from ..io import DNA, dinucleotide_shuffle

    rng = check_random_state(seed)
    lut = DNA.lut.copy()
    lut[np.frombuffer(b"Uu", np.uint8)] = 3
    ids, out = [], []
    for rid, seq in zip(records.ids, records.sequences):
        x = lut[np.frombuffer(seq.encode("latin-1", "replace"), np.uint8)]
        if (x > DNA.unknown).any() or x.size < 2:
            continue
        ids.append(f"{rid}_shuffle1")
        out.append("".join("ACGTN"[c] for c in dinucleotide_shuffle(x[None, :], random_state=rng)[0]))
    if len(out) < len(records):
        log(f"--negatives shuffle: {len(records) - len(out)} of {len(records)} records hold letters that are neither "
            "bases nor IUPAC codes (or fewer than 2) and have no shuffle", always=True)
    if not out:
        raise UserError("--negatives shuffle: no record of --positive can be shuffled (each holds letters that are "
                        "neither bases nor IUPAC codes)")
    return Records(ids, out, "dinucleotide shuffles")


@dataclass
class Inputs:
    """The sequences of a run and what travels with them.

    ``positive``/``negative``: SequenceSets (None where not given; for a table with a binary
    label column, its two classes); ``table``: the MeasuredSequences of ``--table``;
    ``windows``: the positives' GenomicWindows (BED input); ``dropped``: records dropped by
    reason (negatives' reasons prefixed ``negative_``); ``origin``: the 1-based position shown
    as +1 (``--position-origin``, or the window centre for BED input).
    """

    positive: object = None
    negative: object = None
    table: object = None
    windows: object = None
    dropped: dict | None = None
    origin: int | None = None
    alphabet: str = "dna"

    @property
    def regression(self) -> bool:
        """A table whose value column is not a binary label: the WD regressor route."""
        return self.table is not None and not self.table.binary


#: ``--table``'s help by what the command does with the table (each command says only what it does).
TABLE_HELP = {
    "classifier or regressor": "a binary label trains the classifier, other numbers the WD regressor",
    "classifier": "a binary label column (two values) gives the positives and the negatives",
    "sequences": "the sequences of its sequence column are scanned (--value-column names any column of it)",
}


def add_input_options(p, *, table="classifier or regressor", regression=True, alphabet=True, origin=True,
                      negatives=True, alphabets=ALPHABETS, fasta_width=False) -> None:
    """The BED options (``negatives``: with ``--negative-bed``), (``alphabet``) ``--alphabet`` among
    ``alphabets``, (``origin``) ``--position-origin``, (``table``: what the command does with it, a key of
    :data:`TABLE_HELP`; None: no table) the table options and (``regression``) ``--alpha``;
    ``fasta_width``: ``--width`` also cuts centred windows of FASTA records ('seqimp motifs').
    :func:`read_inputs` takes the defaults (DNA, positions 1..L or the window centre) for the options left out."""
    g = p.add_argument_group("input: regions on a genome" + (", a table" if table else "")
                             + (", alphabet" if alphabet else "") + (", positions" if origin else ""))
    details(g.add_argument("--positive-bed", metavar="PEAKS.bed",
                           help="positive regions (BED/narrowPeak): --width windows cut from --genome"),
            "BED3/BED6/narrowPeak, plain or gzip. Windows of --width nt centred on the summit (narrowPeak column 10) "
            "or the region centre, reverse-complemented on '-' rows; windows off a chromosome are dropped, N in a "
            "window is read as an unknown base.")
    if negatives:
        g.add_argument("--negative-bed", metavar="BG.bed", help="negative regions, cut like --positive-bed")
    g.add_argument("--genome", metavar="GENOME.fa", help="genome FASTA, plain or bgzip (.fai index made if missing)")
    width = g.add_argument("--width", type=positive_int, metavar="W",
                           help="window width in nt: required with BED input" if not fasta_width else
                           "window width in nt (BED input; FASTA: the central W nt of every record)")
    if fasta_width:
        details(width, "Required with BED input. With FASTA, the central W nt of every record: records of "
                       "different lengths for the positional model.")
    if origin:
        details(g.add_argument("--position-origin", type=position_origin, metavar="N",
                               help="position shown as +1 in outputs (default: BED window centre, else 1)"),
                "The position shown as +1 in tables, figures and the report; the one before it is -1 (there is "
                "no 0). Default: the window centre for BED input, plain 1..L otherwise.")
    add_mask_option(g)
    if alphabet:
        rna = "; rna reads U as T" if "protein" not in alphabets else ""
        action = g.add_argument("--alphabet", choices=alphabets, default="dna",
                                help="sequence alphabet of FASTA and table input (default dna" + rna + ")")
        if "protein" in alphabets:
            details(action, "BED input, the sampled routes and reverse complements need DNA.")
    if table:
        # in the same group: a group costs --help two lines (issue 59)
        action = g.add_argument("--table", metavar="DATA.tsv",
                                help=f"TSV/CSV (plain or gzip) with a sequence and a value column: {TABLE_HELP[table]}")
        if regression:
            details(action, "A value column of two labels gives the positives and the negatives (the classifier); "
                            "any other numbers train the WD regressor, which reports held-out R^2 and Spearman's "
                            "correlation.")
        g.add_argument("--sequence-column", default="sequence", metavar="NAME",
                       help="column of --table holding the sequences (default 'sequence')")
        g.add_argument("--value-column", metavar="NAME", help="column of --table holding the values (required)")
        if regression:
            g.add_argument("--alpha", type=positive_float, default=1.0,
                           help="ridge penalty of the WD regressor (default 1)")


def _given(args, *names):
    return [f"--{n.replace('_', '-')}" for n in names if getattr(args, n, None) is not None]


def _drop_text(dropped) -> str:
    total = sum(dropped.values())
    return f"dropped {total}" + (": " + ", ".join(f"{k} {v}" for k, v in dropped.items()) if total else "")


def refuse_protein(args, why):
    """A UserError for ``--alphabet protein`` in a command that works on DNA motifs; ``why`` ends the line."""
    if getattr(args, "alphabet", "dna") == "protein":
        raise UserError(f"--alphabet protein: {why}")


def read_inputs(args, *, any_length=False) -> Inputs:
    """The run's sequences from the parsed options (a FASTA pair through ``read_pair``).

    ``any_length``: FASTA input (``--fasta``, ``--positive``/``--negative``) is read as
    :class:`Records` of any lengths (``seqimp scan``, ``seqimp enrich``), not as equal-length
    SequenceSets. Every conflict or missing companion option is a UserError naming the
    options; the counts of windows and drops go to the log as one line.
    """
    alphabet = getattr(args, "alphabet", "dna")
    sources = _given(args, "positive", "positive_bed", "table", "fasta")
    if len(sources) > 1:
        raise UserError(f"{sources[0]} and {sources[1]} both give the sequences; use one")
    negatives = _given(args, "negative", "negative_bed", "negatives")
    if len(negatives) > 1:
        raise UserError(f"{negatives[0]} and {negatives[1]} both give the negative sequences; use one")
    origin = getattr(args, "position_origin", None)
    if getattr(args, "table", None) is not None:
        return _read_table(args, negatives, alphabet, origin)
    if getattr(args, "value_column", None) is not None:
        raise UserError("--value-column is for --table input")
    if getattr(args, "positive_bed", None) is None:
        stray = _given(args, "genome", "width", "negative_bed")
        if stray:
            raise UserError(f"{stray[0]} is for BED input: give --positive-bed PEAKS.bed")
        if getattr(args, "negatives", None) == "genome":
            raise UserError("--negatives genome draws windows from --genome around --positive-bed regions; give them")
        if getattr(args, "fasta", None) is not None:
            if negatives:
                raise UserError(f"--fasta gives the sequences to scan; {negatives[0]} does not apply")
            return Inputs(read_records(args.fasta, "--fasta", mask_lowercase=mask_option(args), alphabet=alphabet,
                                       skip_invalid=getattr(args, "skip_invalid", None)),
                          origin=origin, alphabet=alphabet)
        if any_length:
            return _read_records_pair(args, origin, alphabet)
        pos, neg = read_pair(args)
        if getattr(args, "negatives", None) == "shuffle":
            if pos is None:
                raise UserError("--negatives shuffle needs positive sequences (--positive or --positive-bed)")
            neg = _shuffled(args, pos)
            log(f"negatives: {len(neg)} dinucleotide-preserving shuffles of --positive {args.positive}")
        return Inputs(pos, neg, origin=origin, alphabet=alphabet)
    return _read_bed(args, alphabet, origin)


def _read_records_pair(args, origin, alphabet) -> Inputs:
    """``--positive``/``--negative`` (or ``--negatives shuffle``) as Records of any lengths."""
    from pathlib import Path

    if getattr(args, "positive", None) and getattr(args, "negative", None) and Path(args.positive).is_file() \
            and Path(args.negative).is_file() and Path(args.positive).samefile(args.negative):
        raise UserError(f"--positive and --negative are the same file ({args.negative}); enrichment needs two "
                        "different sets")
    skip = getattr(args, "skip_invalid", None)
    pos = read_records(args.positive, "--positive", mask_lowercase=mask_option(args), alphabet=alphabet,
                       skip_invalid=skip) if getattr(args, "positive", None) else None
    neg = read_records(args.negative, "--negative", mask_lowercase=mask_option(args), alphabet=alphabet,
                       skip_invalid=skip) if getattr(args, "negative", None) else None
    if getattr(args, "negatives", None) == "shuffle":
        if pos is None:
            raise UserError("--negatives shuffle needs positive sequences (--positive or --positive-bed)")
        neg = _shuffled_records(pos, args.seed)
        log(f"negatives: {len(neg)} dinucleotide-preserving shuffles of --positive {args.positive}")
    return Inputs(pos, neg, origin=origin, alphabet=alphabet)


def _shuffled(args, pos):
    from ..io import shuffle_negatives

    return shuffle_negatives(pos, random_state=args.seed)


def _read_bed(args, alphabet, origin) -> Inputs:
    from ..io import extract_windows, read_bed
    from ..io import genome_negatives

    missing = [o for o, v in (("--genome GENOME.fa", args.genome), ("--width W", args.width)) if v is None]
    if missing:
        raise UserError(f"--positive-bed needs {' and '.join(missing)}")
    regions = read_bed(args.positive_bed, name="--positive-bed")
    pos = extract_windows(regions, args.genome, args.width, alphabet=alphabet, name="--positive-bed",
                          mask_lowercase=mask_option(args))
    dropped = dict(pos.dropped)
    line = f"--positive-bed {args.positive_bed}: {len(pos)} windows of {args.width} nt ({_drop_text(pos.dropped)})"
    neg = None
    if getattr(args, "negative_bed", None) is not None:
        neg = extract_windows(args.negative_bed, args.genome, args.width, alphabet=alphabet, name="--negative-bed",
                              mask_lowercase=mask_option(args))
        line += f"; --negative-bed {args.negative_bed}: {len(neg)} windows ({_drop_text(neg.dropped)})"
    elif getattr(args, "negatives", None) == "shuffle":
        neg = _shuffled(args, pos)
        line += f"; negatives: {len(neg)} dinucleotide-preserving shuffles"
    elif getattr(args, "negatives", None) == "genome":
        neg = genome_negatives(pos, args.genome, exclude=regions, random_state=args.seed,
                               mask_lowercase=mask_option(args))
        line += f"; negatives: {len(neg)} GC-matched genomic windows ({_drop_text(neg.dropped)})"
    if neg is not None:
        dropped.update({f"negative_{k}": v for k, v in getattr(neg, "dropped", {}).items()})
    log(line)
    return Inputs(pos, neg, windows=pos, dropped=dropped, origin=pos.origin if origin is None else origin,
                  alphabet=alphabet)


def _read_table(args, negatives, alphabet, origin) -> Inputs:
    from ..io import read_sequence_table

    if negatives:
        raise UserError(f"--table holds all the sequences; {negatives[0]} cannot be added to it")
    if args.value_column is None:
        raise UserError("--table needs --value-column NAME (and --sequence-column NAME, default 'sequence')")
    skip = getattr(args, "skip_invalid", False)
    data = read_sequence_table(args.table, sequence_column=args.sequence_column, value_column=args.value_column,
                               alphabet=alphabet, on_invalid="skip" if skip else "error",
                               mask_lowercase=mask_option(args))
    kind = (f"labels {data.classes[1]!r} (positive) and {data.classes[0]!r}" if data.binary
            else "measured values")
    log(f"--table {args.table}: {len(data)} sequences of length {data.length} with {kind}"
        + (f" ({_drop_text(data.dropped)})" if skip else ""))
    pos = neg = None
    if data.binary:
        pos, neg = data.subset(data.values == 1), data.subset(data.values == 0)
    return Inputs(pos, neg, table=data, dropped=dict(data.dropped) if skip else None, origin=origin,
                  alphabet=alphabet)



def default_negatives(args, command) -> None:
    """Positives without negatives (no --negative, --negative-bed, --negatives, --table): dinucleotide
    shuffles of the positives, as STREME and SEA take them; the log says so."""
    given = _given(args, "negative", "negative_bed", "negatives", "table")
    if given or (getattr(args, "positive", None) is None and getattr(args, "positive_bed", None) is None):
        return
    args.negatives = "shuffle"
    log(f"{command}: no negatives given: the controls are dinucleotide-preserving shuffles of the positives "
        f"(seed {args.seed}; give --negative NEG.fa for others)")


def read_motif_inputs(args) -> Inputs:
    """'seqimp motifs' input: as :func:`read_inputs`, and FASTA records of any lengths -- with
    ``--width W`` the central W nt of every record (the positional model), else, where the lengths
    differ, every record padded to the longest with unknown bases (the position-free model,
    :func:`seqimp.io._any_length.pad_records`); the log says which."""
    fasta = getattr(args, "positive", None) is not None and getattr(args, "table", None) is None
    if not fasta or getattr(args, "positive_bed", None) is not None:
        return read_inputs(args)
    stray = _given(args, "genome", "negative_bed")
    if stray:
        raise UserError(f"{stray[0]} is for BED input: give --positive-bed PEAKS.bed")
    if getattr(args, "negatives", None) == "genome":
        raise UserError("--negatives genome draws windows from --genome around --positive-bed regions; give them "
                        "(or --negatives shuffle with FASTA)")
    if args.negative and Path(args.positive).is_file() and Path(args.negative).is_file() \
            and Path(args.positive).samefile(args.negative):
        raise UserError(f"--positive and --negative are the same file ({args.negative}); the motifs are found by "
                        "comparing two different sets (leave --negative out for shuffled controls)")
    import numpy as np

    from ..io import SequenceSet
    from ..io._any_length import centred_windows, pad_records, read_any_length

    on_invalid = "skip" if args.skip_invalid else "error"
    sets = [(option, path, read_any_length(path, args.alphabet, on_invalid, mask_lowercase=mask_option(args)))
            for option, path in
            (("--positive", args.positive), ("--negative", args.negative)) if path is not None]
    lengths = [c.size for _o, _p, (_ids, codes, _s, _k) in sets for c in codes]
    low, high = min(lengths), max(lengths)
    described = f"records of {low}" + (f" to {high} nt" if high > low else " nt")
    out = []
    if args.width is not None:
        for option, path, (ids, codes, source, skipped) in sets:
            windows, short = centred_windows(ids, codes, args.width, alphabet="dna", source=source)
            windows.skipped = skipped
            out.append(windows)
            log(f"{option} {path}: {len(codes)} {described}: the central {args.width} nt of each, for the positional "
                "model" + (f" ({short} records shorter than {args.width} nt left out)" if short else ""))
    elif high == low:
        out = [SequenceSet(np.stack(codes), ids, "dna", source, skipped)
               for _o, _p, (ids, codes, source, skipped) in sets]
    else:
        if args.model in ("wd", "wds"):
            raise UserError(f"--model {args.model} reads positions, and --positive/--negative hold {described}: "
                            "add --width W (the central W nt of every record), or leave out --model for the "
                            "position-free model")
        if args.poim:
            raise UserError(f"--poim describes sequences of one length, and --positive/--negative hold {described}: "
                            "add --width W, W the POIM's length (the central W nt of every record)")
        out = pad_records([(ids, codes, source) for _o, _p, (ids, codes, source, _k) in sets], alphabet="dna")
        for padded, (_o, _p, (_i, _c, _s, skipped)) in zip(out, sets):
            padded.skipped = skipped
        log(f"{'/'.join(option for option, _p, _r in sets)}: {described}: the position-free (gkm) model, on every "
            f"record padded to {high} nt with unknown bases (N), which no word or site covers "
            "(--width W: the central W nt of every record, for the positional model)")
    pos = out[0]
    neg = out[1] if len(out) > 1 else None
    if getattr(args, "negatives", None) == "shuffle":
        neg = _shuffled(args, pos)
        neg.source = f"dinucleotide shuffles of --positive {args.positive} (seed {args.seed})"
        log(f"negatives: {len(neg)} dinucleotide-preserving shuffles of --positive {args.positive}")
    return Inputs(pos, neg, origin=getattr(args, "position_origin", None), alphabet=args.alphabet)
