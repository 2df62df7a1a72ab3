"""Starting the snippet worker ahead of the app, for a quiz's first question.

That question waits for the worker, which imports numpy and the engine (most of a second). Started before
Textual and the app are even imported, its start overlaps the app's from the first moment: `autograd-tutor
quiz` calls `start` first thing, and `TutorApp(start="quiz")` calls it too (a no-op when it has started).

The first question is asked as soon as the worker can answer: at once when it `has_started`, else the quiz
screen, drawn meanwhile, waits for it with `started`. Soon matters: a worker left idle for a moment begins
loading the explanation layer (sympy: seconds on a loaded machine), and a question asked then waits behind it.
"""
from __future__ import annotations

import asyncio
import threading

_started = threading.Event()  # set once the worker `start` began has started (or failed to)


def start() -> None:
    """Start the process-wide worker (`engine.sandbox.worker`) in a daemon thread; return at once."""
    from engine.sandbox import worker

    def run() -> None:
        worker().confinement()
        _started.set()

    threading.Thread(target=run, name="worker-start", daemon=True).start()


def has_started() -> bool:
    """Whether the worker `start` began has started (or failed to): asking it now waits for no start-up."""
    return _started.is_set()


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
