"""Confining the process that runs a snippet: what it can never do, whatever its code manages.

Called in a freshly forked child, after everything it needs is imported and before any snippet
code runs. Three layers, each independent of the language layer (`engine.runner`):

1. **rlimits**: address space, CPU seconds, file size 0, no new processes, no core dumps.
2. **Landlock** (where the kernel has it): no file system access at all, no TCP, no signals or
   abstract sockets outside the process.
3. **seccomp** (the kernel interface directly, no libseccomp needed), an **allow-list**: the few
   system calls a confined child makes once its job runs (memory, reading and writing the
   descriptors it has, clocks, futexes, signals returning, exit) are allowed; every other call —
   including the ones a kernel adds next year — fails with EPERM. A foreign system-call ABI (the
   x32 and 32-bit entry points that would bypass the table) kills the process.

`available()` says whether layer 3 can be installed here (Linux on x86_64 or aarch64).
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import struct
import sys

# --- seccomp ----------------------------------------------------------------------------------

_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_SECCOMP = 21
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000

# BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06

# offsets in struct seccomp_data
_NR, _ARCH = 0, 4

# The allow-list, by purpose. Derived by tracing (strace -f) confined children running the bundled
# course (every step, quiz variant and explanation, numeric and symbolic, EN and JA), the hostile
# corpus (`tests/runner/hostile`) through `run` and `explain`, and the bundled course on real PyTorch
# (`torch_jobs`), then adding only what those same paths need on other inputs (marked "also").
# Names are the contract; each architecture's numbers come from the kernel's tables
# (arch/x86/entry/syscalls/syscall_64.tbl; include/uapi/asm-generic/unistd.h for aarch64).
_ALLOWED = (
    # the answer pipe and the descriptors 0-2 (/dev/null); nothing can be opened
    "read", "write", "close", "lseek",
    # memory: malloc, numpy's and PyTorch's buffers (bounded by RLIMIT_AS); also mremap for realloc
    "mmap", "munmap", "mremap", "mprotect", "brk", "madvise",
    # locks (futexes are taken even by one thread), clocks and the run's time checks; sleeping
    "futex", "clock_gettime", "clock_getres", "gettimeofday", "clock_nanosleep", "nanosleep", "sched_yield",
    # signals delivered to the process (SIGXCPU, SIGSEGV handlers) and restarted calls; the end
    "rt_sigreturn", "rt_sigaction", "rt_sigprocmask", "restart_syscall", "exit", "exit_group",
    # random seeds (Python's `random`, torch's generators); who am I (logging, thread state)
    "getrandom", "getpid", "gettid",
)

_ARCHES = {
    "x86_64": (0xC000003E, {
        "read": 0, "write": 1, "close": 3, "lseek": 8, "mmap": 9, "munmap": 11, "mremap": 25,
        "mprotect": 10, "brk": 12, "madvise": 28, "futex": 202, "clock_gettime": 228, "clock_getres": 229,
        "gettimeofday": 96, "clock_nanosleep": 230, "nanosleep": 35, "sched_yield": 24, "rt_sigreturn": 15,
        "rt_sigaction": 13, "rt_sigprocmask": 14, "restart_syscall": 219, "exit": 60, "exit_group": 231,
        "getrandom": 318, "getpid": 39, "gettid": 186,
    }),
    "aarch64": (0xC00000B7, {  # the generic table
        "read": 63, "write": 64, "close": 57, "lseek": 62, "mmap": 222, "munmap": 215, "mremap": 216,
        "mprotect": 226, "brk": 214, "madvise": 233, "futex": 98, "clock_gettime": 113, "clock_getres": 114,
        "gettimeofday": 169, "clock_nanosleep": 115, "nanosleep": 101, "sched_yield": 124, "rt_sigreturn": 139,
        "rt_sigaction": 134, "rt_sigprocmask": 135, "restart_syscall": 128, "exit": 93, "exit_group": 94,
        "getrandom": 278, "getpid": 172, "gettid": 178,
    }),
}


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    libc.syscall.restype = ctypes.c_long
    return libc


def available() -> bool:
    """Whether the seccomp layer can be installed on this machine."""
    if not sys.platform.startswith("linux") or platform.machine() not in _ARCHES:
        return False
    try:
        return _libc().prctl(_PR_GET_SECCOMP, 0, 0, 0, 0) >= 0
    except (OSError, AttributeError):
        return False


def _filter_program() -> tuple[bytes, int]:
    """The BPF program, as the kernel's `struct sock_filter` array: allowed numbers jump to ALLOW,
    everything else falls through to EPERM."""
    arch, numbers = _ARCHES[platform.machine()]
    allowed = sorted({numbers[name] for name in _ALLOWED})
    code: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, arch),                 # our ABI: go on; any other: kill
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if arch == _ARCHES["x86_64"][0]:          # x32 system calls share the ABI tag, with bit 30 set
        code += [(_JGE_K, 0, 1, 0x40000000), (_RET_K, 0, 0, _RET_KILL_PROCESS)]
    for position, number in enumerate(allowed):   # jump over the remaining tests and the EPERM
        code.append((_JEQ_K, len(allowed) - position, 0, number))
    code += [(_RET_K, 0, 0, _RET_ERRNO | errno.EPERM), (_RET_K, 0, 0, _RET_ALLOW)]
    return b"".join(struct.pack("HBBI", *instruction) for instruction in code), len(code)


def _install_seccomp(libc) -> None:
    program, count = _filter_program()
    buffer = ctypes.create_string_buffer(program, len(program))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(count, ctypes.addressof(buffer))
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused by the kernel")


# --- Landlock ---------------------------------------------------------------------------------

_LANDLOCK_CREATE_RULESET, _LANDLOCK_RESTRICT_SELF = 444, 446  # the same on x86_64 and aarch64
_LANDLOCK_CREATE_RULESET_VERSION = 1


def _install_landlock(libc) -> int:
    """Deny all file system access (and TCP, signals, abstract sockets where known); the ABI version, 0 if none."""
    version = libc.syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                           ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION))
    if version <= 0:
        return 0
    fs_bits = {1: 13, 2: 14, 3: 15, 4: 15}.get(version, 16)   # REFER (v2), TRUNCATE (v3), IOCTL_DEV (v5)
    fields = [(1 << fs_bits) - 1]
    if version >= 4:
        fields.append(0b11)                   # LANDLOCK_ACCESS_NET_BIND_TCP | CONNECT_TCP
    if version >= 6:
        fields.append(0b11)                   # LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | SIGNAL
    attr = struct.pack(f"{len(fields)}Q", *fields)
    fd = libc.syscall(_LANDLOCK_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if fd < 0:
        return 0
    try:
        if libc.syscall(_LANDLOCK_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            return 0
    finally:
        os.close(fd)
    return version


# --- the whole confinement --------------------------------------------------------------------

def confine(*, cpu_seconds: int, memory_bytes: int, keep_fds: tuple[int, ...] = ()) -> dict[str, object]:
    """Confine this process for good. Returns what was installed; raises OSError if seccomp is refused.

    `memory_bytes` is how much address space the run may add to what the process already maps.
    Every file descriptor except 0-2 (pointed at /dev/null) and `keep_fds` is closed first, so the
    child cannot write into its parent's pipes.
    """
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    keep = sorted({0, 1, 2, *keep_fds})
    start = 3
    for fd in keep[3:] + [resource.getrlimit(resource.RLIMIT_NOFILE)[0]]:
        if fd > start:
            os.closerange(start, fd)
        start = fd + 1
    mapped = _mapped_bytes()
    for limit, value in ((resource.RLIMIT_AS, mapped + memory_bytes), (resource.RLIMIT_CPU, cpu_seconds),
                         (resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_NPROC, 0), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(limit, (value, value))
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "no_new_privs refused")
    landlock = _install_landlock(libc)
    _install_seccomp(libc)
    return {"seccomp": True, "landlock": landlock, "address_space": mapped + memory_bytes}


def _mapped_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
