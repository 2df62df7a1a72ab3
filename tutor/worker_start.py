"""Starting the snippet worker ahead of the app, for a quiz's first question.

That question waits for the worker, which imports numpy and the engine (most of a second). Started before
Textual and the app are even imported, its start overlaps the app's from the first moment: `autograd-tutor
quiz` calls `start` first thing, and `TutorApp(start="quiz")` calls it too (the second waits for the same start).

Whether the worker has started is the worker's own state (`engine.sandbox.worker().confinement()` returns at once
once it has): nothing here keeps a copy of it. The quiz screen awaits `started`, which asks the worker, and says it
prepares the question only when the answer does not come at once. Soon matters: a worker left idle for a moment
begins loading the explanation layer (sympy: seconds on a loaded machine), and a question asked then waits behind it.
"""
from __future__ import annotations

import asyncio
import threading


def start() -> None:
    """Start the process-wide worker (`engine.sandbox.worker`) in a daemon thread; return at once."""
    from engine.sandbox import worker

    threading.Thread(target=lambda: worker().confinement(), name="worker-start", daemon=True).start()


async def started() -> None:
    """Return once the worker has started (or failed to: the first question then says why), without blocking
    the event loop meanwhile (a daemon thread waits: quitting never waits for it)."""
    from engine.sandbox import worker

    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def wait() -> None:
        worker().confinement()
        try:
            loop.call_soon_threadsafe(lambda: done.done() or done.set_result(None))
        except RuntimeError:  # the app has closed its loop meanwhile
            pass

    threading.Thread(target=wait, name="worker-wait", daemon=True).start()
    await done
