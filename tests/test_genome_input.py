"""BED regions cut from a genome: read_bed, extract_windows, hits_to_bed, genome_negatives."""

import gzip
import logging

import numpy as np
import pandas as pd
import pytest

from seqimp import SeqimpError
from seqimp.io import extract_windows, position_labels, read_bed
from seqimp.io._bed import hits_to_bed, write_bed
from seqimp.io._genome import GenomicWindows, genome_negatives, oligomer_hits

pytest.importorskip("pyfaidx")

SITE = "GATTACA"
RC = {"A": "T", "C": "G", "G": "C", "T": "A", "N": "N"}


def revcomp(s):
    return "".join(RC[c] for c in reversed(s))


def make_genome(tmp_path, seed=0):
    rng = np.random.default_rng(seed)
    chr1 = list("".join(rng.choice(list("ACGT"), size=1000)))
    chr2 = list("".join(rng.choice(list("ACGT"), size=600)))
    for p in (200, 500):                       # planted sites, + strand, 0-based starts
        chr1[p:p + 7] = SITE
    chr1[800:807] = revcomp(SITE)              # a site on the - strand
    chr2[300:310] = "N" * 10                   # an assembly gap
    seqs = {"chr1": "".join(chr1), "chr2": "".join(chr2)}
    path = tmp_path / "genome.fa"
    with open(path, "w") as fh:
        for name, s in seqs.items():
            fh.write(f">{name} test chromosome\n")
            for i in range(0, len(s), 60):
                fh.write(s[i:i + 60].lower() if name == "chr2" else s[i:i + 60])   # soft-masked chr2
                fh.write("\n")
    return path, seqs


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


PEAKS = (
    # chrom start end name score strand signal p q summit
    "track name=peaks\n"
    "chr1\t150\t300\tp1\t10\t+\t1\t1\t1\t53\n"        # summit 203 -> the site at 200..207
    "chr1\t450\t560\tp2\t5\t-\t1\t1\t1\t53\n"         # summit 503, - strand
    "chr1\t760\t860\tp3\t5\t-\t1\t1\t1\t43\n"         # summit 803 = centre of the - strand site 800..807
    "chr1\t0\t30\tedge\t1\t+\t1\t1\t1\t5\n"           # window runs off the start of chr1
    "chr2\t280\t340\tgap\t1\t+\t1\t1\t1\t25\n"        # window holds N: kept, N read as unknown
    "chrUn\t10\t90\tlost\t1\t+\t1\t1\t1\t40\n"        # not in the genome
)


def test_read_bed_formats(tmp_path):
    bed = read_bed(write(tmp_path, "a.narrowPeak", PEAKS))
    assert bed.attrs["format"] == "narrowPeak"
    assert list(bed.columns) == ["chrom", "start", "end", "name", "score", "strand", "summit", "line"]
    assert bed["summit"].tolist()[:3] == [53, 53, 43]
    assert bed["line"].tolist()[0] == 2                 # the track line is line 1
    bed3 = read_bed(write(tmp_path, "b.bed", "chr1 10 20\n\n# note\nchr2\t5\t9\n"))
    assert bed3.attrs["format"] == "bed3"
    assert bed3["strand"].tolist() == [".", "."] and bed3["summit"].tolist() == [-1, -1]
    assert bed3["name"].tolist() == ["chr1:10-20", "chr2:5-9"]
    assert isinstance(bed3, pd.DataFrame)


@pytest.mark.parametrize("text, message", [
    ("chr1\t10\n", r"x\.bed: line 1: a BED line needs at least 3 columns"),
    ("chr1\t10\t20\nchr1\tten\t20\n", r"line 2: start and end must be integers, got 'ten'"),
    ("chr1\t30\t20\n", r"line 1: need 0 <= start < end, got start 30, end 20"),
    ("chr1\t10\t20\tn\t0\t*\n", r"line 1: strand \(column 6\) must be \+, - or \., got '\*'"),
    ("chr1\t10\t20\tn\t0\t+\t1\t1\t1\t15\n", r"line 1: summit offset 15 lies outside the region of length 10"),
    ("# only a comment\n", r"x\.bed: no BED regions"),
])
def test_read_bed_errors(tmp_path, text, message):
    with pytest.raises(SeqimpError, match=message):
        read_bed(write(tmp_path, "x.bed", text))


