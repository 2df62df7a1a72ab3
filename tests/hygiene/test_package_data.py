"""Every data file the packages read at run time ships in the wheel: pyproject.toml's package-data
globs match each non-Python file tracked under engine/, tutor/ and lessons/ (an editable install
finds a forgotten file anyway, so only an installed tutor would have failed)."""
import fnmatch
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs the git checkout")
def test_every_data_file_is_package_data():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    tracked = subprocess.run(["git", "ls-files", "engine", "tutor", "lessons"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    missing = [path for path in tracked if not path.endswith(".py")
               and not any(fnmatch.fnmatch(path.split("/", 1)[1], pattern) for pattern in globs.get(path.split("/")[0], []))]
    assert not missing, f"add to [tool.setuptools.package-data] in pyproject.toml: {missing}"
