"""Regression tests for the seven classes of issue 10 closed in the language layer (defence in depth).

Each test names the class it covers; the hostile corpus (hostile/) holds the attacks themselves.
"""
from __future__ import annotations

import pytest
from work_bounds import GENEROUS

from engine.runner import Limits, check_source, run_snippet


# --- 1. every binding form obeys the same name rule ------------------------------------------------
@pytest.mark.parametrize("source", [
    "import torch as __builtins__",
    "import torch.nn.functional as __sg_call",
    "from torch import ones as __sg_tick",
    "from torch import nn as __name__",
    "for __sg_attr in []:\n    pass",
    "x = [1 for __sg_tick in []]",
    "import torch\nwith torch.no_grad() as __builtins__:\n    pass",
    "def __sg_call():\n    pass",
    "f = lambda __sg_call: 1",
    "def f(__builtins__=1):\n    pass",
    "__sg_tick = 1",
    "del __sg_tick",
])
def test_no_binding_form_can_bind_a_runner_name(source: str) -> None:
    errors = check_source(source)
    assert errors and errors[0].type == "SnippetRejected" and "'__" in errors[0].message


def test_plain_aliases_still_work() -> None:
    result = run_snippet("import torch as t\nfrom torch import ones as o\nimport torch.nn.functional as F\n"
                         "print(F.relu(t.ones(2) - o(2) * 2))")
    assert result.ok, result.error
    assert result.stdout == "tensor([0., 0.])\n"


def test_forward_ad_imports_as_in_pytorchs_tutorial_and_a_level_left_open_is_closed() -> None:
    result = run_snippet("import torch\nimport torch.autograd.forward_ad as fwAD\n"
                         "with fwAD.dual_level():\n"
                         "    d = fwAD.make_dual(torch.tensor([0., 1.]), torch.ones(2))\n"
                         "    print(fwAD.unpack_dual(d.exp()).tangent)\n"
                         "print(fwAD.unpack_dual(d.exp()).tangent)\n"
                         "fwAD.enter_dual_level()\n"
                         "d = fwAD.make_dual(torch.ones(1), torch.ones(1))")
    assert result.ok, result.error
    assert result.stdout == "tensor([1.0000, 2.7183])\nNone\n"
    again = run_snippet("import torch.autograd.forward_ad as fwAD\nwith fwAD.dual_level():\n    pass")
    assert again.ok, again.error  # not "Nested forward mode AD is not supported"


def test_a_function_whose_builtins_were_swapped_is_not_run() -> None:
    import types

    import engine

    result = run_snippet("def f():\n    return len([1])\nf()")
    assert result.ok
    globals_ = result._sandbox.globals
    globals_["__builtins__"] = vars(engine)  # what `import torch as __builtins__` used to do
    globals_["g"] = types.FunctionType(globals_["f"].__code__, globals_)  # created with those builtins
    with pytest.raises(Exception, match="refused for safety"):
        result.evaluate("g()")
    assert result.evaluate("f()") == 1


# --- 2. object / str / void arrays never enter ------------------------------------------------------
def test_symbolic_path_never_parses_a_string() -> None:
    import numpy as np
    import sympy

    from engine import xp

    assert list(xp.exp(np.array([sympy.Symbol("x"), 2], dtype=object))) == [sympy.exp(sympy.Symbol("x")),
                                                                            sympy.exp(2)]
    with pytest.raises(sympy.SympifyError):
        xp.exp(np.array(["__import__('os').getcwd()"], dtype=object))


@pytest.mark.parametrize("call", [
    "a.cumsum(dtype='O')", "a.sum(None, 'O')", "a.prod(dtype='U1000')", "a.mean(dtype='V8')",
    "a.std(0, 'S3')", "a.var(dtype='complex128')", "a.cumsum(0, 'float64', b)", "a.max(out=b)",
    "a.sum(initial=1)", "a.round(1, b)",
])
def test_numpy_methods_take_numeric_dtypes_and_no_out(call: str) -> None:
    result = run_snippet(f"import torch\na = torch.ones(3).numpy()\nb = torch.zeros(3).numpy()\nc = {call}")
    assert result.error.type == "SnippetRejected" and "refused for safety" in result.error.message


