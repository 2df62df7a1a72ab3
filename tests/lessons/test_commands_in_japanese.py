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


@pytest.mark.parametrize("source, says", [
    ("import os\n", ["1 行目: SnippetRejected: スニペットで使えるのは `import torch` と `import math` だけです",
                     "（安全のため実行しません）"]),
    ("import torch\nx = torch.ones(2)\nprint(x._data)\n", ["3 行目: SnippetRejected: '._data': '_' で始まる名前は内部用"]),
    ("while True:\n    pass\n", ["ResourceLimitExceeded: スニペットが 100000 ステップ", "終わらないループはありませんか？"]),
    ("def f(n):\n    return f(n + 1)\nf(0)\n", ["関数の呼び出しが 100 段を超えて深くなりました"]),
    ("x = 1 +\n", ["SyntaxError"]),
    ("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).backward()\n",
     ["3 行目: プログラムが例外を出しました（Python・PyTorch のメッセージをそのまま示します）: RuntimeError: "
      "grad can be implicitly created only for scalar outputs"]),  # PyTorch's words stay PyTorch's, introduced
], ids=["import", "internal-name", "steps", "recursion", "syntax", "pytorch-error"])
def test_runs_refusals_limits_and_errors_in_japanese(cli, tmp_path, source, says):
    """The runner's and the sandbox's reasons come in Japanese (their key crosses the sandbox's pipe); a program's
    own exception is quoted as it was said, introduced in Japanese; English, and `--json`, stay as they were."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(source, "utf-8")
    said = cli("--lang", "ja", "run", snippet)
    assert said.exit_code == 1
    in_japanese(said, *says)
    english = cli("--lang", "en", "run", snippet).output
    assert "行目" not in english and english.count("line ") == 1


def test_the_sandbox_s_own_failures_in_japanese():
    """What the sandbox reports (its zygote words them in English with their keys), said again in Japanese."""
    from engine.runner.errors import failure, reason
    from engine.sandbox.client import _failure_error

    for said, words in [(reason("snippet_past_time_limit"), "スニペットが制限時間を超えたので止めました"),
                        (reason("worker_cannot_start", cause=reason("worker_exit_status", status=1)),
                         "起動できませんでした: 理由を告げずに終了コード 1 で終わりました"),
                        (reason("explanation_stopped", seconds=8, mb=1536, cause=reason("snippet_cpu_time")),
                         "（8 秒、1536 MB）で止まりました: スニペットが許された CPU 時間を超えて使いました")]:
        error = _failure_error(failure("ResourceLimitExceeded", said))
        assert str(error) == f"ResourceLimitExceeded: {said}"
        assert words in error.said("ja") and english_sentences(error.said("ja")) == [], error.said("ja")


@pytest.mark.parametrize("args, says", [
    (("run", "--nope", "x.py"), ["使い方: ", "run [OPTIONS] FILE", "run --help' でヘルプを表示できます。",
                                 "エラー: オプション '--nope' はありません。"]),
    (("run",), ["エラー: 次の引数がありません: 'FILE'"]),
    (("nope",), ["エラー: コマンド 'nope' はありません。"]),
    (("--theme", "blue"), ["'--theme' の値が正しくありません: 'blue' は使えません。使えるのは 'dark', 'light' のいずれか"]),
    (("run", "a.py", "b.py"), ["エラー: 余分な引数があります（b.py）"]),
    (("progress", "--export"), ["エラー: オプション '--export' には値が必要です。"]),
], ids=["no-such-option", "missing-argument", "no-such-command", "bad-choice", "extra-argument", "option-value"])
def test_click_s_frame_and_errors_in_japanese(cli, monkeypatch, args, says):
    """Click's usage frame and its errors speak the command's language (`--lang ja`, or the locale when the
    option itself is what fails to parse); in English they are click's own, also after a Japanese run."""
    result = cli("--lang", "ja", *args)
    assert result.exit_code == 2
    in_japanese(result, *says)
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    in_japanese(cli(*args), *says)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert "Error: " in cli(*args).output and "エラー" not in cli(*args).output


