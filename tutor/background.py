"""Blocking work awaited from the event loop, done in a daemon thread.

The screen stays responsive while the work runs (a quiz question waits for the snippet worker, which may be busy
for seconds), and quitting never waits for it: asyncio's `to_thread` and Textual's thread workers use the loop's
executor, whose threads are joined on the way out, so a worker that hangs would hold the app open.
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TypeVar

Result = TypeVar("Result")


async def in_thread(work: Callable[[], Result], name: str) -> Result:
    """`work()`'s result (or its exception), computed in a daemon thread called `name`. Cancelling the awaiting
    task leaves the thread to finish on its own; its result is then dropped."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        try:
            loop.call_soon_threadsafe(lambda: done.done() or outcome())
        except RuntimeError:  # the app has closed its loop meanwhile
            pass

    def run() -> None:
        try:
            result = work()
        except Exception as error:  # handed to the awaiting task, which raises it
            settle(lambda failure=error: done.set_exception(failure))
        else:
            settle(lambda: done.set_result(result))

    threading.Thread(target=run, name=name, daemon=True).start()
    return await done