def test_extract_windows_summits_strands_and_drops(tmp_path, caplog):
    genome, seqs = make_genome(tmp_path)
    peaks = write(tmp_path, "p.narrowPeak", PEAKS)
    with caplog.at_level(logging.INFO, logger="seqimp"):
        w = extract_windows(peaks, genome, 21)
    assert isinstance(w, GenomicWindows) and w.codes.shape == (4, 21)
    assert w.dropped == {"unknown_chromosome": 1, "off_chromosome": 1, "ambiguous_base": 0}
    # the window over the gap: summit 305 at index 10, so genome 295..315; N at 300..309 -> unknown (4)
    assert w.coords.loc[3, "name"] == "gap" and w.coords.loc[3, "start"] == 295
    np.testing.assert_array_equal(np.flatnonzero(w.codes[3] == 4), np.arange(5, 15))
    assert w.sequences()[3] == seqs["chr2"][295:316].upper()
    assert f"{peaks}: 1 of 4 records hold unknown bases (N or IUPAC codes), 10 bases in all; read as unknown" \
        in caplog.messages
    c = w.coords
    assert list(c.columns) == ["chrom", "start", "end", "strand", "name"]
    # summit 203, width 21: window [193, 214) on +; the summit is at index width // 2 = 10
    assert (c.loc[0, "start"], c.loc[0, "end"], c.loc[0, "strand"]) == (193, 214, "+")
    assert w.ids[0] == "chr1:193-214(+)"
    text = w.sequences()
    assert text[0] == seqs["chr1"][193:214] and SITE in text[0]
    # - strand windows are reverse complements of the genome; the summit is still index 10
    s, e = c.loc[1, "start"], c.loc[1, "end"]
    assert e - s == 21 and c.loc[1, "strand"] == "-" and w.ids[1] == f"chr1:{s}-{e}(-)"
    assert text[1] == revcomp(seqs["chr1"][s:e])
    assert e - 1 - 10 == 503                        # index 10 <-> genome base 503
    assert SITE in text[2]                            # the - strand site reads GATTACA on the - window
    assert text[2] == revcomp(seqs["chr1"][c.loc[2, "start"]:c.loc[2, "end"]])
    assert w.origin == 11
    assert position_labels(21, origin=w.origin)[10] == 1
    sub = w.subset([2, 0])
    assert sub.ids == [w.ids[2], w.ids[0]] and sub.coords["name"].tolist() == ["p3", "p1"]


def test_mask_lowercase_reads_soft_masked_bases_as_unknown_on_both_strands(tmp_path):
    genome, seqs = make_genome(tmp_path)        # chr2 is written in lower case
    bed = write(tmp_path, "r.bed", "chr2\t290\t320\tr1\t0\t+\nchr2\t290\t320\tr2\t0\t-\nchr1\t190\t220\tr3\t0\t-\n")
    plain = extract_windows(bed, genome, 20)
    masked = extract_windows(bed, genome, 20, mask_lowercase=True)
    assert (masked.codes[:2] == 4).all()         # every soft-masked base is unknown
    np.testing.assert_array_equal(masked.codes[2], plain.codes[2])  # upper-case chr1: unchanged
    # without masking, the gap's N stays unknown on the '-' strand too (the reverse complement keeps it)
    assert plain.coords["start"].tolist()[:2] == [295, 296]  # centre 305 at index 10 on both strands
    assert plain.sequences()[1] == revcomp(seqs["chr2"][296:316].upper())
    np.testing.assert_array_equal(np.flatnonzero(plain.codes[1] == 4), np.arange(6, 16))  # genome 309..300


def test_oligomer_hits_skip_windows_with_an_unknown_base():
    codes = np.array([[0, 4, 1], [0, 0, 1], [4, 0, 1]], dtype=np.uint8)  # 'AN' is index 4 = 'CA' if read as a base
    table = pd.DataFrame({"oligomer": ["CA", "AA", "AC"], "position": [1, 1, 2]})
    hits = oligomer_hits(codes, table)
    assert hits[["window", "oligomer"]].values.tolist() == [[1, "AA"], [1, "AC"], [2, "AC"]]


def test_extract_windows_centre_without_summit_and_lowercase(tmp_path):
    genome, seqs = make_genome(tmp_path)
    bed = write(tmp_path, "r.bed", "chr2\t100\t200\tr1\t0\t+\nchr2\t100\t200\tr2\t0\t-\n")
    w = extract_windows(bed, genome, 10)
    assert w.coords["start"].tolist() == [145, 146]     # centre 150 at index 5 on both strands
    assert w.sequences()[0] == seqs["chr2"][145:155]
    assert w.sequences()[1] == revcomp(seqs["chr2"][146:156])
    assert w.sequences()[1][5] == RC[seqs["chr2"][150]]


def test_extract_windows_nothing_left(tmp_path):
    genome, _ = make_genome(tmp_path)
    with pytest.raises(SeqimpError, match=r"no window of width 21 is left \(dropped: unknown_chromosome 1, "
                                          r"off_chromosome 0, ambiguous_base 0\); e.g. chromosome 'chr9'"):
        extract_windows(write(tmp_path, "x.bed", "chr9\t10\t90\n"), genome, 21)
    with pytest.raises(SeqimpError, match=r"--width must be a positive integer, got 0"):
        extract_windows(write(tmp_path, "y.bed", "chr1\t10\t90\n"), genome, 0)
    with pytest.raises(SeqimpError, match=r"cutting windows from a genome needs DNA sequences \(got protein\)"):
        extract_windows(write(tmp_path, "y.bed", "chr1\t10\t90\n"), genome, 5, alphabet="protein")


