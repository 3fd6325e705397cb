"""The ``seqimp`` console script as a user runs it, in a process of its own, with its parallel options:
it ends by itself once its work is done, ends promptly on SIGTERM (or SIGINT) during the work -- also
one handled where Python drops the exception it raises -- saying what was written, and no process it
started (worker, figure process, Dask worker, resource tracker) outlives it. A parallel function of
the Python API called twice in one process keeps no more workers than one call and leaks nothing
when the process exits.

Each command runs in a new session, so every process it starts (whoever its parent is by then)
carries the session id; after the command ends, none of them may be left.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).resolve().parent / "data"
POS, NEG = str(DATA / "planted_pos.fa"), str(DATA / "planted_neg.fa")  # 100 + 100 sequences of 30 nt

#: Seconds a finished command may take to end (its work is a few seconds of CPU).
FINISH_S = 60
#: Seconds a run on a local Dask cluster may take (starting two worker processes is most of it).
DASK_FINISH_S = 120
#: Seconds a command may take to end after SIGTERM or SIGINT.
SIGNAL_S = 15
#: Seconds the processes a command started may take to go after it ended (a resource tracker leaves
#: once every process holding its pipe is gone).
LINGER_S = 10
#: Seconds to wait for a command to reach the point where it is interrupted.
START_S = 60

try:
    import psutil
except ImportError:  # pragma: no cover - read /proc instead
    psutil = None

pytestmark = pytest.mark.skipif(psutil is None and not os.path.isdir("/proc"),
                                reason="needs psutil or /proc to list a session's processes")


def _command() -> list:
    """The installed console script beside this interpreter (``python -m seqimp`` where there is none)."""
    script = Path(sys.executable).with_name("seqimp")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "seqimp"]


def _session(sid) -> list:
    """``"PID command line"`` of each live (not zombie) process of session ``sid``."""
    pids = psutil.pids() if psutil is not None else [int(name) for name in os.listdir("/proc") if name.isdigit()]
    found = []
    for pid in pids:
        try:
            if os.getsid(pid) != sid:
                continue
            if psutil is not None:
                process = psutil.Process(pid)
                if process.status() == psutil.STATUS_ZOMBIE:
                    continue
                line = " ".join(process.cmdline())
            else:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                if state == "Z":
                    continue
                line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except Exception:  # noqa: BLE001 - the process ended while it was read
            continue
        found.append(f"{pid} {line.strip()}")
    return found


class Run:
    """One command line started in a new session; its stdout and stderr go to files in ``folder``."""

    def __init__(self, args, folder, env=None, command=None):
        self.folder = Path(folder)
        self.args = list(args)
        command = _command() if command is None else list(command)
        self.line = " ".join(command + self.args)
        self.out_path, self.err_path = self.folder / "stdout.txt", self.folder / "stderr.txt"
        environment = dict(os.environ, MPLBACKEND="Agg", **(env or {}))
        # a child inherits an ignored SIGINT (the tests run as a shell's background job): give it the
        # default disposition, so that Python installs its KeyboardInterrupt handler there
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
                self.proc = subprocess.Popen(command + self.args, cwd=self.folder, stdin=subprocess.DEVNULL,
                                             stdout=out, stderr=err, env=environment, start_new_session=True)
        finally:
            signal.signal(signal.SIGINT, previous)
        self.sid = self.proc.pid

    @property
    def err(self) -> str:
        return self.err_path.read_text(errors="replace")

    @property
    def out(self) -> str:
        return self.out_path.read_text(errors="replace")

    def _describe(self) -> str:
        return f"{self.line[:300]}\n--- stderr ---\n{self.err[-3000:]}"

    def wait_for(self, ready, what, timeout=START_S) -> None:
        """Wait until ``ready()`` holds while the command runs; fail if it ends or ``timeout`` passes first."""
        end = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                pytest.fail(f"the command ended (exit {self.proc.returncode}) before {what}\n{self._describe()}")
            if time.monotonic() > end:
                pytest.fail(f"no {what} within {timeout} s\n{self._describe()}")
            time.sleep(0.05)

    def finish(self, timeout) -> int:
        """The exit status; fails when the command has not ended ``timeout`` seconds from now."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            running = _session(self.sid)
            self.kill()
            pytest.fail(f"the command did not end within {timeout} s; its processes:\n" + "\n".join(running)
                        + f"\n{self._describe()}")

    def left_behind(self) -> list:
        """The processes of the command's session still there ``LINGER_S`` seconds after it ended."""
        end = time.monotonic() + LINGER_S
        while True:
            left = _session(self.sid)
            if not left or time.monotonic() > end:
                return left
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL to every process of the session (the command's and what it started)."""
        for entry in _session(self.sid):
            try:
                os.kill(int(entry.split()[0]), signal.SIGKILL)
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def launch(tmp_path):
    """``launch(args, env=None, folder=tmp_path, command=None)`` starts the console script (or ``command``
    followed by ``args``); whatever it leaves is killed at the end of the test."""
    runs = []

    def start(args, env=None, folder=None, command=None):
        folder = Path(folder or tmp_path)
        folder.mkdir(parents=True, exist_ok=True)
        run = Run(args, folder, env, command)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.kill()


def _ends_by_itself(run, timeout=FINISH_S):
    """The command exits 0 by itself within ``timeout`` seconds and leaves no process behind."""
    status = run.finish(timeout)
    assert status == 0, run._describe()
    assert run.left_behind() == [], run._describe()
    assert "leaked" not in run.err, run._describe()


def _ends_on_signal(run, signum=signal.SIGTERM, traceback_free=True):
    """``signum`` ends the command within ``SIGNAL_S`` seconds with 143 (SIGTERM) or 130 (SIGINT),
    a line saying nothing was written, and no process left behind; ``traceback_free``: and no
    traceback on stderr (Dask may log one of its own as its cluster is closed)."""
    run.proc.send_signal(signum)
    status = run.finish(SIGNAL_S)
    name, expected = ("SIGTERM", 143) if signum == signal.SIGTERM else ("SIGINT", 130)
    assert status == expected, run._describe()
    assert f"interrupted by {name}; nothing written" in run.err, run._describe()
    assert run.left_behind() == [], run._describe()
    if traceback_free:
        assert "Traceback" not in run.err, run._describe()


def _fasta(path, n, length, seed):
    """``n`` uniform random DNA sequences of ``length``."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, (n, length))
    path.write_text("".join(f">s{i}\n{''.join('ACGT'[c] for c in row)}\n" for i, row in enumerate(codes)))
    return str(path)


def _scorer(folder, marker=None):
    """A --scorer file; with ``marker``, a call in a worker process creates that file and then sleeps
    (the command is then busy in its workers until it is interrupted)."""
    block = "" if marker is None else textwrap.dedent(f"""\
        if multiprocessing.current_process().name.startswith("LokyProcess"):
            open({str(marker)!r}, "w").close()
            time.sleep(600)
        """)
    path = Path(folder) / "site.py"
    path.write_text("import multiprocessing\nimport time\n\nimport numpy as np\n\n\ndef score(X):\n"
                    + textwrap.indent(block, "    ")
                    + "    return (X[:, 10:17] == [2, 0, 3, 3, 0, 1, 0]).sum(axis=1).astype(float)\n")
    return f"{path}:score"


def _poim_args(scorer, out):
    return ["poim", "--scorer", scorer, "--background-fasta", NEG, "--out", str(out), "--n-jobs", "2",
            "--max-order", "2", "--n-samples", "20", "--format", "svg"]


def test_poim_with_worker_processes_ends_once_written(tmp_path, launch):
    """``poim --scorer ... --n-jobs 2`` writes its results, exits 0 by itself and leaves none of its worker
    processes (nor their resource tracker) behind."""
    out = tmp_path / "res"
    run = launch(_poim_args(_scorer(tmp_path), out))
    _ends_by_itself(run)
    assert (out / "poim.npz").is_file() and (out / "report.html").is_file()
    assert "report:" in run.out


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_poim_with_worker_processes_ends_on_a_signal_while_they_score(tmp_path, launch, signum):
    """A signal while ``poim --n-jobs 2`` waits for its worker processes (which are scoring) ends it
    within seconds with the signal's status and a line saying nothing was written; the workers go too."""
    marker = tmp_path / "scoring"
    out = tmp_path / "res"
    run = launch(_poim_args(_scorer(tmp_path, marker), out))
    run.wait_for(marker.exists, "worker scoring")
    _ends_on_signal(run, signum)
    assert not out.exists()


def test_poim_with_worker_processes_ends_on_sigterm_after_they_scored(tmp_path, launch):
    """SIGTERM once ``poim --n-jobs 2`` has scored (its idle workers still up) while it writes its
    tables and figures, or as it exits, ends it within seconds: 143 with a line saying whether the
    results had been written (0 where it had ended before the signal came), and no worker left."""
    out = tmp_path / "res"
    run = launch(_poim_args(_scorer(tmp_path), out))
    run.wait_for(lambda: "writing tables, figures and the report" in run.err, "writing")
    run.proc.send_signal(signal.SIGTERM)
    status = run.finish(SIGNAL_S)
    assert status in (0, 143), run._describe()
    if status == 143:
        assert re.search(r"^seqimp: poim interrupted by SIGTERM( as it exited)?; (nothing written|the results had "
                         r"been written)", run.err, re.M), run._describe()
    assert run.left_behind() == [], run._describe()


def test_sigterm_raised_inside_a_callback_from_c_still_ends_the_command(tmp_path, launch):
    """SIGTERM handled while Python runs a callback from C code (as LLVM calls one while numba
    compiles), where an exception raised by the handler cannot propagate and is dropped, still ends
    the command: 143, nothing written, no "Exception ignored" report."""
    path = tmp_path / "callback.py"
    path.write_text(textwrap.dedent("""\
        import ctypes
        import os
        import signal

        CALLBACK = ctypes.CFUNCTYPE(None)
        signalled = []


        def inside():
            if not signalled:
                signalled.append(True)
                os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # its handler runs here, inside the callback
                pass


        def score(X):
            CALLBACK(inside)()
            return X.sum(axis=1).astype(float)
        """))
    out = tmp_path / "res"
    run = launch(["poim", "--scorer", f"{path}:score", "--background-fasta", NEG, "--out", str(out),
                  "--max-order", "1", "--n-samples", "2", "--format", "svg"])
    status = run.finish(SIGNAL_S + START_S)
    assert status == 143, run._describe()
    assert "interrupted by SIGTERM; nothing written" in run.err, run._describe()
    assert "Exception ignored" not in run.err, run._describe()
    assert not out.exists()
    assert run.left_behind() == [], run._describe()


def test_train_on_threads_ends_once_written(tmp_path, launch):
    """``train --threads 2`` saves the model, exits 0 by itself and leaves nothing behind."""
    model = tmp_path / "m.npz"
    run = launch(["train", "--positive", POS, "--negative", NEG, "--degree", "3", "--threads", "2",
                  "--solver", "dcd", "--model-out", str(model)])
    _ends_by_itself(run)
    assert model.is_file()


def test_train_on_threads_ends_on_sigterm_while_it_fits(tmp_path, launch):
    """SIGTERM while ``train --threads 2`` runs its coordinate-descent passes on two threads (a fit of
    thousands of passes on random sequences) ends it within seconds, exit 143, nothing written."""
    pos, neg = _fasta(tmp_path / "p.fa", 10000, 40, 1), _fasta(tmp_path / "n.fa", 10000, 40, 2)
    model = tmp_path / "m.npz"
    run = launch(["train", "--positive", pos, "--negative", neg, "--degree", "3", "--C", "100", "--threads", "2",
                  "--solver", "dcd", "--model-out", str(model)])
    run.wait_for(lambda: "dual coordinate descent on" in run.err, "fit")
    _ends_on_signal(run)
    assert not model.exists()


def _synthetic_poim(path):
    from seqimp.importance import POIMResult
    from seqimp.motifs import Motif, implied_poim

    truth = [Motif.from_consensus("a", "TTGACA", purity=0.9, start=8)]
    tables = implied_poim(truth, 30, 3)
    POIMResult(tables, tables, expected_score=0.0, score_std=1.0).save(path)
    return str(path)


def test_motifs_with_the_figure_process_ends_once_written(tmp_path, launch):
    """``motifs`` with its figure process (a second interpreter drawing the logos) writes the logos,
    exits 0 by itself and leaves the figure process behind neither."""
    out = tmp_path / "m"
    run = launch(["motifs", "--poim", _synthetic_poim(tmp_path / "p.npz"), "--out", str(out), "--format", "svg"],
                 env={"SEQIMP_FIGURE_PROCESS": "1"})
    _ends_by_itself(run)
    assert list((out / "logos").glob("*.svg"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_motifs_with_the_figure_process_ends_on_sigterm(tmp_path, launch):
    """SIGTERM while ``motifs`` reads its positives (a named pipe nobody writes) with the figure process
    started ends it within seconds, exit 143, nothing written, and the figure process goes too."""
    if _cores() < 2:
        pytest.skip("the figure process starts with two or more cores only")
    fifo = tmp_path / "pos.fa"
    os.mkfifo(fifo)
    out = tmp_path / "m"
    run = launch(["motifs", "--positive", str(fifo), "--negative", NEG, "--out", str(out), "--degree", "3"],
                 env={"SEQIMP_FIGURE_PROCESS": "1"})
    run.wait_for(lambda: any("_figure_worker" in p for p in _session(run.sid)), "figure process")
    _ends_on_signal(run)
    assert not out.exists()


def _cores() -> int:
    """The cores the command would see (its figure process starts with two or more)."""
    for name in ("seqimp._utils.cores", "seqimp._cores"):
        try:
            return int(importlib.import_module(name).available_cores())
        except (ImportError, AttributeError):
            continue
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _needs_dask():
    if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
        pytest.skip('needs the dask extra (pip install "seqimp[dask]")')


def test_train_on_a_local_dask_cluster_ends_once_written(tmp_path, launch):
    """``train --dask-workers 2`` (a local cluster of two worker processes) saves the model, exits 0 by
    itself and leaves no Dask process behind."""
    _needs_dask()
    model = tmp_path / "m.npz"
    pos, neg = tmp_path / "p.fa", tmp_path / "n.fa"
    pos.write_text("".join(Path(POS).read_text().splitlines(keepends=True)[:8]))
    neg.write_text("".join(Path(NEG).read_text().splitlines(keepends=True)[:8]))
    run = launch(["train", "--positive", str(pos), "--negative", str(neg), "--degree", "2", "--test-fraction", "0",
                  "--dask-workers", "2", "--model-out", str(model)])
    _ends_by_itself(run, DASK_FINISH_S)
    assert model.is_file()


def test_train_on_a_local_dask_cluster_ends_on_sigterm_while_it_fits(tmp_path, launch):
    """SIGTERM while ``train --dask-workers 2`` runs its rounds on the cluster (random sequences: up to
    a thousand rounds) ends it within seconds, exit 143, nothing written, the cluster gone."""
    _needs_dask()
    pos, neg = _fasta(tmp_path / "p.fa", 300, 12, 1), _fasta(tmp_path / "n.fa", 300, 12, 2)
    model = tmp_path / "m.npz"
    run = launch(["train", "--positive", pos, "--negative", neg, "--degree", "1", "--C", "100",
                  "--dask-workers", "2", "--model-out", str(model)])
    run.wait_for(lambda: "(CoCoA+) on" in run.err, "fit on the cluster")
    _ends_on_signal(run, traceback_free=False)
    assert not model.exists()


def test_parallel_api_called_twice_adds_no_workers_and_leaks_nothing(tmp_path, launch):
    """Two calls of ``poim_sampled(..., n_jobs=2)`` in one process leave at most two worker processes
    alive after each (the executor is reused, not one more per call), and the process then exits 0
    by itself without a warning about leaked semaphores or folders, leaving none of its processes
    behind."""
    Path(_scorer(tmp_path).rsplit(":", 1)[0]).rename(tmp_path / "site_scorer.py")
    code = textwrap.dedent(f"""\
        import multiprocessing
        import sys

        sys.path.insert(0, {str(tmp_path)!r})
        from site_scorer import score
        from seqimp import MarkovBackground
        from seqimp.importance import poim_sampled

        seen = []
        for _ in range(2):
            poim_sampled(score, MarkovBackground.uniform(), 2, length=30, n_samples=4, random_state=0,
                         n_jobs=2, batch_size=512, progress=False)
            seen.append(sorted(p.pid for p in multiprocessing.active_children()))
        print(seen)
        """)
    run = launch(["-c", code], command=[sys.executable])
    _ends_by_itself(run)
    first, second = eval(run.out.strip().splitlines()[-1])  # noqa: S307 - two lists of ints printed above
    assert 1 <= len(first) <= 2 and 1 <= len(second) <= 2, run.out  # two jobs: two workers at most, each time
    assert "resource_tracker" not in run.err, run.err
