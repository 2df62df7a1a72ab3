"""Start-up, exit and the first quiz question of the tutor, side by side with a bare Textual app.

Measures, in fresh processes, the time from starting Python to the first screen being painted and
interactive: for `autograd-tutor`'s course view (bundled course, empty data folder) and for a bare
Textual app (Header, one Static, Footer). Runs alternate so all see the same machine load; the
medians and the median of the per-pair ratios are printed. The issue's targets: the tutor at most
1.3x the bare app; quitting under 300 ms (from the quit to the process gone, once just after the first
paint, while the snippet worker still warms up, and once it is ready); `autograd-tutor quiz` showing
its first question within 1 s. A bare Textual app quitting is timed beside the tutor's quit.
Both run as on a learner's machine, with Python's bytecode caches written by a first, untimed run
(which also writes the tutor's caches: the parsed lessons and the course view's outline, as any start
after the very first finds them). The very first start, on an empty data folder each time, is timed
too and reported on its own line.

The machine may be shared: each figure is also given as a ratio to the bare app started just before it (the median
of the per-round ratios), which a steady load affects far less than the milliseconds, and the CPU time the app's
process used until it painted (a busy machine stretches the wall clock, hardly the CPU time); the load average is
printed before and after.

    .venv/bin/python benchmarks/startup.py [--runs 9] [--only course,quit,quiz]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

# A bare Textual app (Header, one Static, Footer). BARE prints the wall-clock moment its first screen has been
# painted, then exits; BARE_QUIT quits 0.1 s after that first paint, as Textual apps do (Python's teardown
# included), and prints the moment it asked: the tutor's quit is shown beside it (the tutor ends its process once
# the app has: TutorApp.run_and_exit, as its commands do).
BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static
import time

class Bare(App):
    def compose(self):
        yield Header()
        yield Static("hello")
        yield Footer()

    def on_mount(self):
        self.call_after_refresh(self.painted)

    def painted(self):
        {painted}

    def quit(self):
        print(time.time(), flush=True)
        self.exit()

Bare().run(headless=True, size=(100, 30))
"""
BARE = BARE_APP.format(painted="print(time.time(), time.process_time(), flush=True); self.exit()")
BARE_QUIT = BARE_APP.format(painted="self.set_timer(0.1, self.quit)")

# The tutor's child prints the moment its course view has been painted, then exits.
TUTOR = """
import time
from tutor.app import TutorApp

class Timed(TutorApp):
    def on_mount(self):  # Textual also runs TutorApp.on_mount (handlers run along the MRO)
        self.call_later(lambda: self.screen.call_after_refresh(self.ready))

    def ready(self):
        assert type(self.screen).__name__ == "CourseScreen" and self.screen.query_one("#lessons").option_count
        print(time.time(), time.process_time(), flush=True)
        self.exit()

Timed(lang="en", data_dir={data_dir!r}).run_and_exit(headless=True, size=(100, 30))
"""

# The child quits as Ctrl+Q does (`quit` after `wait`: "paint" just after the first paint, "ready" once the
# snippet worker has started) and prints the moment it asked; the parent times until the process is gone.
QUIT = """
import time
from tutor.app import TutorApp

class Timed(TutorApp):
    def on_mount(self):
        self.call_later(lambda: self.screen.call_after_refresh(self.painted))

    def painted(self):
        self.set_interval(0.02, self.maybe_quit) if {wait!r} == "ready" else self.set_timer(0.1, self.quit)

    def maybe_quit(self):
        if self.confinement is not None:
            self.quit()

    def quit(self):
        print(time.time(), flush=True)
        self.call_later(self.action_quit)

Timed(lang="en", data_dir={data_dir!r}).run_and_exit(headless=True, size=(100, 30))
"""

# `autograd-tutor quiz`: the moment the first question's step view is on screen. As the command does, the snippet
# worker is started before the app is imported.
QUIZ = """
import time
from tutor import worker_start

worker_start.start()
from tutor.app import TutorApp

class Timed(TutorApp):
    def on_mount(self):
        self.set_interval(0.01, self.check)

    def check(self):
        screen = self.screen
        if type(screen).__name__ == "QuizScreen" and screen.is_mounted and screen.query("#body") \\
                and screen.view.step is not None and screen.view.is_mounted:
            screen.call_after_refresh(self.ready)

    def ready(self):
        print(time.time(), time.process_time(), flush=True)
        self.exit()

Timed(lang="en", data_dir={data_dir!r}, start="quiz").run_and_exit(headless=True, size=(100, 30))
"""


