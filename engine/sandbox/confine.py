"""Confining the process that runs a snippet: what it can never do, whatever its code manages.

Called in a freshly forked child, after everything it needs is imported and before any snippet
code runs. Three layers, each independent of the language layer (`engine.runner`):

1. **rlimits**: address space, CPU seconds, file size 0, no new processes, no core dumps.
2. **Landlock** (where the kernel has it): no file system access at all, no TCP, no signals or
   abstract sockets outside the process.
3. **seccomp** (the kernel interface directly, no libseccomp needed): a filter that makes the
   system calls for running programs, creating processes or threads, sockets, opening or changing files,
   tracing, mounting and raising limits fail with EPERM, and kills the process for a foreign
   system call ABI (the x32 and 32-bit entry points that would bypass the table).

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

# Denied system calls by architecture. Names, not numbers, are the contract; the numbers come from
# the kernel's syscall tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h).
_DENIED = (
    # running programs, new processes and threads (a snippet needs neither)
    "execve", "execveat", "fork", "vfork", "clone", "clone3",
    # networking
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    # opening, creating and changing files
    "open", "openat", "openat2", "creat", "name_to_handle_at", "open_by_handle_at",
    "link", "linkat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat",
    "rmdir", "symlink", "symlinkat", "chmod", "fchmodat", "chown", "lchown", "fchownat", "truncate",
    "mknod", "mknodat",
    # other processes, the kernel, the limits set here
    "ptrace", "process_vm_readv", "process_vm_writev", "kill", "tkill", "tgkill",
    "mount", "umount2", "pivot_root", "chroot", "setns", "unshare", "bpf", "perf_event_open",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key", "setrlimit", "prlimit64", "personality",
)

_ARCHES = {
    "x86_64": (0xC000003E, {
        "execve": 59, "execveat": 322, "fork": 57, "vfork": 58, "clone": 56, "clone3": 435,
        "socket": 41, "socketpair": 53, "connect": 42, "bind": 49, "listen": 50, "accept": 43, "accept4": 288,
        "open": 2, "openat": 257, "openat2": 437, "creat": 85, "name_to_handle_at": 303,
        "open_by_handle_at": 304, "link": 86, "linkat": 265, "unlink": 87, "unlinkat": 263, "rename": 82,
        "renameat": 264, "renameat2": 316, "mkdir": 83, "mkdirat": 258, "rmdir": 84, "symlink": 88,
        "symlinkat": 266, "chmod": 90, "fchmodat": 268, "chown": 92, "lchown": 94, "fchownat": 260,
        "truncate": 76, "mknod": 133, "mknodat": 259, "ptrace": 101, "process_vm_readv": 310,
        "process_vm_writev": 311, "kill": 62, "tkill": 200, "tgkill": 234, "mount": 165, "umount2": 166,
        "pivot_root": 155, "chroot": 161, "setns": 308, "unshare": 272, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "keyctl": 250, "add_key": 248, "request_key": 249, "setrlimit": 160, "prlimit64": 302,
        "personality": 135,
    }),
    "aarch64": (0xC00000B7, {  # the generic table: no open/fork/link/... (their *at forms cover them)
        "execve": 221, "execveat": 281, "clone": 220, "clone3": 435,
        "socket": 198, "socketpair": 199, "bind": 200, "listen": 201, "accept": 202, "connect": 203,
        "accept4": 242, "openat": 56, "openat2": 437, "name_to_handle_at": 264, "open_by_handle_at": 265,
        "linkat": 37, "unlinkat": 35, "renameat": 38, "renameat2": 276, "mkdirat": 34, "symlinkat": 36,
        "fchmodat": 53, "fchownat": 54, "truncate": 45, "mknodat": 33, "ptrace": 117,
        "process_vm_readv": 270, "process_vm_writev": 271, "kill": 129, "tkill": 130, "tgkill": 131,
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "setns": 268, "unshare": 97, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "keyctl": 219, "add_key": 217, "request_key": 218, "setrlimit": 164,
        "prlimit64": 261, "personality": 92,
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
    """The BPF program, as the kernel's `struct sock_filter` array."""
    arch, numbers = _ARCHES[platform.machine()]
    denied = sorted({numbers[name] for name in _DENIED if name in numbers})
    eperm = _RET_ERRNO | errno.EPERM
    code: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, arch),                 # our ABI: go on; any other: kill
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if arch == _ARCHES["x86_64"][0]:          # x32 system calls share the ABI tag, with bit 30 set
        code += [(_JGE_K, 0, 1, 0x40000000), (_RET_K, 0, 0, _RET_KILL_PROCESS)]
    for number in denied:
        code += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, eperm)]
    code.append((_RET_K, 0, 0, _RET_ALLOW))
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
