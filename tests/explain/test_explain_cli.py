"""`autograd-tutor explain`: rich report, JSON form, lesson steps, and clear usage errors."""
import json
from pathlib import Path

from click.testing import CliRunner

from tutor.cli import main

BUNDLED = Path(__file__).resolve().parents[2] / "lessons" / "bundled"


def run(*args):
    return CliRunner().invoke(main, ["explain", *args])


def test_json_for_a_snippet(tmp_path):
    f = tmp_path / "s.py"
    f.write_text("import torch\ninp = torch.tensor([1., 0.], requires_grad=True)\nout = (inp+1).pow(2)\n"
                 "out.backward(torch.tensor([1, 1]))\n")
    result = run(str(f), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    leaf = data["calls"][0]["leaves"][0]
    assert leaf["jacobian"] == [[4.0, 0.0], [0.0, 2.0]] and leaf["vjp"] == [4.0, 2.0]
    assert data["calls"][0]["symbolic"]["leaves"][0]["jacobian"][0][0] == "2*(inp₁ + 1)"
    assert [n["name"] for n in data["calls"][0]["graph"]] == ["PowBackward0", "AddBackward0", "AccumulateGrad"]


def test_lesson_step_report():
    result = run(str(BUNDLED / "020-tensor-gradient-jacobian.toml"), "--step", "small-backward")
    assert result.exit_code == 0, result.output
    assert "2(inp₁ + 1)" in result.output and "vᵀJ equals inp.grad" in result.output


def test_usage_errors_exit_2(tmp_path):
    lesson = str(BUNDLED / "020-tensor-gradient-jacobian.toml")
    assert run(lesson).exit_code == 2
    missing = run(lesson, "--step", "nope")
    assert missing.exit_code == 2 and "no step 'nope'" in missing.output
    assert run(str(tmp_path / "none.py")).exit_code == 2


def test_failing_program_exits_1_with_message(tmp_path):
    f = tmp_path / "bad.py"
    f.write_text("import torch\nx = torch.ones(2, requires_grad=True)\n(x + 1).backward()\n")
    result = run(str(f), "--no-symbolic")
    assert result.exit_code == 1
    assert "grad can be implicitly created only for scalar outputs" in " ".join(result.output.split())
    assert "Traceback" not in result.output
    assert "made no backward call" not in result.output  # line 3 is a backward call: it raised
