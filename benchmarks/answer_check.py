"""Checking an answer and computing the numeric explanation, for every bundled predict step.

What the app does when the learner presses Enter (read the typed answer, compare it cell by cell
with the engine's answer) and then `e` (the numeric explanation: Jacobians, vᵀJ, graph, trace,
finite differences, rendered). The issue's target: under 100 ms for every step. The step's answer
itself is computed when the step is shown, so it is timed separately. Everything runs as in the
app, in the sandbox worker (one confined child per program), up to the panels of the tab the
reveal screen opens on, rebuilt from the child's data (the other tabs' are rebuilt when opened,
`renderables.Deferred`); the drawing itself is not timed. Between showing a step and `e` the
learner reads and types, and the worker uses that time to warm up a spare child for the next
explanation (`engine.sandbox.zygote._spare`): "explain" waits for it as the learner does (the
figure the target is about); "fresh" is the same explanation in a freshly forked child, as when
explanations come back to back. The explanation is also timed in this process, and the worker's
own overhead per run is measured on a one-line snippet against running it in-process.

`--baseline DIR` (another checkout, e.g. `git worktree add /tmp/base main`): that checkout's code
explains each step too, the two taking turns step by step (a change in the machine's load falls on
both), and the ratios new/old are printed. `--only TEXT`: the steps whose name contains TEXT.

    .venv/bin/python benchmarks/answer_check.py [--baseline DIR] [--only TEXT]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# run as a script, this folder comes first on sys.path and its engine.py would shadow the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
SPARE_WAIT = 10.0  # seconds to wait for the worker's spare child (a learner's reading is longer)


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


def predict_steps(only: str = ""):
    """(name, lesson, step, its index, the ProgramBuilder) for each bundled predict step."""
    from lessons.course import load_course
    from lessons.programs import ProgramBuilder

    for lesson in load_course(user_dir="/nonexistent-autograd-tutor-user-dir").lessons:
        builder = ProgramBuilder(lesson)
        for index, step in enumerate(lesson.steps):
            if step.kind == "predict" and only in f"{lesson.id}/{step.id}":
                yield f"{lesson.id}/{step.id}", lesson, step, index, builder


def explain_times(source: str) -> tuple[float, float]:
    """(explain as the learner gets it: with the worker's spare child warm, fresh: back to back), best of 3."""
    from rich.protocol import rich_cast

    from engine.sandbox import worker
    from engine.sandbox.explanations import explain_in_worker
    from tutor.untrusted import plain

    spare_ready = getattr(worker(), "spare_ready", lambda timeout: False)  # a checkout without spares: none

    def explain() -> None:  # and the panels of the tab the reveal screen opens on, rebuilt to be drawn
        for call in explain_in_worker(source, clean=plain).panels:
            rich_cast(call.fd)

    def after_reading() -> None:
        spare_ready(SPARE_WAIT)
        started = time.perf_counter()
        explain()
        times.append(time.perf_counter() - started)

    times: list[float] = []
    for _ in range(3):
        after_reading()
    fresh = best_of(explain)  # no pause: the spare (if any) went to the one before
    return min(times), fresh


def serve() -> None:
    """`--serve`: explain the steps named on stdin, one per line, answering each with a JSON line (the
    baseline's side of `--baseline`, run in that checkout)."""
    from engine.sandbox import worker

    worker().start()
    sources = {name: builder.program(index).source for name, _, _, index, builder in predict_steps()}
    for line in sys.stdin:
        explain, fresh = explain_times(sources[line.strip()])
        print(json.dumps({"explain": explain, "fresh": fresh}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout whose explanations are timed alongside")
    parser.add_argument("--only", default="", help="only the steps whose name contains this")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve()
    from engine.explain import explain_program
    from lessons.answers import compare, compute_answer
    from lessons.programs import ProgramBuilder
    from tutor.answer_input import parse_answer

    baseline = None
    if args.baseline is not None:  # its own code first on the import path (ahead of this venv's editable install)
        root = args.baseline.resolve()
        baseline = subprocess.Popen([sys.executable, __file__, "--serve"], cwd=root, text=True, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(root)})
    print(f"{os.cpu_count()} CPUs, load average before: {', '.join(f'{n:.1f}' for n in os.getloadavg())}")
    worker_overhead()
    rows = []
    for turn, (name, lesson, step, index, builder) in enumerate(predict_steps(args.only)):
        shown = best_of(lambda: compute_answer(lesson, step, ProgramBuilder(lesson)))
        answer = compute_answer(lesson, step, builder)
        if answer.kind == "tensor":
            typed = json.dumps(np.asarray(answer.value, dtype=float).tolist()).replace("NaN", "nan")  # as typed
        else:
            typed = "None" if answer.kind == "none" else str(answer.value)
        check = best_of(lambda: compare(answer, parse_answer(typed, answer.kind, answer.shape, answer.run.evaluate)))
        source = builder.program(index).source
        old = None
        if baseline is not None and turn % 2:   # who goes first alternates
            baseline.stdin.write(name + "\n")
            baseline.stdin.flush()
            old = json.loads(baseline.stdout.readline())
        explain, fresh = explain_times(source)
        if baseline is not None and old is None:
            baseline.stdin.write(name + "\n")
            baseline.stdin.flush()
            old = json.loads(baseline.stdout.readline())
        inproc = best_of(lambda: explain_program(source))
        rows.append((name, shown, check, explain, fresh, inproc, old))
    if baseline is not None:
        baseline.stdin.close()
        baseline.wait()
    width = max(len(row[0]) for row in rows)
    print(f"{'step':<{width}}  answer  check  explain  check+explain  fresh  (in-process, numbers only)"
          + ("  | baseline: check+explain, fresh; new/old" if baseline else "") + "  ms")
    for name, shown, check, explain, fresh, inproc, old in rows:
        line = (f"{name:<{width}}  {shown * 1000:6.1f} {check * 1000:6.2f} {explain * 1000:8.1f} "
                f"{(check + explain) * 1000:8.1f}     {fresh * 1000:7.1f}     ({inproc * 1000:.1f})")
        if old is not None:
            line += (f"  | {(check + old['explain']) * 1000:7.1f} {old['fresh'] * 1000:7.1f}; "
                     f"{(check + explain) / (check + old['explain']):.2f}")
        print(line)
    totals = [check + explain for _, _, check, explain, *_ in rows]
    slowest = sorted(zip(totals, (row[0] for row in rows)), reverse=True)[:5]
    print(f"\n{len(rows)} predict steps: check+explain median {statistics.median(totals) * 1000:.1f} ms, "
          f"max {max(totals) * 1000:.1f} ms (target < 100 ms each); fresh child median "
          f"{statistics.median(row[4] for row in rows) * 1000:.1f} ms, max {max(row[4] for row in rows) * 1000:.1f} ms; "
          f"answer when shown: median {statistics.median(r[1] for r in rows) * 1000:.1f} ms")
    print("slowest: " + ", ".join(f"{name} {total * 1000:.1f}" for total, name in slowest))
    if baseline is not None:
        old_totals = [check + old["explain"] for _, _, check, _, _, _, old in rows]
        ratios = [new / old for new, old in zip(totals, old_totals)]
        print(f"baseline {args.baseline}: check+explain median {statistics.median(old_totals) * 1000:.1f} ms, "
              f"max {max(old_totals) * 1000:.1f} ms; new/old per step: median {statistics.median(ratios):.2f}, "
              f"of the medians {statistics.median(totals) / statistics.median(old_totals):.2f}, "
              f"of the maxima {max(totals) / max(old_totals):.2f}")
    print(f"load average after: {', '.join(f'{n:.1f}' for n in os.getloadavg())}")


if __name__ == "__main__":
    main()
