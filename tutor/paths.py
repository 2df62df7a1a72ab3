"""Where the tutor keeps a learner's files.

One place decides the data directory so that the progress store, the user's
lesson folder and `autograd-tutor paths` always agree. A classroom or a test
points it elsewhere with `--data-dir` or the AUTOGRAD_TUTOR_DATA_DIR variable.
"""
from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "AUTOGRAD_TUTOR_DATA_DIR"
APP_NAME = "autograd-tutor"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The per-user data directory: `override`, else $AUTOGRAD_TUTOR_DATA_DIR, else platformdirs."""
    if override:
        return Path(override).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def lessons_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The learner's own lesson folder, inside the data directory."""
    return data_dir(override) / "lessons"


def database_path(override: str | os.PathLike[str] | None = None) -> Path:
    """The SQLite progress database."""
    return data_dir(override) / "progress.sqlite3"


def cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Files the tutor can rebuild at any time (parsed lessons), inside the data directory."""
    return data_dir(override) / "cache"
