"""The hostile lessons (one per channel through which lesson text reaches the learner's terminal)."""
import pytest
from boundary_checks import HOSTILE


@pytest.fixture
def hostile_dir():
    return HOSTILE


@pytest.fixture
def hostile_app(data_dir):
    """A TutorApp on the hostile lessons only."""
    from tutor.app import TutorApp

    def make(lang="en", **options):
        options.setdefault("symbolic_seconds", 60.0)
        return TutorApp(lang=lang, extra_dirs=[HOSTILE], data_dir=data_dir, include_bundled=False, **options)

    return make


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    """An empty working folder: an action that saved a screenshot (or any file) would write here."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder
