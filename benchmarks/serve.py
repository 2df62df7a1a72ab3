"""`autograd-tutor serve` under a class: time to the course view, memory per connected student.

Starts the server on a free local port with a fresh class folder, then for 1 and for 10 students at
once (each a separate headless Chromium context, the system's browser via Playwright) measures:

- the time from opening the tutor page (after joining) to the course view being drawn in the
  browser (the first lesson's title has arrived over the page's WebSocket);
- the CPU the browser pages and the server (with its tutors) used for the round: on one machine
  the ten browsers, not the server, are what the students wait for;
- the memory of each student's processes on the server once they are idle in the course view: the
  tutor process (forked from the server's zygote), its sandbox worker and the launcher textual-serve
  started for it, as PSS (shared pages split fairly between processes, the zygote included) and as
  RSS (shared pages counted in full), summed per student from /proc/<pid>/smaps_rollup; the CPU
  time of the same processes. The zygote's own memory and CPU (once per server) are printed apart.

The same rounds run a second way, as a class runs: each student's browser on their own computer. Here
one student is a real browser page and the others are WebSocket clients that join and read the
terminal like a page does (no browser competing for this machine's two cores); the page's time is
what each student sees while the whole class starts at once. A last line gives the server's share
alone (every student a WebSocket client).

A class at work (`--lessons-only` runs just this): every student a WebSocket client (browsers on their
own computers), all at once: from the course view, opening the first lesson (Enter -> its first step
drawn), then leaving (the page closed) and coming back (the page opened again -> the tutor resumed on
that step: the old tutor must end first, one tutor per student; a page the server closed because the
old tutor had not ended yet reconnects, counted). Side by side in one run, each class size twice: every
student's snippet worker started from scratch (AUTOGRAD_TUTOR_SERVE_WARM_WORKER=0, as before) and
forked from the server's warm worker; with the ratios, and PSS per student with every worker up. With
`--baseline DIR` (another checkout, e.g. `git worktree add /tmp/base main`), that checkout's server and
this one's instead: a change measured before/after in one run, the two taking turns round by round.

The targets (issues #19, #26): < 3 s to the course view, < 1 s to open a lesson and to come back for a
class of 10 on 2 cores (server side), <= 110 MB PSS per student.

    .venv/bin/python benchmarks/serve.py [--students 1 10] [--settle 8] [--lessons-only [--rounds 3] [--baseline DIR]]
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.serve.serve_browser import CHROMIUM_ARGS, TERMINAL_TEXT, ServedClass, chromium_path, why_no_browser  # noqa: E402
from tutor.classroom.server import process_children, process_tree  # noqa: E402


def descendants(pid: int, zygotes: tuple[int | None, ...] = ()) -> list[int]:
    return process_tree(pid, process_children(zygotes))


def memory_kb(pid: int, *, started: bool = True, zygotes: tuple[int | None, ...] = ()) -> tuple[int, int]:
    """(PSS, RSS) in kB of a process and (unless `started` is False) everything it started, counting what
    `zygotes` forked for it (its snippet worker, forked by the warm worker) as its own."""
    pss = rss = 0
    for process in descendants(pid, zygotes) if started else [pid]:
        try:
            for line in Path(f"/proc/{process}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1])
                elif line.startswith("Rss:"):
                    rss += int(line.split()[1])
        except OSError:
            continue
    return pss, rss


def cpu_seconds(pid: int, *, started: bool = True) -> float:
    """User + system CPU time of a process and (unless `started` is False) everything it started (a
    measure the machine's load does not change)."""
    import os

    total = 0
    for process in descendants(pid) if started else [pid]:
        try:
            fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


async def open_student(browser, url: str, name: str) -> tuple[object, float]:
    context = await browser.new_context(viewport={"width": 1100, "height": 640})
    await context.add_init_script(TERMINAL_TEXT)
    page = await context.new_page()
    await page.goto(url + "/?lang=en")
    await page.fill("#name", name)
    await page.click("#start-button")  # joins, then the tutor page opens: the clock starts with it
    await page.wait_for_load_state("domcontentloaded")
    if await page.query_selector("#personal-code") is not None:  # a new student's personal code, shown once
        await page.click("#continue")
    start = time.monotonic()
    await page.wait_for_url("**/tutor")
    while "Trying autograd" not in await page.evaluate("() => window.__tutorText || ''"):
        if time.monotonic() - start > 60:
            raise RuntimeError(f"{name}: no course view after 60 s")
        await asyncio.sleep(0.02)
    return context, time.monotonic() - start


def student_processes(launcher: int, tutor: int) -> list[int]:
    """The tutor (with its sandbox worker, counted by memory_kb and cpu_seconds) and its launcher."""
    return [tutor] if launcher == tutor else [tutor, launcher]


def cpu_split(server: ServedClass) -> tuple[float, float]:
    """CPU seconds so far of (the browser's processes, the server with the zygote and the tutors)."""
    import os

    served = set(descendants(server.process.pid))
    browser = sum(cpu_seconds(pid, started=False) for pid in descendants(os.getpid()) if pid not in served and pid != os.getpid())
    return browser, cpu_seconds(server.process.pid)


async def round_of(browser, server: ServedClass, count: int, settle: float, offset: int) -> dict:
    before = cpu_split(server)
    results = await asyncio.gather(*(open_student(browser, server.url, f"student {offset + i}") for i in range(count)))
    used = [after - earlier for after, earlier in zip(cpu_split(server), before)]
    cpu = [sum(cpu_seconds(pid) for pid in student_processes(*pair))  # at the course view (worker not started yet)
           for pair in server.students().values()]
    await asyncio.sleep(settle)  # the sandbox worker starts after the course view is shown
    pids = server.students()
    memory = [[sum(sizes) for sizes in zip(*(memory_kb(pid) for pid in student_processes(*pair)))]
              for pair in pids.values()]
    for context, _ in results:
        await context.close()
    for _ in range(200):  # wait until every tutor of this round has quit
        if not server.student_pids():
            break
        await asyncio.sleep(0.1)
    times = [seconds for _, seconds in results]
    return {"students": count, "processes": len(pids), "times": times, "cpu": cpu, "used": used,
            "pss_mb": [pss / 1024 for pss, _ in memory], "rss_mb": [rss / 1024 for _, rss in memory],
            "server_rss_mb": _own_rss(server.process.pid)}


async def websocket_student(url: str, name: str) -> float:
    """Like a browser, without one: join, open the terminal's WebSocket, wait for the course view."""
    import re

    import aiohttp

    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:  # an IP address host
        await session.post(url + "/join", data={"name": name, "lang": "en"})
        start = time.monotonic()
        async with session.ws_connect(url.replace("http", "ws") + "/ws?width=110&height=32") as socket:
            seen = ""
            while "Trying autograd" not in seen:
                message = await socket.receive(timeout=120)
                if isinstance(message.data, bytes):
                    seen += re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]", "", message.data.decode("utf-8", "replace"))
                elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    raise RuntimeError(f"{name}: closed before the course view")
            return time.monotonic() - start


