"""``seqimp train --solver ...`` and the model file's record of how the SVM was solved, in-process
through main(), against independent fits of :class:`seqimp.WDClassifier` on the same rows."""

import inspect
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from seqimp import WDClassifier
from seqimp.cli import main
from seqimp.errors import SeqimpError
from seqimp.io import read_fasta
from seqimp.options import SolverOptions
from seqimp.training import load_model, save_model

DATA = Path(__file__).parent / "data"
POS, NEG = str(DATA / "planted_pos.fa"), str(DATA / "planted_neg.fa")  # 100 + 100 sequences of 30 nt
DEFAULTS = {name: p.default for name, p in inspect.signature(WDClassifier).parameters.items()}


def _train(tmp_path, *extra, name="m.npz"):
    """``seqimp train`` on all 200 sequences (--test-fraction 0: the rows are positives then negatives)."""
    out = tmp_path / name
    assert main(["train", "--positive", POS, "--negative", NEG, "--degree", "3", "--test-fraction", "0",
                 "--model-out", str(out), *extra]) == 0
    return out


def _reference(**params):
    """The same fit through the library: the 200 sequences in the order the command trains on them."""
    X = np.vstack([read_fasta(POS).codes, read_fasta(NEG).codes])
    y = np.r_[np.ones(100, dtype=int), np.zeros(100, dtype=int)]
    return WDClassifier(degree=3, random_state=0, **params).fit(X, y)


def _raw_metadata(path) -> str:
    with np.load(path, allow_pickle=False) as data:
        return str(data["metadata"])


@pytest.mark.parametrize("extra, thresholds", [
    ([], {}),
    (["--validation-fraction", "0.1", "--validation-tol", "0.003", "--weight-tol", "0.05", "--patience", "1",
      "--average", "0"],
     {"validation_fraction": 0.1, "validation_tol": 0.003, "weight_tol": 0.05, "patience": 1, "average": 0.0}),
    (["--average", "none"], {"average": None}),
    (["--optimum-tol", "3"], {"optimum_tol": 3.0}),
    (["--shrink-margin", "0", "--no-refit", "--validation-fraction", "0.1"],
     {"shrink_margin": 0.0, "refit": False, "validation_fraction": 0.1}),
    (["--extrapolate", "--optimum-tol", "5"], {"extrapolate": True, "optimum_tol": 5.0}),
])
def test_fast_solver_records_its_passes_thresholds_and_history(tmp_path, capsys, extra, thresholds):
    out = _train(tmp_path, "--solver", "fast", *extra)
    err = capsys.readouterr().err
    weights, meta = load_model(out)
    ref = _reference(solver="fast", **thresholds)
    assert meta["solver"] == "fast" and meta["solver_requested"] == "fast" and meta["solver_reason"] == "as chosen"
    assert meta["passes"] == ref.n_iter_ and meta["converged"] is True and ref.converged_
    for name in ("validation_fraction", "validation_tol", "weight_tol", "patience", "average", "optimum_tol"):
        assert meta[name] == thresholds.get(name, DEFAULTS[name]), name   # the library's defaults when not given
    assert meta["validation_rows"] == len(ref.validation_rows_) == max(1, round(meta["validation_fraction"] * 200))
    history = meta["stopping_history"]
    assert all(len(column) == meta["passes"] for column in history.values())
    for i, (loss, acc, change, settled) in enumerate(ref.stopping_history_):
        assert history["held_out_hinge_loss"][i] == (None if math.isnan(loss) else pytest.approx(loss, rel=1e-12))
        assert history["held_out_accuracy"][i] == (None if math.isnan(acc) else pytest.approx(acc, abs=1e-12))
        assert history["weight_change"][i] == pytest.approx(change, rel=1e-12)
        assert history["settled"][i] is settled
    assert meta["shrink_margin"] == thresholds.get("shrink_margin") and meta["refit"] is thresholds.get("refit", True)
    assert meta["extrapolate"] is thresholds.get("extrapolate", False)
    assert ("; extrapolated along every pass" in err) is meta["extrapolate"]
    # the final passes over all rows have no held-out figures; without refit the slice never joins
    assert (None in history["held_out_accuracy"]) is meta["refit"]
    assert history["settled"][-1] is True and "tol" not in meta
    # strict JSON: the passes over all rows are null, never NaN
    json.loads(_raw_metadata(out), parse_constant=lambda c: pytest.fail(f"{c} in the model's metadata"))
    np.testing.assert_allclose(weights.tables[2], ref.positional_weights().tables[2], rtol=0, atol=1e-12)
    assert (f"solver: the fast route (coordinate descent), as chosen; {ref.n_iter_} passes, the model stopped "
            f"changing (validation_tol {meta['validation_tol']:g}, weight_tol {meta['weight_tol']:g}") in err
    assert ("; the last iterate" if meta["average"] is None else f"the passes, eta {meta['average']:g}") in err
    assert (f"{meta['validation_rows']:,} rows held out, not trained on)" in err) is not meta["refit"]
    # without refit the model is the best held-out pass's, and the file and the log say which
    assert ("best_pass" in meta) is not meta["refit"]
    if not meta["refit"]:
        assert meta["best_pass"] == ref.best_pass_
        assert meta["held_out_accuracy_returned"] == max(history["held_out_accuracy"])
        assert f"the model of pass {meta['best_pass']}, the best held out" in err


