"""Browser tests: skipped, with the reason, where Playwright or Chromium is missing (CI installs both)."""
import pytest
from serve_browser import why_no_browser


def pytest_collection_modifyitems(config, items):
    reason = why_no_browser()
    for item in items:
        if "browser" in item.keywords and reason:
            item.add_marker(pytest.mark.skip(reason=reason))