async def read_terminal(socket, text: str, seconds: float = 120.0) -> None:
    import re

    import aiohttp

    seen, deadline = "", time.monotonic() + seconds
    while text not in seen:
        message = await socket.receive(timeout=max(0.1, deadline - time.monotonic()))
        if isinstance(message.data, bytes):
            seen += re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]", "", message.data.decode("utf-8", "replace"))
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            raise RuntimeError(f"closed before {text!r}")


RECONNECTS: list[str] = []  # students whose page had to reconnect to come back
REATTACHED: list[str] = []  # students whose page came back to their tutor still running (the same process)


async def lesson_student(url: str, name: str, start: asyncio.Event, measured: asyncio.Event,
                         inside: list, tutor_cpu) -> tuple[float, float, float, float]:
    """(seconds to open the first lesson from the course view, seconds to come back to it after leaving, and the
    CPU seconds the student's tutor used for each: `tutor_cpu(name)` reads (its tutor's pid, that tutor's CPU time
    so far); coming back, the CPU of the tutor it found: all of a new one's, or what a running one used since)."""
    import aiohttp

    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        await session.post(url + "/join", data={"name": name, "lang": "en"})
        terminal = url.replace("http", "ws") + "/ws?width=110&height=32"
        async with session.ws_connect(terminal) as socket:
            await read_terminal(socket, "Trying autograd")
            await start.wait()  # the whole class at once
            began, (_, cpu_before) = time.monotonic(), tutor_cpu(name)
            await socket.send_json(["stdin", "\r"])
            await read_terminal(socket, "Step 1 of")
            opened, open_cpu = time.monotonic() - began, tutor_cpu(name)[1] - cpu_before
            inside.append(name)
            while not measured.is_set():  # (memory is measured with every student in the lesson)
                try:
                    await socket.receive(timeout=0.5)  # reading answers the server's heartbeat, as a page does
                except asyncio.TimeoutError:
                    pass
        began, (left, cpu_before) = time.monotonic(), tutor_cpu(name)  # the page closed; now opened again
        for _ in range(5):  # closed before its tutor started (the old one still ending): the page's Reconnect
            async with session.ws_connect(terminal) as socket:
                try:
                    await read_terminal(socket, "Step 1 of")
                    break
                except RuntimeError:
                    RECONNECTS.append(name)
        back = time.monotonic() - began
        found, cpu = tutor_cpu(name)
        if found is not None and found == left:
            REATTACHED.append(name)
            cpu -= cpu_before
        return opened, back, open_cpu, cpu


