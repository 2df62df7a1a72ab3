"""Starting the snippet worker ahead of the app, for a quiz's first question.

That question waits for the worker, which imports numpy and the engine (most of a second). Started before
Textual and the app are even imported, its start overlaps the app's from the first moment: `autograd-tutor
quiz` calls `start` first thing, and `TutorApp(start="quiz")` calls it too (the second waits for the same start).

Whether the worker has started is the worker's own state: nothing here keeps a copy of it. The quiz screen makes its
questions in a thread (`tutor.background`), which waits for the worker as any use of it does, and says it prepares
the question only when it does not come at once. Soon matters: a worker left idle for a moment
begins loading the explanation layer (sympy: seconds on a loaded machine), and a question asked then waits behind it.
"""
from __future__ import annotations

import threading


def start() -> None:
    """Start the process-wide worker (`engine.sandbox.worker`) in a daemon thread; return at once."""
    from engine.sandbox import worker

    threading.Thread(target=lambda: worker().confinement(), name="worker-start", daemon=True).start()

