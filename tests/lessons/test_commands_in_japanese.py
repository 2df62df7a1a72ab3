"""Every command speaks Japanese when asked (`--lang ja`, or a Japanese locale): what it did, and for a problem the
place and the fix — no English sentence left. What stays as typed: paths, ids, commands, options, code."""
from __future__ import annotations

import re

import pytest
from test_lessons_packs import pack_dir  # noqa: F401 - a fixture

FIXTURES = "tests/app/fixtures/course"


def english_sentences(output: str) -> list[str]:
    """Runs of three or more English words, once code (`…`), quoted ids ('…'), commands, options, paths and a
    program's own exception (`AttributeError: …`, Python's words as it said them) are set aside."""
    kept = re.sub(r"`[^`]*`|'[^']*'|autograd-tutor(?: [-\w./:=]+)*|--[\w-]+|\S*[/\\]\S*|\b\w+Error: [^）\n]*", " ",
                  output)
    return re.findall(r"[A-Za-z]{2,}(?: +[A-Za-z]{2,}){2,}", kept)


def in_japanese(result, *says: str) -> str:
    output = result.output  # stdout and stderr
    assert english_sentences(output) == [], output
    for part in says:
        assert part in output, output
    return output


def test_the_checker_finds_an_english_sentence():
    assert english_sentences("{path}: no such lesson file") == ["no such lesson file"]
    assert english_sentences("`autograd-tutor check a/b.toml` で確かめます: 'fixture-squares'") == []


def test_run_in_japanese(cli, tmp_path, monkeypatch):
    snippet = tmp_path / "snippet.py"
    snippet.write_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = x\n", "utf-8")
    in_japanese(cli("--lang", "ja", "run", snippet), "── テンソル", "（同じテンソル）")
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")  # the locale chooses too
    missing = cli("run", tmp_path / "missing.py")
    assert missing.exit_code == 2
    in_japanese(missing, "missing.py: そのファイルはありません")
    snippet.write_bytes(b"x = '\xff'\n")
    in_japanese(cli("run", snippet), "snippet.py:1: UTF-8 のテキストではありません", "UTF-8 で保存してください")
    snippet.write_text("x = 1\n" * 20_000, "utf-8")
    in_japanese(cli("run", snippet), "上限の")


def test_new_in_japanese(cli, tmp_path):
    written = cli("--lang", "ja", "new", "Layer Norm", "--dir", tmp_path)
    in_japanese(written, "layer-norm.toml を書き出しました", "autograd-tutor check")
    in_japanese(cli("--lang", "ja", "new", "Layer Norm", "--dir", tmp_path), "はすでにあります")
    in_japanese(cli("--lang", "ja", "new", "trying autograd"), "レッスン id 'trying-autograd' は", "例: autograd-tutor new")
    in_japanese(cli("--lang", "ja", "new", "!!!"), "レッスン id を作れません")


def test_pack_and_install_in_japanese(cli, pack_dir, tmp_path):  # noqa: F811 - the fixture
    in_japanese(cli("--lang", "ja", "pack", tmp_path), "pack.toml がありません")
    packed = cli("--lang", "ja", "pack", pack_dir, "-o", tmp_path)
    assert packed.exit_code == 0
    in_japanese(packed, "intro-1.0.0.zip を書き出しました", "レッスン 2 件", "autograd-tutor install intro-1.0.0.zip")
    archive = tmp_path / "intro-1.0.0.zip"
    in_japanese(cli("--lang", "ja", "install", archive), "intro 1.0.0（レッスン 2 件）を", "インストールしました")
    again = cli("--lang", "ja", "install", archive)
    assert again.exit_code == 1
    in_japanese(again, "インストールしていません", "（バージョン 1.0.0）はすでに", "--replace を付けてください")


def test_progress_in_japanese(cli, tmp_path):
    from tutor.progress import ProgressStore

    in_japanese(cli("--lang", "ja", "progress"), "進捗ファイル:", "まだ解答はありません")
    with ProgressStore(data_dir=tmp_path / "data") as store:
        store.record_attempt(lesson_id="trying-autograd", step_id="mean-grad", concepts=["mean-gradient"],
                             answer="1", outcome="correct")
    shown = in_japanese(cli("--lang", "ja", "progress"), "レッスン: 完了 0、学習中 1", "学習中",
                        "Autograd を試す", "解答 1 回、正解 1 回（100%）", "次の復習")
    assert "in progress" not in shown and "due now" not in shown


