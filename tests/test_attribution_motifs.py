"""Motifs from any model's attributions (TF-MoDISco's inputs): seqlets, clusters, CWMs, files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import main
from seqimp.motifs._attribution_motifs import attribution_motifs
from seqimp.motifs._attribution_seqlets import check_attribution_arrays, find_attribution_seqlets
from seqimp.pipeline import find_motifs

DATA = Path(__file__).resolve().parent / "data"

#: planted motifs: consensus, sign of their contribution
PLANTED = {"AGATAAGA": 1, "TGACTCA": 1, "CACGTG": -1}


def _pwm(consensus, sharp=0.85):
    pwm = np.full((len(consensus), 4), (1 - sharp) / 3)
    known = [i for i, c in enumerate(consensus) if c != "N"]
    pwm[known, ["ACGT".index(consensus[i]) for i in known]] = sharp
    pwm[[i for i, c in enumerate(consensus) if c == "N"]] = 0.25
    return pwm


def _planted(n=400, length=100, seed=0, weight=0.8, noise=0.15, share=0.4, motifs=None, tries=1):
    """One-hot sequences (n, L, 4), hypothetical contributions (log-odds of the planted PWM times
    ``weight`` times the motif's sign at its sites, Gaussian noise everywhere) and the sites; each
    motif (``motifs``: consensus -> sign, default PLANTED) in a ``share`` of the sequences, at a
    random place at least 3 nt from the other sites (``tries`` draws of the place)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n, length))
    hyp = rng.normal(0, noise, size=(n, length, 4))
    sites = []
    for i in range(n):
        used = np.zeros(length, bool)
        for k, (consensus, sign) in enumerate((motifs or PLANTED).items()):
            if weight == 0 or rng.random() > share:
                continue
            pwm, m = _pwm(consensus), len(consensus)
            for _ in range(tries):
                start = int(rng.integers(0, length - m + 1))
                if not used[max(start - 3, 0):start + m + 3].any():
                    break
            else:
                continue
            used[start:start + m] = True
            minus = rng.random() < 0.5
            oriented = pwm[::-1, ::-1] if minus else pwm
            codes[i, start:start + m] = [rng.choice(4, p=row) for row in oriented]
            hyp[i, start:start + m] += sign * weight * np.log2(oriented / 0.25)
            sites.append((i, start, m, k))
    return np.eye(4, dtype=np.float32)[codes], hyp, sites


@pytest.fixture(scope="module")
def planted():
    return _planted()


@pytest.fixture(scope="module")
def run(planted):
    onehot, hyp, _ = planted
    return find_motifs(sequences=onehot, attributions=hyp)


def test_seqlets_lie_at_the_planted_sites(planted):
    onehot, hyp, sites = planted
    seqlets = find_attribution_seqlets(*check_attribution_arrays(onehot, hyp), window=15, flank=5)
    width, length = 25, onehot.shape[1]
    inner = [(i, s, m) for i, s, m, _ in sites if 5 <= s and s + m <= length - 5]  # a flank fits beside them
    covered = {(i, s) for i, s, m in inner for q, p in zip(seqlets["sequence"], seqlets["start"])
               if q == i and p <= s and s + m <= p + width}
    assert len(covered) >= 0.85 * len(inner)
    on_site = [any(q == i and p <= s + m and s <= p + width for i, s, m, _ in sites)
               for q, p in zip(seqlets["sequence"], seqlets["start"])]
    assert np.mean(on_site) >= 0.95


def test_one_motif_per_planted_pattern_with_its_sign(run):
    table = run.table()
    assert len(table) == len(PLANTED)
    for consensus, sign in PLANTED.items():
        rc = consensus[::-1].translate(str.maketrans("ACGT", "TGCA"))
        rows = table[table["consensus"].isin([consensus, rc])]
        assert len(rows) == 1, (consensus, table)
        assert rows["sign"].iloc[0] == sign
        assert rows["direction"].iloc[0] == ("enriched" if sign > 0 else "depleted")
        assert (rows["contribution"].iloc[0] > 0) == (sign > 0)


def test_a_cwm_is_the_mean_contribution_of_its_seqlets(planted, run):
    onehot, hyp, _ = planted
    contribution = onehot * hyp
    seqlets = run.seqlet_table()
    for motif, found in zip(run.motifs, run.found):
        rows = seqlets[seqlets["motif"] == motif.name]
        windows = []
        for row in rows.itertuples():
            window = contribution[row.row, row.start - 1:row.end]
            windows.append(window[::-1, ::-1] if row.strand == "-" else window)
        np.testing.assert_allclose(np.mean(windows, axis=0), found.cwm, atol=1e-6)
        assert found.cwm.shape == (motif.length, 4) == found.hypothetical_cwm.shape == found.pwm.shape
        np.testing.assert_allclose(found.pwm.sum(axis=1), 1.0)


