"""Fixtures for the lesson tests: the malformed corpus folder and an in-process `autograd-tutor` runner."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

MALFORMED = Path(__file__).parent / "malformed"


@pytest.fixture
def malformed() -> Path:
    return MALFORMED


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """Run `autograd-tutor ARGS` in-process with a private data folder; asserts it never ends in a traceback."""
    from tutor.cli import main

    monkeypatch.setenv("AUTOGRAD_TUTOR_DATA_DIR", str(tmp_path / "data"))

    def invoke(*args: str):
        result = CliRunner().invoke(main, [str(a) for a in args])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output
        return result

    return invoke
