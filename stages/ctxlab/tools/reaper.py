"""Run each command so that none of its processes outlives it (run as a script, DESIGN §2).

``python -I -S reaper.py FD`` is a small fork server, started once per process that runs
commands (``ctxlab.tools.forkserver``) and talking to it over the socket ``FD``. For each
command the client sends two descriptors: one end of a socket pair of the command's own (the
*line*) and the write end of the pipe its output goes to. The server forks a *reaper* for it,
which reads the request (program, arguments, directory, environment) from the line, starts a
session of its own and on Linux makes itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): every process the command starts stays below it, even one
that leaves the process group or the session (``setsid``) or whose parent exits, because an
orphan is handed to the nearest subreaper, never to init. When the command exits — or when the
client sends SIGTERM at the timeout — the reaper SIGKILLs every process left below it, reaps
them and writes the command's exit code on the line. Elsewhere ``prctl`` is missing: the reaper
still kills what it can find below it, but a process that leaves the group and whose parent
exits is not contained. A process of the command that kills the reaper itself (only an
interpreter can: the python3 allowance) leaves the rest uncontained too — outside the jail
(``ctxlab.jail``): in it, the command has a process-id namespace of its own and cannot see the
reaper, and the whole namespace dies with the jail's first process.

A fork of this small process costs about a millisecond; a Python started for every command
cost ten. The server reaps a reaper only once the client has closed its line, so the client
can signal the reaper's pid and process group until then without either being reused. A line
closed while its command still runs (the client gave up on it) stops that command; when the
client goes away, the server stops every command still running and exits.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import socket
import sys
import time

try:  # signal's functions without its enum wrappers, which cost a third of the start-up
    import _signal as signal  # (CPython)
except ImportError:  # another interpreter
    import signal  # type: ignore[no-redef]

PR_SET_CHILD_SUBREAPER = 36
STOPS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
WAITED = {*STOPS, signal.SIGCHLD}  # what a reaper waits for


def become_subreaper() -> bool:
    """Make this process a child subreaper; False where the platform has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def children(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(n) for n in listing.read().split()]
    except OSError:
        pass
    found = []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as info:
                    fields = info.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == pid:
                found.append(int(name))
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, parents before their children."""
    found, pending = [], [pid]
    while pending:
        for child in children(pending.pop()):
            found.append(child)
            pending.append(child)
    return found


def kill_all() -> None:
    """SIGKILL everything below this process and reap it, until nothing is left."""
    while True:
        for pid in descendants(os.getpid()):
            try:  # noqa: SIM105 (contextlib would add to the server's start-up)
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            reaped, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child left, not even a zombie
        if not reaped:
            time.sleep(0.001)  # the killed ones are still dying


def reap_command(request: dict, line: socket.socket, output: int) -> None:
    """In the forked reaper: run the command, report its pid and then its exit code, exit.

    The stop signals and SIGCHLD are blocked before the pid goes out and taken with
    ``sigwait``: a Python handler runs only between bytecodes, so a SIGTERM that came just
    before a blocking ``waitpid`` waited, unhandled, for the command to end on its own.
    """
    os.setsid()
    become_subreaper()
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, WAITED)
    line.sendall(f"{os.getpid()}\n".encode())
    pid = os.fork()
    if pid == 0:
        _become_command(request, output, unblocked)
    os.close(output)
    code = wait_or_stop(pid)
    kill_all()
    _report(line, code)


def wait_or_stop(pid: int) -> int:
    """The exit code of ``pid`` (negative: the signal that ended it), or 128 + the number of
    the stop signal that came first. ``WAITED`` must be blocked."""
    while True:
        signum = signal.sigwait(WAITED)
        if signum != signal.SIGCHLD:
            return 128 + signum
        reaped, status = os.waitpid(pid, os.WNOHANG)  # or another process below it ended
        if reaped:
            return os.waitstatus_to_exitcode(status)


def _become_command(request: dict, output: int, mask: set) -> None:
    """In the command's process: its signals, directory and descriptors, then its program."""
    for signum in (*STOPS, signal.SIGPIPE, signal.SIGXFSZ):  # as a shell would start it
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a blocked signal stays so across exec
    argv = request["argv"]
    try:
        os.chdir(request["cwd"])
        stdin = os.open(os.devnull, os.O_RDONLY)
        os.dup2(stdin, 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.execvpe(argv[0], argv, request["env"])
    except OSError as error:
        os.write(output, f"cannot run {argv[0]!r}: {error.strerror}\n".encode())
        os._exit(127)


def _report(line: socket.socket, code: int) -> None:
    try:  # noqa: SIM105 (as above)
        line.sendall(f"{code}\n".encode())
    except OSError:
        pass  # the client is gone
    os._exit(0)


def receive(control: socket.socket) -> tuple[dict, socket.socket, int] | None:
    """One request: its size (8 bytes) carrying the two descriptors, then the request as JSON;
    None when the client has gone."""
    try:
        head, fds, _, _ = socket.recv_fds(control, 8, 2)
        while head and len(head) < 8:
            head += control.recv(8 - len(head))
        size = int.from_bytes(head, "big")
        body = b""
        while len(body) < size:
            chunk = control.recv(size - len(body))
            if not chunk:
                return None
            body += chunk
    except OSError:
        return None
    if len(head) < 8 or len(fds) != 2:
        return None
    for fd in fds:  # never inherited by the command's program: no other way out of it
        os.set_inheritable(fd, False)
    return json.loads(body), socket.socket(fileno=fds[0]), fds[1]


def readable(watched: list[socket.socket | int], timeout: float | None = None,
             ) -> list[socket.socket | int]:
    """Those of ``watched`` (sockets, or descriptors as numbers) that can be read or were
    closed at the other end, waiting until one can (at most ``timeout`` seconds, if given).
    ``poll``, not ``select``: ``select`` refuses a descriptor numbered 1,024 or more, and a
    reaper started by a process that holds many files (a long test session, a run of many
    layers) is handed such numbers."""
    poller = select.poll()
    by_fd = {}
    for item in watched:
        fd = item if isinstance(item, int) else item.fileno()
        by_fd[fd] = item
        poller.register(fd, select.POLLIN)
    return [by_fd[fd] for fd, _ in poller.poll(None if timeout is None else timeout * 1000)]


def serve(control: socket.socket) -> None:
    """Fork a reaper per request on ``control`` until the client closes it."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    running: dict[socket.socket, int] = {}  # each line still open at the client: its reaper
    done: set[int] = set()  # reapers whose client has closed the line
    while True:
        ready = readable([control, wake_r, *running])
        if wake_r in ready:
            os.read(wake_r, 4096)
        for line in [r for r in ready if r in running]:  # the client closed it
            pid = running.pop(line)
            line.close()
            try:  # noqa: SIM105 (as above)
                os.kill(pid, signal.SIGTERM)  # its reaper has ended, or the client gave up
            except ProcessLookupError:
                pass
            done.add(pid)
        if control in ready:
            received = receive(control)
            if received is None:
                break
            request, line, output = received
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for other in [control, *running]:
                    other.close()
                os.close(wake_r)
                os.close(wake_w)
                reap_command(request, line, output)
            os.close(output)
            running[line] = pid
        for pid in list(done):
            if os.waitpid(pid, os.WNOHANG)[0]:
                done.discard(pid)
    for line, pid in running.items():  # the client is gone: stop what it left running
        try:  # noqa: SIM105 (as above)
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        line.close()
    kill_all()


if __name__ == "__main__":
    os.set_inheritable(int(sys.argv[1]), False)
    serve(socket.socket(fileno=int(sys.argv[1])))
