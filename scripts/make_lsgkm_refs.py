"""Write the LS-GKM reference files of tests/data/lsgkm/: small models trained by LS-GKM's
``gkmtrain`` with each kernel type, and ``gkmpredict``'s scores of a small test set with them.

The sequences are synthetic (a fixed seed): positives of varied lengths with an AP-1-like site
(``TGACTCA``, either strand), negatives of uniform letters; a few letters are lower case and a
few are ``N`` (LS-GKM reads a letter other than ACGT as A, with a warning), so the models'
support vectors and the test set hold them too. The training FASTA files are written beside the
models only while they are made (they are not needed to read or score the models).

    python scripts/make_lsgkm_refs.py --lsgkm /tmp/lsgkm/src [--out tests/data/lsgkm]

``--lsgkm`` names the folder of LS-GKM's binaries (github:Dongwon-Lee/lsgkm, ``cd src && make``).
``gkmpredict`` prints 6 significant digits (``%g``); with ``--lsgkm17 DIR``, a second build whose
``gkmpredict`` prints 17 (``sed -i 's/"%s\\t%g\\n"/"%s\\t%.17g\\n"/' src/gkmpredict.c``, the only
change) also writes ``<name>.pred17.txt``. Each command run is printed (tests/data/lsgkm/README.md
lists them).
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import numpy as np

#: name -> gkmtrain options (beside -T 1 -v 1); the model is <name>.model.txt (.gz with -z)
MODELS = {
    "t0_l6k4d2": "-t 0 -l 6 -k 4 -d 2",
    "t0_l6k4d1": "-t 0 -l 6 -k 4 -d 1",
    "t1_l6k4d2": "-t 1 -l 6 -k 4 -d 2",
    "t2_l6k4d2": "-t 2 -l 6 -k 4 -d 2",
    "t2_l8k5d3": "-t 2 -l 8 -k 5 -d 3",
    "t3_l6k4d2_g2": "-t 3 -l 6 -k 4 -d 2 -g 2 -c 10",
    "t4_l6k4d2_M10H6": "-t 4 -l 6 -k 4 -d 2 -M 10 -H 6",
    "t5_l6k4d2_M10H6_g1.5": "-t 5 -l 6 -k 4 -d 2 -M 10 -H 6 -g 1.5",
    "t2_l6k4d2_norc": "-t 2 -l 6 -k 4 -d 2 -R",
    "t2_l6k4d2_gz": "-t 2 -l 6 -k 4 -d 2 -z",
}

#: seqimp's GKMClassifier(l, k) on the same training sequences (``clean``), written by
#: write_lsgkm_model with the training sequences (support vectors: those with a non-zero dual
#: coefficient) or without (support vectors: l-mers).
SEQIMP_MODELS = {
    "seqimp_gkm.model.txt": ((6, 4), True),
    "seqimp_lmers.model.txt.gz": ((5, 3), False),
}

SITE = "TGACTCA"


def _sequences(rng, n, low, high, site):
    out = []
    for _ in range(n):
        letters = list(rng.choice(list("ACGT"), size=int(rng.integers(low, high + 1))))
        if site:
            motif = SITE if rng.random() < 0.5 else SITE[::-1].translate(str.maketrans("ACGT", "TGCA"))
            at = int(rng.integers(0, len(letters) - len(motif) + 1))
            letters[at:at + len(motif)] = motif
        out.append("".join(letters))
    return out


def _mark(rng, seqs, n_lower, n_n):
    """Lower-case a run of letters in ``n_lower`` sequences and put an N into ``n_n`` others."""
    seqs = list(seqs)
    for i in rng.choice(len(seqs), n_lower + n_n, replace=False)[:n_lower]:
        s = seqs[i]
        a = int(rng.integers(0, len(s) - 5))
        seqs[i] = s[:a] + s[a:a + 5].lower() + s[a + 5:]
    for i in rng.choice(len(seqs), n_n, replace=False):
        s = seqs[i]
        a = int(rng.integers(0, len(s)))
        seqs[i] = s[:a] + "N" + s[a + 1:]
    return seqs


def _write_fasta(path, prefix, seqs):
    with open(path, "w") as fh:
        for i, s in enumerate(seqs):
            fh.write(f">{prefix}{i}\n{s}\n")


def _run(cmd, cwd):
    print("$ " + " ".join(cmd))
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lsgkm", required=True, help="folder of gkmtrain and gkmpredict")
    parser.add_argument("--lsgkm17", default=None, help="folder of a gkmpredict that prints %%.17g")
    parser.add_argument("--out", default="tests/data/lsgkm")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(63)
    pos = _mark(rng, _sequences(rng, 24, 30, 70, True), 2, 2)
    neg = _mark(rng, _sequences(rng, 24, 30, 70, False), 2, 2)
    test = _sequences(rng, 6, 8, 90, True) + _sequences(rng, 6, 8, 90, False)
    test = _mark(rng, test, 2, 2) + ["TGACTCAG"]  # one l-mer at l = 8
    _write_fasta(out / "train.pos.fa", "pos", pos)
    _write_fasta(out / "train.neg.fa", "neg", neg)
    _write_fasta(out / "test.fa", "test", test)
    trainer, predictor = str(Path(args.lsgkm) / "gkmtrain"), str(Path(args.lsgkm) / "gkmpredict")
    for name, options in MODELS.items():
        _run([trainer, *options.split(), "-T", "1", "-v", "1", "train.pos.fa", "train.neg.fa", name], out)
        model = f"{name}.model.txt" + (".gz" if "-z" in options.split() else "")
        _run([predictor, "-T", "1", "-v", "1", "test.fa", model, f"{name}.pred.txt"], out)
        if args.lsgkm17:
            _run([str(Path(args.lsgkm17) / "gkmpredict"), "-T", "1", "-v", "1", "test.fa", model,
                  f"{name}.pred17.txt"], out)
    (out / "train.pos.fa").unlink()
    (out / "train.neg.fa").unlink()
    # seqimp's GKMClassifier written as LS-GKM models, scored by gkmpredict
    from seqimp.kernels import GKMClassifier
    from seqimp.kernels.gkm._lsgkm import write_lsgkm_model

    train = [clean(x) for x in pos + neg]
    _write_fasta(out / "seqimp_train.fa", "", train)  # records 0..23 positive, 24..47 negative
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    for name, ((l, k), with_sequences) in SEQIMP_MODELS.items():
        clf = GKMClassifier(l, k, tol=1e-4, random_state=0).fit(train, y)
        print(f"# GKMClassifier({l}, {k}, tol=1e-4, random_state=0) -> {name}")
        write_lsgkm_model(out / name, clf, train if with_sequences else None)
        stem = name.split(".model")[0]
        _run([predictor, "-T", "1", "-v", "1", "test.fa", name, f"{stem}.pred.txt"], out)
        if args.lsgkm17:
            _run([str(Path(args.lsgkm17) / "gkmpredict"), "-T", "1", "-v", "1", "test.fa", name,
                  f"{stem}.pred17.txt"], out)


def clean(seq):
    """``seq`` as LS-GKM reads it: upper case, a letter other than ACGT as A."""
    return "".join(c if c in "ACGT" else "A" for c in seq.upper())


if __name__ == "__main__":
    main()
