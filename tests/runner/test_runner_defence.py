"""Issue 23, item 5: the language layer's bounds hold by class, not by case.

- text is sized before it is built, wherever it is built (str.format conversions, exceptions carrying values,
  error messages);
- every matrix product reports its multiply-adds, however it is reached (`@`, `F.linear`, `addmm`, `bmm`, a
  Linear module deep in a tree);
- every loop the snippet can drive inside the runner or the engine checks the clock (vetting a million
  arguments, `torch.func`'s argnums);
- a runner stop that another error carries as its `__context__`/`__cause__` still stops the run.

Each case would, without its bound, run to completion (or build gigabytes), so the assertions are on what the
run reports, never on how fast the machine is.
"""
from __future__ import annotations

import pytest

from engine.runner import Limits, run_snippet

_BIG = 'big = ["x" * 10**5] * 10**4\n'  # 10⁹ characters as text, 80 KB as a list


@pytest.mark.parametrize("source", [
    _BIG + 's = "{!r}".format(big)',
    _BIG + 's = "{0!s:.5}".format(big)',
    _BIG + 's = "{x!a}".format(x=big)',
    _BIG + "s = str(KeyError(big))",
    _BIG + "s = repr(ValueError(KeyError(big), 1))",
    _BIG + "print(KeyError(big))",
    _BIG + 's = f"{ValueError(big)!r:.3}"',
    _BIG + 's = "%r" % (KeyError(big),)',
])
def test_text_is_sized_before_it_is_built(source: str) -> None:
    result = run_snippet(source)
    assert result.error.type == "ResourceLimitExceeded", result.error
    assert "longer than 1000000 characters" in result.error.message


@pytest.mark.parametrize("source", [
    _BIG + "raise ValueError(KeyError(big))",
    _BIG + "raise ValueError(KeyError(KeyError(big)), 1)",
    _BIG + "d = {}\nx = d[(KeyError(big),)]",
])
def test_error_messages_of_exceptions_carrying_big_values_are_bounded(source: str) -> None:
    result = run_snippet(source)
    assert result.error.type in ("ValueError", "KeyError"), result.error
    assert len(result.error.message) <= 1002


def test_conversions_and_exception_text_are_unchanged_for_ordinary_values() -> None:
    result = run_snippet('print("{!r} {!s:>4} {!a}".format("é", 1, "é"))\n'
                         "e = KeyError('k', [1, 2])\nprint(e, repr(ValueError(e)), e.args)")
    assert result.ok, result.error
    assert result.stdout == "'é'    1 '\\xe9'\n('k', [1, 2]) ValueError(KeyError('k', [1, 2])) ('k', [1, 2])\n"


@pytest.mark.parametrize("source", [
    "y = x @ x",
    "y = torch.mm(x, x)",
    "y = torch.matmul(x, x)",
    "y = F.linear(x, x)",
    "y = F.linear(x, x, torch.ones(1500))",
    "y = torch.addmm(torch.ones(1500), x, x)",
    "y = torch.ones(1500).addmm(x, x)",
    "y = torch.nn.Linear(1500, 1500)(x)",
    "y = torch.nn.Sequential(torch.nn.Tanh(), torch.nn.Sequential(torch.nn.Linear(1500, 1500)))(x)",
    "b = x.reshape(1, 1500, 1500)\ny = torch.bmm(b, b)",
    "b = x.reshape(1, 1500, 1500)\ny = b @ b",
    "y = x.unsqueeze(0) @ x",
])
def test_every_matrix_product_is_bounded_by_its_work(source: str) -> None:
    """1500³ multiply-adds (3.4·10⁹) in one numpy call: refused before it runs, however the product is reached."""
    result = run_snippet(f"import torch\nimport torch.nn.functional as F\nx = torch.ones(1500, 1500)\n{source}")
    assert result.error.type == "ResourceLimitExceeded", result.error
    assert "multiply-adds" in result.error.message


def test_products_within_the_bound_run() -> None:
    result = run_snippet("import torch\nimport torch.nn.functional as F\nx = torch.ones(300, 300)\n"
                         "y = F.linear(x, x, torch.ones(300)) + torch.ones(300).addmm(x, x)\n"
                         "z = torch.nn.Sequential(torch.nn.Linear(300, 300))(x)\nprint(y[0, 0].item(), z.shape)")
    assert result.ok, result.error
    assert result.stdout == "602.0 torch.Size([300, 300])\n"


_SLOW = Limits(max_seconds=0.3, max_steps=10**9, max_call_work=10**12)


@pytest.mark.parametrize("source", [
    # the call guard vets a million arguments of one call
    "args = [torch.ones(1)] * 10**6\ndef f(*a):\n    return 1\nz = torch.no_grad()(f)(*args)",
    "args = [1.0] * 10**6\nz = torch.no_grad()(max)(*args)",
    # torch.func's argnums: one entry per position, as many as the snippet writes
    "x = torch.ones(2)\ng = torch.func.grad(lambda a: a.sum(), argnums=(0,) * 10**6)(x)",
    "x = torch.ones(2)\ng = torch.func.grad_and_value(lambda a: a.sum(), argnums=[0] * 10**6)(x)",
])
def test_loops_the_snippet_drives_inside_one_call_check_the_clock(source: str) -> None:
    result = run_snippet("import torch\n" + source, limits=_SLOW)
    assert result.error.type == "ResourceLimitExceeded", result.error
    assert "longer than 0.3 s" in result.error.message


STOP_IN_EXIT = """import torch
import torch.autograd.forward_ad as fwAD
try:
    with fwAD.dual_level():
        fwAD.exit_dual_level()      # the level's __exit__ will fail: RuntimeError, its __context__ the limit
        while True:
            pass
except Exception as e:
    print("caught", type(e).__name__)
print("after")
"""


def test_a_stop_carried_by_another_error_still_stops_the_run() -> None:
    result = run_snippet(STOP_IN_EXIT)
    assert result.stdout == ""
    assert (result.error.type, result.error.line) == ("ResourceLimitExceeded", 6), result.error


def test_a_refusal_carried_as_a_cause_is_reported_as_the_refusal() -> None:
    source = ("import torch.autograd.forward_ad as fwAD\ntry:\n    with fwAD.dual_level():\n"
              "        fwAD.exit_dual_level()\n        import torch\n        torch.ones(2).__class__\n"
              "finally:\n    print('finally ran')")
    result = run_snippet(source)
    assert result.stdout == "" and result.error.type == "SnippetRejected", result.error


def test_ordinary_chained_errors_are_caught_as_in_python() -> None:
    result = run_snippet("try:\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n"
                         "        raise ValueError('bad') from e\nexcept ValueError as e:\n    print('caught', e)")
    assert result.ok and result.stdout == "caught bad\n"
