"""Median time to explain every bundled lesson step: numeric (target < 50 ms), symbolic (< 500 ms).

Run: python benchmarks/explain.py [--repeat N]. The numeric part is `explain_program` (run the
program, Jacobian, vᵀJ, graph, trace, finite differences); the symbolic part is `explain_symbolic`
for every backward call of the step (sympy warmed up first: the app imports it once in a worker).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# run as a script, this folder comes first on sys.path and its engine.py would shadow the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from engine.explain import explain_program, explain_symbolic  # noqa: E402


def explain_step(lesson, step):
    """The explanation of one lesson step: its program is the `continues` chain (lessons builds it;
    the engine's explanation layer knows nothing of lessons)."""
    from lessons.programs import ProgramBuilder

    program = ProgramBuilder(lesson).program(lesson.step_index(step))
    return explain_program(program.source if program is not None else "")
from lessons.course import load_course  # noqa: E402
from lessons.model import ReadStep  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import sympy

    sympy.factor(sympy.Symbol("x") * 2 + 2)  # warm-up: first use loads the polys machinery
    rows = []
    for lesson in load_course(user_dir=None).lessons:
        for step in lesson.steps:
            if isinstance(step, ReadStep) or step.snippet is None:
                continue
            numeric, symbolic = [], []
            for _ in range(args.repeat):
                start = time.perf_counter()
                exp = explain_step(lesson, step)
                numeric.append(time.perf_counter() - start)
                start = time.perf_counter()
                for call in exp.calls:
                    explain_symbolic(exp, call.index)
                symbolic.append(time.perf_counter() - start)
            rows.append((f"{lesson.id}/{step.id}", len(exp.calls), statistics.median(numeric) * 1e3,
                         statistics.median(symbolic) * 1e3))
    width = max(len(r[0]) for r in rows)
    print(f"{'step':<{width}}  calls  numeric ms  symbolic ms")
    for name, calls, num, sym in rows:
        flag = ("" if num < 50 else "  numeric > 50 ms") + ("" if sym < 500 else "  symbolic > 500 ms")
        print(f"{name:<{width}}  {calls:5d}  {num:10.1f}  {sym:11.1f}{flag}")
    print(f"{'median':<{width}}         {statistics.median(r[2] for r in rows):10.1f}  "
          f"{statistics.median(r[3] for r in rows):11.1f}")


if __name__ == "__main__":
    main()
