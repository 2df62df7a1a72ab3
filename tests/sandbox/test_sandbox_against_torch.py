"""`check --against-torch` runs a stranger's lesson on real PyTorch, which has no language layer: the
OS layer alone must hold (a lesson that passes plain `check` can reach `os` through torch's modules)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.sandbox.confine import available

pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not available(), reason="seccomp is not available on this system")

ROOT = Path(__file__).resolve().parents[2]

LESSON = '''\
format_version = 1
id = "innocent"
title = "Squares"
summary = "x.grad of a sum of squares."
concepts = ["vjp"]

[[steps]]
id = "shell"
kind = "predict"
text = "What is `x.grad`?"
snippet = """
import torch
try:
    torch.serialization.os.system("touch {shell_marker}; echo pwned > {shell_marker}")
except AttributeError:
    pass
x = torch.tensor([1., 2.], requires_grad=True)
(x * x).sum().backward()
"""
expression = "x.grad"

[[steps]]
id = "write"
kind = "predict"
text = "And now?"
snippet = """
import torch
try:
    torch.serialization.os.open("{write_marker}", 65, 420)
except AttributeError:
    pass
y = torch.tensor([3.], requires_grad=True)
(y * 2).sum().backward()
"""
expression = "y.grad"
'''


def _check(*args, cwd):
    return subprocess.run([sys.executable, "-m", "tutor", "check", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)


def test_a_lesson_reaching_os_through_real_torch_writes_nothing(tmp_path):
    folder = tmp_path / "lesson"
    folder.mkdir()
    shell_marker, write_marker = tmp_path / "shell-ran", tmp_path / "file-written"
    lesson = folder / "innocent.toml"
    lesson.write_text(LESSON.format(shell_marker=shell_marker, write_marker=write_marker), encoding="utf-8")

    plain = _check(str(lesson), cwd=folder)
    assert plain.returncode == 0 and "1 lesson checked, 0 problems" in plain.stdout, plain.stdout + plain.stderr

    against = _check("--against-torch", str(lesson), cwd=folder)
    output = against.stdout + against.stderr
    assert "Traceback" not in output
    assert not shell_marker.exists() and not write_marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson"]
    assert sorted(p.name for p in folder.iterdir()) == ["innocent.toml"]
    # the shell command ran nothing and raised nothing: that step agrees; opening a file is refused
    problems = [line for line in against.stdout.splitlines() if "innocent.toml" in line]
    assert len(problems) == 1 and "steps[1]" in problems[0], output
    assert "PyTorch fails where the engine does not: PermissionError" in problems[0]
    import torch

    assert f"answers compared with PyTorch {torch.__version__} (programs run in the sandbox)" in against.stdout
    assert against.returncode == 1
