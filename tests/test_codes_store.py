"""Codes stores: FASTA streamed to an on-disk (n, L) array, read back exactly, trained on as a memmap."""

import gzip
import logging
import os

import numpy as np
import pytest

from seqimp import SeqimpError, WDClassifier, decode, read_fasta
from seqimp.io import encode_fasta_to_store, open_codes_store
from seqimp.io._store import write_codes_store


def random_records(rng, n, length, prefix):
    seqs = ["".join(rng.choice(list("ACGTacgt"), length)) for _ in range(n)]
    return [f"{prefix}{r} some description" for r in range(n)], seqs


def write(path, titles, seqs, width=7, gz=False):
    text = "".join(f">{t}\n" + "\n".join(s[i:i + width] for i in range(0, len(s), width)) + "\n"
                   for t, s in zip(titles, seqs))
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


@pytest.fixture
def two_files(tmp_path):
    rng = np.random.default_rng(0)
    pos = random_records(rng, 23, 17, "p")
    neg = random_records(rng, 11, 17, "n")
    return (write(tmp_path / "pos.fa.gz", *pos, gz=True), write(tmp_path / "neg.fa", *neg)), pos, neg


@pytest.mark.parametrize("chunk_size", [1, 5, 100_000])
def test_round_trip_is_exact(tmp_path, two_files, chunk_size):
    (pos_fa, neg_fa), pos, neg = two_files
    store = encode_fasta_to_store([pos_fa, neg_fa], tmp_path / "store", labels=[1, 0], chunk_size=chunk_size)
    assert isinstance(store.codes, np.memmap) and not store.codes.flags.writeable
    assert store.codes.shape == (34, 17) and store.codes.dtype == np.uint8
    assert decode(store.codes) == [s.upper() for s in pos[1] + neg[1]]
    assert store.ids == [t.split()[0] for t in pos[0] + neg[0]]
    np.testing.assert_array_equal(store.labels, [1] * 23 + [0] * 11)
    assert store.labels.dtype == np.int64
    # the same codes as reading the files whole
    np.testing.assert_array_equal(store.codes[:23], read_fasta(pos_fa).codes)
    back = open_codes_store(tmp_path / "store")
    np.testing.assert_array_equal(back.codes, store.codes)
    assert back.meta["n"] == 34 and back.meta["alphabet"] == "dna" and back.meta["labels"]
    assert sorted(os.listdir(tmp_path / "store")) == ["codes.npy", "ids.txt", "labels.npy", "meta.json"]
    assert sorted(os.listdir(tmp_path)) == ["neg.fa", "pos.fa.gz", "store"]  # no temporary folder left


def test_labels_file_and_skipping_invalid_records(tmp_path, capsys, caplog):
    fa = write(tmp_path / "x.fa", ["a", "b", "c", "d", "e"], ["ACGT", "AC1T", "GGGG", "TTTT", "ANRt"])
    (tmp_path / "y.txt").write_text("0.5\n1.5\n2.5\n3.5\n4.5\n")
    with caplog.at_level(logging.INFO, logger="seqimp"):
        store = encode_fasta_to_store(fa, tmp_path / "s", labels=tmp_path / "y.txt", on_invalid="skip")
    assert decode(store.codes) == ["ACGT", "GGGG", "TTTT", "ANNT"]  # N and R: the unknown code, written N
    assert store.codes[3].tolist() == [0, 4, 4, 3]
    assert store.ids == ["a", "c", "d", "e"]
    np.testing.assert_array_equal(store.labels, [0.5, 2.5, 3.5, 4.5])
    assert "dropped 1 of 5 records" in capsys.readouterr().err
    assert f"{fa}: 1 of 4 records hold unknown bases (N or IUPAC codes), 2 bases in all; read as unknown" \
        in caplog.messages
    masked = encode_fasta_to_store(fa, tmp_path / "m", on_invalid="skip", mask_lowercase=True)
    assert decode(masked.codes)[3] == "ANNN" and masked.ids == store.ids
    no_labels = encode_fasta_to_store(fa, tmp_path / "t", on_invalid="skip")
    assert no_labels.labels is None and not (tmp_path / "t" / "labels.npy").exists()


def test_errors_name_the_problem_and_leave_nothing_behind(tmp_path):
    fa = write(tmp_path / "x.fa", ["a", "b"], ["ACGT", "ACZT"])
    with pytest.raises(SeqimpError, match=r"x.fa: record 'b': invalid symbol 'Z' at position 3"):
        encode_fasta_to_store(fa, tmp_path / "s")
    assert sorted(os.listdir(tmp_path)) == ["x.fa"]
    uneven = write(tmp_path / "u.fa", ["a", "b"], ["ACGT", "ACG"])
    with pytest.raises(SeqimpError, match=r"record 'b' has length 3, but record 'a' .* has length 4"):
        encode_fasta_to_store(uneven, tmp_path / "s")
    good = write(tmp_path / "g.fa", ["a"], ["ACGT"])
    encode_fasta_to_store(good, tmp_path / "s")
    with pytest.raises(SeqimpError, match="already exists"):
        encode_fasta_to_store(good, tmp_path / "s")
    encode_fasta_to_store([good, good], tmp_path / "s", overwrite=True, labels=[1, 0])
    assert len(open_codes_store(tmp_path / "s")) == 2
    with pytest.raises(SeqimpError, match="one label per FASTA file expected"):
        encode_fasta_to_store(good, tmp_path / "s2", labels=[1, 0])
    with pytest.raises(SeqimpError, match="no such file"):
        encode_fasta_to_store(tmp_path / "missing.fa", tmp_path / "s3")
    with pytest.raises(SeqimpError, match="not FASTA"):
        encode_fasta_to_store(_text(tmp_path / "bad.fa", "hello\n"), tmp_path / "s4")
    with pytest.raises(SeqimpError, match="not a codes store"):
        open_codes_store(tmp_path)


def _text(path, text):
    path.write_text(text)
    return path


def test_training_and_scoring_on_the_memmap(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 4, (400, 15)).astype(np.uint8)
    y = (X[:, 6] == 1).astype(int)
    store = write_codes_store(tmp_path / "s", X, y)
    model = WDClassifier(degree=3, random_state=1).fit(store.codes, store.labels)
    ref = WDClassifier(degree=3, random_state=1).fit(X, y)
    np.testing.assert_array_equal(model.coef_, ref.coef_)
    np.testing.assert_array_equal(model.decision_function(store.codes), ref.decision_function(X))
    assert model.score(store.codes, store.labels) > 0.95
