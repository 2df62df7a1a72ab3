"""Starting the snippet worker ahead of the app, for a quiz's first question.

That question waits for the worker, which imports numpy and the engine (most of a second). Started before
Textual and the app are even imported, its start overlaps the app's from the first moment: `autograd-tutor
quiz` calls `start` first thing, and `TutorApp(start="quiz")` calls it too (a no-op when it has started).
"""
from __future__ import annotations

import threading


def start() -> None:
    """Start the process-wide worker (`engine.sandbox.worker`) in a daemon thread; return at once."""
    from engine.sandbox import worker

    threading.Thread(target=worker().confinement, name="worker-start", daemon=True).start()
