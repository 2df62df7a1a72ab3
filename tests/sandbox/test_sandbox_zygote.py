"""The zygote's loop on its own: a child that closes its answer pipe and carries on is still stopped at
its deadline, and the zygote answers other jobs meanwhile (it never waits on a running child)."""
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A zygote whose job table is two test jobs (the loop, forking and confinement are the real ones).
SCRIPT = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
import engine.sandbox.zygote as zygote

def hide(stay):
    os.closerange(3, 1 << 16)       # the answer pipe is the only descriptor past 2: close it
    time.sleep(stay)                # and stay
    return {"stayed": True}

def quick():
    return {"answer": 42}

def memory():
    from engine.runner.limits import process_memory
    try:
        open("/proc/self/statm").close()
        walled = False
    except OSError:
        walled = True
    return {"resident": process_memory(), "walled": walled}

zygote._preload = lambda profile: {"hide": hide, "quick": quick, "memory": memory}
zygote.serve("run")
"""


def test_a_child_that_closes_its_pipe_is_stopped_at_its_deadline_while_others_are_answered():
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(ROOT)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(process.stdout.readline())["ready"]
        requests = [{"id": 1, "job": "hide", "args": {"stay": 3600}, "seconds": 1.0},
                    {"id": 2, "job": "quick", "args": {}, "seconds": 30.0}]
        process.stdin.write("".join(json.dumps(request) + "\n" for request in requests))
        process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in requests]
        process.stdin.close()
        assert process.wait(timeout=300) == 0    # long before the hidden child's hour: it was killed
    finally:
        process.kill()
    by_id = {answer["id"]: answer for answer in answers}
    assert by_id[2] == {"id": 2, "result": {"answer": 42}}
    assert by_id[1]["failure"] == {"type": "ResourceLimitExceeded",
                                   "message": "the snippet ran past its time limit and was stopped",
                                   "key": "snippet_past_time_limit", "params": {}}  # (said again in Japanese)


def _zygote_running_a_long_job() -> subprocess.Popen:
    """The test zygote, ready, with job 1 running: a child that would stay an hour (deadline ten minutes)."""
    import time

    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(ROOT)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(process.stdout.readline())["ready"]
        process.stdin.write(json.dumps({"id": 1, "job": "hide", "args": {"stay": 3600}, "seconds": 600.0}) + "\n")
        process.stdin.flush()
    except BaseException:
        process.kill()
        raise
    time.sleep(0.5)  # the job is running
    return process


def test_a_closed_tutor_ends_its_running_jobs_at_once():
    """Quitting the app closes the zygote's input: a job still running (an explanation being worked out)
    is killed then, not run to its deadline while the tutor waits to exit."""
    process = _zygote_running_a_long_job()
    try:
        process.stdin.close()
        assert process.wait(timeout=60) == 0  # its deadline was ten minutes away
    finally:
        process.kill()


def test_a_cancelled_job_is_killed_at_once_and_answered_as_cancelled():
    """The reveal screen gives up on an explanation when the learner leaves: `{"cancel": id}` kills that
    child now (its deadline was ten minutes away) while another job carries on."""
    import time

    process = _zygote_running_a_long_job()
    try:
        started = time.monotonic()
        process.stdin.write(json.dumps({"cancel": 1}) + "\n" + json.dumps({"cancel": 99}) + "\n"
                            + json.dumps({"id": 2, "job": "quick", "args": {}, "seconds": 30.0}) + "\n")
        process.stdin.flush()
        answers = {a["id"]: a for a in (json.loads(process.stdout.readline()) for _ in range(2))}
        assert time.monotonic() - started < 30
        assert answers[1]["failure"] == {"type": "ResourceLimitExceeded",
                                         "message": "cancelled: the tutor no longer needs this answer",
                                         "key": "no_longer_needed", "params": {}}
        assert answers[2] == {"id": 2, "result": {"answer": 42}}   # an unknown id to cancel changes nothing
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()


def test_cancel_kills_the_child_and_wakes_the_caller(tmp_path, monkeypatch):
    """Through the client: a caller blocked on a job that would run an hour is woken with "Cancelled" as soon
    as its token is cancelled, and the zygote has no child left working for it; a token cancelled before a
    call runs nothing."""
    import threading
    import time

    from engine.sandbox import client

    stand_in = tmp_path / "zygote.py"   # the real loop, with the test jobs (started as the client starts it)
    stand_in.write_text("import json, os, sys, time\nsys.path[:0] = json.loads(sys.argv[1])\n" + SCRIPT.split("\n", 3)[3])
    monkeypatch.setattr(client, "ZYGOTE", str(stand_in))
    target = client.Worker("run")
    try:
        pid = target.start()["pid"]
        children = Path(f"/proc/{pid}/task/{pid}/children")
        if not children.exists():
            import pytest
            pytest.skip("no /proc children file to look at the zygote's children")
        token, box = client.Cancel(), []
        thread = threading.Thread(target=lambda: box.append(target.call("hide", 3600.0, cancel=token, stay=3600)))
        thread.start()
        deadline = time.monotonic() + 30
        while not children.read_text().split() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert children.read_text().split(), "the job never started"
        started = time.monotonic()
        token.cancel()
        thread.join(10)
        assert not thread.is_alive() and time.monotonic() - started < 5
        assert box == [client.CANCELLED]
        while children.read_text().split() and time.monotonic() < started + 10:
            time.sleep(0.05)
        assert not children.read_text().split()          # killed, not left to run its hour
        assert target.call("quick", 5.0, cancel=token) == client.CANCELLED   # a cancelled token starts nothing
        assert target.call("quick", 5.0) == {"answer": 42}
    finally:
        target.close()


def test_the_runner_reads_its_own_memory_behind_the_wall():
    """Confinement closes /proc to the child; the runner's memory check still reads the child's own
    resident size, from a descriptor opened before the wall went up."""
    from engine.sandbox.confine import available

    if not available():
        import pytest
        pytest.skip("no confinement on this system")
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(ROOT)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(process.stdout.readline())["ready"]
        process.stdin.write(json.dumps({"id": 1, "job": "memory", "args": {}, "seconds": 30.0}) + "\n")
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        process.stdin.close()
        process.wait(timeout=60)
    finally:
        process.kill()
    result = answer["result"]
    assert result["walled"]                                  # /proc itself is closed to the child…
    assert isinstance(result["resident"], int) and result["resident"] > 10 * 2**20   # …its own size is read
# A "full" zygote whose explanation preload is two stages, the last adding a job ("late").
STAGED = """
import sys
sys.path.insert(0, sys.argv[1])
import engine.sandbox.zygote as zygote

