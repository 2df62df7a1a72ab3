"""Regression tests for the seven classes of issue 10 closed in the language layer (defence in depth).

Each test names the class it covers; the hostile corpus (hostile/) holds the attacks themselves.
"""
from __future__ import annotations

import pytest

from engine.runner import check_source, run_snippet


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
    for source in ("torch.no_grad()(sum)([1])", "sorted([[1]], key=str)", "max([1], key=repr)",
                   "torch.autograd.functional.jacobian(print, torch.ones(1))"):
        result = run_snippet("import torch\nx = " + source)
        assert result.error.type == "SnippetRejected" and "refused for safety" in result.error.message, source


# --- 3. no private engine name --------------------------------------------------------------------
def test_the_forwarding_factory_is_not_in_the_package() -> None:
    import engine

    assert not hasattr(engine, "_forward_to_method")
    assert not any(name.startswith("_") for name in engine.__all__)
    with pytest.raises(TypeError, match=r"exp\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        engine.exp([1.0])
