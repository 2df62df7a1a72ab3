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
