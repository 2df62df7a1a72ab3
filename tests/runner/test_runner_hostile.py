"""The hostile corpus: every file under hostile/ must be refused or stopped with a clear error.

Each file starts with `# expect: <ErrorType> line <N>`.  Besides the error, each run must leave the
host intact (the engine's hooks and print options restored, builtins untouched) and create no file.
"""
from __future__ import annotations

import builtins
import importlib
import re
from pathlib import Path

import pytest
from work_bounds import GENEROUS, CpuTime

from engine.runner import Limits, run_snippet

HOSTILE = sorted((Path(__file__).parent / "hostile").glob("*.py"))
_HEADER = re.compile(r"# expect: (\w+) line (\d+)")


def _host_state() -> tuple:
    printing = importlib.import_module("engine.printing")
    grad_mode = importlib.import_module("engine.grad_mode")
    big = importlib.import_module("engine").ones(2 * 10**6)  # the host is not bound by snippet limits
    return (printing.get_printoptions(), grad_mode.is_grad_enabled(), builtins.print, builtins.open,
            dict(vars(builtins)).keys(), big.numel())


@pytest.mark.parametrize("path", HOSTILE, ids=[p.stem for p in HOSTILE])
def test_hostile_snippet_is_stopped_with_a_clear_error(path: Path, tmp_path: Path, monkeypatch) -> None:
    expected_type, expected_line = _HEADER.match(path.read_text()).groups()
    monkeypatch.chdir(tmp_path)
    before = _host_state()

    # The wall clock only as a hang guard: each file is stopped by the bound it names (a count: steps, depth,
    # elements, bytes), never by the clock, whatever the machine's load (`-n 8` on 2 cores took 30 s for one).
    result = run_snippet(path.read_text(), filename=path.name, limits=GENEROUS)

    assert "ran longer than" not in result.error.message, result.error  # its own bound, not the clock
    assert not result.ok
    assert (result.error.type, result.error.line) == (expected_type, int(expected_line)), result.error
    assert len(result.error.message) > 10
    assert list(tmp_path.iterdir()) == []
    assert _host_state() == before


def test_hostile_corpus_is_large() -> None:
    assert len(HOSTILE) >= 60


@pytest.mark.parametrize("source", [
    "x = 1\n" * 20_000,                  # longer than the source cap
    "x = " + "-" * 50_000 + "1",         # nested beyond what the parser takes
    "x = " + "(" * 300 + ")" * 300,      # too many parentheses
    "x = " + "+".join(["1"] * 30_000),   # a very deep expression tree
    "x = " + "[" * 150 + "]" * 150,      # nested beyond the checker's depth
    "s = '" + "a" * 20_000 + "'",        # a literal longer than the literal cap
], ids=["long", "unary", "parens", "sum", "lists", "literal"])
def test_huge_or_deep_sources_are_refused_before_running(source: str) -> None:
    result = run_snippet(source)
    assert not result.ok
    assert result.error.type in ("SnippetRejected", "SyntaxError")
    assert result.namespace == {}


def test_limits_are_configurable() -> None:
    small = Limits(max_steps=50)
    assert run_snippet("for i in range(40):\n    pass", limits=small).ok
    result = run_snippet("for i in range(60):\n    pass", limits=small)
    assert result.error.type == "ResourceLimitExceeded" and "50 steps" in result.error.message


def test_wall_time_limit_stops_a_slow_loop() -> None:
    source = "import torch\nx = torch.ones(300, 300)\nwhile True:\n    y = x @ x\n"
    with CpuTime() as spent:  # stopped at the deadline, not a step later (CPU time: load does not stretch it)
        result = run_snippet(source, limits=Limits(max_seconds=0.3, max_steps=10**9))
    assert spent.seconds < 2
    assert result.error.type == "ResourceLimitExceeded" and "0.3 s" in result.error.message


# Work the engine does inside one call (a module tree called in full, an optimizer over a parameter list repeated
# a million times, a snippet's extra_repr that grows after the size estimate): no step of the snippet's own, so
# the engine reports each unit of it through its size hook and the run stops at its deadline, with the limit's
# message rather than by the sandbox's kill.
_SHARED = "import torch\ns = torch.nn.Sequential()\nfor i in range(40):\n    s = torch.nn.Sequential(s, s)\n"
_DUPLICATES = "import torch\nw = torch.ones(2, requires_grad=True)\nps = [w] * 10**6\n"
_GROWING = """import torch
calls = [0]
big = "x" * 10**6
class M(torch.nn.Module):
    def extra_repr(self):
        calls[0] += 1
        return big if calls[0] > 1 else ""
s = torch.nn.Sequential(M())
for i in range(10):
    s = torch.nn.Sequential(s, s)
print(s)
"""


@pytest.mark.parametrize("source", [
    _SHARED + "s(torch.ones(1))",
    _SHARED + "s.zero_grad()\nprint(len(list(s.modules())))\ns(torch.ones(1))",
    _DUPLICATES + "opt = torch.optim.SGD(ps, lr=0.1)\nwhile True:\n    opt.step()",
    _DUPLICATES + "opt = torch.optim.SGD([{'params': ps}] * 1000, lr=0.1)",
    _GROWING,
], ids=["module-tree-forward", "module-tree-walks", "optimizer-duplicates", "optimizer-groups", "extra-repr-grows"])
def test_engine_work_inside_one_call_stops_at_the_deadline(source: str) -> None:
    with CpuTime() as spent:
        result = run_snippet(source, limits=Limits(max_seconds=0.3, max_steps=10**9))
    assert spent.seconds < 3
    assert result.error.type == "ResourceLimitExceeded" and "0.3 s" in result.error.message, result.error


@pytest.mark.parametrize("source", [
    "import torch\nx = torch.ones(10**4, dtype=torch.float64, requires_grad=True)\n"
    "torch.autograd.gradcheck(lambda v: v[0], (x,))",
    "import torch\nclass Same(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    "s = torch.nn.Sequential(Same())\nfor i in range(12):\n    s = torch.nn.Sequential(s, s)\ns(torch.ones(1))",
    "import torch\nclass Note(torch.nn.Module):\n    def extra_repr(self):\n        return 'n'\n"
    "s = torch.nn.Sequential(Note())\nfor i in range(10):\n    s = torch.nn.Sequential(s, s)\nprint(s)",
], ids=["gradcheck-function", "module-forward", "extra-repr"])
def test_snippet_functions_the_engine_calls_count_as_steps(source: str) -> None:
    """A snippet function ticks on entry, so the engine calling it (without any call or loop in its body) is
    counted like the snippet calling it."""
    result = run_snippet(source, limits=Limits(max_steps=1000))
    assert result.error.type == "ResourceLimitExceeded" and "1000 steps" in result.error.message, result.error


def test_the_host_runs_snippets_normally_after_the_corpus() -> None:
    for path in HOSTILE[:10]:
        run_snippet(path.read_text())
    result = run_snippet("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\nprint(x.grad)")
    assert result.ok and result.stdout == "tensor([3., 3.])\n"