# A learner's Python keeps compiled bytecode (__pycache__); some sandboxes switch that off with
# PYTHONDONTWRITEBYTECODE, which would time compiling the tutor's own sources rather than starting it.
CHILD_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


CPU: dict[int, float] = {}  # id(source) -> the CPU seconds its last child had used when it reported


def time_child(source: str, until_exit: bool = False) -> float:
    """Seconds from spawning `python -c source` to the moment the child reports (`until_exit`: from that
    moment to the child's end). A child that also reports its CPU time (`time.process_time()`, all its threads)
    leaves it in CPU."""
    started = time.time()
    result = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, check=False, env=CHILD_ENV)
    ended = time.time()
    if result.returncode != 0:
        raise SystemExit(f"the child failed:\n{result.stderr}")
    said, *cpu = map(float, result.stdout.strip().splitlines()[-1].split())
    if cpu:
        CPU[id(source)] = cpu[0]
    return ended - said if until_exit else said - started


def line(name: str, times: list[float], note: str = "") -> None:
    runs = ", ".join(f"{t * 1000:.0f}" for t in times)
    print(f"{name:<17}: median {statistics.median(times) * 1000:6.0f} ms  (runs: {runs}){note}")


def ratio(times: list[float], bare: list[float]) -> float:
    """The median of the per-round ratios to the bare app (each pair ran back to back)."""
    return statistics.median(a / b for a, b in zip(times, bare))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--only", default="course,quit,quiz", help="which figures: course, quit, quiz (comma-separated)")
    args = parser.parse_args()
    only = set(args.only.split(","))
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as data_dir:
        tutor = TUTOR.format(data_dir=data_dir)
        time_child(BARE), time_child(tutor)  # warm the file cache and write the bytecode caches
        bare, app, first, bare_quit, quit_painted, quit_ready, quiz = [], [], [], [], [], [], []
        bare_cpu, app_cpu, quiz_cpu = [], [], []
        quiz_source = QUIZ.format(data_dir=data_dir)
        for _ in range(args.runs):
            bare.append(time_child(BARE))
            bare_cpu.append(CPU[id(BARE)])
            if "course" in only:
                app.append(time_child(tutor))
                app_cpu.append(CPU[id(tutor)])
                with tempfile.TemporaryDirectory() as empty:
                    first.append(time_child(TUTOR.format(data_dir=empty)))
            if "quit" in only:
                bare_quit.append(time_child(BARE_QUIT, until_exit=True))
                quit_painted.append(time_child(QUIT.format(data_dir=data_dir, wait="paint"), until_exit=True))
                quit_ready.append(time_child(QUIT.format(data_dir=data_dir, wait="ready"), until_exit=True))
            if "quiz" in only:
                quiz.append(time_child(quiz_source))
                quiz_cpu.append(CPU[id(quiz_source)])
    print(f"load average     : {load_before:.1f} before, {os.getloadavg()[0]:.1f} after (1 min), {os.cpu_count()} cores")
    line("bare Textual app", bare)
    if app:
        line("tutor course view", app)
        print(f"ratio            : {ratio(app, bare):.2f}x  (median of the paired runs' ratios; target ≤ 1.3x: "
              f"{'met' if ratio(app, bare) <= 1.3 else 'NOT met'})")
        print(f"  CPU until painted: bare {statistics.median(bare_cpu) * 1000:.0f} ms, tutor "
              f"{statistics.median(app_cpu) * 1000:.0f} ms, {ratio(app_cpu, bare_cpu):.2f}x  (the app's process, every "
              "thread: a figure a shared machine's load leaves nearly alone)")
        print(f"very first start : median {statistics.median(first) * 1000:6.0f} ms  ({ratio(first, bare):.2f}x; an "
              "empty data folder: every lesson parsed, no outline yet)")
    if bare_quit:
        line("bare app quit", bare_quit)
        line("quit, warming up", quit_painted, "  (target < 300 ms)")
        line("quit, worker ready", quit_ready, "  (target < 300 ms)")
    if quiz:
        line("first quiz question", quiz, f"  ({ratio(quiz, bare):.2f}x the bare app; target < 1000 ms)")
        print(f"  CPU until shown  : {statistics.median(quiz_cpu) * 1000:.0f} ms in the app's process, "
              f"{ratio(quiz_cpu, bare_cpu):.2f}x the bare app's (the snippet worker's own process not counted)")


if __name__ == "__main__":
    main()
