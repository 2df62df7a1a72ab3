"""The OS layer on its own: code that bypasses the language layer entirely, run in a confined child.

Each test forks, confines the child exactly as the worker does, calls the forbidden thing directly
(no snippet, no guards) and reports what happened over a pipe.
"""
import ctypes
import errno
import json
import os
import platform
import signal
import socket
import subprocess
import threading

import numpy as np
import pytest

from engine.sandbox import confine

pytestmark = pytest.mark.skipif(not confine.available(), reason="seccomp is not available on this system")


def in_confined_child(action, *, cpu_seconds=5, memory_bytes=512 * 2**20):
    """Run `action()` in a confined child; (outcome, exit status) where outcome is what it returned or raised."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        try:
            confine.confine(cpu_seconds=cpu_seconds, memory_bytes=memory_bytes, keep_fds=(write_fd,))
            try:
                outcome = {"returned": repr(action())}
            except BaseException as error:  # noqa: BLE001
                outcome = {"raised": type(error).__name__, "message": str(error)}
            os.write(write_fd, json.dumps(outcome).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    data = b""
    while chunk := os.read(read_fd, 65536):
        data += chunk
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    return (json.loads(data) if data else None), status


@pytest.mark.parametrize("name, action", [
    ("read a file", lambda: open("/etc/hostname").read()),
    ("read the process's own memory", lambda: open("/proc/self/mem", "rb")),
    ("list a folder", lambda: os.listdir("/")),
    ("make a folder", lambda: os.mkdir("/tmp/sandbox-escape-dir")),
    ("subprocess", lambda: subprocess.run(["true"])),
    ("socket", lambda: socket.socket()),
    ("socketpair", lambda: socket.socketpair()),
    ("fork", lambda: os.fork()),
    ("exec", lambda: os.execv("/bin/true", ["true"])),
    ("signal the parent", lambda: os.kill(os.getppid(), signal.SIGTERM)),
    ("start a thread", lambda: threading.Thread(target=print).start()),
])
def test_forbidden_calls_fail_in_the_child(name, action):
    outcome, status = in_confined_child(action)
    assert status == 0
    assert "raised" in outcome, f"{name} was allowed: {outcome}"
    assert outcome["raised"] in ("PermissionError", "RuntimeError", "OSError"), outcome


def test_os_system_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    outcome, _ = in_confined_child(lambda: os.system(f"touch {marker}"))
    assert outcome["returned"] != "0"
    assert not marker.exists()


def test_writing_a_file_fails_and_leaves_nothing(tmp_path):
    target = tmp_path / "written.txt"
    outcome, _ = in_confined_child(lambda: target.write_text("escape"))
    assert outcome["raised"] == "PermissionError"
    assert list(tmp_path.iterdir()) == []


def test_inherited_descriptors_are_closed():
    """The child cannot write into its parent's pipes (the worker's protocol), only into its own."""
    read_fd, write_fd = os.pipe()
    try:
        outcome, _ = in_confined_child(lambda: os.write(write_fd, b"forged answer\n"))
        assert outcome["raised"] == "OSError"  # EBADF: the descriptor was closed before confinement
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_memory_limit_stops_a_runaway_numpy_allocation():
    outcome, _ = in_confined_child(lambda: np.ones((40_000, 40_000)).sum(), memory_bytes=256 * 2**20)
    assert outcome["raised"] == "MemoryError"


def test_cpu_limit_kills_a_runaway_numpy_loop():
    def spin():  # element-wise only: a BLAS thread pool inherited from pytest would not survive the fork
        a = np.random.default_rng(0).random(100_000)
        while True:
            a = np.tanh(a + 1.0)

    outcome, status = in_confined_child(spin, cpu_seconds=1)
    assert outcome is None
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)


def test_numpy_still_computes():
    outcome, status = in_confined_child(lambda: float((np.arange(10.0) * np.arange(10.0)).sum()))
    assert status == 0 and outcome == {"returned": "285.0"}


# --- the allow-list: calls the old deny-list forgot, made directly -------------------------------

_FIRST_ARCH = 0 if platform.machine() == "x86_64" else 1   # (x86_64, aarch64) numbers below
SELF = object()   # an argument that is the confined child's own pid (known only after the fork)


def _syscall(number, *args):
    """`syscall(number, *args)` through libc: (return value, errno)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *args)
    return result, ctypes.get_errno()


def _denied_cases(folder):
    """name -> (numbers, arguments): each would succeed (or fail otherwise than EPERM) unconfined."""
    target = folder / "target.txt"
    target.write_text("x")
    path = ctypes.c_char_p(str(target).encode())
    mask = ctypes.c_ulong(1 << sorted(os.sched_getaffinity(0))[0])
    info = (ctypes.c_int * 32)(0, 0, -1)                     # siginfo: si_code SI_QUEUE
    return {
        "fchmodat2": ((452, 452), (-100, path, 0o600, 0)),    # AT_FDCWD
        "utimensat": ((280, 88), (-100, path, None, 0)),
        "setxattr": ((188, 5), (path, b"user.autograd", b"1", 1, 0)),
        "setpriority": ((141, 140), (0, 0, os.getpriority(os.PRIO_PROCESS, 0))),
        "sched_setaffinity": ((203, 122), (0, ctypes.sizeof(mask), ctypes.byref(mask))),
        "shmget": ((29, 194), (0, 4096, 0o1600)),              # IPC_PRIVATE, IPC_CREAT | 0600
        "rt_sigqueueinfo": ((129, 138), (SELF, 0, ctypes.byref(info))),
        "pidfd_send_signal": ((424, 424), (-1, 0, None, 0)),
        "pidfd_open": ((434, 434), (os.getpid(), 0)),
        "process_madvise": ((440, 440), (-1, None, 0, 0, 0)),
    }


@pytest.mark.parametrize("name", ["fchmodat2", "utimensat", "setxattr", "setpriority", "sched_setaffinity",
                                  "shmget", "rt_sigqueueinfo", "pidfd_send_signal", "pidfd_open", "process_madvise"])
def test_system_calls_outside_the_allow_list_fail_with_eperm(name, tmp_path):
    numbers, arguments = _denied_cases(tmp_path)[name]          # made before the fork: the child cannot
    before = (tmp_path / "target.txt").stat()
    outcome, status = in_confined_child(
        lambda: _syscall(numbers[_FIRST_ARCH], *(os.getpid() if a is SELF else a for a in arguments)))
    assert status == 0 and "returned" in outcome, outcome
    assert outcome["returned"] == f"(-1, {errno.EPERM})", f"{name} was not refused: {outcome}"
    after = (tmp_path / "target.txt").stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)


def test_the_allow_list_names_real_system_calls_of_both_architectures():
    """Every allowed name has a number on x86_64 and aarch64, and no two names share one."""
    for arch, (_, numbers) in confine._ARCHES.items():
        assert set(numbers) == set(confine._ALLOWED), arch
        assert len(set(numbers.values())) == len(numbers), arch