def tutor_cpu_of(server: ServedClass):
    """name -> (pid, CPU seconds so far) of that student's tutor process alone ((None, 0) when none runs)."""
    from tutor.classroom.names import folder_name

    def cpu(name: str) -> tuple[int | None, float]:
        pid = server.student_pids().get(folder_name(name))
        return (pid, cpu_seconds(pid, started=False)) if pid else (None, 0.0)

    return cpu


async def lesson_round(server: ServedClass, count: int, offset: int, settle: float) -> tuple[list[float], ...]:
    """(seconds to open a lesson, seconds to come back, PSS in MB of each student's processes in the lesson, CPU
    seconds of each tutor to open the lesson, and of each new tutor to come back)."""
    start, measured, inside = asyncio.Event(), asyncio.Event(), []
    cpu = tutor_cpu_of(server)
    tasks = [asyncio.create_task(lesson_student(server.url, f"lesson student {offset + i}", start, measured, inside, cpu))
             for i in range(count)]
    deadline = time.monotonic() + 300
    while len(server.student_pids()) < count:  # every course view drawn, the tutors idle
        if time.monotonic() > deadline or any(task.done() for task in tasks):
            raise RuntimeError(f"only {len(server.student_pids())} of {count} students reached the course view")
        await asyncio.sleep(0.1)
    await asyncio.sleep(settle)
    start.set()
    while len(inside) < count:
        await asyncio.sleep(0.05)
    adopt, previous, deadline = (server.warm_worker_pid(),), None, time.monotonic() + 40
    while time.monotonic() < deadline:  # until every student's snippet worker has started and stopped growing
        sizes = [memory_kb(tutor, zygotes=adopt) for tutor in server.student_pids().values()]
        trees = [len(descendants(tutor, adopt)) for tutor in server.student_pids().values()]
        if previous is not None and min(trees, default=0) >= 2 and abs(sum(r for _, r in sizes) - sum(r for _, r in previous)) < 1024:
            break
        previous = sizes
        await asyncio.sleep(1.0)
    pss = [pss / 1024 for pss, _ in sizes]
    measured.set()
    results = await asyncio.gather(*tasks)
    for _ in range(200):
        if not server.student_pids():
            break
        await asyncio.sleep(0.1)
    return ([r[0] for r in results], [r[1] for r in results], pss, [r[2] for r in results], [r[3] for r in results])


