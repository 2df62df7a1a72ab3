"""Explanations made in the confined child, received as data and rebuilt as rich renderables.

The app's reveal screen and `autograd-tutor explain` never run a program's explanation in their own
process: the child runs the program, derives the explanation (`engine.explain`) and renders it;
what comes back is the explanation's JSON form and its panels as renderable data.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.explain.messages import t
from engine.runner.errors import SnippetError, failure, reason, restored
from engine.sandbox.client import RUN_SECONDS, Cancel, _failure_error, _snippet_error, call, worker
from engine.sandbox.renderables import Deferred, from_data

PANELS = ("summary", "jacobian", "vjp", "chain", "graph", "fd")
# Address space an explanation's child may add to the zygote's: the program is bounded by the runner
# (64 MB of tensors), so what is left is for Jacobians (one m×m batch of seeds, m×n rows per leaf),
# sympy and rendering. An explanation past it is stopped by the OS, never by the UI thread's patience.
MEMORY = 768 * 2**20
# failures the sandbox itself reports (their messages say what happened); any other type in a "failure" is an
# exception raised by the explanation code in the child
SANDBOX_FAILURES = {"ResourceLimitExceeded", "WorkerUnavailable", "Cancelled", "SandboxError", "ProtocolError"}


@dataclass
class CallPanels:
    """One backward call's rendered panels (rich renderables, rebuilt from the child's data when first drawn)."""

    index: int
    summary: Any
    jacobian: Any
    vjp: Any
    chain: Any
    graph: Any
    fd: Any
    trace: list = field(default_factory=list)
    line: int | None = None          # the program line of the backward call
    forward: bool = False            # a forward-mode call: its panels show J·t, and its steps go forward


@dataclass
class WorkerExplanation:
    ok: bool
    error: SnippetError | None
    stdout: str
    calls: int = 0
    json: dict | None = None
    panels: list[CallPanels] = field(default_factory=list)
    report: list = field(default_factory=list)
    values: list | None = None        # the `expressions` evaluated (tagged plain data, see jobs.encode_value)
    fault: bool = False               # the explanation itself failed (limits, the worker, the tutor's own code),
                                      # never the program: callers must not report it as the program's error


def explain_in_worker(source: str, *, symbolic: bool = False, timeout: float = 2.0,
                      want: tuple[str, ...] = ("panels",), lang: str = "en", width: int = 100,
                      expressions: tuple[str, ...] = (), clean: Callable[[str], str],
                      cancel: Cancel | None = None) -> WorkerExplanation:
    """Explain every backward call of `source` in a confined child (never raises for the program's fault).

    `want`: "panels" (per call, for the app), "report" (one renderable per call, for the CLI),
    "json" (`Explanation.to_json`). With `symbolic`, sympy's forms are included, each call bounded by
    `timeout` seconds inside the child; the child as a whole by the OS layer's wall clock. The panels are
    worded in `lang` and laid out for `width` cells; `expressions` are evaluated after the program. `clean`
    is the caller's terminal boundary for the program's text in the panels (see `renderables.from_data`);
    `stdout`, the error and the JSON are returned as the program made them, for the caller to clean.
    `cancel` (a `client.Cancel`) kills the child early when the caller no longer wants the answer.
    """
    seconds = RUN_SECONDS + (timeout * 8 + 10 if symbolic else 6)
    answer = call(worker(), "explain", seconds, memory_bytes=MEMORY, cancel=cancel, source=source, symbolic=symbolic,
                  timeout=timeout, want=list(want), lang=lang, width=int(width), expressions=list(expressions))
    if "failure" in answer:
        failed = answer["failure"]
        if failed.get("type") == "ResourceLimitExceeded":  # the child was stopped: say what was stopped
            failed = failure("ResourceLimitExceeded", reason("explanation_stopped", seconds=f"{seconds:.0f}",
                                                             mb=MEMORY // 2**20, cause=restored(failed)))
        elif failed.get("type") not in SANDBOX_FAILURES:  # an exception in the explanation code: ours
            failed = failure("ExplanationFailed", reason("explanation_own_fault",
                                                         error=f"{failed.get('type')}: {failed.get('message')}"))
        error = _failure_error(failed)
        return WorkerExplanation(False, error, "", json={"ok": False, "error": error.to_json(), "stdout": "",
                                                         "calls": []}, fault=True)
    try:
        return _rebuild(answer, clean, lang)
    except (ValueError, KeyError, TypeError, IndexError):  # the child sent something that is no explanation
        error = SnippetError.of("SandboxError", reason("explanation_unreadable"))
        return WorkerExplanation(False, error, "", fault=True)


def _list(value) -> list:
    if not isinstance(value, list):
        raise ValueError("expected a list")
    return value


def _line(value) -> int | None:
    return None if value is None else int(value)


def _rebuild(answer: dict, clean: Callable[[str], str], lang: str) -> WorkerExplanation:
    """The explanation the child sent. Each panel stays the child's data until it is first drawn
    (`renderables.Deferred`): the reveal screen shows one tab at a time, so the learner waits only for the
    tab in front of them (rebuilding every panel of every call first took longer than explaining some steps)."""
    unreadable = t("unreadable_panel", lang)
    deferred = lambda data: None if data is None else Deferred(data, clean, unreadable)  # noqa: E731
    panels = [CallPanels(int(call["index"]), *(deferred(call[name]) for name in PANELS),
                         trace=[Deferred(step, clean, unreadable) for step in _list(call["trace"])],
                         line=_line(call.get("line")), forward=bool(call.get("forward")))
              for call in answer.get("panels", [])]
    return WorkerExplanation(bool(answer["ok"]), _snippet_error(answer["error"]), str(answer["stdout"]),
                             int(answer["calls"]), answer.get("json"), panels,
                             [from_data(item, clean) for item in answer.get("report", [])], answer.get("values"))
