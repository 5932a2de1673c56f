"""Fresh processes that skip the SDK's import: forked from a warm interpreter.

Every process the tests start on the bench imports the Anthropic SDK first, about a second of
CPU (``docs/bench.md``), and each notebook runs in a kernel of its own. A
``Warm`` interpreter (``sys.executable``) imports ``PRELOAD`` once; each process is then
forked from it and runs its module as ``python -m`` would, in its own folder, environment,
session and standard streams. Nothing of the project (``ctxlab``, the stages, ``solutions/``)
is imported before the fork: each process imports it afresh, as a learner's would.

A preloaded module must read nothing at import that a process could set otherwise: the SDK
reads its own variables (``ANTHROPIC_LOG``, ``DEFER_PYDANTIC_BUILD``), so a process is
forked only with the server's environment but for ``UNREAD`` (``start`` refuses anything
else). matplotlib (and pyplot, with the Agg renderer every figure of a notebook is drawn
with) also reads, at import:

- ``MPLBACKEND``, which ipykernel sets for itself (to its inline backend) before any cell
  runs, when the environment does not: the server imports it with ``KERNEL_SETS`` set the
  same way, so ``rcParams['backend']`` is what a fresh kernel's is;
- a ``matplotlibrc`` in the process's folder, which the server's folder does not have:
  ``refuses`` such a folder, and the kernel then starts as before;
- its config and cache folder (``MPLCONFIGDIR``, else under ``HOME``: both in the compared
  environment, and so is the font cache in it); where that folder is not writable, matplotlib
  makes a temporary one and removes it at exit, which every forked process would inherit:
  the server then ``refuses`` every process, and they all start as before.

ipykernel reads ``JPY_PARENT_PID``: it is not preloaded. The forked processes share the
server's hash seed.

They are the server's children: it reaps each once it has exited and reports its status, and
it is waited for in turn (``close``), so their CPU time is counted where ``time`` sees it.
Linux only (``os.pidfd_open``); elsewhere ``Warm.supported()`` is false and the kernels start
as before.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

PRELOAD = ("anthropic", "matplotlib.pyplot", "matplotlib.backends.backend_agg")
KERNEL_SETS = {"MPLBACKEND": "module://matplotlib_inline.backend_inline"}
"""What ipykernel sets in its own environment, when unset, before it runs a cell
(``ipykernel.kernelapp``): set in the server's while it preloads, and only then."""
UNREAD = ("JPY_", "PYTEST_CURRENT_TEST")
"""Variables (or prefixes) that differ between processes by design and that no preloaded
module reads at import: jupyter_client's per kernel, pytest's per test."""

SERVER = r"""
import gc, json, os, runpy, sys
kernel_sets, *preload = sys.argv[1:]
environ = dict(os.environ)
os.environ.update({key: value for key, value in json.loads(kernel_sets).items()
                   if not environ.get(key)})
gc.disable()  # as ctxlab.startup: the preloaded modules' objects live as long as the process,
for name in preload:  # so they are loaded without collections and then set aside from
    __import__(name)  # the collector, here and in every process forked from here
gc.enable()
gc.freeze()
made = os.environ.get("MPLCONFIGDIR") != environ.get("MPLCONFIGDIR")
os.environ.clear()
os.environ.update(environ)
sys.stdout.write(json.dumps(made and "matplotlib made itself a temporary config folder "
                            "(MPLCONFIGDIR or HOME's is not writable)") + "\n")
sys.stdout.flush()


def serve():
    # answer requests until stdin closes; in a forked child, return its request
    for line in sys.stdin:
        request = json.loads(line)
        if "status" in request:  # asked once it has exited: reaped here, never before
            pid, status = os.waitpid(request["status"], os.WNOHANG)
            answer = os.waitstatus_to_exitcode(status) if pid else None
        else:
            sys.stdout.flush()
            answer = os.fork()
            if answer == 0:
                return request
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    while True:  # no more requests: wait for every child, so that its CPU time is counted
        try:
            os.wait()
        except ChildProcessError:
            return None


def become(request):
    # this process is now `python -m module args`, and it exits as that one would: atexit
    # handlers run, a traceback or SystemExit gives its status
    os.setsid()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    nothing = os.open(os.devnull, os.O_RDONLY)  # as jupyter_client starts a kernel:
    os.dup2(nothing, 0)  # nothing in, output on stderr
    os.dup2(2, 1)
    os.close(nothing)
    sys.argv = ["-m", *request["args"]]
    sys.path[0] = os.getcwd()  # where `python -m` puts it
    runpy.run_module(request["module"], run_name="__main__", alter_sys=True)


request = serve()
if request is not None:
    become(request)
"""