async def lessons_main(counts: list[int], settle: float, rounds: int, baseline: Path | None) -> None:
    """The class at work, side by side in one run, the variants taking turns round by round (so a change
    in the machine's load falls on both): each student's snippet worker started from scratch and forked
    from the server's warm worker (`tutor.classroom.sandbox`); or, with `baseline`, that checkout's code
    against this one's."""
    import os

    from tutor.classroom.sandbox import DISABLE

    if baseline is None:
        variants = [("worker from scratch", ROOT, {DISABLE: "0"}), ("worker forked warm", ROOT, {DISABLE: "1"})]
    else:
        variants = [(f"baseline {baseline}", baseline, {}), ("this checkout", ROOT, {})]
    print(f"{os.cpu_count()} CPUs, load average before: {os.getloadavg()[0]:.1f}", flush=True)
    for count in counts:
        with tempfile.TemporaryDirectory() as folder:
            servers = [ServedClass(Path(folder) / f"class{i}", "--max-students", str(max(counts) + 5), env=env, root=root)
                       for i, (_, root, env) in enumerate(variants)]
            try:
                for server in servers:
                    await lesson_round(server, 1, 9000, settle)  # warm-up: caches, and the warm worker ready
                figures = {label: ([], [], [], [], [], []) for label, _, _ in variants}
                for index in range(rounds):
                    for (label, _, _), server in zip(variants, servers):
                        o, b, p, oc, bc = await lesson_round(server, count, 100 * count + 10 * index, settle)
                        opened, back, pss, loads, open_cpu, back_cpu = figures[label]
                        opened.append(statistics.median(o))
                        back.append(statistics.median(b))
                        pss.extend(p)
                        loads.append(os.getloadavg()[0])
                        open_cpu.extend(oc)
                        back_cpu.extend(bc)
            finally:
                for server in servers:
                    server.stop()
        for label, (opened, back, pss, loads, open_cpu, back_cpu) in figures.items():
            print(f"{count:>2} student(s) at once, {label} (WebSocket clients; medians of {rounds} rounds, each a "
                  f"median over the class): open a lesson {statistics.median(opened):.2f} s "
                  f"({', '.join(f'{t:.2f}' for t in opened)}), come back after leaving "
                  f"{statistics.median(back):.2f} s ({', '.join(f'{t:.2f}' for t in back)}); PSS per student "
                  f"median {statistics.median(pss):.0f} MB, max {max(pss):.0f} MB (tutor, its snippet worker and that "
                  f"worker's launcher); CPU of a tutor (median): opening {statistics.median(open_cpu):.3f} s, coming back "
                  f"{statistics.median(back_cpu):.3f} s; load average {', '.join(f'{load:.1f}' for load in loads)}",
                  flush=True)
        (label_0, label_1) = (variants[0][0], variants[1][0])
        open_0, back_0 = (statistics.median(figures[label_0][i]) for i in (0, 1))
        open_1, back_1 = (statistics.median(figures[label_1][i]) for i in (0, 1))
        cpu_0, cpu_1 = ([statistics.median(figures[label][i]) for i in (4, 5)] for label in (label_0, label_1))
        print(f"{count:>2} student(s): {label_1} / {label_0}: open {open_1 / open_0:.2f}x, come back "
              f"{back_1 / back_0:.2f}x; a tutor's CPU: open {_ratio(cpu_1[0], cpu_0[0])}, come back "
              f"{_ratio(cpu_1[1], cpu_0[1])}; reconnects needed {len(RECONNECTS)}; pages that came back to their "
              f"running tutor {len(REATTACHED)}", flush=True)
        RECONNECTS.clear()
        REATTACHED.clear()


def _ratio(new: float, old: float) -> str:
    return f"{new / old:.2f}x" if old else "n/a (nothing measured before)"


async def server_round(server: ServedClass, count: int, offset: int) -> list[float]:
    times = await asyncio.gather(*(websocket_student(server.url, f"ws student {offset + i}") for i in range(count)))
    for _ in range(200):
        if not server.student_pids():
            break
        await asyncio.sleep(0.1)
    return list(times)