def quick():
    return {"answer": 42}

def late():
    return {"answer": "after the preload"}

def stages():
    yield None
    yield {"quick": quick, "late": late}

zygote._preload = lambda profile: {"quick": quick}
zygote._preload_explain = stages
zygote.serve("full", confined=False)
"""


def test_a_full_zygote_is_ready_for_snippets_first_and_preloads_the_rest_for_the_job_that_needs_it():
    process = subprocess.Popen([sys.executable, "-c", STAGED, str(ROOT)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(process.stdout.readline())["ready"]
        for request in ({"id": 1, "job": "quick", "args": {}, "seconds": 30.0},
                        {"id": 2, "job": "late", "args": {}, "seconds": 30.0}):
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            said = [json.loads(process.stdout.readline())]
            while "id" not in said[-1]:   # the preload's announcements (the client gives queued jobs its time)
                said.append(json.loads(process.stdout.readline()))
            assert said[-1] == {"id": request["id"], "result": {
                "answer": 42 if request["job"] == "quick" else "after the preload"}}
            if request["job"] == "late":
                assert said[:-1] == [{"preloading": True}, {"preloaded": True}]
        process.stdin.close()
        assert process.wait(timeout=300) == 0
    finally:
        process.kill()


# A "full" zygote whose explanation job reports where it ran: in a spare (one that ran the warm-up program
# first) or not, confined or not; its warm-up fails when the argument says so.
SPARED = """
import os, sys
sys.path.insert(0, sys.argv[1])
import engine.sandbox.zygote as zygote

warmed = []

def explain(source, fail=False):
    if source == zygote.WARM_UP:
        if "--failing-warm-up" in sys.argv:
            raise RuntimeError("the warm-up fails")
        warmed.append(True)
        return {}
    try:
        open("/etc/hostname").close()
        walled = False
    except OSError:
        walled = True
    return {"warmed": bool(warmed), "source": source, "pid": os.getpid(), "walled": walled}

