"""The warm parent: imports everything once, then forks one confined child per job.

    python -m engine.sandbox.zygote [run|full]

Protocol (one JSON object per line): the client writes requests
`{"id": 7, "job": "run", "args": {...}, "seconds": 5.0}` on stdin; the zygote answers each with
`{"id": 7, "result": {...}}` or `{"id": 7, "failure": {"type": ..., "message": ...}}` on stdout,
in the order the jobs finish. Its first line is `{"ready": true, "confinement": {...}}`.

Each child closes every inherited descriptor but its result pipe, confines itself
(`confine.confine`), runs the job, writes JSON to the pipe and exits. The zygote reads at most
MAX_RESULT bytes, kills the child at its deadline (SIGKILL: a confined child cannot ignore it),
and reports a child that died, overran or wrote something that is not a JSON object as a failure.
Jobs run concurrently; the zygote itself never runs snippet code.
"""
from __future__ import annotations

import json
import os
import selectors
import signal
import sys
import time

MAX_RESULT = 64 * 2**20        # bytes of one job's answer
MEMORY = 1536 * 2**20          # address space a child may add to what the zygote has mapped
WARM_UP = """\
import torch
import torch.nn.functional as F
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
w = torch.eye(3, requires_grad=True)
y = (F.softmax(x @ w, dim=1) * x.exp() + x.relu() ** 2 - x.abs().clamp(0, 1) / 3).sum() * x.mean()
z = torch.log(torch.sigmoid(x).tanh() + 1).sum(0)
y.backward()
z.backward(torch.ones(3))
print(x.grad, f"{y.item():.3f}", y.grad_fn)
"""
WARM_UP_SYMBOLIC = """\
import torch
import torch.nn.functional as F
x = torch.tensor([1., -2.], requires_grad=True)
y = (F.softmax(x, dim=0) * x.exp() + x.relu() ** 2 - x.abs().clamp(0, 1) / 3).sum() * x.mean()
y.backward()
W = torch.tensor([[1., 2., 0.5], [0., -1., 3.]], requires_grad=True)
g = (x @ W).tanh()
z = torch.log(torch.exp(g).sum()) + (W * 2).sum(dim=0).pow(2).mean() + F.log_softmax(W, dim=1).sum()
z.backward()
h = W.t() @ torch.ones(2)
h.backward(torch.tensor([1., 0.5, 2.]))
with torch.no_grad():
    W -= 0.1 * W.grad
"""


def _preload(profile: str) -> frozenset[str]:
    """Import and exercise everything a job may touch: a confined child cannot open a module file.
    The "run" profile (for `autograd-tutor run`) leaves out the explanation layer and sympy; the
    jobs it can serve are returned."""
    import unicodedata  # noqa: F401 - Python's parser loads it for a non-ASCII name (`α = 0.1`, `学習率 = 0.1`)

    import engine.sandbox.jobs as jobs

    jobs.run(WARM_UP, expressions=["x.grad", "x.grad.shape", "y.requires_grad"], report=True)
    if profile == "run":
        return frozenset({"run"})
    import engine.sandbox.renderables  # noqa: F401

    jobs.explain(WARM_UP, want=("panels", "json", "report"))
    jobs.explain(WARM_UP_SYMBOLIC, symbolic=True, want=("panels", "json", "report"), lang="ja", width=76,
                 expressions=["x.grad"])  # narrow layouts, Japanese words, every chain-rule notation
    jobs.explain(WARM_UP_SYMBOLIC, want=("panels",), lang="en", width=116)  # wide layouts
    return frozenset(jobs.JOBS)


def _child(job: str, args: dict, seconds: float, write_fd: int, confined: bool) -> None:
    """Runs in the forked child; never returns."""
    status = 0
    try:
        if confined:
            from engine.sandbox.confine import confine

            confine(cpu_seconds=int(seconds) + 1, memory_bytes=MEMORY, keep_fds=(write_fd,))
        from engine.sandbox.jobs import JOBS

        try:
            answer = {"result": JOBS[job](**args)}
        except MemoryError:
            answer = {"failure": {"type": "ResourceLimitExceeded", "message": "the snippet ran out of memory"}}
        except Exception as error:  # an engine fault: reported, never a traceback
            answer = {"failure": {"type": type(error).__name__, "message": str(error)[:1000]}}
        data = json.dumps(answer, allow_nan=False).encode()  # ASCII: a lone surrogate stays escaped
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view[:65536]):]
    except BaseException:  # noqa: BLE001 - whatever happened, the child ends here
        status = 70
    os._exit(status)


