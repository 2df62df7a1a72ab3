"""The same snippets on the engine and on real PyTorch 2.13: identical printouts and errors."""
import contextlib
import io
import re
import sys
import warnings
from unittest import mock

import numpy as np
import pytest
from snippets import ENGINE, ERRORS, SEEDS

import engine

torch = pytest.importorskip("torch")
# PyTorch imports parts of itself on first use (torch.func's transforms import its compiler's operators); imported
# inside run()'s patched sys.modules they would be dropped after it, and registered twice when imported again
torch.func.jacrev(torch.func.grad(torch.sin))(torch.ones(()))
torch.func.jvp(torch.sin, (torch.ones(1),), (torch.ones(1),))


def run(source: str, module) -> str:
    """Run `source` with `torch` bound to `module`; the printout, then the warnings a learner sees on stderr
    (category and message), then the exception's type and message if it raised (last, as a traceback is)."""
    out, raised = io.StringIO(), ""
    modules = {"torch": module, "torch.nn": module.nn, "torch.nn.functional": module.nn.functional}
    # (numpy's floating-point warnings are silenced as the runner silences them: PyTorch gives inf/nan silently)
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught, \
            mock.patch.dict(sys.modules, modules), np.errstate(all="ignore"):
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="torch")  # its own imports' noise
        # given once a process (test_engine_regressions checks it in fresh processes): whether it shows depends on
        # the tests run before in this one
        warnings.filterwarnings("ignore", message="Converting a tensor with requires_grad=True to a scalar")
        try:
            exec(source, {"torch": module})
        except Exception as err:  # noqa: BLE001 - the error is what is compared
            raised = f"{type(err).__name__}: {err}\n"
    # PyTorch's C++ warnings end in where they were raised in its sources
    warned = "".join(f"{w.category.__name__}: {re.sub(r' [(]Triggered internally at [^)]*[)]', '', str(w.message))}\n"
                     for w in caught)
    return re.sub(r"0x[0-9a-f]+", "0x…", out.getvalue() + warned + raised)  # object addresses differ


@pytest.mark.parametrize("name", sorted(SEEDS) + sorted(ENGINE))
def test_printout_matches_torch(name):
    source = {**SEEDS, **ENGINE}[name]
    assert run(source, engine) == run(source, torch)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_torch(name):
    expected = run(ERRORS[name], torch)
    assert ":" in expected, "the snippet should raise in PyTorch"
    assert run(ERRORS[name], engine) == expected
