"""Checking an answer and computing the numeric explanation, for every bundled predict step.

What the app does when the learner presses Enter (read the typed answer, compare it cell by cell
with the engine's answer) and then `e` (the numeric explanation: Jacobians, vᵀJ, graph, trace,
finite differences, rendered). The issue's target: under 100 ms for every step. The step's answer
itself is computed when the step is shown, so it is timed separately. Everything runs as in the
app, in the sandbox worker (one forked, confined child per program); the explanation is also timed
in this process, side by side, and the worker's own overhead per run is measured on a one-line
snippet against running it in-process.

    .venv/bin/python benchmarks/answer_check.py
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# run as a script, this folder comes first on sys.path and its engine.py would shadow the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def timings(function, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return times


def best_of(function, repeats: int = 3) -> float:
    return min(timings(function, repeats))


def worker_overhead() -> None:
    from engine.runner import run_snippet
    from engine.sandbox import run_program, worker

    started = time.perf_counter()
    worker().start()
    print(f"worker start (imports, warm-up; once per session): {(time.perf_counter() - started) * 1000:.0f} ms")
    snippet = "import torch\nx = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()\n"
    inproc, sandboxed = [], []
    for _ in range(31):  # alternating, so both see the same machine
        inproc += timings(lambda: run_snippet(snippet), 1)
        sandboxed += timings(lambda: run_program(snippet), 1)
    a, b = statistics.median(inproc), statistics.median(sandboxed)
    print(f"one small run: in-process {a * 1000:.2f} ms, sandbox worker {b * 1000:.2f} ms "
          f"(overhead {(b - a) * 1000:.1f} ms per run: fork, confinement, pipe, JSON)\n")


def main() -> None:
    from engine.explain import explain_program
    from engine.sandbox.explanations import explain_in_worker
    from lessons.answers import compare, compute_answer
    from lessons.course import load_course
    from lessons.programs import ProgramBuilder
    from tutor.answer_input import parse_answer
    from tutor.untrusted import plain

    worker_overhead()
    rows = []
    for lesson in load_course(user_dir="/nonexistent-autograd-tutor-user-dir").lessons:
        builder = ProgramBuilder(lesson)
        for index, step in enumerate(lesson.steps):
            if step.kind != "predict":
                continue
            shown = best_of(lambda: compute_answer(lesson, step, ProgramBuilder(lesson)))
            answer = compute_answer(lesson, step, builder)
            if answer.kind == "tensor":
                typed = json.dumps(np.asarray(answer.value, dtype=float).tolist())
            else:
                typed = "None" if answer.kind == "none" else str(answer.value)
            check = best_of(lambda: compare(answer, parse_answer(typed, answer.kind, answer.shape, answer.run.evaluate)))
            source = builder.program(index).source
            explain = best_of(lambda: explain_in_worker(source, clean=plain))
            inproc = best_of(lambda: explain_program(source))
            rows.append((f"{lesson.id}/{step.id}", shown, check, explain, inproc))
    width = max(len(name) for name, *_ in rows)
    print(f"{'step':<{width}}  answer  check  explain  check+explain  (explain in-process, numbers only) ms")
    for name, shown, check, explain, inproc in rows:
        print(f"{name:<{width}}  {shown * 1000:6.1f} {check * 1000:6.2f} {explain * 1000:8.1f} "
              f"{(check + explain) * 1000:8.1f}       ({inproc * 1000:.1f})")
    totals = [check + explain for _, _, check, explain, _ in rows]
    print(f"\n{len(rows)} predict steps: check+explain median {statistics.median(totals) * 1000:.1f} ms, "
          f"max {max(totals) * 1000:.1f} ms (target < 100 ms each); answer when shown: median "
          f"{statistics.median(r[1] for r in rows) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