class Warm:
    """A warm interpreter that forks processes on request (one per test worker)."""

    def __init__(self, preload: tuple[str, ...] = PRELOAD) -> None:
        self.env = dict(os.environ)
        self.server = subprocess.Popen(
            [sys.executable, "-c", SERVER, json.dumps(KERNEL_SETS), *preload],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._refusal: list[str | bool] = []  # the server's first line, read when first needed

    def refuses(self, cwd: str | Path) -> str | None:
        """Why a process in ``cwd`` would not start here as it would fresh (then start it
        without Warm), or None."""
        if not self._refusal:
            assert self.server.stdout
            self._refusal.append(json.loads(self.server.stdout.readline()))
        if self._refusal[0]:
            return str(self._refusal[0])
        rc = Path(cwd) / "matplotlibrc"
        if rc.exists() and not rc.is_dir():  # as matplotlib_fname() looks for it
            return f"{cwd} has a matplotlibrc, which matplotlib reads at import"
        return None

    @staticmethod
    def supported() -> bool:
        return hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal")

    def _ask(self, request: dict) -> object:
        assert self.server.stdin and self.server.stdout
        self.server.stdin.write(json.dumps(request) + "\n")
        self.server.stdin.flush()
        return json.loads(self.server.stdout.readline())

    def start(self, module: str, args: list[str], *, cwd: str | Path,
              env: Mapping[str, str]) -> Forked:
        """``python -m module *args`` in ``cwd`` with exactly ``env``, in a new session,
        nothing on its stdin and its stdout on stderr (as jupyter_client starts a kernel)."""
        changed = {key for key in self.env.keys() | env.keys()
                   if self.env.get(key) != env.get(key)}
        read = sorted(key for key in changed if not key.startswith(UNREAD))
        if read:
            raise ValueError(f"a preloaded module may have read {read} otherwise: start the "
                             "process without Warm, or check the module and add it to UNREAD")
        refusal = self.refuses(cwd)
        if refusal:
            raise ValueError(f"{refusal}: start the process without Warm")
        pid = self._ask({"module": module, "args": args, "cwd": str(cwd), "env": dict(env)})
        assert isinstance(pid, int), pid
        return Forked(self, pid)

    def close(self) -> None:
        """Take no more requests; wait for the server, which waits for what it forked."""
        assert self.server.stdin and self.server.stdout
        self.server.stdin.close()
        self.server.wait()
        self.server.stdout.close()


class Forked:
    """A process ``Warm`` forked, with the part of ``subprocess.Popen`` that jupyter_client
    and the tests use: ``pid``, ``poll``, ``wait``, ``send_signal``, ``terminate``, ``kill``."""

    stdin = stdout = stderr = None

    def __init__(self, warm: Warm, pid: int) -> None:
        self.warm, self.pid = warm, pid
        self.pidfd = os.pidfd_open(pid)  # readable once it has exited, never another's
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.pidfd], [], [], 0)[0]:
            status = self.warm._ask({"status": self.pid})  # it has exited: the server reaps it
            assert isinstance(status, int), f"pid {self.pid} exited but was not reaped: {status}"
            self.returncode = status
            os.close(self.pidfd)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0)
            select.select([self.pidfd], [], [], left)
        return self.returncode  # type: ignore[return-value]

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            signal.pidfd_send_signal(self.pidfd, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)
