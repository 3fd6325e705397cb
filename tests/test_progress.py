import io

from seqimp._progress import Progress


def test_progress_reports_and_finishes():
    stream = io.StringIO()
    with Progress(4, "sampling", stream=stream, interval=0.0) as bar:
        for _ in range(4):
            bar.update()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("sampling: 1/4 ( 25.0%)")
    assert lines[-1].startswith("sampling: 4/4 (100.0%)") and "left" not in lines[-1]


def test_progress_disabled_is_silent():
    stream = io.StringIO()
    with Progress(3, enabled=False, stream=stream) as bar:
        bar.update(3)
    assert stream.getvalue() == ""
