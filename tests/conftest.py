import os

import matplotlib
import pytest

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")
# the command line's figure process (seqimp.plot._figure_process) costs a second interpreter per run:
# off for the suite, whose tests of it (tests/test_plot_figure_process.py) turn it on
os.environ.setdefault("SEQIMP_FIGURE_PROCESS", "0")

if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest -n N runs N workers on the machine's cores: each worker's numba kernels default to one
    # thread (parallel regions of two workers on two cores wait on each other's descheduled threads).
    # numba's pool keeps its size, so the tests that compare thread counts still run two threads.
    import numba

    import seqimp  # noqa: F401  (sizes numba's pool first)

    numba.set_num_threads(1)

SHARED_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "data")


@pytest.fixture
def shared_data():
    """Path of ../shared/data beside the repository; skip the test when it is absent."""
    from pathlib import Path

    path = Path(SHARED_DATA).resolve()
    if not path.is_dir():
        pytest.skip("../shared/data is not present")
    return path


class LmerScoresModel:
    """A stand-in for a fitted GKMClassifier where only its l-mer scores matter: ``lmer_seeds``
    reads ``word_length`` and ``lmer_scores()`` only."""

    def __init__(self, scores, word_length=4):
        self.scores, self.word_length = scores, word_length

    def lmer_scores(self):
        return self.scores


@pytest.fixture
def lmer_scores_model():
    """The class :class:`LmerScoresModel`."""
    return LmerScoresModel


@pytest.fixture
def refined_stats(monkeypatch):
    """The ``stats`` of every :func:`seqimp.motifs.refine_motifs` call the test makes through
    ``seqimp.motifs`` (the pipeline's routes import it from there), in call order."""
    import seqimp.motifs

    seen = []
    refine = seqimp.motifs.refine_motifs

    def spy(*args, **kwargs):
        out = refine(*args, **kwargs)
        seen.append(out.stats)
        return out

    monkeypatch.setattr(seqimp.motifs, "refine_motifs", spy)
    return seen
