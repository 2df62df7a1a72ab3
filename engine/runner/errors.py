"""What the runner reports when a snippet is refused, stopped or fails.

The two "stop" exceptions derive from `BaseException` on purpose: engine code that a snippet calls
back into (``jacobian(f, x)`` calling the snippet's ``f``) may catch `Exception`, and a limit or a
refusal must never be swallowed on its way out.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SnippetError:
    """One problem with a snippet: the exception type name, its message and where it happened."""

    type: str
    message: str
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "message": self.message, "line": self.line, "column": self.column}

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.type}: {self.message}"


class SnippetFailure(Exception):
    """Raised by `RunResult.evaluate` when an expression is refused, fails or exceeds a limit."""

    def __init__(self, error: SnippetError) -> None:
        super().__init__(str(error))
        self.error = error


class _Stop(BaseException):
    """Base of the runner's own stops; carries the plain-language reason."""

    kind = "SnippetStopped"


class SnippetRejected(_Stop):
    """The code asked for something outside the allow-list (found statically or at run time)."""

    kind = "SnippetRejected"

    def __init__(self, reason: str, *rest: object) -> None:
        super().__init__(for_safety(reason), *rest)


def for_safety(reason: str) -> str:
    """A refusal's message says that the construct it names is refused for safety (not that the code is wrong);
    a name the tutor's torch simply does not have points to the API reference instead."""
    return reason if "for safety" in reason or "docs/api.md" in reason else f"{reason} (refused for safety)"


class ResourceLimitExceeded(_Stop):
    """The snippet used more time, steps, depth, elements or memory than `Limits` allows."""

    kind = "ResourceLimitExceeded"


def stop_within(exc: BaseException | None) -> BaseException | None:
    """The stop that `exc` is or carries in its `__cause__`/`__context__` chain — a runner stop (a limit, a
    refusal), RecursionError, MemoryError or another non-`Exception` — else None. An error raised while a stop was
    on its way out (by a `__exit__`, such as `dual_level`'s, or engine cleanup) must not let the run go on."""
    pending, seen = [exc], set()
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if not isinstance(current, Exception) or isinstance(current, (RecursionError, MemoryError)):
            return current
        pending += [current.__context__, current.__cause__]
    return None
