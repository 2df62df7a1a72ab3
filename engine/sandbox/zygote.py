"""The warm parent: imports everything once, then forks one confined child per job.

    python -I .../engine/sandbox/zygote.py IMPORT_PATH [run|full|torch] [--unconfined]   (`client.Worker`)

Protocol (one JSON object per line): the client writes requests
`{"id": 7, "job": "run", "args": {...}, "seconds": 5.0, "memory": 805306368}` on stdin ("memory",
optional, lowers the child's MEMORY allowance); the zygote answers each with
`{"id": 7, "result": {...}}` or `{"id": 7, "failure": {"type": ..., "message": ...}}` on stdout,
in the order the jobs finish. Its first line is `{"ready": true, "confinement": {...}}`: for "full", once
snippets can run (a quiz's first question, a lesson's first answer); the explanation layer's preload follows
when no job is waiting, or before the first job that needs it is started. Once idle a moment, "full" also
keeps a warm spare child for the next explanation (`_spare`) and says `{"spare": true}` when it is warm.

Each child closes every inherited descriptor but its result pipe, confines itself
(`confine.confine`), runs the job, writes JSON to the pipe and exits. The zygote reads at most
MAX_RESULT bytes, kills the child at its deadline (SIGKILL: a confined child cannot ignore it),
and reports a child that died, overran or wrote something that is not a JSON object as a failure.
A job is done when its pipe is closed *and* its process has ended (a pidfd says so), so a child
that closes its pipe and carries on is still killed at its deadline; the zygote never waits on a
child that is running. Jobs run concurrently; the zygote itself never runs snippet code.

Profiles: "full" (the engine's snippets and explanations), "run" (snippets only: no sympy, for a
quick `autograd-tutor run`), "torch" (lesson programs on the real PyTorch, `torch_jobs`).
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


def _preload(profile: str) -> dict:
    """Import and exercise everything a job may touch: a confined child cannot open a module file.
    Returns the jobs this profile serves (name -> function). "full" is "run" then `_preload_explain`,
    which `serve` runs after saying it is ready (see there)."""
    import unicodedata  # noqa: F401 - non-ASCII identifiers need it, and it is a file of its own

    if profile == "torch":
        from engine.sandbox.torch_jobs import preload

        return preload()
    import engine.sandbox.jobs as jobs

    jobs.run(WARM_UP, expressions=["x.grad", "x.grad.shape", "y.requires_grad"], report=True)
    return {"run": jobs.run}


def _preload_explain():
    """The explanation layer's part of the "full" preload (sympy, rich, every chain-rule notation), one stage
    per `next`, so a job that arrives meanwhile waits for one stage, not all; its last value is the jobs it
    adds."""
    from rich.cells import cell_len

    import engine.sandbox.jobs as jobs
    import engine.sandbox.renderables  # noqa: F401

    cell_len("あ∂")  # rich loads its table of character widths on first use
    yield None
    jobs.explain(WARM_UP, want=("panels", "json", "report"))
    yield None
    # sympy's own limit is generous here: on a loaded machine a 2 s limit would skip what it warms up
    jobs.explain(WARM_UP_SYMBOLIC, symbolic=True, timeout=60, want=("panels", "json", "report"), lang="ja",
                 width=76, expressions=["x.grad"])  # narrow layouts, Japanese words, every chain-rule notation
    yield None
    jobs.explain(WARM_UP_SYMBOLIC, want=("panels",), lang="en", width=116)  # wide layouts
    jobs.beliefs(WARM_UP, "x.grad")  # the misconceptions' buggy rules
    yield dict(jobs.JOBS)


def _finish(stages) -> dict:
    """Run the stages left of `_preload_explain`; the jobs it adds."""
    served = None
    for served in stages:
        pass
    return served


def _child(function, args: dict, seconds: float, memory: int, write_fd: int, confined: bool) -> None:
    """Runs in the forked child; never returns."""
    status = 0
    try:
        if confined:
            from engine.runner.limits import watch_own_memory
            from engine.sandbox.confine import confine

            # /proc is behind the wall once confined: this child's own statm is opened first and kept, so
            # the runner's memory check still reads it (the OS address-space limit stays the backstop).
            # The CPU limit counts from now: a spare's warm-up (see `_spare`) is not the job's.
            spent = sum(os.times()[:2])
            confine(cpu_seconds=int(seconds + spent) + 1, memory_bytes=memory,
                    keep_fds=(write_fd, *watch_own_memory()))
        try:
            answer = {"result": function(**args)}
        except MemoryError:
            answer = {"failure": {"type": "ResourceLimitExceeded", "message": "the snippet ran out of memory",
                                  "key": "out_of_memory"}}  # (no import here: a confined child cannot)
        except Exception as error:  # an engine fault: reported, never a traceback
            answer = {"failure": {"type": type(error).__name__, "message": str(error)[:1000]}}
        data = json.dumps(answer, allow_nan=False).encode()  # ASCII: a lone surrogate stays escaped
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view[:65536]):]
    except BaseException:  # noqa: BLE001 - whatever happened, the child ends here
        status = 70
    os._exit(status)


SPARE_READY = b"+"   # what a spare writes on its answer pipe once warmed up (nothing else comes before a job's answer)


def _spare(served: dict, job_fd: int, write_fd: int, confined: bool) -> None:
    """Runs in a spare child, forked ahead of the next explanation; never returns.

    A freshly forked child runs its job with cold caches: each page of the zygote it first writes to (the
    objects a job touches, the allocator's free blocks) is copied then, and the fork itself takes a while,
    all while the learner waits; an explanation took about twice as long in a new child as in a warm process.
    A spare takes that cost before it is needed: it runs the warm-up program (the tutor's own code, not a
    lesson's) and then waits for one job line. Only then does it confine itself and run the job, exactly
    as a freshly forked child does (`_child`)."""
    status = 0
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # it does not hold the tutor's pipes while it waits
            os.dup2(null, fd)
        served["explain"](source=WARM_UP)
        os.write(write_fd, SPARE_READY)
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(job_fd, 1 << 16)
            if not chunk:  # the zygote dropped it (or ended)
                os._exit(0)
            line += chunk
        request = json.loads(line)
        _child(served[request["job"]], request["args"], float(request["seconds"]), int(request["memory"]),
               write_fd, confined)
    except BaseException:  # noqa: BLE001 - whatever happened, the spare ends here
        status = 70
    os._exit(status)


class _Spare:
    """The zygote's end of a spare child (`_spare`): its job pipe, its answer pipe, whether it is warm yet."""

    def __init__(self, pid: int, job_fd: int, fd: int) -> None:
        self.pid, self.job_fd, self.fd = pid, job_fd, fd
        self.ready = False

    def hand(self, request_id, job: str, args: dict, seconds: float, memory: int) -> "_Job | None":
        """Give the warm spare its job: the running `_Job`, or None when the line could not be written whole
        (the caller then drops the spare and forks a child as usual)."""
        line = json.dumps({"job": job, "args": args, "seconds": seconds, "memory": memory}).encode() + b"\n"
        try:
            written = os.write(self.job_fd, line)   # non-blocking: the zygote never waits on a child
        except OSError:
            written = 0
        os.close(self.job_fd)
        self.job_fd = None
        if written != len(line):  # (the caller drops it)
            return None
        return _Job(request_id, self.pid, self.fd, time.monotonic() + seconds)

    def drop(self) -> None:
        """Kill the spare and collect it (it runs only the tutor's code: nothing is lost)."""
        for fd in (self.job_fd, self.fd):
            if fd is not None:
                os.close(fd)
        self.job_fd = self.fd = None
        _kill(self.pid)
        os.waitpid(self.pid, 0)


def _fork_spare(served: dict, confined: bool) -> _Spare:
    job_read, job_fd = os.pipe()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(job_fd)
        os.close(read_fd)
        _spare(served, job_read, write_fd, confined)
    os.close(job_read)
    os.close(write_fd)
    os.set_blocking(job_fd, False)
    return _Spare(pid, job_fd, read_fd)


class _Job:
    """One forked child: its answer pipe, its exit (a pidfd where the kernel has one) and deadline."""

    def __init__(self, request_id, pid: int, fd: int, deadline: float) -> None:
        self.id, self.pid, self.deadline = request_id, pid, deadline
        self.fd: int | None = fd                      # the answer pipe, until end of file
        self.exit_fd: int | None = _pidfd(pid)        # readable once the child has ended
        self.polled = self.exit_fd is None            # no pidfd: look with WNOHANG every EXIT_POLL
        self.status: int | None = None                # its wait status, once reaped
        self.chunks: list[bytes] = []
        self.size = 0
        self.killed: str | None = None

    def reap(self) -> None:
        """Collect the child's status if it has ended (never waits for a running child)."""
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status

    def kill(self, reason: str) -> None:
        """SIGKILL (a confined child cannot ignore it) and collect it: it is dying, not running."""
        self.killed = self.killed or reason
        if self.status is None:
            _kill(self.pid)
            self.status = os.waitpid(self.pid, 0)[1]

    @property
    def done(self) -> bool:
        return self.fd is None and self.status is not None


EXIT_POLL = 0.02   # seconds between looks at a child whose pipe closed, where there is no pidfd
IDLE = 0.2         # seconds without a job before the next stage of the explanations' preload
# ... before its first stage, while no job has come yet: the app that started the worker asks its first snippet (a
# quiz's first question) once its own start-up allows, and a stage begun meanwhile (sympy: seconds on a loaded
# machine) would make that snippet wait for it
FIRST_IDLE = 1.5


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux ≥ 5.3
        return None


def serve(profile: str = "full", confined: bool = True, served: dict | None = None) -> None:
    """Answer jobs until stdin closes; `served`: the jobs of an already preloaded process (a classroom's
    warm worker forked this one: `tutor.classroom.sandbox`)."""
    from engine.runner.errors import reason  # the reasons' words (English, with their keys)
    from engine.sandbox.confine import available

    confined = confined and available()
    # "full" says it is ready once snippets can run (a quiz's first question, a lesson's first answer need no
    # more) and preloads the explanations a stage at a time while no job is waiting (IDLE seconds without
    # one), or all at once for the first job that needs them; a process forked from a class's warm worker
    # has everything already
    stages = _preload_explain() if profile == "full" and served is None else None
    served = _preload(profile) if served is None else served
    # a warm spare child for the next explanation, forked once the zygote has been idle a moment (IDLE): not
    # while jobs come back to back (a test suite, an explanation and then its symbolic forms), where it would
    # only compete with them for the processor
    spares = profile == "full"
    spare: _Spare | None = None
    out = sys.stdout.buffer
    # UTF-8 with lone surrogates replaced: whatever a child printed, the client gets text it can show
    send = lambda message: (out.write(json.dumps(message, ensure_ascii=False).encode("utf-8", "replace") + b"\n"),  # noqa: E731
                            out.flush())
    ready = {"ready": True, "confined": confined, "pid": os.getpid()}
    if profile == "torch":
        import torch

        ready["torch"] = torch.__version__
    send(ready)
    selector = selectors.DefaultSelector()
    stdin = sys.stdin.buffer.raw
    selector.register(stdin, selectors.EVENT_READ, None)
    pending = b""
    jobs: list[_Job] = []
    begun = False  # past the first wait (the preload's first stage waits FIRST_IDLE for a job, the others IDLE)
    while True:
        now = time.monotonic()
        waits = [job.deadline - now for job in jobs] + [EXIT_POLL for job in jobs if job.polled and job.fd is None]
        # (while jobs run, their deadlines and pipes are waited for)
        idle = not jobs and (stages is not None or (spares and spare is None and "explain" in served))
        events = selector.select((IDLE if begun else FIRST_IDLE) if idle else max(0.0, min(waits)) if waits else None)
        begun = True
        if idle and not events:
            if stages is not None:
                more = next(stages)
                if more is not None:
                    served, stages = more, None
            else:
                spare = _fork_spare(served, confined)
                selector.register(spare.fd, selectors.EVENT_READ, (spare, "spare"))
            continue
        for key, _ in events:
            if key.data is None:
                chunk = os.read(stdin.fileno(), 1 << 20)
                if not chunk:  # the tutor has gone: no answer will be read, so no job may outlive it
                    for job in jobs:
                        job.kill(reason("tutor_closed"))
                    if spare is not None:
                        spare.drop()
                    return
                if stages is not None and any(name is not None and name not in served
                                              for name in map(_job_name, (pending + chunk).split(b"\n")[:-1])):
                    served, stages = _announced(lambda: _finish(stages), send), None
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    if _cancel(line, jobs):
                        continue
                    job = _start(line, confined, served, send, spare if spare is not None and spare.ready else None)
                    if spare is not None and spare.job_fd is None:  # it was handed the job
                        selector.unregister(spare.fd)   # (registered again below, as the job it now is)
                        if job is None or job.pid != spare.pid:  # it could not take it whole
                            spare.drop()
                        spare = None
                    if job is not None:
                        jobs.append(job)
                        selector.register(job.fd, selectors.EVENT_READ, (job, "answer"))
                        if job.exit_fd is not None:
                            selector.register(job.exit_fd, selectors.EVENT_READ, (job, "exit"))
                continue
            job, what = key.data
            if what == "spare":  # (`job` is the spare: it has no job yet)
                if job is not spare:   # it was handed a job or dropped earlier in this round: a stale event
                    continue
                if os.read(spare.fd, 64) == SPARE_READY and not spare.ready:
                    spare.ready = True
                    send({"spare": True})
                else:  # it ended (or said something else): jobs fork as usual; one that never got warm means
                    spares = spare.ready and spares  # its warm-up fails, so no more spares are made
                    selector.unregister(spare.fd)
                    spare.drop()
                    spare = None
                continue
            if what == "exit":
                _close(selector, job.exit_fd)
                job.exit_fd = None
                job.reap()
                continue
            chunk = os.read(job.fd, 1 << 20)
            if chunk and job.size + len(chunk) <= MAX_RESULT:
                job.chunks.append(chunk)
                job.size += len(chunk)
                continue
            _close(selector, job.fd)
            job.fd = None
            if chunk:
                job.kill(reason("answer_too_large", mb=MAX_RESULT // 2**20))
        now = time.monotonic()
        for job in list(jobs):
            if job.polled and job.fd is None:
                job.reap()
            if not job.done and job.deadline <= now:
                job.kill(reason("snippet_past_time_limit"))
            if job.done or job.killed:
                for fd in (job.fd, job.exit_fd):
                    if fd is not None:
                        _close(selector, fd)
                jobs.remove(job)
                send(_answer(job))


def _announced(preload, send) -> dict:
    """Run the rest of the explanations' preload at once, saying so before and after: jobs sent meanwhile wait
    for it, so the client gives them that time rather than taking the zygote for hung (a loaded machine)."""
    send({"preloading": True})
    served = preload()
    send({"preloaded": True})
    return served


def _close(selector, fd: int) -> None:
    selector.unregister(fd)
    os.close(fd)


def _cancel(line: bytes, jobs: list) -> bool:
    """A `{"cancel": id}` line: the tutor no longer wants that job's answer, so its child is killed now
    rather than at its deadline (the learner left the screen that asked). True if the line was one."""
    from engine.runner.errors import reason  # the reasons' words (English, with their keys)

    try:
        request = json.loads(line)
    except ValueError:
        return False
    if not isinstance(request, dict) or "cancel" not in request:
        return False
    for job in jobs:
        if job.id == request["cancel"]:
            job.kill(reason("no_longer_needed"))
    return True


def _job_name(line: bytes) -> str | None:
    """The job a request line names (None when it names none: `_start` reports it)."""
    try:
        request = json.loads(line)
    except ValueError:
        return None
    return request.get("job") if isinstance(request, dict) else None


def _start(line: bytes, confined: bool, served: dict, send, spare: _Spare | None = None) -> _Job | None:
    """The job a request line asks for, running: an explanation goes to the warm `spare` if there is one,
    any other job (or when the spare could not take it) to a freshly forked child."""
    try:
        request = json.loads(line)
        request_id, job, args, seconds = request["id"], request["job"], request["args"], float(request["seconds"])
        memory = min(MEMORY, int(request.get("memory") or MEMORY))
        if job not in served or not isinstance(args, dict):
            raise ValueError(f"unknown job {job!r}")
    except (ValueError, KeyError, TypeError) as error:
        send({"id": None, "failure": {"type": "ProtocolError", "message": str(error)}})
        return None
    if spare is not None and job == "explain":
        handed = spare.hand(request_id, job, args, seconds, memory)
        if handed is not None:
            return handed
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(served[job], args, seconds, memory, write_fd, confined)
    os.close(write_fd)
    return _Job(request_id, pid, read_fd, time.monotonic() + seconds)


def _answer(job: _Job) -> dict:
    """What the (reaped) child did."""
    from engine.runner.errors import failure, reason  # the reasons' words (English, with their keys)

    if job.killed:
        return {"id": job.id, "failure": failure("ResourceLimitExceeded", job.killed)}
    status = job.status
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        said = {signal.SIGXCPU: "snippet_cpu_time", signal.SIGKILL: "snippet_killed",
                signal.SIGSYS: "snippet_system_call"}.get(signum)
        said = reason(said) if said else reason("snippet_process_died", signal=signum)
        return {"id": job.id, "failure": failure("ResourceLimitExceeded", said)}
    try:
        answer = json.loads(b"".join(job.chunks))
        if not isinstance(answer, dict) or not ({"result", "failure"} & answer.keys()):
            raise ValueError
    except (ValueError, RecursionError):
        return {"id": job.id, "failure": failure("SandboxError", reason("snippet_no_answer"))}
    answer["id"] = job.id
    return answer


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def main(argv: list[str]) -> None:
    """`argv`: [profile] [--unconfined]. The client sets OPENBLAS_NUM_THREADS=1 etc. in the environment
    it builds: `engine` has imported numpy by the time this runs."""
    profile = next((arg for arg in argv if arg in ("run", "full", "torch")), "full")
    try:
        serve(profile, confined="--unconfined" not in argv)
    except (KeyboardInterrupt, BrokenPipeError):
        pass


if __name__ == "__main__":  # run by path, isolated: the client names the folders to import from (JSON)
    sys.path += json.loads(sys.argv[1])
    main(sys.argv[2:])
