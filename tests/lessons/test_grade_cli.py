"""`autograd-tutor grade LESSON:STEP ANSWER [--json]`: the app's verdict, for scripts and graders."""
import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "app" / "fixtures" / "course"
MEAN = "reduction-gradients:full-mean"  # x.mean().backward() for a 2x3 x: every cell 1/6


def graded(cli, *args):
    result = cli("grade", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_predictions_are_graded_as_the_app_grades_them(cli):
    assert graded(cli, MEAN, "[[1/6, 1/6, 1/6], [1/6, 1/6, 1/6]]") == {"correct": True, "close": False,
                                                                       "diagnosis": None, "error": None}
    printout = "tensor([[0.1667, 0.1667, 0.1667],\n        [0.1667, 0.1667, 0.1667]])"
    assert graded(cli, MEAN, printout)["correct"]
    assert graded(cli, MEAN, "torch.ones_like(x) / x.numel()")["correct"]  # a formula of the program's names
    assert graded(cli, MEAN, "[[0.17, 0.17, 0.17], [0.17, 0.17, 0.17]]") == {"correct": False, "close": True,
                                                                             "diagnosis": None, "error": None}
    assert graded(cli, MEAN, "[[1, 1, 1], [1, 1, 1]]") == {"correct": False, "close": False, "diagnosis": None,
                                                           "error": None}
    result = cli("grade", MEAN, "[[1, 1, 1], [1, 1, 1]]")
    assert result.exit_code == 0 and result.output.strip() == "Not quite. 6 of 6 cells are wrong."
    result = cli("grade", MEAN, "[[1, 1, 1], [1, 1, 1]]", "--lang", "ja")
    assert result.output.strip() == "残念、不正解です。6 個のセルのうち 6 個が違います。"


def test_choice_and_error_steps_take_an_options_text_or_number(cli):
    assert graded(cli, "tensor-gradient-jacobian:why-argument", "1")["correct"]
    assert not graded(cli, "tensor-gradient-jacobian:why-argument", "2")["correct"]
    assert graded(cli, "tensor-gradient-jacobian:freed-graph",
                  "RuntimeError: Trying to backward through the graph a second time")["correct"]
    assert not graded(cli, "tensor-gradient-jacobian:freed-graph", "none")["correct"]
    result = cli("grade", "tensor-gradient-jacobian:freed-graph", "KeyError")
    assert result.exit_code == 1 and "none of the 3 options" in result.output


@pytest.mark.parametrize("target, answer, status, kind, says", [
    (MEAN, "[[1, 1, 1]", 1, "unreadable_answer", "Unclosed bracket"),
    (MEAN, "x^2", 1, "unreadable_answer", "**"),
    ("reduction-gradients:no-such-step", "1", 2, "unknown_step", "no step 'no-such-step'"),
    ("no-such-lesson:full-mean", "1", 2, "unknown_lesson", "no lesson 'no-such-lesson'"),
    ("reduction-gradients", "1", 2, "no_step", "say which step"),
    ("reduction-gradients:reductions", "1", 2, "read_step", "read step"),
])
def test_every_refusal_is_one_json_object_with_its_kind_and_status(cli, target, answer, status, kind, says):
    """An autograder reads stdout: a refused answer is an object there too (its message also on stderr)."""
    result = cli("grade", target, answer, "--json")
    assert result.exit_code == status
    assert json.loads(result.stdout) == {"correct": None, "close": None, "diagnosis": None,
                                         "error": {"kind": kind, "message": result.stderr.partition(": ")[2].strip()}}
    assert says in result.stderr
    plain = cli("grade", target, answer)
    assert plain.exit_code == status and plain.stdout == "" and says in plain.stderr


def test_a_refusal_is_in_the_chosen_language(cli):
    result = cli("--lang", "ja", "grade", MEAN, "[[1, 1, 1]", "--json")
    assert result.exit_code == 1 and "閉じ" in json.loads(result.stdout)["error"]["message"]


@pytest.mark.parametrize("args", [(MEAN,), (MEAN, "1", "--lang", "fr"), (MEAN, "1", "--no-such-option")])
def test_a_command_line_click_refuses_is_a_json_refusal_too(cli, args):
    result = cli("grade", *args, "--json")
    assert result.exit_code == 2 and json.loads(result.stdout)["error"]["kind"] == "usage"
    assert "Usage:" in result.stderr


def test_a_stranger_s_lesson_where_the_sandbox_is_missing_is_a_json_refusal(cli, monkeypatch):
    from engine.sandbox import worker

    monkeypatch.setattr(type(worker("full")), "confinement",
                        lambda self: type("C", (), {"started": True, "confined": False, "reason": "no seccomp"})())
    result = cli("grade", f"{FIXTURES / 'squares.toml'}:3", "1", "--lessons", str(FIXTURES), "--json")
    assert result.exit_code == 2 and json.loads(result.stdout)["error"]["kind"] == "not_sandboxed"


def test_a_lesson_file_and_a_step_number_are_accepted(cli):
    target = f"{FIXTURES / 'squares.toml'}:3"  # predict-matrix: x.grad = 2x for x = [[1, 2], [3, 4]]
    assert graded(cli, target, "[[2, 4], [6, 8]]", "--lessons", str(FIXTURES))["correct"]
