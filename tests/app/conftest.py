"""The app's pilot and snapshot tests: an app on the fixture lessons (data folder and pilot loop: tests/conftest.py)."""
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def make_app(data_dir):
    """A TutorApp on the fixture course only (no bundled lessons), in English unless told."""
    from tutor.app import TutorApp

    def make(lang="en", folders=("course",), **options):
        options.setdefault("symbolic_seconds", 60.0)  # a loaded machine must not turn a wait into a failure
        return TutorApp(lang=lang, extra_dirs=[FIXTURES / f for f in folders], data_dir=data_dir,
                        include_bundled=False, **options)

    return make


@pytest.fixture
def fixtures_dir():
    return FIXTURES