def test_progress_file_errors_in_japanese(cli, tmp_path):
    """A progress export that is missing, not JSON, or not an export; a data folder that cannot be made."""
    in_japanese(cli("--lang", "ja", "progress", "--import", tmp_path / "none.json"),
                "エラー:", "none.json: そのファイルはありません")
    (tmp_path / "bad.json").write_text("{", "utf-8")
    in_japanese(cli("--lang", "ja", "progress", "--import", tmp_path / "bad.json"), "正しい JSON ではありません",
                "`autograd-tutor progress --export` で作ったファイルを使ってください")
    (tmp_path / "other.json").write_text('{"format": "something"}', "utf-8")
    in_japanese(cli("--lang", "ja", "progress", "--import", tmp_path / "other.json"), "進捗エクスポートではありません")
    (tmp_path / "file").write_text("", "utf-8")
    blocked = cli("--lang", "ja", "--data-dir", tmp_path / "file" / "data", "progress")
    assert blocked.exit_code == 1
    in_japanese(blocked, "進捗フォルダー", "を作れません", "書き込めるフォルダーを指定してください")
    assert "Cannot create the progress folder" in cli("--lang", "en", "--data-dir", tmp_path / "file" / "data",
                                                      "progress").output


def test_quiz_errors_in_japanese():
    from tutor.quiz import QuizError

    error = QuizError("quiz_no_usable", id="grad-of-mean", seed=3, problem="x")
    assert str(error) == "quiz template 'grad-of-mean' (seed 3) gave no usable question: x"
    assert error.said("ja") == "クイズテンプレート 'grad-of-mean'（シード 3）から使える問題を作れませんでした: x"
    assert english_sentences(QuizError("quiz_no_template").said("ja")) == []


def test_every_refusal_and_limit_of_the_hostile_corpus_is_said_in_japanese():
    """Each runner stop the hostile corpus provokes (a refusal, a limit: the runner's own words, not a program's
    exception) carries its catalogue key and has no English sentence left in Japanese."""
    from pathlib import Path

    from engine.runner import Limits, run_snippet

    corpus = sorted((Path(__file__).parents[1] / "runner" / "hostile").glob("*.py"))
    stops = 0
    for path in corpus:
        error = run_snippet(path.read_text("utf-8"), limits=Limits(max_seconds=300.0)).error  # a hang guard only
        if error.type in ("SnippetRejected", "ResourceLimitExceeded"):
            stops += 1
            assert error.key, (path.name, error)
            assert english_sentences(error.said("ja")) == [], (path.name, error.said("ja"))
    assert stops >= 50


def test_a_malformed_progress_export_is_told_in_japanese(cli, tmp_path):
    """Where in the export the problem is (as typed: `attempts[0].outcome`), and what it is, in Japanese."""
    import json

    export = tmp_path / "export.json"
    cli("progress", "--export", export)
    document = json.loads(export.read_text("utf-8"))
    document["attempts"] = [{"uid": "u", "lesson_id": "l", "step_id": "s", "concepts": ["c"], "outcome": "maybe",
                             "hints_used": 0, "at": "2026-01-01T00:00:00+00:00"}]
    export.write_text(json.dumps(document), "utf-8")
    said = in_japanese(cli("--lang", "ja", "progress", "--import", export), "attempts[0].outcome:",
                       "のいずれかのはずですが、'maybe' です")
    assert "expected one of" not in said
    assert "attempts[0].outcome: expected one of" in cli("--lang", "en", "progress", "--import", export).output
    document["attempts"][0] = {"uid": "u"}
    export.write_text(json.dumps(document), "utf-8")
    in_japanese(cli("--lang", "ja", "progress", "--import", export), 'attempts[0]: "concepts" がありません')