def test_both_layouts_give_the_same_motifs(planted, run):
    onehot, hyp, _ = planted
    other = find_motifs(sequences=onehot.transpose(0, 2, 1), attributions=hyp.transpose(0, 2, 1))
    assert other.table().equals(run.table())
    assert other.seqlet_table().equals(run.seqlet_table())


#: four motifs, one of 14 nt, for short sequences that hold several sites each
DENSE = {**PLANTED, "CCGCGNGGNGGCAG": 1}


def _consensus(motif):
    return "".join("ACGT"[i] for i in motif.pwm.argmax(axis=1))


def _recovered(motifs, planted):
    """How many motifs recover each planted one: consensus or its reverse complement, N any letter."""
    def same(found, consensus):
        return len(found) == len(consensus) and all(c in ("N", f) for f, c in zip(found, consensus))

    rc = str.maketrans("ACGTN", "TGCAN")
    return {c: sum(same(_consensus(m), c) or same(_consensus(m), c[::-1].translate(rc)) for m in motifs)
            for c in planted}


@pytest.mark.parametrize("seed", range(5))
def test_short_sequences_where_most_windows_hold_a_site_keep_every_motif(seed):
    """150 sequences of 120 nt, each of four motifs in 70 % of them: most windows overlap a site, and
    the median of the window sums is no longer noise; the null is fitted to the peak of the noise."""
    onehot, hyp, sites = _planted(n=150, length=120, share=0.7, seed=seed, motifs=DENSE, tries=20)
    motifs, seqlets = attribution_motifs(*check_attribution_arrays(onehot, hyp))
    assert len(sites) >= 370
    assert _recovered(motifs, DENSE) == {c: 1 for c in DENSE}, [_consensus(m) for m in motifs]
    assert [m.sign for m in motifs if _consensus(m) in ("CACGTG",)] == [-1]
    noise = attribution_motifs(*check_attribution_arrays(*_planted(n=150, length=120, weight=0.0, seed=seed)[:2]))
    assert noise[0] == [] and len(noise[1]) < 20


def test_a_partial_copy_of_a_motif_is_merged_into_it():
    """The last 6 of 14 columns fit inside the whole CWM (cosine 1 over the overlap), though their
    whole-norm similarity is below merge_similarity (0.65); unrelated CWMs fit below contain_similarity."""
    from seqimp.motifs._attribution_motifs import _cosine_alignment
    from seqimp.motifs._attribution_seqlets import DEFAULTS

    long = _pwm("CCGCGNGGNGGCAG") - 0.25
    part = long[8:] * 0.7
    assert _cosine_alignment(long, part, 4)[0] == pytest.approx(np.sqrt(5 / 12))  # 5 of 12 known columns
    assert _cosine_alignment(long, part, 4)[0] < DEFAULTS["merge_similarity"]
    assert _cosine_alignment(long, part, 6, within=True) == (pytest.approx(1.0), 8, 0)
    for other in ("AGATAAGA", "TGACTCA", "CACGTG"):
        assert _cosine_alignment(long, _pwm(other) - 0.25, len(other), within=True)[0] < 0.7


def test_a_float32_map_stays_float32_and_gives_the_same_motifs(planted, run):
    onehot, hyp, _ = planted
    checked = check_attribution_arrays(onehot, hyp.astype(np.float32))
    assert checked[1].dtype == np.float32 and check_attribution_arrays(onehot, hyp)[1].dtype == np.float64
    other = find_motifs(sequences=onehot, attributions=hyp.astype(np.float32)).table()
    assert other[["consensus", "n_seqlets", "sign"]].equals(run.table()[["consensus", "n_seqlets", "sign"]])


def test_a_pure_noise_map_gives_no_motif():
    onehot, hyp, _ = _planted(weight=0.0, seed=3)
    motifs, seqlets = attribution_motifs(*check_attribution_arrays(onehot, hyp))
    assert motifs == [] and len(seqlets) < 20


