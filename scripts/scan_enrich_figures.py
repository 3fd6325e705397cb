"""The figures of docs/scan-enrich.md, and the figures it quotes, on a planted set made here.

A planted set (seed 0): 300 positives of 150 nt, 60% carrying a sampled site of JASPAR's
MA0099.4 (FOS::JUN) on either strand near the centre, and 300 uniform negatives. Prints what
``seqimp enrich`` finds against JASPAR 2024 CORE vertebrates (with pyjaspar) and what ``seqimp
scan`` finds with MA0099.4; checks the scan's p-values against an enumeration of every word of a
short motif; writes docs/figures/scan_positions.png, docs/figures/enrichment.png and, where a
Chromium binary is installed, docs/figures/report_first_screen.png (the report of a
'seqimp motifs' run on a shorter planted set: 600 + 600 sequences of 50 nt, seed 1).

    python scripts/scan_enrich_figures.py [--out FOLDER]
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from seqimp.cli import main
from seqimp.motifs import jaspar_motifs, write_meme
from seqimp.motifs.known._scan import score_matrix, score_pvalues

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"


def planted(folder: Path, motif, rng, n=300, length=150, share=0.6, where=(70, 74), prefix=""):
    comp = str.maketrans("ACGT", "TGCA")
    pos, neg = [], []
    for i in range(n):
        s = "".join(rng.choice(list("ACGT"), size=length))
        if i < share * n:
            site = "".join("ACGT"[rng.choice(4, p=row)] for row in motif.pwm)
            site = site if rng.random() < 0.5 else site[::-1].translate(comp)
            at = int(rng.integers(*where))
            s = s[:at] + site + s[at + len(site):]
        pos.append(s)
        neg.append("".join(rng.choice(list("ACGT"), size=length)))
    for name, seqs in ((prefix + "pos.fa", pos), (prefix + "neg.fa", neg)):
        (folder / name).write_text("".join(f">{name[:3]}{i + 1}\n{s}\n" for i, s in enumerate(seqs)))


def enumeration_check(motif):
    """Largest difference between the DP p-values and those of all 4^w words of ``motif``'s first 6 columns."""
    short = type(motif)("short", motif.pwm[:6])
    bg = np.array([0.3, 0.2, 0.2, 0.3])
    mat = score_matrix(short, bg)
    low, tail = score_pvalues(mat, bg)
    words = np.array(list(itertools.product(range(4), repeat=6)))
    scores, weights = mat[np.arange(6), words].sum(axis=1), bg[words].prod(axis=1)
    return max(abs(weights[scores >= s].sum() - tail[s - low]) for s in np.unique(scores))


def main_(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    args = parser.parse_args(argv)
    work = Path(args.out or tempfile.mkdtemp())
    work.mkdir(exist_ok=True)
    db = jaspar_motifs("JASPAR2024")
    fosjun = db[[m.name for m in db].index("MA0099.4")]
    planted(work, fosjun, np.random.default_rng(0))
    write_meme([fosjun], work / "fosjun.meme")
    print(f"p-values, DP against all 4^6 words of MA0099.4's first 6 columns: largest difference "
          f"{enumeration_check(fosjun):.1e}")
    start = time.perf_counter()
    assert main(["scan", "--db", str(work / "fosjun.meme"), "--fasta", str(work / "pos.fa"),
                 "--out", str(work / "scan"), "--position-origin", "76", "-q"]) == 0
    print(f"seqimp scan: {time.perf_counter() - start:.1f} s (shared, busy machine)")
    start = time.perf_counter()
    assert main(["enrich", "--positive", str(work / "pos.fa"), "--negative", str(work / "neg.fa"),
                 "--db", "JASPAR2024", "--out", str(work / "enrich"), "-q"]) == 0
    print(f"seqimp enrich, 879 motifs: {time.perf_counter() - start:.1f} s (shared, busy machine)")
    FIGURES.mkdir(exist_ok=True)
    shutil.copy(work / "scan" / "scan_positions.png", FIGURES / "scan_positions.png")
    shutil.copy(work / "enrich" / "enrichment.png", FIGURES / "enrichment.png")
    # the report of 'seqimp motifs': 600 + 600 sequences of 50 nt, the site at 1-based 21-23
    planted(work, fosjun, np.random.default_rng(1), n=600, length=50, share=0.5, where=(20, 23), prefix="short_")
    assert main(["motifs", "--positive", str(work / "short_pos.fa"), "--negative", str(work / "short_neg.fa"),
                 "--out", str(work / "motifs"), "--strand", "both", "--degree", "6", "--db", "JASPAR2024", "-q"]) == 0
    browser = next((shutil.which(b) for b in ("chromium-headless-shell", "chromium") if shutil.which(b)), None)
    if browser:
        subprocess.run([browser, "--no-sandbox", "--disable-gpu", "--window-size=1280,800", "--hide-scrollbars",
                        f"--screenshot={FIGURES / 'report_first_screen.png'}",
                        (work / "motifs" / "report.html").as_uri()], check=True, capture_output=True, timeout=120)
    else:
        print("no Chromium binary: docs/figures/report_first_screen.png not made")
    print(f"figures in {FIGURES}; work folder {work}")


if __name__ == "__main__":
    main_()