def test_bgzip_and_plain_gzip(tmp_path):
    from Bio import bgzf

    genome, seqs = make_genome(tmp_path)
    data = genome.read_bytes()
    bgz = tmp_path / "genome.fa.gz"
    with bgzf.BgzfWriter(str(bgz), "wb") as fh:
        fh.write(data)
    bed = write(tmp_path, "r.bed", "chr1\t150\t300\tp1\t10\t+\t1\t1\t1\t53\n")
    w = extract_windows(bed, bgz, 21)
    assert w.sequences()[0] == seqs["chr1"][193:214]
    assert (tmp_path / "genome.fa.gz.fai").exists()
    plain = tmp_path / "plain.fa.gz"
    plain.write_bytes(gzip.compress(data))
    with pytest.raises(SeqimpError, match=r"plain\.fa\.gz: gzip-compressed but not bgzip; random access needs "
                                          r"bgzip"):
        extract_windows(bed, plain, 21)
    with pytest.raises(SeqimpError, match=r"--genome .*missing\.fa: no such file"):
        extract_windows(bed, tmp_path / "missing.fa", 21)


def test_hits_to_bed_maps_sites_back_to_the_genome(tmp_path):
    genome, seqs = make_genome(tmp_path)
    w = extract_windows(write(tmp_path, "p.narrowPeak", PEAKS), genome, 21)
    # find GATTACA in every window (as read) and map it back
    rows, pos = [], []
    for r, s in enumerate(w.sequences()):
        i = s.find(SITE)
        if i >= 0:
            rows.append(r)
            pos.append(i + 1)
    bed = hits_to_bed(w, rows, pos, len(SITE), name="GATTACA")
    for _, hit in bed.iterrows():
        text = seqs[hit["chrom"]][hit["start"]:hit["end"]]
        assert (text if hit["strand"] == "+" else revcomp(text)) == SITE
    assert bed[["start", "strand"]].values.tolist() == [[200, "+"], [800, "-"]]
    # a hit on the reverse complement of a - window lies on the + strand of the genome
    flipped = hits_to_bed(w, [2], [pos[1]], 7, strand="-")
    assert flipped.loc[0, "strand"] == "+"
    out = tmp_path / "hits.bed"
    write_bed(bed, out)
    assert out.read_text().splitlines()[0] == "chr1\t200\t207\tGATTACA\t0\t+"
    with pytest.raises(SeqimpError, match=r"hit 0 \(position 20, length 7\) lies outside its window of width 21"):
        hits_to_bed(w, [0], [20], 7)


def test_oligomer_hits_to_bed(tmp_path):
    genome, seqs = make_genome(tmp_path)
    w = extract_windows(write(tmp_path, "p.narrowPeak", PEAKS), genome, 21)
    i = w.sequences()[0].find(SITE)
    hits = oligomer_hits(w, pd.DataFrame({"oligomer": ["TTAC"], "position": [i + 3]}))
    assert hits["window"].tolist()[0] == 0 and hits["oligomer"].tolist()[0] == "TTAC"
    bed = hits_to_bed(w, hits["window"], hits["position"], hits["length"], name=hits["oligomer"])
    assert seqs["chr1"][bed.loc[0, "start"]:bed.loc[0, "end"]] == "TTAC"