def test_the_command_line_writes_the_motif_files_twice_the_same(planted, tmp_path, capsys):
    onehot, hyp, _ = planted
    np.savez(tmp_path / "ohe.npz", onehot.transpose(0, 2, 1))
    np.save(tmp_path / "attr.npy", hyp.transpose(0, 2, 1))
    for out in ("a", "b"):
        argv = ["motifs", "--sequences", str(tmp_path / "ohe.npz"), "--attributions", str(tmp_path / "attr.npy"),
                "--out", str(tmp_path / out), "-q"]
        assert main(argv) == 0
    a, b = tmp_path / "a", tmp_path / "b"
    for name in ("motifs.meme", "motifs.tsv", "seqlets.tsv", "motif_cwms.npz", "motifs.json",
                 "logos/motif1_logo.png", "logos/motif1_cwm.png", "report.html"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "motifs.meme").read_text().count("MOTIF ") == len(PLANTED)
    assert "seqlets" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["shape", "nan", "onehot"])
def test_bad_arrays_are_one_line_exit_2_nothing_written(planted, tmp_path, capsys, bad):
    onehot, hyp, _ = planted
    if bad == "shape":
        hyp = hyp[:, :50]
    elif bad == "nan":
        hyp = hyp.copy()
        hyp[3, 4, 1] = np.nan
    else:
        onehot = onehot.copy()
        onehot[0, 0] = 0.5
    np.save(tmp_path / "ohe.npy", onehot)
    np.save(tmp_path / "attr.npy", hyp)
    status = main(["motifs", "--sequences", str(tmp_path / "ohe.npy"), "--attributions", str(tmp_path / "attr.npy"),
                   "--out", str(tmp_path / "out")])
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("--attributions" in err[0] or "--sequences" in err[0]), err
    assert not (tmp_path / "out").exists()


def test_attributions_by_ism_of_a_scorer_on_the_command_line(tmp_path):
    """--scorer on --positive: ISM's hypothetical contributions, kept in attributions.npz for reuse."""
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=(240, 50))
    site = [3, 2, 0, 1, 3, 1, 0]  # TGACTCA
    for i in range(0, 240, 2):
        p = int(rng.integers(0, 43))
        codes[i, p:p + 7] = site if rng.random() < 0.5 else [3 - x for x in site[::-1]]
    (tmp_path / "pos.fa").write_text("".join(f">s{i}\n" + "".join("ACGT"[c] for c in row) + "\n"
                                            for i, row in enumerate(codes)))
    (tmp_path / "score.py").write_text(
        "import numpy as np\n"
        "LIN = np.random.default_rng(5).normal(0, 0.02, size=(50, 4))\n"
        "PWM = np.log2(np.where(np.eye(4)[[3, 2, 0, 1, 3, 1, 0]] > 0, 0.85, 0.05) / 0.25)\n"
        "def score(codes):\n"
        "    codes = np.asarray(codes, dtype=np.intp)\n"
        "    total = LIN[np.arange(codes.shape[1]), codes].sum(axis=1)\n"
        "    for p in range(codes.shape[1] - 6):\n"
        "        for w in (PWM, PWM[::-1, ::-1]):\n"
        "            total += 3 / (1 + np.exp(8 - w[np.arange(7), codes[:, p:p + 7]].sum(axis=1)))\n"
        "    return total\n")
    out = tmp_path / "out"
    assert main(["motifs", "--scorer", f"{tmp_path}/score.py:score", "--positive", str(tmp_path / "pos.fa"),
                 "--out", str(out), "-q"]) == 0
    table = (out / "motifs.tsv").read_text().splitlines()
    assert len(table) == 2 and table[1].split("\t")[1] in ("TGACTCA", "TGAGTCA")
    with np.load(out / "attributions.npz") as saved:
        assert saved["sequences"].shape == saved["attributions"].shape == (240, 4, 50)


@pytest.mark.filterwarnings("ignore:tomtom was given")  # a small database of the planted PWMs and decoys
def test_motifs_are_matched_to_a_database_through_tomtom(planted, tmp_path):
    from seqimp.motifs import Motif, read_motifs, write_meme

    onehot, hyp, _ = planted
    targets = [Motif(f"planted_{c}", _pwm(c)) for c in PLANTED]
    targets += [m for m in read_motifs(DATA / "toy_motifs.meme") if m.consensus != "CACGTG"]
    write_meme(targets, tmp_path / "db.meme")
    run = find_motifs(sequences=onehot, attributions=hyp, database=str(tmp_path / "db.meme"))
    best = run.matches.dropna(subset=["p_value"]).sort_values("p_value").groupby("query").first()
    names = dict(zip(run.table()["name"], run.table()["consensus"]))
    for query, row in best.iterrows():
        consensus = row["target"].removeprefix("planted_")
        rc = consensus[::-1].translate(str.maketrans("ACGT", "TGCA"))
        assert names[query] in (consensus, rc), (query, row["target"])
