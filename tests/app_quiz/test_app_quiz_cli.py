"""`autograd-tutor quiz`: options reach the app; bad options are usage errors (exit 2)."""
import pytest
from click.testing import CliRunner

from tutor.app import TutorApp
from tutor.cli import main


@pytest.fixture
def opened(monkeypatch):
    """The app `autograd-tutor quiz` would run, captured instead of run."""
    apps = []
    monkeypatch.setattr(TutorApp, "run", lambda self, *args, **kwargs: apps.append(self))
    return apps


def test_quiz_options_reach_the_app(opened, tmp_path):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    result = CliRunner().invoke(main, ["--theme", "light", "quiz", "--seed", "7", "--count", "3", "--lang", "ja",
                                       "--data-dir", str(tmp_path / "data"), "--lessons", str(lessons)])
    assert result.exit_code == 0, result.output
    [app] = opened
    assert (app.start, app.quiz_seed, app.quiz_count, app.lang) == ("quiz", 7, 3, "ja")
    assert app.data_dir == str(tmp_path / "data")
    assert app.extra_dirs == (lessons,)
    assert app.theme == "tutor-light"


def test_quiz_defaults_and_global_options(opened, tmp_path):
    result = CliRunner().invoke(main, ["--lang", "en", "--data-dir", str(tmp_path), "quiz"])
    assert result.exit_code == 0, result.output
    [app] = opened
    assert (app.quiz_seed, app.quiz_count, app.lang, app.data_dir) == (None, 10, "en", str(tmp_path))


@pytest.mark.parametrize(("arguments", "message"), [
    (["--count", "0"], "Invalid value for '--count'"),
    (["--count", "many"], "Invalid value for '--count'"),
    (["--seed", "-1"], "Invalid value for '--seed'"),
    (["--lang", "fr"], "Invalid value for '--lang'"),
    (["--lessons", "/no/such/folder"], "Invalid value for '--lessons'"),
    (["--colour"], "No such option '--colour'"),
])
def test_bad_options_are_usage_errors(opened, arguments, message):
    result = CliRunner().invoke(main, ["quiz", *arguments])
    assert result.exit_code == 2
    assert message in result.output
    assert "quiz [OPTIONS]" in result.output
    assert opened == []
