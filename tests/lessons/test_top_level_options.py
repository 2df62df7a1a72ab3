"""`autograd-tutor --lang ja SUBCOMMAND …`: an option given before the subcommand reaches every subcommand that
speaks or keeps files, nested ones (`class report`) included; one given after the subcommand wins."""
import json

from test_grade_cli import MEAN

WRONG = "[[1, 1, 1], [1, 1, 1]]"


def test_the_top_level_language_reaches_grade_and_the_subcommand_s_own_wins(cli):
    assert cli("--lang", "ja", "grade", MEAN, WRONG).output.strip() == "残念、不正解です。6 個のセルのうち 6 個が違います。"
    assert cli("--lang", "ja", "grade", MEAN, "maybe").output.startswith("autograd-tutor grade: ")
    assert "Not quite." in cli("--lang", "ja", "grade", MEAN, WRONG, "--lang", "en").output


def test_the_top_level_language_reaches_paths_check_and_class(cli, tmp_path):
    assert "データフォルダー:" in cli("--lang", "ja", "paths").output
    assert "data folder:" in cli("--lang", "en", "paths").output
    (tmp_path / "class").mkdir()
    assert "まだ生徒がいません" in cli("--lang", "ja", "class", "report", "--class-dir", tmp_path / "class").output
    assert cli("new", "own", "--dir", tmp_path).exit_code == 0
    assert "個のレッスンを確認" in cli("--lang", "ja", "check", tmp_path / "own.toml").output


def test_the_top_level_language_reaches_explain(cli, tmp_path):
    snippet = tmp_path / "s.py"
    snippet.write_text("import torch\nx = torch.ones(2, requires_grad=True)\nprint(x)\n(x * 3).sum().backward()\n")
    assert "プログラムの出力" in cli("--lang", "ja", "explain", snippet, "--no-symbolic").output


def test_the_top_level_data_dir_reaches_grade(cli, tmp_path):
    """A lesson kept in the data folder given before `grade` is found there."""
    data = tmp_path / "elsewhere"
    assert cli("--data-dir", data, "new", "mine").exit_code == 0
    assert cli("grade", "mine:predict-grad", "[2, 4, 6]").exit_code == 2  # not in the default data folder
    result = cli("--data-dir", data, "grade", "mine:predict-grad", "[2, 4, 6]", "--json")
    assert result.exit_code == 0 and json.loads(result.output)["correct"], result.output
