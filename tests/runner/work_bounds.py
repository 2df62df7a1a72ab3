"""How the runner's tests bound a run so that they hold on a loaded machine (`pytest -n 8` on 2 cores, beside other
work): by the work a run does (its steps, depth, elements — the `Limits` counts — and the CPU time it spends), never
by the wall time it took, which load stretches tenfold and more. The wall clock stays only as a hang guard: a defect
that lets a run go on fails the test at HANG_GUARD instead of hanging it."""
from __future__ import annotations

import time

from engine.runner import Limits

HANG_GUARD = 300.0  # seconds of wall time; every run here stops by its own bound in well under a second of CPU
GENEROUS = Limits(max_seconds=HANG_GUARD)


class CpuTime:
    """The CPU seconds this process spends in a `with` block (all its threads: numpy's too), which load does not
    stretch: `with CpuTime() as spent: ...`, then `spent.seconds`."""

    def __enter__(self) -> CpuTime:
        self.start = time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.process_time() - self.start
