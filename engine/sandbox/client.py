"""The client side: start the zygote once, send it jobs, read back plain data.

`worker()` is the process-wide `Worker`. Calls are thread-safe (the app asks from its UI thread
and from worker threads at once); each waits for its own answer. If the zygote dies it is started
again on the next call. Where there is no `fork` (Windows) jobs run in this process, unconfined.
"""
from __future__ import annotations

import atexit
import collections
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from engine.runner.errors import SnippetError, SnippetFailure, failure, reason

STARTUP_SECONDS = 120.0   # importing numpy, sympy and the engine and warming up, on a slow machine
DRAIN_SECONDS = 2.0       # how long a worker that failed to start may take to finish saying why on stderr
# The zygote is started isolated (`python -I`, by its file's path): no current folder, PYTHONPATH or
# PYTHON* variable, no user site unless the tutor itself uses one (`import_path`). Not -S: `site`
# also defines builtins (`exit`, `help`) whose refusal the language layer reports as it does in-process.
ZYGOTE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zygote.py")
THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}  # a child is one thread
WORKER_UNAVAILABLE = "WorkerUnavailable"   # the failure type of a job the worker could not run at all
# A classroom server keeps one warm worker and forks each student's from it (`tutor.classroom.sandbox`):
# this variable holds the command (JSON list) that hands the worker's pipes over, the usual command after it.
WARM_WORKER = "AUTOGRAD_TUTOR_WARM_WORKER"


class SandboxError(RuntimeError):
    """The worker could not run a job at all (it could not start, or died answering): the tutor's fault."""


