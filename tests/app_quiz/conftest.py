"""Quiz and Stats screen tests: a fixed clock and an app on the built-in quiz templates only."""
import pytest


@pytest.fixture
def make_app(data_dir):
    """A TutorApp without lessons (quizzes use the built-in templates), English unless told."""
    from tutor.app import TutorApp

    def make(lang="en", **options):
        return TutorApp(lang=lang, data_dir=data_dir, include_bundled=False, **options)

    return make