def test_grade_explain_and_open_errors_in_japanese(cli, tmp_path):
    in_japanese(cli("--lang", "ja", "grade", "trying-autograd", "1"), "ステップを LESSON:STEP の形式で指定してください")
    in_japanese(cli("--lang", "ja", "grade", "trying-autograd:notation", "1"), "読むだけのステップ")
    in_japanese(cli("--lang", "ja", "grade", "trying-autogra:3", "1"), "レッスン 'trying-autogra' はありません",
                "'trying-autograd' のことですか？", "レッスン一覧:")
    in_japanese(cli("--lang", "ja", "grade", "trying-autograd:nope", "1"), "ステップ 'nope' はありません", "1 notation")
    lessons = tmp_path / "lessons"
    cli("new", "No answer", "--dir", lessons)
    written = (lessons / "no-answer.toml").read_text("utf-8")
    (lessons / "no-answer.toml").write_text(written.replace('expression = "x.grad"  ', 'expression = "x.nope"  ', 1)
                                            .replace('expect = "2 * x"', ""), "utf-8")
    no_answer = cli("--lang", "ja", "grade", "--lessons", lessons, "no-answer:predict-grad", "1")
    shown = in_japanese(no_answer, "採点の基準になる答えがありません（プログラムのあとで `x.nope` が失敗します",
                        "`autograd-tutor check")
    assert no_answer.exit_code == 2 and "AttributeError" in shown  # the program's own error, as Python said it
    in_japanese(cli("--lang", "ja", "explain"), "説明するファイル FILE を指定してください")
    in_japanese(cli("--lang", "ja", "explain", tmp_path / "missing.py"), "missing.py: そのファイルはありません")
    in_japanese(cli("--lang", "ja", "explain", "--step", "quiz:nope"), "クイズテンプレート 'nope' はありません")
    lesson = f"{FIXTURES}/squares.toml"
    in_japanese(cli("--lang", "ja", "explain", lesson), "はレッスンです。--step でステップを指定してください")
    in_japanese(cli("--lang", "ja", "explain", lesson, "--step", "nope"), "ステップ 'nope' はありません")
    broken = tmp_path / "broken.toml"
    broken.write_text('format_version = 1\nid = "broken"\nstepz = 1\n', "utf-8")
    in_japanese(cli("--lang", "ja", "explain", broken, "--step", "a"), "レッスンにエラーがあります（上記）")
    in_japanese(cli("--lang", "ja", "--open", "trying-autograd:99"), "ステップ '99' はありません")
    in_japanese(cli("--lang", "ja", "--open", tmp_path / "none.toml"), "そのレッスンファイルはありません")
    in_japanese(cli("--lang", "ja", "--open", broken), "はコースに入っていません。--lessons")
    in_japanese(cli("--lang", "ja", "--lessons", tmp_path, "--open", broken), "は開けません。直してください",
                "broken.toml:3")


def test_explain_says_where_a_program_failed_in_japanese(cli, tmp_path):
    """The report's last line names the failing line as the panels do (「（9 行目）」), not as "line 3:"."""
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nx = torch.ones(2, requires_grad=True)\n(x + y).sum().backward()\n", "utf-8")
    shown = in_japanese(cli("--lang", "ja", "explain", bad, "--no-symbolic"),
                        "プログラムはエラーで終了しました: 3 行目: NameError")
    assert "line 3" not in shown


@pytest.mark.parametrize("args, says", [
    (("grade", "trying-autogra:3", "1"), "no lesson 'trying-autogra' — did you mean 'trying-autograd'? The lessons"),
    (("--open", "trying-autograd:99"), "lesson 'trying-autograd' has no step '99'. Its steps (number and id): 1 notation"),
])
def test_the_same_errors_in_english(cli, args, says):
    assert says in cli("--lang", "en", *args).output
