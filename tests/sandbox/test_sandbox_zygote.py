"""The zygote's loop on its own: a child that closes its answer pipe and carries on is still stopped at
its deadline, and the zygote answers other jobs meanwhile (it never waits on a running child)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A zygote whose job table is two test jobs (the loop, forking and confinement are the real ones).
SCRIPT = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
import engine.sandbox.zygote as zygote

def hide(seconds):
    os.closerange(3, 1 << 16)       # the answer pipe is the only descriptor past 2: close it
    time.sleep(seconds)             # and stay
    return {"stayed": True}

def quick():
    return {"answer": 42}

zygote._preload = lambda profile: {"hide": hide, "quick": quick}
zygote.serve("run")
"""


def test_a_child_that_closes_its_pipe_is_stopped_at_its_deadline_while_others_are_answered():
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(ROOT)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(process.stdout.readline())["ready"]
        requests = [{"id": 1, "job": "hide", "args": {"seconds": 3600}, "seconds": 1.0},
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
                                   "message": "the snippet ran past its time limit and was stopped"}


def test_a_closed_tutor_ends_its_running_jobs_at_once():
    """Quitting the app closes the zygote's input: a job still running (an explanation being worked out)
    is killed then, not run to its deadline while the tutor waits to exit."""
    import time

    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(ROOT)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(process.stdout.readline())["ready"]
        process.stdin.write(json.dumps({"id": 1, "job": "hide", "args": {"seconds": 3600}, "seconds": 600.0}) + "\n")
        process.stdin.flush()
        time.sleep(0.5)  # the job is running
        process.stdin.close()
        assert process.wait(timeout=60) == 0  # its deadline was ten minutes away
    finally:
        process.kill()


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
            assert json.loads(process.stdout.readline()) == {"id": request["id"], "result": {
                "answer": 42 if request["job"] == "quick" else "after the preload"}}
        process.stdin.close()
        assert process.wait(timeout=300) == 0
    finally:
        process.kill()
