"""The worker as the product uses it: snippets in forked, confined children; only data comes back."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.sandbox import UnsupportedResult, run_program, worker
from engine.sandbox.client import Worker
from engine.sandbox.confine import available

HOSTILE = sorted((Path(__file__).parent.parent / "runner" / "hostile").glob("*.py"))
ROOT = Path(__file__).resolve().parents[2]


def test_a_run_returns_plain_data():
    run = run_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n(x ** 2).sum().backward()\n"
                      "print(x.grad)", expressions=["x.grad", "x.grad.shape", "x.is_leaf", "x.grad_fn", "len",
                                                    "x.grad.sum().item()"])
    assert run.ok and run.stdout == "tensor([2., 4.])\n"
    values = [outcome["value"] for outcome in run.values]
    assert isinstance(values[0], np.ndarray) and values[0].dtype == np.float32
    assert values[0].tolist() == [2.0, 4.0]
    assert values[1:3] == ["torch.Size([2])", True] and values[3] is None
    assert isinstance(values[4], UnsupportedResult) and values[4].type_name == "builtin_function_or_method"
    assert values[5] == 6.0


def test_evaluate_runs_the_program_again_in_a_fresh_child():
    run = run_program("import torch\nx = torch.randn(3)\n")
    first, second = run.evaluate("x"), run.evaluate("x")
    assert np.array_equal(first, second)  # every child starts from the same warm state


def test_snippet_errors_come_back_with_their_line():
    run = run_program("import torch\nx = torch.ones(2)\ny = x @ torch.ones(3)\n")
    assert not run.ok and run.error.type == "RuntimeError" and run.error.line == 3


def test_a_run_past_the_wall_clock_is_killed_by_the_parent():
    """The zygote's own deadline, independent of the language layer's clock (here far shorter)."""
    answer = worker().call("run", 0.3, source="import torch\nfor i in range(10**6):\n    x = torch.ones(10)\n")
    assert answer["failure"]["type"] == "ResourceLimitExceeded"
    assert "time limit" in answer["failure"]["message"]
    assert run_program("x = 1\nprint(x)").stdout == "1\n"  # the worker carries on


@pytest.mark.parametrize("path", HOSTILE, ids=lambda p: p.name)
def test_hostile_files_stop_in_the_worker_as_in_process_and_write_nothing(path, tmp_path, monkeypatch):
    """The same verdict as the language layer alone gives (tests/runner/test_runner_hostile.py), through
    the worker (or, on a machine so loaded that the language layer's clock is late, the OS layer's own
    time limit or the language layer's own 2 s clock), with no file left in its working folder (that no file
    can be opened anywhere is tests/sandbox/test_sandbox_confine.py's subject). Which bound stops each file
    on any machine is tests/runner/test_runner_hostile.py's subject, with a generous clock."""
    expected_type, expected_line = re.match(r"# expect: (\w+) line (\d+)", path.read_text()).groups()
    monkeypatch.chdir(tmp_path)
    run = run_program(path.read_text(encoding="utf-8"), filename=path.name)
    assert not run.ok
    backstop = run.error.type == expected_type == "ResourceLimitExceeded" and (
        run.error.line is None or "ran longer than" in run.error.message)  # a clock came first: the load
    assert backstop or (run.error.type, run.error.line) == (expected_type, int(expected_line)), run.error
    assert list(tmp_path.iterdir()) == []


def test_the_worker_comes_back_after_its_zygote_dies():
    own = Worker()
    try:
        pid = own.start()["pid"]
        os.kill(pid, 9)
        answer = own.call("run", 5, source="print(6 * 7)")
        assert answer["stdout"] == "42\n"
    finally:
        own.close()


@pytest.mark.skipif(not available(), reason="seccomp is not available on this system")
def test_children_are_confined():
    assert worker().confinement().confined


def _cli(*args, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "tutor", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)


def test_without_confinement_the_cli_refuses_a_strangers_file_unless_trusted(tmp_path):
    snippet = tmp_path / "s.py"
    snippet.write_text("print(1 + 1)\n")
    unconfined = {"AUTOGRAD_TUTOR_UNCONFINED": "1"}
    refused = _cli("run", str(snippet), env_extra=unconfined)
    assert refused.returncode == 2 and "--trust-lessons" in refused.stderr and "Traceback" not in refused.stderr
    trusted = _cli("run", "--trust-lessons", str(snippet), env_extra=unconfined)
    assert trusted.returncode == 0 and trusted.stdout.startswith("2")
    bundled = _cli("check", "lessons/bundled", env_extra=unconfined)
    assert bundled.returncode == 0, bundled.stdout + bundled.stderr


def test_run_json_reports_one_tensor_once_under_many_names(tmp_path):
    snippet = tmp_path / "alias.py"
    snippet.write_text("import torch\nx = torch.ones(300, 300)\n" + "".join(f"a{i} = x\n" for i in range(50)))
    done = _cli("run", "--json", str(snippet))
    report = json.loads(done.stdout)
    assert report["tensors"]["x"]["shape"] == [300, 300]
    assert report["tensors"]["a7"] == {"same_as": "x"}
    assert len(done.stdout) < 2_000_000


def test_output_that_is_not_text_or_drives_the_terminal_is_shown_harmlessly(tmp_path):
    snippet = tmp_path / "odd.py"
    snippet.write_text('print("a\\ud800b")\nprint("c\\x1b]0;title\\x07d\\x1b[2J")\nraise_it = [1][5]\n')
    done = _cli("run", str(snippet))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "a?b" in done.stdout and "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "IndexError" in done.stderr
    report = json.loads(_cli("run", "--json", str(snippet)).stdout)
    assert report["stdout"].startswith("a?b\nc\x1b]0;title")  # JSON keeps the text, escaped


def test_explain_prints_the_panels_made_in_the_child(tmp_path):
    snippet = tmp_path / "square.py"
    snippet.write_text("import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\ny = (x ** 2).sum()\n"
                       "y.backward()\n")
    done = _cli("explain", str(snippet))
    assert done.returncode == 0, done.stderr
    assert "2x₁" in done.stdout and "vᵀJ equals x.grad" in done.stdout and "∂y/∂x = 2x" in done.stdout
    data = json.loads(_cli("explain", "--json", str(snippet)).stdout)
    assert data["calls"][0]["leaves"][0]["vjp"] == [2.0, 4.0, 6.0]


def test_a_worker_that_cannot_start_is_reported_not_raised(monkeypatch):
    from engine.sandbox import client

    broken = Worker()
    monkeypatch.setattr(client.sys, "executable", "/nonexistent/python3")
    answer = client.call(broken, "run", 5, source="print(1)")
    assert answer["failure"]["type"] == "WorkerUnavailable"
    assert "the tutor's snippet worker could not start: /nonexistent/python3 cannot be run" in answer["failure"]["message"]
    confinement = broken.confinement()
    assert not confinement.confined and not confinement.started and "could not start" in confinement.reason


def test_a_worker_that_fails_as_it_starts_names_the_cause(monkeypatch, tmp_path):
    """The zygote's own last words on stderr are the cause given (here a stand-in that cannot import)."""
    from engine.sandbox import client

    stand_in = tmp_path / "zygote.py"
    stand_in.write_text("import sys\nprint('importing numpy', file=sys.stderr)\n"
                        "raise ImportError('numpy.core.multiarray failed to import')\n")
    broken = Worker()
    monkeypatch.setattr(client, "ZYGOTE", str(stand_in))
    answer = client.call(broken, "run", 5, source="print(1)")
    assert answer["failure"]["type"] == "WorkerUnavailable"
    assert answer["failure"]["message"] == ("the tutor's snippet worker could not start: "
                                            "ImportError: numpy.core.multiarray failed to import")


def test_anomaly_trace_shows_the_programs_own_line_as_pytorch_does():
    run = run_program("import torch\nx = torch.tensor([-1., 4.], requires_grad=True)\n"
                      "with torch.autograd.detect_anomaly():\n    y = torch.where(x > 0, x.sqrt(), 0)\n"
                      "    y.sum().backward()\n", filename="lesson.py")
    assert run.error.type == "RuntimeError" and "SqrtBackward0" in run.error.message
    trace = run.stderr.split("Traceback of forward call that caused the error:\n", 1)[1]  # a warning: stderr
    assert trace.splitlines()[:2] == ['  File "lesson.py", line 4, in <module>',
                                      "    y = torch.where(x > 0, x.sqrt(), 0)"]  # no engine, runner or sandbox


def test_an_explanation_past_its_memory_is_stopped_by_the_os_with_a_clear_message(monkeypatch):
    """1400 outputs: a Jacobian small enough to be built (1.96 M entries, under jacobian.MAX_ENTRIES), but
    the child is given only 24 MB beyond the zygote here: the OS stops it, not the app's patience."""
    import engine.sandbox.explanations as explanations

    monkeypatch.setattr(explanations, "MEMORY", 24 * 2**20)
    source = "import torch\nx = torch.ones(1400, requires_grad=True)\ny = x * 2\ny.backward(torch.ones(1400))\n"
    explanation = explanations.explain_in_worker(source, clean=str)
    assert not explanation.ok and explanation.error.type == "ResourceLimitExceeded"
    assert explanation.error.message.startswith("working out the explanation was stopped by the sandbox's limits")
    assert "24 MB" in explanation.error.message and "out of memory" in explanation.error.message
    assert explanations.explain_in_worker(source.replace("1400", "3"), clean=str).ok      # the worker carries on


def render_text(renderable, width: int = 100) -> str:
    from rich.console import Console

    console = Console(width=width, record=True, file=open(os.devnull, "w"))
    console.print(renderable)
    return " ".join(console.export_text().split())


def test_a_jacobian_too_large_to_build_is_sized_first_and_summarised():
    """12 000 outputs: the seeds alone would be 12 000² numbers (576 MB, as a lesson once made the app take
    1.19 GB). The size is worked out from the shapes before anything is built: the panels say J is too
    large and show vᵀJ from one sweep, the same numbers backward gave."""
    from engine.sandbox.explanations import explain_in_worker

    source = ("import torch\nx = torch.linspace(0, 1, 12000, requires_grad=True)\ny = x.sin() * 2\n"
              "y.backward(torch.ones(12000))\n")
    explanation = explain_in_worker(source, clean=str, want=("json", "panels"))
    assert explanation.ok, explanation.error
    leaf = explanation.json["calls"][0]["leaves"][0]
    assert leaf["jacobian"] is None and leaf["structure"]["kind"] == "too-large"
    assert leaf["structure"]["shape"] == [12000, 12000] and leaf["vjp_matches_grad"]
    expected = 2 * np.cos(np.linspace(0, 1, 12000, dtype=np.float32))
    assert np.allclose(np.asarray(leaf["vjp"], dtype=np.float64), expected, rtol=1e-5, atol=1e-6)
    jacobian = render_text(explanation.panels[0].jacobian)
    assert "J has 144000000 entries (12000x12000): too many to build here" in jacobian
    vjp = render_text(explanation.panels[0].vjp)
    assert "too large to build" in vjp and "… and" in vjp and len(vjp) < 20_000    # written out bounded


def test_an_exception_in_the_explanation_code_is_the_tutors_fault_never_the_programs(monkeypatch):
    """A bug in the explanation layer (an exception in the child, sent back as a failure of its type) is said
    to be the tutor's, and the CLI does not print it as "The program failed"."""
    import engine.sandbox.explanations as explanations
    from tutor.commands.explain import _print

    monkeypatch.setattr(explanations, "call", lambda *a, **k: {"failure": {"type": "KeyError", "message": "'k'"}})
    explanation = explanations.explain_in_worker("x = 1", clean=str)
    assert not explanation.ok and explanation.fault and explanation.error.type == "ExplanationFailed"
    assert "its own fault, not the program's): KeyError: 'k'" in explanation.error.message
    from rich.console import Console

    console = Console(width=200, record=True, file=open(os.devnull, "w"))
    _print(console, explanation, "en", None)
    shown = console.export_text()
    assert shown.startswith("The explanation could not be worked out:") and "program failed" not in shown
    assert "made no backward call" not in shown
    limits = {"failure": {"type": "ResourceLimitExceeded", "message": "out of memory"}}
    monkeypatch.setattr(explanations, "call", lambda *a, **k: limits)
    stopped = explanations.explain_in_worker("x = 1", clean=str)
    assert stopped.fault and stopped.error.type == "ResourceLimitExceeded"   # the limits keep their own words


def test_an_explanation_from_the_warm_spare_is_the_one_a_fresh_child_gives():
    """The zygote's spare ran the warm-up program before its job (`zygote._spare`): nothing of that may show.
    Two explanations asked at once, once the spare is warm: one goes to the spare, the other to a freshly
    forked child (one spare at a time, none made while jobs run); they must be the same, panel for panel."""
    import threading

    from engine.sandbox.client import call
    from lessons.course import load_course
    from lessons.programs import ProgramBuilder

    wanted = {"autograd-grad-higher-order/hessian", "forward-vs-reverse-mode/jacfwd-jacrev", "module-hooks/clip-grad-input"}
    sources = [ProgramBuilder(lesson).program(index).source for lesson in load_course(user_dir=None).lessons
               for index, step in enumerate(lesson.steps) if f"{lesson.id}/{step.id}" in wanted]
    assert len(sources) == len(wanted)
    target = worker()
    for source in sources:
        assert target.spare_ready(120), "the zygote made no spare"
        answers = [None, None]

        def explain(k: int) -> None:
            answers[k] = call(target, "explain", 60.0, source=source, want=["panels", "json"], lang="ja", width=76)

        threads = [threading.Thread(target=explain, args=(k,)) for k in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(180)
        assert "failure" not in answers[0] and answers[0]["panels"]
        assert answers[0] == answers[1]
