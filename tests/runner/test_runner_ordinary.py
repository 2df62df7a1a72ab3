"""Issue 23, item 4: ordinary PyTorch programs run as in PyTorch, in process and in the confined worker.

Every file under ordinary/ is a small program of the kind the official tutorials and learners write
(non-ASCII names, `super(Net, self)`, a Function's `jvp`, `setup_context` with several outputs, `e.args`,
`type(y.grad_fn).__name__`, a main guard, `global`, non-literal defaults, a plain class, a generator of
batches, `import torch.nn`, `torch.autograd.functional`, `Module.apply`, training loops…).  Each is run by
real PyTorch and by the runner, and must print exactly the same text; through the worker (a forked,
confined child that can open no file) it must print the same again.
"""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from work_bounds import GENEROUS

from engine.runner import run_snippet

ORDINARY = sorted((Path(__file__).parent / "ordinary").glob("*.py"))


def _pytorch_output(source: str, name: str) -> str:
    """What the program prints when Python runs it as a script with the real torch."""
    pytest.importorskip("torch")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, name, "exec"), {"__name__": "__main__"})  # noqa: S102 - the repo's own test programs
    return out.getvalue()


@pytest.mark.parametrize("path", ORDINARY, ids=[p.stem for p in ORDINARY])
def test_an_ordinary_program_prints_what_pytorch_prints(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    expected = _pytorch_output(source, path.name)
    result = run_snippet(source, filename=path.name, limits=GENEROUS)
    assert result.error is None, result.error
    assert result.stdout == expected


@pytest.mark.parametrize("path", ORDINARY, ids=[p.stem for p in ORDINARY])
def test_an_ordinary_program_runs_in_the_confined_worker(path: Path) -> None:
    """The child is confined before it runs the job: whatever the program needs (unicodedata for `α = 0.1`)
    must have been loaded by the zygote, since the child cannot open a module file."""
    from engine.sandbox import run_program

    source = path.read_text(encoding="utf-8")
    run = run_program(source, filename=path.name)
    assert run.ok, run.error
    assert run.stdout == run_snippet(source, filename=path.name, limits=GENEROUS).stdout


def test_the_corpus_covers_the_issue_list_and_more() -> None:
    assert len(ORDINARY) >= 26