def test_dcd_and_auto_record_the_exact_route_and_why(tmp_path, capsys):
    ref = _reference(solver="dcd")
    for extra, requested, reason in ((["--solver", "dcd"], "dcd", "as chosen"),
                                     ([], "auto", "auto: 200 training sequences, fewer than 50,000")):
        _, meta = load_model(_train(tmp_path, *extra))
        assert (meta["solver"], meta["solver_requested"], meta["solver_reason"]) == ("dcd", requested, reason)
        assert meta["passes"] == ref.n_iter_ and meta["converged"] is True and meta["tol"] == DEFAULTS["tol"]
        assert "stopping_history" not in meta and "weight_tol" not in meta
        assert (f"solver: the exact route (dual coordinate descent), {reason}; {ref.n_iter_} passes, converged "
                f"to liblinear's rule (tol {DEFAULTS['tol']:g})") in capsys.readouterr().err


def test_sgd_and_a_codes_store_record_their_solver(tmp_path, capsys):
    _, meta = load_model(_train(tmp_path, "--solver", "sgd", "--weight-tol", "0.05", "-q"))
    ref = _reference(solver="sgd", weight_tol=0.05)
    assert meta["solver"] == "sgd" and meta["passes"] == ref.n_iter_ and len(meta["stopping_history"]["settled"])
    assert "average" not in meta                              # averaged SGD averages its own steps
    store = tmp_path / "train.codes"
    assert main(["encode", "--fasta", POS, NEG, "--labels", "1", "0", "--out", str(store), "-q"]) == 0
    out = tmp_path / "store.npz"
    assert main(["train", "--codes", str(store), "--degree", "3", "--solver", "fast", "--weight-tol", "0.05",
                 "--model-out", str(out), "-q"]) == 0
    _, meta = load_model(out)
    ref = _reference(solver="fast", weight_tol=0.05)
    assert meta["solver"] == "fast" and meta["weight_tol"] == 0.05 and meta["passes"] == ref.n_iter_


