"""seqimp.options: the one home of every run's options, and the old spellings that still work
(a FutureWarning names the new one)."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest

import seqimp.options
from seqimp.errors import SeqimpError

DATA = Path(__file__).resolve().parent / "data"

OPTIONS = ["ModelOptions", "SolverOptions", "BackgroundOptions", "ImportanceOptions", "MotifOptions", "OutputOptions",
           "ScanOptions", "EnrichOptions", "VariantOptions"]


def test_every_option_class_has_one_public_home():
    import seqimp.pipeline
    import seqimp.training

    assert sorted(seqimp.options.__all__) == sorted(OPTIONS)
    for name in OPTIONS:
        assert dataclasses.is_dataclass(getattr(seqimp.options, name))
        assert name not in seqimp.pipeline.__all__ and name not in dir(seqimp.pipeline)
        assert name not in seqimp.training.__all__ and name not in dir(seqimp.training)


@pytest.mark.parametrize("package, name", [("seqimp.pipeline", n) for n in OPTIONS]
                         + [("seqimp.training", "ModelOptions"), ("seqimp.training", "SolverOptions")])
def test_an_option_class_imported_from_its_old_place_warns_once_and_is_the_same(package, name):
    with pytest.warns(FutureWarning) as caught:
        namespace = {}
        exec(f"from {package} import {name}", namespace)
    assert namespace[name] is getattr(seqimp.options, name)
    assert [str(w.message) for w in caught] == [
        f"{package}.{name} has moved: import it from seqimp.options (from seqimp.options import {name}); the old "
        "place will be removed"]


def test_the_checks_of_the_model_options_need_no_later_stage():
    from seqimp.io._alphabet import _ALPHABETS
    from seqimp.kernels.gkm._kernel import check_gkm_params

    assert set(seqimp.options.ALPHABET_NAMES) == set(_ALPHABETS)  # the names seqimp.io knows
    assert check_gkm_params is seqimp.options.check_gkm_params
    assert seqimp.options.ModelOptions(alphabet="RNA").alphabet == "RNA"
    with pytest.raises(SeqimpError, match=r"unknown alphabet 'dan'; choose one of dna, rna, protein"):
        seqimp.options.ModelOptions(alphabet="dan")
    with pytest.raises(SeqimpError, match=r"informative must be <= word_length \(4\), got 5"):
        seqimp.options.ModelOptions(word_length=4, informative=5)


def test_variant_options_take_the_format_and_the_seed_at_their_old_places_with_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert seqimp.options.VariantOptions(top=3).fmt is None
    with pytest.warns(FutureWarning, match=r"VariantOptions\(fmt=...\) is now run_variants\(output=OutputOptions"):
        assert seqimp.options.VariantOptions(fmt="svg").fmt == "svg"
    with pytest.warns(FutureWarning, match=r"VariantOptions\(random_state=...\) is now run_variants\(random_state="):
        assert seqimp.options.VariantOptions(random_state=3).random_state == 3
    with pytest.raises(SeqimpError, match="figure format must be png, svg or pdf, got 'gif'"), \
            pytest.warns(FutureWarning):
        seqimp.options.VariantOptions(fmt="gif")


@pytest.mark.parametrize("run", ["run_scan", "run_enrich"])
def test_the_old_fmt_keyword_of_scan_and_enrich_is_output_options_fmt(run, tmp_path):
    import seqimp.pipeline
    from seqimp.motifs import read_motifs
    from seqimp.options import OutputOptions

    motifs = read_motifs(DATA / "toy_motifs.meme")
    seqs = ["GATTACAGGGGGGGGGGGGG", "CCCCCGATTACACCCCCCCC", "GGGGGGGGGGGGGGGATTAC"]
    args = (motifs, seqs) if run == "run_scan" else (motifs, seqs, ["CCCCCCCCCCCCCCCCCCCC"] * 3)
    name = "scan_positions" if run == "run_scan" else "enrichment"
    function = getattr(seqimp.pipeline, run)
    (tmp_path / "new").mkdir()
    (tmp_path / "old").mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        function(tmp_path / "new", *args, output=OutputOptions(fmt="svg"))
    with pytest.warns(FutureWarning, match=rf"{run}\(fmt=...\) is now {run}\(output=OutputOptions\(fmt=...\)\)"):
        function(tmp_path / "old", *args, fmt="svg")
    assert (tmp_path / "new" / f"{name}.svg").is_file() and (tmp_path / "old" / f"{name}.svg").is_file()
