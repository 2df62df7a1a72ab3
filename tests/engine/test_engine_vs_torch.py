"""The same snippets on the engine and on real PyTorch 2.13: identical printouts and errors."""
import contextlib
import io
import re
import sys
import warnings
from unittest import mock

import pytest
from snippets import ENGINE, ERRORS, SEEDS

import engine

torch = pytest.importorskip("torch")


def run(source: str, module) -> str:
    """Run `source` with `torch` bound to `module`; the printout, or the exception's type and message."""
    out = io.StringIO()
    modules = {"torch": module, "torch.nn": module.nn, "torch.nn.functional": module.nn.functional}
    with contextlib.redirect_stdout(out), warnings.catch_warnings(), mock.patch.dict(sys.modules, modules):
        warnings.simplefilter("ignore")
        try:
            exec(source, {"torch": module})
        except Exception as err:  # noqa: BLE001 - the error is what is compared
            print(f"{type(err).__name__}: {err}")
    return re.sub(r"0x[0-9a-f]+", "0x…", out.getvalue())  # object addresses differ


@pytest.mark.parametrize("name", sorted(SEEDS) + sorted(ENGINE))
def test_printout_matches_torch(name):
    source = {**SEEDS, **ENGINE}[name]
    assert run(source, engine) == run(source, torch)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_torch(name):
    expected = run(ERRORS[name], torch)
    assert ":" in expected, "the snippet should raise in PyTorch"
    assert run(ERRORS[name], engine) == expected
