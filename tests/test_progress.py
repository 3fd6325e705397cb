import io

import pytest

from seqimp._utils.progress import progress_bar


def test_progress_bar_counts_and_finishes():
    stream = io.StringIO()
    with progress_bar(4, "sampling", file=stream) as bar:
        for _ in range(3):
            bar.update()
        bar.update(1)
        assert bar.n == 4 and bar.total == 4
    out = stream.getvalue()
    assert out.startswith("\rsampling:") or out.startswith("sampling:")
    assert "4/4" in out.split("\r")[-1]


@pytest.mark.parametrize("total", [0, 3])
def test_progress_bar_disabled_is_silent(total):
    stream = io.StringIO()
    with progress_bar(total, "quiet", enabled=False, file=stream) as bar:
        bar.update(total)
    assert stream.getvalue() == ""


def test_progress_bar_writes_to_stderr_by_default(capsys):
    with progress_bar(2, "levels") as bar:
        bar.update(2)
    err = capsys.readouterr().err
    assert "levels" in err and "2/2" in err
