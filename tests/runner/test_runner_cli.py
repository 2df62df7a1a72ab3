"""`autograd-tutor run FILE [--json]` on the seed articles' examples, errors and bad input."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from seed_snippets import CHAIN, EYE, MEAN, NON_SCALAR, VECTOR

from tutor.cli import main


def _run(tmp_path: Path, source: str, *args: str) -> tuple[int, str]:
    path = tmp_path / "snippet.py"
    path.write_text(source, encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(path), *args])
    return result.exit_code, result.stdout


def _json(tmp_path: Path, source: str) -> tuple[int, dict]:
    code, out = _run(tmp_path, source, "--json")
    return code, json.loads(out)


def test_mean_example_gives_tensor2_over_6(tmp_path: Path) -> None:
    code, report = _json(tmp_path, MEAN)
    assert code == 0 and report["ok"] is True
    assert report["stdout"] == "tensor([[1.1667, 1.3333, 1.5000],\n        [1.6667, 1.8333, 2.0000]])\n"
    t1, out = report["tensors"]["tensor1"], report["tensors"]["output_tensor"]
    assert t1["shape"] == [2, 3] and t1["requires_grad"] is True and t1["is_leaf"] is True
    assert t1["grad_fn"] is None
    np.testing.assert_allclose(t1["grad"], np.array([[7, 8, 9], [10, 11, 12]]) / 6, rtol=1e-6)
    assert out["grad_fn"] == "MeanBackward0" and out["grad"] is None and out["is_leaf"] is False
    assert report["tensors"]["tensor2"]["grad"] is None


def test_vector_backward_gives_4_2(tmp_path: Path) -> None:
    code, report = _json(tmp_path, VECTOR)
    assert code == 0
    assert report["tensors"]["inp"]["grad"] == [4.0, 2.0]
    assert report["tensors"]["out"]["grad_fn"] == "PowBackward0"
    assert report["stdout"] == "tensor([4., 2.])\n"


def test_eye_example_accumulates_then_zeroes(tmp_path: Path) -> None:
    code, report = _json(tmp_path, EYE)
    assert code == 0
    first = np.full((5, 5), 2.0) + 2 * np.eye(5)
    assert report["stdout"].startswith("First call\n tensor([[4., 2., 2., 2., 2.],")
    np.testing.assert_array_equal(report["tensors"]["second"]["data"], 2 * first)
    np.testing.assert_array_equal(report["tensors"]["inp"]["grad"], np.zeros((5, 5)))


def test_chain_rule_example_gives_x_squared_over_2(tmp_path: Path) -> None:
    code, report = _json(tmp_path, CHAIN)
    assert code == 0
    tensors = report["tensors"]
    np.testing.assert_allclose(tensors["x"]["grad"], tensors["expected"]["data"], rtol=1e-5)
    assert tensors["z"]["grad_fn"] == "DivBackward0" and tensors["z"]["shape"] == []
    assert tensors["g"]["grad_fn"] == "MulBackward0"


def test_non_scalar_backward_is_reported_with_its_line(tmp_path: Path) -> None:
    code, report = _json(tmp_path, NON_SCALAR)
    assert code == 1 and report["ok"] is False
    assert report["error"]["type"] == "RuntimeError"
    assert report["error"]["message"] == "grad can be implicitly created only for scalar outputs"
    assert report["error"]["line"] == 5
    assert report["tensors"]["z"]["grad_fn"] == "DivBackward0"  # the state at the error


def test_refusal_is_exit_1_with_snippet_rejected(tmp_path: Path) -> None:
    code, report = _json(tmp_path, "import torch\nimport os\n")
    assert code == 1
    assert report["error"]["type"] == "SnippetRejected" and report["error"]["line"] == 2
    assert report["tensors"] == {}


def test_json_output_is_exactly_one_object(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "print('a')\nprint('{\"b\": 1}')\n", "--json")
    assert code == 0
    assert json.loads(out) == {"ok": True, "stdout": "a\n{\"b\": 1}\n", "stderr": "", "tensors": {}}
    assert out.count("\n") == 1


def test_non_finite_numbers_stay_valid_json(tmp_path: Path) -> None:
    code, report = _json(tmp_path, "import torch\nx = torch.tensor([1., 0.]).log()\ny = x / 0\n")
    assert report["tensors"]["x"]["data"] == [0.0, "-inf"]
    assert report["tensors"]["y"]["data"] == ["nan", "-inf"]


def test_human_report_lists_output_then_tensors(tmp_path: Path) -> None:
    code, out = _run(tmp_path, VECTOR)
    assert code == 0
    assert out.startswith("tensor([4., 2.])\n")
    assert "inp = tensor([1., 0.], requires_grad=True)" in out
    assert "requires_grad=True  is_leaf=True  grad_fn=None" in out
    assert "grad=tensor([4., 2.])" in out
    assert "out = tensor([4., 1.], grad_fn=<PowBackward0>)" in out


def test_human_report_shows_the_error_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text(NON_SCALAR)
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 1
    assert "line 5: RuntimeError: grad can be implicitly created only for scalar outputs" in result.stderr


@pytest.mark.parametrize("make, message", [
    (lambda p: p / "missing.py", "no such file"),
    (lambda p: (p / "bad.py").write_bytes(b"x = 1\n\xff\xfe\n") and p / "bad.py", "not UTF-8"),
])
def test_usage_errors_exit_2_with_a_clear_message(tmp_path: Path, make, message: str) -> None:
    path = make(tmp_path)
    result = CliRunner().invoke(main, ["run", str(path), "--json"])
    assert result.exit_code == 2
    assert message in result.stderr and result.stdout == ""


def test_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["run", str(tmp_path)])
    assert result.exit_code == 2


def test_oversized_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "big.py"
    path.write_bytes(b"x = 1\n" * 200_000)
    result = CliRunner().invoke(main, ["run", str(path), "--json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 1 and report["error"]["type"] == "SnippetRejected"
