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