def test_numpy_methods_with_numeric_dtypes_still_work() -> None:
    result = run_snippet("import torch\na = torch.arange(6.).reshape(2, 3).numpy()\n"
                         "print(a.sum(dtype='float64'), a.mean(0), a.std(ddof=1).round(3), a.cumsum(0, float)[1],"
                         " a.max(axis=1, keepdims=True).shape, a.prod(dtype=torch.float64.numpy))\na[0, 0] = 7")
    assert result.ok, result.error
    assert result.stdout == "15.0 [1.5 2.5 3.5] 1.871 [3. 5. 7.] (2, 1) 0.0\n"


@pytest.mark.parametrize("source, kind", [
    ("a = torch.ones(2).numpy()\na[0] = 'x'", "SnippetRejected"),
    ("a = torch.ones(2).numpy()\na[0] = [1, 'x']", "SnippetRejected"),
    ("t = torch.full((2,), 'a' * 100)", "TypeError"),
    ("t = torch.full_like(torch.ones(2), '1')", "TypeError"),
    ("t = torch.ones(2)\nt.fill_('1')", "TypeError"),
])
def test_text_never_goes_into_arrays(source: str, kind: str) -> None:
    result = run_snippet("import torch\n" + source)
    assert result.error.type == kind, result.error


def test_engine_refuses_arrays_of_other_dtypes() -> None:
    import numpy as np

    import engine

    for make in (engine.tensor, engine.from_numpy, lambda a: engine.ones(2) + a, lambda a: engine.cat([a])):
        with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.object"):
            make(np.array([1.0, 2.0], dtype=object))
    assert engine.full((2,), engine.tensor(3.0)).tolist() == [3.0, 3.0]


def test_callbacks_are_the_snippets_own_functions_or_harmless_builtins() -> None:
    result = run_snippet("import torch\nj = torch.autograd.functional.jacobian(lambda v: v * 2, torch.ones(2))\n"
                         "k = torch.autograd.functional.jacobian(torch.sin, torch.zeros(1))\n"
                         "f = torch.no_grad()(lambda v: v * 3)\n"
                         "print(j.tolist(), k.tolist(), f(torch.ones(1)).requires_grad, sorted(['bb', 'a'], key=len))")
    assert result.ok, result.error
    assert result.stdout == "[[2.0, 0.0], [0.0, 2.0]] [[1.0]] False ['a', 'bb']\n"
    # a builtin handed over runs through the call guard at every call: bounded, or refused where it must be
    ok = run_snippet("import torch\nprint(torch.no_grad()(sum)([1, 2]), sorted([[2], [1]], key=str), "
                     "max([1, 22], key=repr))")
    assert ok.stdout == "3 [[1], [2]] 22\n", ok.error
    for source, kind in (("torch.no_grad()(sum)(range(10**13))", "ResourceLimitExceeded"),
                         ("sorted([[1.5] * 10**5] * 100, key=str)", "ResourceLimitExceeded"),
                         ("torch.autograd.functional.jacobian(print, torch.ones(1))", "TypeError"),
                         ("torch.autograd.functional.jacobian(open, torch.ones(1))", "SnippetRejected")):
        result = run_snippet("import torch\nx = " + source)
        assert result.error is not None and result.error.type == kind, (source, result.error)