def import_path() -> list[str]:
    """What the worker adds to its import path after the interpreter's own (standard library, site
    folders): the folder holding `engine`, and the user site when the tutor itself was installed there."""
    import site

    folders = [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        folders.append(site.getusersitepackages())
    return folders


def worker_environment() -> dict[str, str]:
    """The worker's whole environment: nothing of the user's or a server's, only what it needs."""
    return {**THREADS, "LC_ALL": "C.UTF-8", "PATH": os.defpath}


def _drain(stream, said: collections.deque) -> None:
    """Keep the last lines the zygote wrote to stderr (its children write nowhere): the cause if it fails."""
    for line in stream:
        said.append(line.decode("utf-8", "replace").rstrip())


def _cause(said: collections.deque, process: subprocess.Popen) -> str:
    lines = [line for line in said if line.strip()]
    if lines:
        return lines[-1][:300]
    if process.returncode is not None and process.returncode < 0:
        return reason("worker_signal", signal=-process.returncode)
    if process.returncode:
        return reason("worker_exit_status", status=process.returncode)
    return reason("worker_not_ready", seconds=f"{STARTUP_SECONDS:.0f}")


@dataclass
class Confinement:
    """What the worker's children are confined by."""

    confined: bool
    reason: str = ""
    started: bool = True     # False: the worker itself could not start (the tutor's problem, not the system's)


class Cancel:
    """A caller's way to give up on its calls: `cancel()` kills the child of every call made with this token
    (running now or made later) and wakes the caller at once with a "Cancelled" failure. The reveal screen
    holds one, so leaving it stops an explanation's child instead of letting it run to its deadline."""

    def __init__(self) -> None:
        self.cancelled = False
        self._running: dict[int, tuple["Worker", list]] = {}
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            running, self._running = self._running, {}
        for request_id, (target, waiter) in running.items():
            target._cancel(request_id)
            waiter[0].set()

    def _enter(self, target: "Worker", request_id: int, waiter: list) -> bool:
        with self._lock:
            if not self.cancelled:
                self._running[request_id] = (target, waiter)
            return not self.cancelled

    def _leave(self, request_id: int) -> None:
        with self._lock:
            self._running.pop(request_id, None)


CANCELLED = {"failure": failure("Cancelled", reason("call_cancelled"))}


class Worker:
    def __init__(self, profile: str = "full") -> None:
        self.profile = profile  # "run": snippets only (no sympy, no explanations), for a quick `run`
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._ready: dict | None = None
        self._preloading = False   # the zygote is loading the explanations (jobs queue behind it)
        self._spare = threading.Event()  # the zygote has a warm spare child for the next explanation
        self._waiting: dict[int, list] = {}
        self._ids = itertools.count(1)

    # --- life cycle -------------------------------------------------------------------------

    def start(self) -> dict:
        """Start the zygote (if it is not running) and return its ready message."""
        with self._lock:
            return self._start_locked()

    def _start_locked(self) -> dict:
        if self._process is not None and self._process.poll() is None and self._ready is not None:
            return self._ready
        command = [sys.executable, "-I", ZYGOTE, json.dumps(import_path()), self.profile]
        if os.environ.get("AUTOGRAD_TUTOR_UNCONFINED") == "1":  # tests: behave as a system without seccomp
            command.append("--unconfined")
        if self.profile == "full" and os.environ.get(WARM_WORKER):
            command = json.loads(os.environ[WARM_WORKER]) + command
        try:
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, env=worker_environment(),
                                             cwd=os.path.abspath(os.sep), start_new_session=True)
        except OSError as error:
            raise SandboxError(reason("worker_cannot_start", cause=reason(
                "worker_not_runnable", program=sys.executable, detail=error.strerror or error))) from None
        ready_event, box, said = threading.Event(), [], collections.deque(maxlen=20)
        threading.Thread(target=self._read, args=(self._process, ready_event, box), daemon=True).start()
        drain = threading.Thread(target=_drain, args=(self._process.stderr, said), daemon=True)
        drain.start()
        if not ready_event.wait(STARTUP_SECONDS) or not box:
            self._process.kill()
            self._process.wait()
            drain.join(DRAIN_SECONDS)  # its last words may still be in the pipe (a loaded machine reads them late)
            raise SandboxError(reason("worker_cannot_start", cause=_cause(said, self._process)))
        self._ready = box[0]
        return self._ready

    def _read(self, process: subprocess.Popen, ready_event: threading.Event, box: list) -> None:
        """Reader thread: hands each answer line to the call waiting for it."""
        for line in process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("ready"):
                box.append(message)
                ready_event.set()
                continue
            if "preloading" in message or "preloaded" in message:
                self._preloading = bool(message.get("preloading"))
                continue
            if "spare" in message:
                self._spare.set()
                continue
            waiter = self._waiting.pop(message.get("id"), None)
            if waiter is not None:
                waiter.append(message)
                waiter[0].set()
        ready_event.set()
        for waiter in list(self._waiting.values()):  # the zygote died: wake everyone who waits
            waiter[0].set()

    def close(self) -> None:
        """End the zygote and every job it runs: told by the end of its input, and killed with its process group
        (its forked children) at once, so quitting the tutor never waits for a warm-up, a job or the zygote's own
        exit (a Python with numpy and sympy loaded takes longer to tear down than the whole quit may). Not under
        the lock, which a thread starting the zygote holds while it waits for it: the kill wakes that thread (the
        worker could not start), and the next call starts a new zygote."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        try:
            process.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            os.killpg(process.pid, signal.SIGKILL)  # a session of its own (start_new_session): it and its jobs
        except OSError:
            process.kill()
        process.wait()

    # --- jobs -------------------------------------------------------------------------------

    def call(self, job: str, seconds: float, memory_bytes: int | None = None, cancel: Cancel | None = None,
             **args: Any) -> dict:
        """Run `job` in a fresh confined child (killed after `seconds`; `memory_bytes` lowers the address
        space it may add, see `zygote.MEMORY`; `cancel` can kill it sooner); its result dict, or a dict
        with "failure"."""
        for attempt in range(2):
            with self._lock:
                self._start_locked()
                request_id = next(self._ids)
                waiter: list = [threading.Event()]
                if cancel is not None and not cancel._enter(self, request_id, waiter):
                    return CANCELLED
                self._waiting[request_id] = waiter
                line = json.dumps({"id": request_id, "job": job, "args": args, "seconds": seconds,
                                   "memory": memory_bytes}) + "\n"
                if job == "explain":
                    self._spare.clear()  # this one takes the spare, if there is one
                try:
                    self._process.stdin.write(line.encode())
                    self._process.stdin.flush()
                except (BrokenPipeError, OSError):
                    self._waiting.pop(request_id, None)
                    self._ready = None
                    continue
            if not waiter[0].wait(seconds + 30) and self._preloading:
                waiter[0].wait(STARTUP_SECONDS)  # queued behind the explanations' preload, not hung
            if cancel is not None:
                cancel._leave(request_id)
                if cancel.cancelled and len(waiter) == 1:
                    self._waiting.pop(request_id, None)
                    return CANCELLED
            if len(waiter) > 1:
                answer = waiter[1]
                return answer["result"] if "result" in answer else {"failure": answer.get("failure", {})}
            self._waiting.pop(request_id, None)
            with self._lock:
                self._ready = None  # the zygote died or hung: start a new one
                if self._process is not None:
                    self._process.kill()
        raise SandboxError(reason("worker_stopped_answering"))

    def spare_ready(self, timeout: float) -> bool:
        """Start the zygote if it is not running and wait up to `timeout` seconds until it has a warm spare
        child for the next explanation (`zygote._spare`: it makes one once it has been idle a moment); whether
        it has one. For measuring what a learner gets, who reads and types before asking for an explanation."""
        self.start()
        return self._spare.wait(timeout)

    def _cancel(self, request_id: int) -> None:
        """Ask the zygote to kill the child of `request_id` (a finished one is not there any more)."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                return
            try:
                self._process.stdin.write(json.dumps({"cancel": request_id}).encode() + b"\n")
                self._process.stdin.flush()
            except (BrokenPipeError, OSError):
                self._ready = None

    def confinement(self) -> Confinement:
        try:
            ready = self.start()
        except (SandboxError, OSError) as error:
            return Confinement(False, str(error), started=False)
        if ready.get("confined"):
            return Confinement(True)
        return Confinement(False, "this system does not offer seccomp confinement (Linux on x86_64 or aarch64)")