@pytest.mark.parametrize("extra, message", [
    (["--weight-tol", "-1"], r"argument --weight-tol: must be a number in \[0, inf\), got -1\.0"),
    (["--validation-tol", "nan"], r"argument --validation-tol: must be a number in \[0, inf\), got nan"),
    (["--validation-fraction", "1"], r"argument --validation-fraction: must be a number in \(0, 1\), got 1\.0"),
    (["--validation-fraction", "0"], r"argument --validation-fraction: must be a number in \(0, 1\), got 0\.0"),
    (["--patience", "0"], r"argument --patience: .*got 0"),
    (["--solver", "newton"], r"argument --solver: invalid choice: 'newton'"),
    (["--solver", "dcd", "--weight-tol", "0.1"], (r"^seqimp: error: --weight-tol sets the fast route; "
                                                  r"--solver dcd stops by liblinear's rule")),
    (["--solver", "dcd", "--patience", "3", "--validation-tol", "0.1"], r"--validation-tol, --patience set the fast"),
    (["--average", "-1"], r"argument --average: expected a number >= 0 or 'none', got '-1'"),
    (["--solver", "sgd", "--average", "1"], r"--average averages the fast route's passes; --solver sgd averages its"),
    (["--solver", "dcd", "--average", "1"], r"--average sets the fast route; --solver dcd"),
    (["--shifts", "1", "--solver", "fast"], (r"--solver fast: the solver options train the WD SVM \(--shifts 0\); "
                                             r"--shifts 1 trains the WDS kernel route")),
    (["--shifts", "1", "--weight-tol", "0.1"], r"--weight-tol: the solver options train the WD SVM"),
    (["--optimum-tol", "-2"], r"argument --optimum-tol: must be a number in \[0, inf\), got -2\.0"),
    (["--solver", "sgd", "--optimum-tol", "1"], r"--optimum-tol is estimated from the fast route's dual objective"),
    (["--solver", "dcd", "--optimum-tol", "1"], r"--optimum-tol sets the fast route; --solver dcd"),
    (["--optimum-tol", "1", "--dask-workers", "2"], r"--optimum-tol: options of the fast route on one machine"),
    (["--shrink-margin", "-1"], r"argument --shrink-margin: must be a number in \[0, inf\), got -1\.0"),
    (["--solver", "sgd", "--shrink-margin", "0"], r"--shrink-margin shrinks the fast route's dual variables"),
    (["--solver", "dcd", "--no-refit"], r"--no-refit sets the fast route; --solver dcd"),
    (["--shrink-margin", "0", "--no-refit", "--dask-workers", "2"],
     r"--shrink-margin, --no-refit: options of the fast route on one machine; .* leave them out"),
    (["--solver", "sgd", "--extrapolate"], r"--extrapolate searches the fast route's dual; --solver sgd has none"),
    (["--solver", "dcd", "--extrapolate"], r"--extrapolate sets the fast route; --solver dcd"),
    (["--extrapolate", "--dask-workers", "2"], r"--extrapolate: options of the fast route on one machine"),
])
def test_bad_solver_options_are_one_line_and_exit_2(tmp_path, capsys, extra, message):
    out = tmp_path / "m.npz"
    assert main(["train", "--positive", POS, "--negative", NEG, "--degree", "3", "--model-out", str(out)] + extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("seqimp: error: ") and re.search(message, err[0]), err
    assert not out.exists()


def test_solver_options_check_their_fields_and_pass_only_what_is_set():
    assert SolverOptions().params() == {"solver": "auto"}
    assert SolverOptions(solver="fast", weight_tol=0.05).params() == {"solver": "fast", "weight_tol": 0.05}
    assert SolverOptions(average="none").params() == {"solver": "auto", "average": None}
    assert SolverOptions(average=0).params() == {"solver": "auto", "average": 0}
    assert SolverOptions(shrink_margin=0.5, refit=False).params() == {"solver": "auto", "shrink_margin": 0.5,
                                                                       "refit": False}
    with pytest.raises(SeqimpError, match=r"refit must be True or False, got 'no'"):
        SolverOptions(refit="no")
    assert SolverOptions(extrapolate=True).params() == {"solver": "auto", "extrapolate": True}
    with pytest.raises(SeqimpError, match=r"extrapolate must be True or False, got 1"):
        SolverOptions(extrapolate=1)
    with pytest.raises(SeqimpError, match=r"extrapolate: a line search of the fast route's dual; solver 'sgd'"):
        SolverOptions(solver="sgd", extrapolate=True)
    with pytest.raises(SeqimpError, match=r"shrink_margin, refit: options of the fast route; solver 'dcd'"):
        SolverOptions(solver="dcd", shrink_margin=0, refit=False)
    with pytest.raises(SeqimpError, match=r"average must be a number >= 0 or 'none' \(the last iterate\), got 'x'"):
        SolverOptions(average="x")
    with pytest.raises(SeqimpError, match=r"average must be a number in \[0, inf\), got -1"):
        SolverOptions(average=-1)
    with pytest.raises(SeqimpError, match=r"average: the fast route's average of its passes; solver 'sgd'"):
        SolverOptions(solver="sgd", average=1.0)
    with pytest.raises(SeqimpError, match=r"weight_tol must be a number in \[0, inf\), got -1"):
        SolverOptions(weight_tol=-1)
    with pytest.raises(SeqimpError, match=r"solver must be one of 'auto', 'dcd', 'fast', 'sgd', got 'newton'"):
        SolverOptions(solver="newton")
    with pytest.raises(SeqimpError, match=r"patience: options of the fast route; solver 'dcd' stops by liblinear's"):
        SolverOptions(solver="dcd", patience=3)
    from seqimp.options import ModelOptions
    from seqimp.training import train_model

    with pytest.raises(SeqimpError, match=r"solver options \(solver='fast'\) are the WD SVM's \(shifts 0\); shifts 1"):
        train_model(["ACGTAC", "ACGTTT"], ["TTGTAC", "GGGTAC"], model=ModelOptions(degree=2, shifts=1, test_fraction=0),
                    solver=SolverOptions(solver="fast"))


def test_the_command_line_offers_the_librarys_solvers_and_shows_its_defaults(capsys):
    from seqimp.cli._train_solver import SOLVERS
    from seqimp.options import SOLVERS as PIPELINE_SOLVERS

    assert SOLVERS == PIPELINE_SOLVERS
    with pytest.raises(SeqimpError, match="solver must be one of " + ", ".join(map(repr, SOLVERS)) + ", got 'x'"):
        WDClassifier(degree=2, solver="x").fit(["ACGT", "AAAA", "CCCC", "GGGG"], [1, 0, 1, 0])
    assert main(["train", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for option, name in (("--validation-fraction", "validation_fraction"), ("--validation-tol", "validation_tol"),
                         ("--weight-tol", "weight_tol"), ("--patience", "patience"), ("--average", "average")):
        entry = text.split(f" {option} ")[-1].split(" --")[0]     # its line under "solver", not the examples
        assert f"default {DEFAULTS[name]:g})" in entry, (option, entry)
    assert f"(default {DEFAULTS['solver']}: dcd below 50,000 training sequences, else fast)" in text
    assert "--solver fast --weight-tol 0.02" in text          # the example


def test_an_old_model_file_without_the_solver_record_still_loads(tmp_path):
    weights, meta = load_model(_train(tmp_path, "--solver", "fast", "-q"))
    new_keys = {"solver", "solver_requested", "solver_reason", "passes", "converged", "max_iter", "tol",
                "validation_fraction", "validation_tol", "weight_tol", "patience", "average", "validation_rows",
                "stopping_history"}
    old = {k: v for k, v in meta.items() if k not in new_keys}    # a model file without the solver record
    save_model(tmp_path / "old.npz", weights, old)
    loaded, old_meta = load_model(tmp_path / "old.npz")
    assert old_meta == old and "solver" not in old_meta
    np.testing.assert_array_equal(loaded.tables[2], weights.tables[2])
    # the round trip keeps the record as written (JSON: tuples and arrays as lists, NaN as null)
    save_model(tmp_path / "again.npz", weights, meta)
    assert load_model(tmp_path / "again.npz")[1] == meta


def test_solver_options_keep_the_start_up_light():
    """The defaults are read from the library only when --help shows them: an argument error imports neither."""
    import subprocess
    import sys

    code = ("import sys; from seqimp.cli import main; "
            "assert main(['train', '--positive', 'p.fa', '--negative', 'n.fa', '--model-out', 'm.npz', "
            "'--weight-tol', '-1']) == 2; "
            "print(sorted(m for m in sys.modules if m.startswith(('seqimp.kernels', 'sklearn', 'numba'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert eval(out.stdout.strip().splitlines()[-1]) == []
    assert "argument --weight-tol: must be a number in [0, inf), got -1.0" in out.stderr


def test_threads_share_the_weights_and_are_recorded(tmp_path, capsys):
    out = _train(tmp_path, "--solver", "fast", "--threads", "2", "--extrapolate", "--shrink-margin", "0")
    err = capsys.readouterr().err
    weights, meta = load_model(out)
    assert meta["threads"] == 2 and "2 threads sharing the weights" in err
    # the one-thread model up to the threads' scheduling: the same scores, nearly
    one = _reference(solver="fast", n_jobs=1, extrapolate=True, shrink_margin=0.0)
    codes = read_fasta(POS).codes
    assert np.corrcoef(weights.score(codes), one.decision_function(codes))[0, 1] > 0.99
    # 200 sequences: one thread by default, the same bytes every run
    first = _train(tmp_path, "--solver", "fast", name="one.npz")
    assert load_model(first)[1]["threads"] == 1
    assert first.read_bytes() == _train(tmp_path, "--solver", "fast", name="again.npz").read_bytes()
    assert main(["train", "--positive", POS, "--negative", NEG, "--shifts", "1", "--threads", "2",
                 "--model-out", str(tmp_path / "k.npz")]) == 2
    assert "--threads: the solver options train the WD SVM" in capsys.readouterr().err
