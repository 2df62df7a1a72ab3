"""The server's counters against guessing and flooding, with bounded memory.

- `Backoff`: wrong tries per key (an address, a name). The first `free` in a quiet spell are answered at
  once; each further one waits twice as long as the one before (up to `max_delay`). It only ever *slows
  wrong answers*: the server checks a code before it asks here, so the right code is never refused, and a
  class behind one NAT address is never locked out by a classmate's typos or an attacker's flood.
- `Rate`: events per sliding minute (new students joining), refused past `per_minute`.
"""
from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable

MAX_KEYS = 10_000  # addresses and names remembered at once; the quietest are forgotten first


class Backoff:
    def __init__(self, *, free: int = 5, first_delay: float = 0.5, max_delay: float = 30.0, quiet: float = 300.0,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.free, self.first_delay, self.max_delay, self.quiet = free, first_delay, max_delay, quiet
        self.now = now
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()  # key -> (wrong tries, last one)

    def failures(self, key: str) -> int:
        count, last = self._failures.get(key, (0, 0.0))
        return count if self.now() - last < self.quiet else 0

    def failed(self, key: str) -> float:
        """Count a wrong try of `key`; how long its answer should wait, in seconds."""
        count = self.failures(key) + 1
        self._failures[key] = (count, self.now())
        self._failures.move_to_end(key)
        while len(self._failures) > MAX_KEYS:
            self._failures.popitem(last=False)
        return self.delay(count)

    def delay(self, count: int) -> float:
        if count <= self.free:
            return 0.0
        return min(self.max_delay, self.first_delay * 2 ** (count - self.free - 1))

    def forget(self, key: str) -> None:
        self._failures.pop(key, None)


class Rate:
    def __init__(self, per_minute: int, *, now: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.now = now
        self._times: deque[float] = deque()

    def allow(self) -> bool:
        """Count one event now, unless `per_minute` happened in the last minute (then False)."""
        now = self.now()
        while self._times and now - self._times[0] >= 60.0:
            self._times.popleft()
        if len(self._times) >= self.per_minute:
            return False
        self._times.append(now)
        return True