zygote._preload = lambda profile: {}
zygote._preload_explain = lambda: iter([{"explain": explain}])
zygote.serve("full")
"""


def _lines(process, count_or_until):
    """Messages from the zygote until one satisfies `count_or_until`."""
    said = []
    while not said or not count_or_until(said[-1]):
        said.append(json.loads(process.stdout.readline()))
    return said


def _children(pid: int) -> set[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return set(map(int, children.read_text().split())) if children.exists() else set()


def test_an_explanation_goes_to_a_warm_spare_that_confines_itself_for_the_job():
    """Once idle a moment, a full zygote forks a spare child and warms it up (the warm-up program) before any
    explanation is asked for; the next explanation runs in it, behind the same wall as a freshly forked child;
    a job it cannot take whole goes to a fresh child; and the spare does not outlive the tutor."""
    from engine.sandbox.confine import available

    process = subprocess.Popen([sys.executable, "-c", SPARED, str(ROOT)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        zygote_pid = json.loads(process.stdout.readline())["pid"]
        assert _lines(process, lambda message: "spare" in message)[-1] == {"spare": True}
        spare = _children(zygote_pid)
        process.stdin.write(json.dumps({"id": 1, "job": "explain", "args": {"source": "x = 'α' * 2\n"},
                                        "seconds": 30.0}) + "\n")
        process.stdin.flush()
        answer = _lines(process, lambda message: message.get("id") == 1)[-1]["result"]
        assert answer["warmed"] and answer["source"] == "x = 'α' * 2\n"
        assert not spare or answer["pid"] in spare            # the very process that was waiting
        assert answer["walled"] or not available()
        assert _lines(process, lambda message: "spare" in message)[-1] == {"spare": True}   # the next one
        # a job too large for the spare's pipe in one write: the spare is dropped, a fresh child runs it whole
        large = "x = 1\n" * 50_000
        process.stdin.write(json.dumps({"id": 2, "job": "explain", "args": {"source": large}, "seconds": 30.0}) + "\n")
        process.stdin.flush()
        answer = _lines(process, lambda message: message.get("id") == 2)[-1]["result"]
        assert not answer["warmed"] and answer["source"] == large
        assert _lines(process, lambda message: "spare" in message)[-1] == {"spare": True}
        spare = _children(zygote_pid)
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        assert not any(Path(f"/proc/{pid}").exists() for pid in spare)   # killed and collected with it
    finally:
        process.kill()


def test_a_spare_whose_warm_up_fails_leaves_explanations_to_fresh_children():
    process = subprocess.Popen([sys.executable, "-c", SPARED, str(ROOT), "--failing-warm-up"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(process.stdout.readline())["ready"]
        for request_id in (1, 2):
            time.sleep(1)   # idle: time for a spare to be made (and to fail)
            process.stdin.write(json.dumps({"id": request_id, "job": "explain", "args": {"source": "x = 1"},
                                            "seconds": 30.0}) + "\n")
            process.stdin.flush()
            said = _lines(process, lambda message: message.get("id") == request_id)
            assert said[-1]["result"]["warmed"] is False and said[-1]["result"]["source"] == "x = 1"
            assert not [message for message in said if "spare" in message]   # never a spare announced
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()


def test_a_full_zygote_leaves_its_first_snippet_no_preload_to_wait_for():
    """Just after ready, the explanations' preload waits longer for a first job (a quiz's first question comes once
    the app's own start-up allows): a job sent a moment later is answered with no preload before it."""
    marked = STAGED.replace("    yield None\n", "    print('{\"stage\": 1}', flush=True)\n    yield None\n")
    assert marked != STAGED  # the first stage says when it runs
    script = marked.replace("zygote.serve(", "zygote.FIRST_IDLE = 60.0\nzygote.serve(")
    process = subprocess.Popen([sys.executable, "-c", script, str(ROOT)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(process.stdout.readline())["ready"]
        time.sleep(0.5)  # longer than IDLE: the stages would have begun
        process.stdin.write(json.dumps({"id": 1, "job": "quick", "args": {}, "seconds": 30.0}) + "\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline()) == {"id": 1, "result": {"answer": 42}}
        process.stdin.close()
        assert process.wait(timeout=300) == 0
    finally:
        process.kill()
