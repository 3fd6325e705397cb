"""The figure process (seqimp.plot._figure_process): the same bytes as drawn here, jobs it could
not draw drawn here (an error raised here), nothing started where it is switched off."""

import os
import pickle

import numpy as np
import pandas as pd
import pytest

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif
from seqimp.plot._figure_process import FigureJob, draw_figures
from seqimp.plot._figure_process import ENV, FigureProcess, draw_job, figure_process


def _jobs(folder):
    rng = np.random.default_rng(0)
    pwm = rng.dirichlet(np.ones(4) * 0.3, size=8)
    motif = Motif("m1", pwm, start=12)
    sites = pd.DataFrame({"motif": ["m1"] * 5, "position": [3, 4, 4, 9, 12], "strand": list("++-+-")})
    block = rng.normal(size=(12, 4))
    target = Motif("t1", rng.dirichlet(np.ones(4) * 0.3, size=10))
    row = {"query_from": 2, "query_to": 7, "offset": 1, "strand": "-", "target": "t1", "q_value": 1e-4,
           "calibrated_q": float("nan")}
    return [FigureJob(str(folder / "logo.png"), "seqimp.plot._logos:logo", (motif,), {"origin": 10}),
            FigureJob(str(folder / "importance.png"), "seqimp.plot._logos:block_logo", (block, 5, "dna")),
            FigureJob(str(folder / "positions.svg"), "seqimp.plot._logos:site_positions", (sites, motif, 30)),
            FigureJob(str(folder / "match.png"), "seqimp.report._match_logos:match_figure", (motif, target, row))]


def test_process_draws_the_same_bytes(tmp_path):
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    for job in _jobs(here):
        draw_job(job)
    with FigureProcess(True) as process:
        assert process.alive
        pending = draw_figures(_jobs(there))
        assert pending.jobs  # sent, not drawn here
        pending.wait()
        assert process.alive
    assert process.process.returncode == 0  # left its loop when its input closed
    for job in _jobs(here):
        name = job.path.rsplit("/", 1)[-1]
        assert (there / name).read_bytes() == (here / name).read_bytes(), name


def test_a_job_the_process_cannot_draw_is_drawn_here(tmp_path):
    bad = FigureJob(str(tmp_path / "bad.png"), "seqimp.plot._logos:logo", (np.full((3, 4), 2.0),))
    good = _jobs(tmp_path)[0]
    with FigureProcess(True):
        pending = draw_figures([good, bad])
        with pytest.raises(SeqimpError, match="PWM rows must be non-negative and sum to 1"):
            pending.wait()  # the process's error, raised again here by drawing the job here
    assert (tmp_path / "logo.png").stat().st_size > 0


def test_a_process_that_died_leaves_the_figures_to_this_one(tmp_path):
    with FigureProcess(True) as process:
        process.process.kill()
        process.process.wait()
        assert not process.alive
        pending = draw_figures(_jobs(tmp_path))   # no process: drawn here at once
        pending.wait()
    assert all((tmp_path / n).stat().st_size > 0 for n in ("logo.png", "importance.png", "positions.svg", "match.png"))


def test_killed_while_drawing_the_batch_is_drawn_here(tmp_path):
    with FigureProcess(True) as process:
        pending = process.submit(_jobs(tmp_path))
        process.process.kill()
        pending.wait()
    assert all((tmp_path / n).stat().st_size > 0 for n in ("logo.png", "importance.png", "positions.svg", "match.png"))


def test_switched_off_or_one_core(monkeypatch):
    monkeypatch.setenv(ENV, "0")
    with figure_process() as process:
        assert process.process is None and not process.alive
    monkeypatch.setenv(ENV, "1")
    monkeypatch.setattr("seqimp._utils.cores.available_cores", lambda: 1)
    with figure_process() as process:
        assert process.process is None
    monkeypatch.setattr("seqimp._utils.cores.available_cores", lambda: 2)
    with figure_process() as process:
        assert process.alive
    with figure_process(needed=False) as process:
        assert process.process is None


def test_only_seqimp_functions(tmp_path):
    with pytest.raises(ValueError, match="expected 'seqimp.<module>:<name>'"):
        draw_job(FigureJob(str(tmp_path / "x.png"), "os:system", ("true",)))


def test_figures_drawn_ahead_are_copied_and_changed_ones_drawn(tmp_path, monkeypatch):
    """Jobs sent ahead are drawn into the scratch folder; at the end a job with the same drawing
    (another path) is copied from there, one whose arguments changed is drawn; the same bytes as
    drawn here either way, and the scratch folder is gone after the process."""
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    jobs = _jobs(tmp_path / "nowhere")   # paths of the ahead jobs never written
    final = _jobs(there)
    changed = final[1]._replace(args=(final[1].args[0] + 1.0, *final[1].args[1:]))
    final[1] = changed
    for job in _jobs(here)[:1] + [changed._replace(path=str(here / "importance.png"))] + _jobs(here)[2:]:
        draw_job(job)
    sent = []
    with FigureProcess(True) as process:
        draw_figures(jobs, ahead=True)
        scratch = process._scratch
        monkeypatch.setattr(process, "_send_batch", lambda batch, _send=process._send_batch: sent.append(
            [j.path for j in batch]) or _send(batch))
        draw_figures(final).wait()
    assert sent == [[changed.path]]      # only the changed figure was drawn again
    assert not (tmp_path / "nowhere").exists() and not os.path.exists(scratch)
    for job in final:
        name = job.path.rsplit("/", 1)[-1]
        assert (there / name).read_bytes() == (here / name).read_bytes(), name


def test_a_figure_that_failed_ahead_is_drawn_here(tmp_path):
    bad = FigureJob(str(tmp_path / "bad.png"), "seqimp.plot._logos:logo", (np.full((3, 4), 2.0),))
    with FigureProcess(True):
        draw_figures([bad], ahead=True)
        with pytest.raises(SeqimpError, match="PWM rows must be non-negative"):
            draw_figures([bad]).wait()


def test_nothing_is_drawn_ahead_without_a_process(tmp_path):
    draw_figures(_jobs(tmp_path), ahead=True).wait()
    assert not any(tmp_path.iterdir())


def test_a_job_that_cannot_be_pickled_is_drawn_here(tmp_path):
    """Arguments pickle refuses: never drawn ahead, drawn here at the end; the process stays for
    the next figures."""

    class Title(str):
        def __reduce__(self):
            raise pickle.PicklingError("not this one")

    motif = Motif("m1", np.full((3, 4), 0.25), start=1)
    job = FigureJob(str(tmp_path / "x.png"), "seqimp.plot._logos:logo", (motif,), {"title": Title("t")})
    with FigureProcess(True) as process:
        draw_figures([job], ahead=True)
        assert process._scratch is not None and not process._ahead
        draw_figures([job]).wait()
        assert process.alive
    assert (tmp_path / "x.png").stat().st_size > 0