_WORKERS: dict[str, Worker] = {}
_WORKER_LOCK = threading.Lock()


def worker(profile: str = "full") -> Worker:
    """The process-wide worker of `profile`, created on first use."""
    with _WORKER_LOCK:
        if profile not in _WORKERS:
            _WORKERS[profile] = Worker(profile)
            atexit.register(_WORKERS[profile].close)
        return _WORKERS[profile]


# --- what the callers get back ------------------------------------------------------------------

RUN_SECONDS = 6.0       # the language layer stops a snippet at 2 s; this is the OS layer's backstop


@dataclass
class SandboxRun:
    """A run of a program in the worker: what it printed and raised, and a way to evaluate more."""

    source: str
    ok: bool
    stdout: str
    error: SnippetError | None
    tensors: dict = field(default_factory=dict)
    values: list = field(default_factory=list)   # decoded values of the expressions asked for up front
    stderr: str = ""                             # the warnings it raised (PyTorch writes them to stderr)

    def evaluate(self, expression: str) -> Any:
        """`expression` evaluated after the program (run again in a fresh child); raises SnippetFailure."""
        run = run_program(self.source, expressions=[expression])
        if run.error is not None and not self.error:  # the program itself failed this time
            raise SnippetFailure(run.error)
        outcome = run.values[0] if run.values else {
            "error": _failure_error(failure("SandboxError", reason("no_value_came_back")))}
        if "error" in outcome:
            raise SnippetFailure(outcome["error"])
        return outcome["value"]


def run_program(source: str, *, filename: str = "<snippet>", expressions: list[str] = (),
                report: bool = False, profile: str = "full") -> SandboxRun:
    """Run `source` in a confined child (never raises: a worker that cannot run it gives a SandboxError run)."""
    answer = call(worker(profile), "run", RUN_SECONDS, source=source, filename=filename,
                  expressions=list(expressions), report=report)
    if "failure" in answer:
        return SandboxRun(source, False, "", _failure_error(answer["failure"]))
    values = []
    for outcome in answer.get("values", []):
        if "error" in outcome:
            values.append({"error": _snippet_error(outcome["error"])})
        else:
            values.append({"value": decode_value(outcome["value"])})
    return SandboxRun(source, bool(answer["ok"]), str(answer["stdout"]), _snippet_error(answer["error"]),
                      answer.get("tensors", {}), values, str(answer.get("stderr", "")))


BELIEFS_SECONDS = 30.0  # the program once per buggy rule (each run still stopped by the language layer at 2 s)


def believed_answers(source: str, expression: str, ids: list[str] | None = None,
                     extra: list | None = None) -> dict[str, list] | None:
    """{misconception id: the values `expression` takes when `source` runs as that misconception believes},
    "" for the correct value (see `engine.explain.beliefs`; `extra`: an author's [id, expression] pairs);
    None when the worker could not run the job."""
    answer = call(worker(), "beliefs", BELIEFS_SECONDS, source=source, expression=expression, ids=ids,
                  extra=[list(pair) for pair in extra or ()])
    if "failure" in answer:
        return None
    return {key: [decode_value(v) for v in values] for key, values in answer["answers"].items()}


def call(target: Worker, job: str, seconds: float, **args: Any) -> dict:
    """`target.call(...)`, with a worker that cannot start or keeps dying reported as a failure."""
    try:
        return target.call(job, seconds, **args)
    except (SandboxError, OSError) as error:
        return {"failure": failure(WORKER_UNAVAILABLE, error.args[0] if error.args else str(error))}


def _snippet_error(data: dict | None) -> SnippetError | None:
    if data is None:
        return None
    return SnippetError(str(data["type"]), str(data["message"]), data.get("line"), data.get("column"),
                        str(data.get("key") or ""), dict(data.get("params") or {}))


def _failure_error(data: dict) -> SnippetError:
    return SnippetError(str(data.get("type", "SandboxError")), str(data.get("message", "")),
                        key=str(data.get("key") or ""), params=dict(data.get("params") or {}))


# --- values -----------------------------------------------------------------------------------

_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"}


@dataclass(frozen=True)
class UnsupportedResult:
    """A value the program computed that has no plain form (a function, a module, a graph node…)."""

    type_name: str


def decode_value(data: dict) -> Any:
    """The plain value `jobs.encode_value` described: None, bool, float, str or a numpy array."""
    import numpy as np

    kind = data.get("kind")
    if kind == "none":
        return None
    if kind == "bool":
        return bool(data["value"])
    if kind == "number":
        return float(data["value"])
    if kind == "text":
        return str(data["value"])
    if kind == "tensor":
        dtype = data["dtype"] if data["dtype"] in _DTYPES else "float64"
        array = np.array(_floats(data["data"]), dtype=dtype)
        return array.reshape([int(n) for n in data["shape"]])
    return UnsupportedResult(str(data.get("type", "object")))


def _floats(data: Any) -> Any:
    if isinstance(data, list):
        return [_floats(item) for item in data]
    if isinstance(data, str):
        return float(data)   # "nan", "inf", "-inf"
    return data