async def classroom_round(browser, server: ServedClass, count: int, offset: int) -> float:
    """One browser page among `count` students joining at once, the others WebSocket clients: the page's time."""
    page, *_ = await asyncio.gather(open_student(browser, server.url, f"browser {offset}"),
                                    *(websocket_student(server.url, f"class {offset + i}") for i in range(1, count)))
    context, seconds = page
    await context.close()
    for _ in range(200):
        if not server.student_pids():
            break
        await asyncio.sleep(0.1)
    return seconds


def _own_rss(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def main_async(counts: list[int], settle: float) -> None:
    import os

    from playwright.async_api import async_playwright

    print(f"{os.cpu_count()} CPUs, load average before: {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        server = ServedClass(Path(folder) / "class", "--max-students", str(max(counts) + 5))
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
                await round_of(browser, server, 1, 1.0, 1000)  # warm-up: bytecode and parsed-lesson caches
                offset = 0
                for count in counts:
                    result = await round_of(browser, server, count, settle, offset)
                    offset += count
                    times, pss, rss = result["times"], result["pss_mb"], result["rss_mb"]
                    print(f"{count:>2} student(s): page -> course view median {statistics.median(times):.2f} s, "
                          f"max {max(times):.2f} s; per student PSS median {statistics.median(pss):.0f} MB "
                          f"(max {max(pss):.0f}), RSS median {statistics.median(rss):.0f} MB (tutor + sandbox worker + launcher); "
                          f"CPU to the course view median {statistics.median(result['cpu']):.2f} s per student; "
                          f"server RSS {result['server_rss_mb']:.0f} MB", flush=True)
                    browsers, served = result["used"]
                    print(f"   CPU of the round (join pages opened .. last course view), on {os.cpu_count()} cores: "
                          f"the {count} browser page(s) {browsers:.1f} s, the server and its tutors {served:.1f} s",
                          flush=True)
                for count in counts:
                    times = [await classroom_round(browser, server, count, 2000 + 100 * count + 10 * i) for i in range(3)]
                    print(f"{count:>2} student(s), browsers on their own computers (1 page here, "
                          f"{count - 1} WebSocket students): page -> course view median of 3 rounds "
                          f"{statistics.median(times):.2f} s (rounds: {', '.join(f'{t:.2f}' for t in times)})", flush=True)
                await browser.close()
            zygote = server.zygote_pid()
            if zygote is None:
                print("no zygote: each tutor started on its own", flush=True)
            else:
                pss, rss = memory_kb(zygote, started=False)
                print(f"zygote (once per server, its children not counted): PSS {pss / 1024:.0f} MB, "
                      f"RSS {rss / 1024:.0f} MB, CPU {cpu_seconds(zygote, started=False):.2f} s", flush=True)
            for count in counts:  # the server's share alone: no browser competing for this machine's CPU
                times = await server_round(server, count, 500 + count)
                print(f"{count:>2} student(s) without a browser: WebSocket open -> course view median "
                      f"{statistics.median(times):.2f} s, max {max(times):.2f} s", flush=True)
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--settle", type=float, default=8.0,
                        help="seconds to wait before measuring memory (the sandbox worker starts 3 s after the course view)")
    parser.add_argument("--lessons-only", action="store_true", help="only the class at work: open a lesson, come back")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the class at work, per variant")
    parser.add_argument("--baseline", type=Path, help="with --lessons-only: compare this checkout with another one "
                                                      "(e.g. `git worktree add /tmp/base main`), side by side")
    args = parser.parse_args()
    if args.lessons_only:
        asyncio.run(lessons_main(args.students, args.settle, args.rounds,
                                 args.baseline.resolve() if args.baseline else None))
        return
    reason = why_no_browser()
    if reason:
        sys.exit(f"cannot run: {reason}")
    asyncio.run(main_async(args.students, args.settle))


if __name__ == "__main__":
    main()
