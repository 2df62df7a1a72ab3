"""What importing a package drags in, measured in fresh interpreters, and the import-linter contracts.

`import tutor.app` must stay light (the course view opens as fast as a bare Textual app: no numpy,
sympy, engine (but its catalogue of words) or lessons until a lesson is opened); `import engine` must not pull in a UI library or
sympy (the symbolic forms load sympy when they are asked for)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def loaded_after(statement: str, but: frozenset[str] = frozenset()) -> set[str]:
    """The top-level packages of the modules `statement` loads, leaving out the modules named in `but`."""
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in result.stdout.split() if name not in but}


def test_the_app_module_loads_no_numeric_or_engine_code():
    """Of the engine, only its catalogue of words, loaded from its file (`tutor.i18n._catalogue`)."""
    assert not loaded_after("import tutor.app", but=frozenset({"engine.wording"})) & {
        "numpy", "sympy", "engine", "lessons", "torch"}


def test_the_engine_loads_no_ui_and_no_sympy():
    assert not loaded_after("import engine") & {"textual", "rich", "sympy", "tutor", "lessons"}


def test_import_linter_contracts_hold():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(lint).exists():
        pytest.skip("import-linter is not installed (pip install -e .[test])")
    result = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
