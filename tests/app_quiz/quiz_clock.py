"""The quiz tests' fixed clock (its own module: `from conftest import …` finds whichever conftest came first)."""
from datetime import datetime, timezone

NOW = datetime(2025, 3, 14, 12, 0, tzinfo=timezone.utc)  # the fake clock's "now"
