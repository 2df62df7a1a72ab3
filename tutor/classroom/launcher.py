"""The command textual-serve runs for each student: hand the connection to the server's zygote.

    python -I -S .../tutor/classroom/launcher.py SOCKET [COMMAND...]

Standard library only, run without site-packages (about 15 ms): the point is not to import the
tutor here. It sends its stdin, stdout, stderr and environment to the zygote (see `zygote`), then
stands in for the tutor the zygote forked: it forwards SIGTERM, SIGINT and SIGHUP to it and exits
with its status. If the zygote cannot be reached, it runs COMMAND (default: the student app) itself,
as the server did before the zygote (slower, but the student gets a tutor; `sandbox`: a worker). Either way, the first line on stdout
is `AUTOGRAD_TUTOR_PID <pid of the tutor> zygote|alone`, for the server.
"""
from __future__ import annotations

import os
import signal
import socket
import sys
import time

PID_LINE = b"AUTOGRAD_TUTOR_PID"
REPLY_SECONDS = 20.0  # a zygote still importing at the server's start (on a busy machine) is worth waiting for
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def hand_over(path: str) -> tuple[socket.socket, int] | None:
    """Send this process's descriptors and environment to the zygote; its child's pid, or None."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(REPLY_SECONDS)
        connection.connect(path)
        payload = b"\0".join([os.getcwdb(), *(name + b"=" + value for name, value in os.environb.items())])
        message = len(payload).to_bytes(4, "big") + payload
        sent = socket.send_fds(connection, [message], [0, 1, 2])
        connection.sendall(message[sent:])
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = connection.recv(64)
            if not chunk:
                raise ConnectionError("the zygote closed the connection")
            reply += chunk
        word, number = reply.split()
        if word != b"pid":
            raise ValueError(reply)
        connection.settimeout(None)
        return connection, int(number)
    except (OSError, ValueError):
        connection.close()  # a child the zygote may still fork sees this and ends at once
        return None


def stand_in(connection: socket.socket, pid: int) -> None:
    """Forward signals to the tutor until it ends, then end the same way."""
    for signum in FORWARDED:
        signal.signal(signum, lambda signum, frame: _forward(pid, signum))
    connection.sendall(b"go")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (1, 2):  # the tutor alone writes to the server: when it ends, the server sees its output end
        os.dup2(null, fd)
    os.close(null)  # (stdin stays open: it shows which tutor this launcher stands in for, in /proc)
    reply = b""
    while chunk := connection.recv(64):
        reply += chunk
    if reply.startswith(b"exit "):
        code = int(reply.split()[1])
        if code < 0:  # killed by a signal: so is this process, for whoever waits for it
            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        sys.exit(code)
    while _exists(pid):  # the zygote went away first: wait for the tutor itself
        time.sleep(0.2)
    sys.exit(1)


def _forward(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _exists(pid: int) -> bool:
    """Whether the tutor still runs (an ended one nobody has reaped yet does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def run_alone(command: list[str]) -> None:
    os.write(1, b"%s %d alone\n" % (PID_LINE, os.getpid()))
    command = command or [sys.executable, "-m", "tutor.classroom.student_app"]
    os.execv(command[0], command)


def main() -> None:
    handed = hand_over(sys.argv[1]) if len(sys.argv) > 1 else None
    if handed is None:
        run_alone(sys.argv[2:])
    stand_in(*handed)


if __name__ == "__main__":
    main()
