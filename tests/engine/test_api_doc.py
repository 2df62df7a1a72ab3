"""docs/api.md is generated from the engine: it must be regenerated when the API changes."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_api_doc_is_up_to_date():
    spec = importlib.util.spec_from_file_location("make_api", ROOT / "docs" / "make_api.py")
    make_api = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_api)
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == make_api.render(), \
        "docs/api.md is stale: run `python docs/make_api.py`"
