"""The learner's settings that outlive a session: language, theme, and the seed that orders choices.

Kept as a small JSON file: in the data folder when one is given (`--data-dir`,
$AUTOGRAD_TUTOR_DATA_DIR: a classroom or a test keeps everything in one place), else in the
platform's config folder (platformdirs). A missing or unreadable file means defaults; a file that
cannot be written costs the setting, never the session.
"""
from __future__ import annotations

import json
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path

from lessons.atomic_file import write_atomically
from tutor.paths import APP_NAME, ENV_VAR

FILE_NAME = "config.json"


@dataclass
class Settings:
    lang: str | None = None
    theme: str | None = None
    learner_seed: str = ""


def config_path(data_dir: str | os.PathLike[str] | None = None) -> Path:
    if data_dir:
        return Path(data_dir).expanduser() / FILE_NAME
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser() / FILE_NAME
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False)) / FILE_NAME


def load_settings(path: Path) -> Settings:
    """The saved settings (defaults for what is missing); a fresh learner seed is saved on first use."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    settings = Settings(
        lang=data.get("lang") if data.get("lang") in ("en", "ja") else None,
        theme=data.get("theme") if data.get("theme") in ("dark", "light") else None,
        learner_seed=str(data.get("learner_seed") or ""),
    )
    if not settings.learner_seed:
        settings.learner_seed = secrets.token_hex(8)
        save_settings(path, settings)
    return settings


def save_settings(path: Path, settings: Settings) -> bool:
    """Write the settings atomically; False when the folder is not writable."""
    try:
        write_atomically(path, json.dumps(asdict(settings), indent=2) + "\n")
    except OSError:
        return False
    return True