def test_genome_negatives_gc_matched_and_disjoint(tmp_path):
    rng = np.random.default_rng(3)
    # a genome with a GC-poor and a GC-rich half on each chromosome
    chroms = {}
    for name in ("chrA", "chrB"):
        low = "".join(rng.choice(list("ACGT"), p=[0.4, 0.1, 0.1, 0.4], size=3000))
        high = "".join(rng.choice(list("ACGT"), p=[0.1, 0.4, 0.4, 0.1], size=3000))
        chroms[name] = low + high
    genome = tmp_path / "g.fa"
    genome.write_text("".join(f">{k}\n{v}\n" for k, v in chroms.items()))
    bed = write(tmp_path, "p.bed", "chrA\t500\t600\nchrA\t4000\t4100\nchrA\t5000\t5100\nchrB\t1000\t1100\n")
    pos = extract_windows(bed, genome, 50)
    neg = genome_negatives(pos, genome, per_positive=3, gc_bins=10, random_state=1)
    assert len(neg) == 12 and neg.dropped == {"gc_unmatched": 0}
    gc = lambda codes: np.isin(codes, (1, 2)).mean(axis=1)
    pos_bin = np.minimum((gc(pos.codes) * 10).astype(int), 9)
    neg_bin = np.minimum((gc(neg.codes) * 10).astype(int), 9)
    assert np.array_equal(neg_bin, pos_bin[neg.coords["matched"]])
    assert (neg.coords["chrom"].to_numpy() == pos.coords["chrom"].to_numpy()[neg.coords["matched"]]).all()
    # no overlap with the positives or with each other
    iv = pd.concat([pos.coords, neg.coords])[["chrom", "start", "end"]].sort_values(["chrom", "start"])
    for _, g in iv.groupby("chrom"):
        assert (g["start"].to_numpy()[1:] >= g["end"].to_numpy()[:-1]).all()
    for r in range(len(neg)):   # sequences are the genome's
        c = neg.coords.iloc[r]
        assert neg.sequences()[r] == chroms[c["chrom"]][c["start"]:c["end"]]
    again = genome_negatives(pos, genome, per_positive=3, gc_bins=10, random_state=1)
    assert again.ids == neg.ids
    assert genome_negatives(pos, genome, per_positive=3, gc_bins=10, random_state=2).ids != neg.ids


def test_variant_windows_keep_n_as_unknown_in_windows_and_flanks(tmp_path):
    from seqimp.io._variant_windows import variant_windows

    genome, seqs = make_genome(tmp_path)
    def snv(chrom, pos):  # a substitution at 1-based pos, REF as in the genome
        ref = seqs[chrom][pos - 1].upper()
        return {"chrom": chrom, "pos": pos, "ref": ref, "alt": "C" if ref != "C" else "G"}

    variants = pd.DataFrame([snv("chr2", 296), snv("chr1", 5)])
    placed = variant_windows(variants, genome, 20, flank=8)
    # chr2: the window [285, 305) around 1-based 296 holds the gap's N at 300..304 -> unknown, kept
    assert placed.dropped["ambiguous_base"] == 0 and placed.dropped["off_chromosome"] == 1  # chr1:5 runs off
    win = placed.windows
    assert win.coords["start"].tolist() == [285] and win.sequences()[0] == seqs["chr2"][285:305].upper()
    np.testing.assert_array_equal(np.flatnonzero(win.codes[0] == 4), np.arange(15, 20))
    np.testing.assert_array_equal(placed.right[0] == 4, [True] * 5 + [False] * 3)  # N at 305..309
    # a region on '-': the flanks are read on its strand, N kept unknown, off the chromosome INVALID
    regions = extract_windows(write(tmp_path, "m.bed", "chr2\t300\t330\tr\t0\t-\n"), genome, 10)
    minus = variant_windows(pd.DataFrame([snv("chr2", 316)]), genome, 10, windows=regions, flank=12)
    s, e = minus.windows.coords.loc[0, "start"], minus.windows.coords.loc[0, "end"]
    left = "".join(revcomp(seqs["chr2"][e:e + 12].upper()))           # after the window, read backwards
    right = "".join(revcomp(seqs["chr2"][s - 12:s].upper()))
    assert "".join("ACGTN"[c] for c in minus.left[0]) == left
    assert "".join("ACGTN"[c] for c in minus.right[0]) == right and "N" in right


def test_genome_negatives_read_soft_masked_repeats_as_the_positives_were_read(tmp_path):
    """With mask_lowercase the drawn windows have unknown bases exactly at the genome's lower-case letters
    (as extract_windows reads the positives), and still none over an assembly gap (N)."""
    rng = np.random.default_rng(4)
    seq = list("".join(rng.choice(list("ACGT"), size=6000)))
    for s in range(100, 6000, 400):         # soft-masked repeats, 60 nt every 400 nt
        seq[s:s + 60] = [c.lower() for c in seq[s:s + 60]]
    seq[3000:3200] = ["N"] * 200            # an assembly gap
    chrom = "".join(seq)
    genome = tmp_path / "g.fa"
    genome.write_text(f">chrA\n{chrom}\n")
    bed = write(tmp_path, "p.bed", "chrA\t50\t150\nchrA\t1000\t1100\nchrA\t5000\t5100\n")
    for mask in (False, True):
        pos = extract_windows(bed, genome, 80, mask_lowercase=mask)
        neg = genome_negatives(pos, genome, per_positive=5, random_state=0, mask_lowercase=mask)
        assert len(neg) > 0
        for r in range(len(neg)):
            c = neg.coords.iloc[r]
            window = chrom[c["start"]:c["end"]]
            assert "N" not in window
            lower = np.array([ch.islower() for ch in window])
            assert np.array_equal(neg.codes[r] == 4, lower & mask)
        if mask:
            assert any((neg.codes == 4).any(axis=1))
