"""What importing a package drags in, measured in fresh interpreters, and the import-linter contracts.

`import tutor.app` must stay light (the course view opens as fast as a bare Textual app: no numpy,
sympy, engine or lessons until a lesson is opened); `import engine` must not pull in a UI library or
sympy (the symbolic forms load sympy when they are asked for)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in result.stdout.split()}


def test_the_app_module_loads_no_numeric_or_engine_code():
    assert not loaded_after("import tutor.app") & {"numpy", "sympy", "engine", "lessons", "torch"}


def test_the_engine_loads_no_ui_and_no_sympy():
    assert not loaded_after("import engine") & {"textual", "rich", "sympy", "tutor", "lessons"}


def test_import_linter_contracts_hold():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(lint).exists():
        pytest.skip("import-linter is not installed (pip install -e .[test])")
    result = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
