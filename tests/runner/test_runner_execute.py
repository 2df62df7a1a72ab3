"""Running snippets: output, namespace, evaluate, errors reported as PyTorch reports them."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from seed_snippets import MEAN

from engine.runner import Limits, SnippetFailure, run_snippet


def test_print_is_captured_with_the_engine_repr(capsys) -> None:
    result = run_snippet(MEAN)
    assert result.ok and result.error is None
    assert result.stdout == "tensor([[1.1667, 1.3333, 1.5000],\n        [1.6667, 1.8333, 2.0000]])\n"
    assert capsys.readouterr().out == ""


def test_namespace_holds_the_snippets_names_but_no_modules_or_internals() -> None:
    result = run_snippet("import torch\nimport torch as t\nx = torch.ones(2)\nf = lambda v: v * 2\nn = 3\n"
                         "for i in range(2):\n    n += i")
    assert sorted(result.namespace) == ["f", "i", "n", "x"]
    assert result.namespace["n"] == 4


@pytest.mark.parametrize("expr, expected", [
    ("tensor2 / 6", [[7 / 6, 8 / 6, 9 / 6], [10 / 6, 11 / 6, 2.0]]),
    ("tensor1.grad", [[7 / 6, 8 / 6, 9 / 6], [10 / 6, 11 / 6, 2.0]]),
    ("2*(tensor1.detach()+1)", [[4, 6, 8], [10, 12, 14]]),
    ("tensor1.detach()**2/2", [[0.5, 2, 4.5], [8, 12.5, 18]]),
])
def test_evaluate_formulas_in_the_final_namespace(expr: str, expected: list) -> None:
    value = run_snippet(MEAN).evaluate(expr)
    np.testing.assert_allclose(value.tolist(), expected, rtol=1e-6)


@pytest.mark.parametrize("expr, kind", [
    ("tensor1.__class__", "SnippetRejected"),
    ("open('x')", "SnippetRejected"),
    ("x = 1", "SyntaxError"),
    ("2**10**10", "ResourceLimitExceeded"),
    ("undefined_name + 1", "NameError"),
    ("(tensor1 + tensor2).backward()", "RuntimeError"),
])
def test_evaluate_refusals_and_errors_raise_snippet_failure(expr: str, kind: str) -> None:
    result = run_snippet(MEAN)
    with pytest.raises(SnippetFailure) as caught:
        result.evaluate(expr)
    assert caught.value.error.type == kind


def test_evaluate_runs_under_fresh_limits() -> None:
    result = run_snippet("f = lambda n: sum(i for i in range(n))", limits=Limits(max_steps=1000))
    assert result.evaluate("f(500)") == sum(range(500))
    assert result.evaluate("f(500)") == sum(range(500))  # the first call's steps are not carried over
    with pytest.raises(SnippetFailure, match="steps"):
        result.evaluate("f(5000)")


def test_engine_errors_keep_pytorchs_type_message_and_the_snippet_line() -> None:
    result = run_snippet("import torch\nx = torch.ones(3, requires_grad=True)\ny = x * 2\n\ny.backward()\n"
                         "print('not reached')")
    assert not result.ok and result.stdout == ""
    assert result.error.type == "RuntimeError"
    assert result.error.message == "grad can be implicitly created only for scalar outputs"
    assert (result.error.line, result.error.column) == (5, 1)
    assert "y" in result.namespace  # the state at the error


def test_error_line_is_the_snippets_innermost_frame() -> None:
    result = run_snippet("import torch\ndef f(v):\n    return v.item()\n\nf(torch.ones(3))")
    assert result.error.type == "RuntimeError" and result.error.line == 3
    assert "cannot be converted to Scalar" in result.error.message


def test_python_errors_are_reported_as_python_reports_them() -> None:
    result = run_snippet("a = [1]\nb = a[5]")
    assert (result.error.type, result.error.message, result.error.line) == ("IndexError", "list index out of range", 2)


def test_syntax_error_reports_its_line() -> None:
    result = run_snippet("x = 1\nif x\n    pass")
    assert result.error.type == "SyntaxError" and result.error.line == 2


def test_compile_time_errors_are_reported_not_raised() -> None:
    result = run_snippet("x = 1\nbreak")
    assert result.error.type == "SyntaxError" and result.error.line == 2


def test_runtime_guard_catches_what_the_static_check_cannot_see() -> None:
    result = run_snippet("import torch\nm = [torch][0]\nx = m.tensor\ny = m.autograd.run_backward")
    assert result.error.type == "SnippetRejected" and result.error.line == 4


def test_augmented_assignment_keeps_pytorch_in_place_semantics() -> None:
    result = run_snippet("import torch\nx = torch.ones(2, requires_grad=True)\nx += 1")
    assert result.error.type == "RuntimeError" and "in-place" in result.error.message
    result = run_snippet("import torch\nx = torch.ones(2)\ny = x\ny += 1\nd = {'a': [1]}\nd['a'][0] += 2\n"
                         "x.grad = torch.zeros(2)\nx.grad += 3\nprint(x, d)")
    assert result.stdout == "tensor([2., 2.]) {'a': [3]}\n"
    assert result.namespace["x"].grad.tolist() == [3, 3]


def test_language_features_lessons_use() -> None:
    source = """import torch