# --- 3. no private engine name --------------------------------------------------------------------
def test_the_forwarding_factory_is_not_in_the_package() -> None:
    import engine

    assert not hasattr(engine, "_forward_to_method")
    assert not any(name.startswith("_") for name in engine.__all__)
    with pytest.raises(TypeError, match=r"exp\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        engine.exp([1.0])


# --- 4. work bounded per call ------------------------------------------------------------------------
def test_ordinary_comparisons_sorting_and_sets_still_work() -> None:
    result = run_snippet("a = [[1, 2], [3]]\nb = [[1, 2], [3]]\nprint(a == b, [3] in a, sorted([[2], [1]]), "
                         "len({(1, 2), (1, 2)}), a.count([3]), {(i, i): i for i in range(3)}[(2, 2)], round(1234, -2))")
    assert result.ok, result.error
    assert result.stdout == "True True [[1], [2]] 1 1 2 1200\n"


def test_cat_backward_is_bounded_in_the_number_of_inputs() -> None:
    import engine

    xs = [engine.ones(1, requires_grad=True) for _ in range(2000)]  # (no wall-clock bound: machines differ)
    engine.cat(xs).sum().backward()
    assert xs[-1].grad.tolist() == [1.0]
    many = run_snippet("import torch\nxs = [torch.ones(1, requires_grad=True) for i in range(5000)]\n"
                       "y = torch.cat(xs)", limits=GENEROUS)  # the cat bound, never the clock
    assert many.error.type == "ResourceLimitExceeded" and "joining 5000 tensors" in many.error.message


def test_nll_loss_refuses_a_column_target_as_pytorch_does() -> None:
    import engine

    logits = engine.zeros(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        engine.nn.functional.nll_loss(logits, engine.zeros(3, 1, dtype=engine.int64))
    loss = engine.nn.functional.nll_loss(logits.log_softmax(-1), engine.tensor([0, 1, 1]))
    assert abs(loss.item() - 0.6931) < 1e-4


# --- 5. strings bounded before they are built --------------------------------------------------------
def test_small_strings_print_and_format_as_before() -> None:
    result = run_snippet("import torch\nx = torch.ones(2)\nprint([1.5, 'a'], f'{[1, 2]!r:>8}', '%s-%d' % ('a', 3), "
                         "str({'k': (1,)}), repr(x))\ntorch.set_printoptions(precision=2)\nprint(x / 3)")
    assert result.ok, result.error
    assert result.stdout == "[1.5, 'a']   [1, 2] a-3 {'k': (1,)} tensor([1., 1.])\ntensor([0.33, 0.33])\n"


def test_exception_messages_are_bounded() -> None:
    result = run_snippet("a = [[1.5] * 1000] * 1000\nassert False, a")
    assert result.error.type == "AssertionError" and len(result.error.message) <= 1002


# --- 6. outputs --------------------------------------------------------------------------------------
def test_warnings_count_in_the_output_limit() -> None:
    result = run_snippet("import torch\ny = torch.ones(2, requires_grad=True) * 2\nfor i in range(50):\n    g = y.grad",
                         limits=Limits(max_output=2000))
    assert result.error.type == "ResourceLimitExceeded" and "printed more than 2000" in result.error.message


def test_run_report_shows_an_alias_once_and_bounds_the_data(tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from tutor.cli import main

    path = tmp_path / "s.py"
    path.write_text("import torch\nx = torch.ones(1000, 1000)\ny = x\nz = x\nw = torch.ones(2)\nv = torch.ones(10)")
    out = CliRunner().invoke(main, ["run", str(path), "--json"]).stdout
    tensors = json.loads(out)["tensors"]
    assert tensors["y"] == {"same_as": "x"} and tensors["z"] == {"same_as": "x"}
    assert len(tensors["x"]["data"]) == 1000 and tensors["w"]["omitted"] and tensors["w"]["data"] is None
    human = CliRunner().invoke(main, ["run", str(path)]).stdout
    assert "y = x  (the same tensor)" in human


def test_run_report_survives_an_odd_tensor(tmp_path, monkeypatch) -> None:
    from engine.sandbox import jobs

    class Odd:
        def numel(self) -> int:
            raise ValueError("odd")

    monkeypatch.setattr(jobs, "is_tensor", lambda value: True)
    reports = jobs.tensor_report({"o": Odd()})
    assert "cannot be reported" in reports["o"]["error"]


# --- 7. engine state reset for every run -------------------------------------------------------------
def test_grad_mode_print_options_and_random_stream_do_not_leak_between_runs() -> None:
    import engine
    from engine.printing import get_printoptions

    first = run_snippet("import torch\ntorch.set_grad_enabled(False)\ntorch.set_printoptions(precision=1)\n"
                        "torch.manual_seed(123)\nr = torch.rand(1)")
    assert first.ok, first.error
    second = run_snippet("import torch\nprint(torch.is_grad_enabled(), torch.ones(1) / 3)\nr = torch.rand(1)")
    assert second.stdout == "True tensor([0.3333])\n"
    third = run_snippet("import torch\nr = torch.rand(1)")
    assert second.namespace["r"].tolist() == third.namespace["r"].tolist() != first.namespace["r"].tolist()
    assert engine.is_grad_enabled() and get_printoptions()["precision"] == 4