class _Job:
    def __init__(self, request_id, pid: int, fd: int, deadline: float) -> None:
        self.id, self.pid, self.fd, self.deadline = request_id, pid, fd, deadline
        self.chunks: list[bytes] = []
        self.size = 0
        self.killed: str | None = None


def serve(profile: str = "full") -> None:
    from engine.sandbox.confine import available

    confined = available() and os.environ.get("AUTOGRAD_TUTOR_UNCONFINED") != "1"
    served = _preload(profile)
    out = sys.stdout.buffer
    # UTF-8 with lone surrogates replaced: whatever a child printed, the client gets text it can show
    send = lambda message: (out.write(json.dumps(message, ensure_ascii=False).encode("utf-8", "replace") + b"\n"),  # noqa: E731
                            out.flush())
    send({"ready": True, "confined": confined, "pid": os.getpid()})
    selector = selectors.DefaultSelector()
    stdin = sys.stdin.buffer.raw
    selector.register(stdin, selectors.EVENT_READ, None)
    pending = b""
    jobs: dict[int, _Job] = {}
    open_input = True
    while open_input or jobs:
        now = time.monotonic()
        timeout = min((job.deadline - now for job in jobs.values()), default=None)
        for key, _ in selector.select(None if timeout is None else max(0.0, timeout)):
            if key.data is None:
                chunk = os.read(stdin.fileno(), 1 << 20)
                if not chunk:
                    open_input = False
                    selector.unregister(stdin)
                    continue
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    job = _start(line, confined, served, send)
                    if job is not None:
                        jobs[job.fd] = job
                        selector.register(job.fd, selectors.EVENT_READ, job)
            else:
                job = key.data
                chunk = os.read(job.fd, 1 << 20)
                if chunk and job.size + len(chunk) <= MAX_RESULT:
                    job.chunks.append(chunk)
                    job.size += len(chunk)
                    continue
                if chunk:
                    job.killed = f"the answer was larger than {MAX_RESULT // 2**20} MB"
                selector.unregister(job.fd)
                del jobs[job.fd]
                send(_finish(job))
        now = time.monotonic()
        for job in [job for job in jobs.values() if job.deadline <= now]:
            job.killed = "the snippet ran past its time limit and was stopped"
            selector.unregister(job.fd)
            del jobs[job.fd]
            send(_finish(job))


def _start(line: bytes, confined: bool, served: frozenset[str], send) -> _Job | None:
    try:
        request = json.loads(line)
        request_id, job, args, seconds = request["id"], request["job"], request["args"], float(request["seconds"])
        if job not in served or not isinstance(args, dict):
            raise ValueError(f"unknown job {job!r}")
    except (ValueError, KeyError, TypeError) as error:
        send({"id": None, "failure": {"type": "ProtocolError", "message": str(error)}})
        return None
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(job, args, seconds, write_fd, confined)
    os.close(write_fd)
    return _Job(request_id, pid, read_fd, time.monotonic() + seconds)


def _finish(job: _Job) -> dict:
    """Reap the child and say what it did."""
    if job.killed:
        _kill(job.pid)
    os.close(job.fd)
    _, status = os.waitpid(job.pid, 0)
    if job.killed:
        return {"id": job.id, "failure": {"type": "ResourceLimitExceeded", "message": job.killed}}
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        reason = {signal.SIGXCPU: "the snippet used more processor time than allowed",
                  signal.SIGKILL: "the snippet was stopped (out of time or memory)",
                  signal.SIGSYS: "the snippet made a system call the sandbox forbids"}.get(
            signum, f"the snippet's process died (signal {signum})")
        return {"id": job.id, "failure": {"type": "ResourceLimitExceeded", "message": reason}}
    try:
        answer = json.loads(b"".join(job.chunks))
        if not isinstance(answer, dict) or not ({"result", "failure"} & answer.keys()):
            raise ValueError
    except (ValueError, RecursionError):
        return {"id": job.id, "failure": {"type": "SandboxError",
                                          "message": "the snippet's process ended without an answer"}}
    answer["id"] = job.id
    return answer


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":  # the client sets OPENBLAS_NUM_THREADS=1 etc.: `engine` has imported numpy by now
    try:
        serve(sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in ("run", "full") else "full")
    except (KeyboardInterrupt, BrokenPipeError):
        pass
