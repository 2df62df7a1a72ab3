"""Start-up time of the tutor, side by side with a bare Textual app.

Measures, in fresh processes, the time from starting Python to the first screen being painted and
interactive: for `autograd-tutor`'s course view (bundled course, empty data folder) and for a bare
Textual app (Header, one Static, Footer). Runs alternate so both see the same machine load; the
medians and the median of the per-pair ratios are printed. The issue's target: the tutor at most
1.3x the bare app.
Both run as on a learner's machine, with Python's bytecode caches written by a first, untimed run
(which also writes the tutor's caches: the parsed lessons and the course view's outline, as any start
after the very first finds them). The very first start, on an empty data folder each time, is timed
too and reported on its own line.

    .venv/bin/python benchmarks/startup.py [--runs 7]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

# Each child prints the wall-clock moment its first screen has been painted, then exits.
BARE = """
from textual.app import App
from textual.widgets import Footer, Header, Static
import time

class Bare(App):
    def compose(self):
        yield Header()
        yield Static("hello")
        yield Footer()

    def on_mount(self):
        self.call_after_refresh(self.ready)

    def ready(self):
        print(time.time(), flush=True)
        self.exit()

Bare().run(headless=True, size=(100, 30))
"""

TUTOR = """
import time
from tutor.app import TutorApp

class Timed(TutorApp):
    def on_mount(self):  # Textual also runs TutorApp.on_mount (handlers run along the MRO)
        self.call_later(lambda: self.screen.call_after_refresh(self.ready))

    def ready(self):
        assert type(self.screen).__name__ == "CourseScreen" and self.screen.query_one("#lessons").option_count
        print(time.time(), flush=True)
        self.exit()

Timed(lang="en", data_dir={data_dir!r}).run(headless=True, size=(100, 30))
"""


# A learner's Python keeps compiled bytecode (__pycache__); some sandboxes switch that off with
# PYTHONDONTWRITEBYTECODE, which would time compiling the tutor's own sources rather than starting it.
CHILD_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def time_child(source: str) -> float:
    """Seconds from spawning `python -c source` to the moment the child reports it is ready."""
    started = time.time()
    result = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, check=False, env=CHILD_ENV)
    if result.returncode != 0:
        raise SystemExit(f"the child failed:\n{result.stderr}")
    return float(result.stdout.strip().splitlines()[-1]) - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        tutor = TUTOR.format(data_dir=data_dir)
        time_child(BARE), time_child(tutor)  # warm the file cache and write the bytecode caches
        bare, app, first = [], [], []
        for _ in range(args.runs):
            bare.append(time_child(BARE))
            app.append(time_child(tutor))
            with tempfile.TemporaryDirectory() as empty:
                first.append(time_child(TUTOR.format(data_dir=empty)))
    bare_median, app_median = statistics.median(bare), statistics.median(app)
    print(f"bare Textual app : median {bare_median * 1000:6.0f} ms  (runs: {', '.join(f'{t * 1000:.0f}' for t in bare)})")
    print(f"tutor course view: median {app_median * 1000:6.0f} ms  (runs: {', '.join(f'{t * 1000:.0f}' for t in app)})")
    ratio = statistics.median(a / b for a, b in zip(app, bare))
    print(f"ratio            : {ratio:.2f}x  (median of the paired runs' ratios; target ≤ 1.3x: "
          f"{'met' if ratio <= 1.3 else 'NOT met'})")
    first_ratio = statistics.median(a / b for a, b in zip(first, bare))
    print(f"very first start : median {statistics.median(first) * 1000:6.0f} ms  ({first_ratio:.2f}x; an empty data "
          "folder: every lesson parsed, no outline yet)")


if __name__ == "__main__":
    main()