x = torch.tensor([1., 2.], requires_grad=True)
f = lambda v: (v + 1)**2
J = torch.autograd.functional.jacobian(f, x)
def g(v, scale=2):
    return (v * scale).sum()
with torch.no_grad():
    frozen = x * 3
k = 0
while k < 3:
    k += 1
print(f"{J.tolist()} {g(x).item():.1f} {frozen.requires_grad} {1 < k <= 3} {k!r:>3}", end="|", sep="")
print(*[], sep="")
"""
    result = run_snippet(source.replace("print(*[], sep=\"\")\n", ""))
    assert result.ok, result.error
    assert result.stdout == "[[4.0, 0.0], [0.0, 6.0]] 6.0 False True   3|"


def test_backward_recorder_of_the_caller_sees_the_snippets_backward_calls() -> None:
    record_backward = importlib.import_module("engine.graph").record_backward
    with record_backward() as calls:
        result = run_snippet("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()")
    assert result.ok and len(calls) == 1


def test_print_options_changed_by_a_snippet_do_not_leak_into_the_host() -> None:
    printing = importlib.import_module("engine.printing")
    before = printing.get_printoptions()
    result = run_snippet("import torch\ntorch.set_printoptions(precision=1)\nprint(torch.tensor([1.2345]))")
    assert result.stdout == "tensor([1.2])\n"
    assert printing.get_printoptions() == before


def test_engine_modes_a_snippet_leaves_set_do_not_reach_the_next_run() -> None:
    """Each run starts as a fresh PyTorch process: grad mode on, anomaly detection off, no dual level, seed 0."""
    leave = ("import torch\nimport torch.autograd.forward_ad as fwAD\ntorch.autograd.set_detect_anomaly(True)\n"
             "torch.set_grad_enabled(False)\nfwAD.enter_dual_level()\ntorch.manual_seed(5)\n")
    look = ("import torch\nimport torch.autograd.forward_ad as fwAD\nprint(torch.is_anomaly_enabled(), "
            "torch.is_grad_enabled(), fwAD.enter_dual_level(), torch.rand(1).item())\n")
    fresh = run_snippet(look).stdout
    assert run_snippet(leave).ok
    assert run_snippet(look).stdout == fresh and fresh.startswith("False True 0 ")
    assert not importlib.import_module("engine").is_anomaly_enabled()


def test_values_of_the_engine_api_are_derived_from_its_all() -> None:
    engine = importlib.import_module("engine")
    for name in ("tensor", "eye", "exp", "no_grad", "float64"):
        assert name in engine.__all__
        assert run_snippet(f"import torch\nv = torch.{name}").ok


def test_limits_apply_to_the_snippets_thread_only() -> None:
    import threading

    engine = importlib.import_module("engine")
    started, results = threading.Event(), []

    def worker() -> None:
        started.set()
        results.append(run_snippet("import torch\nx = torch.ones(10)\nwhile True:\n    y = x * 2",
                                   limits=Limits(max_seconds=1, max_steps=10**9)))

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait()
    assert engine.ones(2 * 10**6).numel() == 2 * 10**6  # the host thread is not bound by the snippet's limits
    thread.join()
    assert results[0].error.type == "ResourceLimitExceeded"



def test_warnings_go_to_stderr_as_pytorchs_do() -> None:
    """The non-leaf `.grad` warning is on stderr, apart from what the snippet printed (PyTorch's streams)."""
    result = run_snippet("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)\n")
    assert result.ok and result.stdout == "None\n"
    assert result.stderr.startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor")
    assert run_snippet("import torch\nprint(torch.ones(2).grad)\n").stderr == ""


def test_the_run_command_writes_warnings_to_stderr(tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from tutor.cli import main

    program = tmp_path / "nonleaf.py"
    program.write_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)\n")
    plain = CliRunner().invoke(main, ["run", str(program)])
    assert plain.stdout.startswith("None\n") and "UserWarning" not in plain.stdout
    assert "UserWarning: The .grad attribute" in plain.stderr
    report = json.loads(CliRunner().invoke(main, ["run", str(program), "--json"]).stdout)
    assert report["stdout"] == "None\n" and report["stderr"].startswith("UserWarning: The .grad attribute")


def test_saved_tensors_of_a_node_are_readable_and_nothing_else_private() -> None:
    """The saved-tensors tutorial runs (`y.grad_fn._saved_self is x`); `_saved_*` of anything but a node stays refused."""
    result = run_snippet("import torch\nx = torch.ones(2, requires_grad=True)\ny = x.pow(2)\n"
                         "print(y.grad_fn._saved_self is x, y.grad_fn._saved_exponent)\n"
                         "z = x.exp()\nprint(z.grad_fn._saved_result.equal(z), z.grad_fn._saved_result is z)\n")
    assert result.ok and result.stdout == "True 2\nTrue False\n"
    refused = run_snippet("import torch\nx = torch.ones(2)\nprint(x._saved_self)\n")
    assert refused.error.type == "SnippetRejected"
    assigned = run_snippet("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).grad_fn._saved_self = 3\n")
    assert assigned.error.type == "SnippetRejected"
