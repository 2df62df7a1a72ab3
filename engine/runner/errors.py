"""What the runner reports when a snippet is refused, stopped or fails.

The two "stop" exceptions derive from `BaseException` on purpose: engine code that a snippet calls
back into (``jacobian(f, x)`` calling the snippet's ``f``) may catch `Exception`, and a limit or a
refusal must never be swallowed on its way out.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.explain.messages import t
from engine.wording import said

SAFETY = " (refused for safety)"


class Reason(str):
    """A reason as the runner or the sandbox words it (in English), holding its catalogue key and parameters
    (`engine.explain.messages`): they cross the sandbox's pipe with it, so the app says it again in the learner's
    language. A reason built by concatenation is a plain str and stays English."""

    key = ""
    params: dict[str, object] = {}  # noqa: RUF012 - never changed: each reason gets its own


# A part of a reason given as (key, params) — what a bound is about ("the result of @") — worded only when the
# reason is raised: the bounds are checked at every operation, and wording costs more than the check.
Phrase = tuple[str, dict[str, object]]


def reason(key: str, **params: object) -> Reason:
    """The reason `key` of the catalogue, in English, with `params`: numbers, text, a `Phrase` or another `Reason`
    (the cause of this one), kept as data that goes through JSON."""
    params = {name: reason(value[0], **value[1]) if type(value) is tuple else value for name, value in params.items()}
    said = Reason(t(key, "en", **params))
    said.key, said.params = key, {name: _data(value) for name, value in params.items()}
    return said


def _data(value: object) -> object:
    if getattr(value, "key", ""):
        return {"key": value.key, "params": value.params}
    return value if isinstance(value, (int, float)) else str(value)


def restored(data: dict) -> str:
    """The reason of a failure or error as it came through JSON (`message`, `key`, `params`): a `Reason` again."""
    said = Reason(data.get("message", ""))
    said.key, said.params = str(data.get("key") or ""), dict(data.get("params") or {})
    return said


def failure(kind: str, said: str) -> dict[str, object]:
    """A failure the sandbox sends back (`{"type", "message"}`), with the key and parameters of a `Reason`."""
    return {"type": kind, "message": str(said), "key": getattr(said, "key", ""), "params": getattr(said, "params", {})}


@dataclass(frozen=True)
class SnippetError:
    """One problem with a snippet: the exception type name, its message and where it happened; for the runner's and
    the sandbox's own reasons also their catalogue key and parameters, to say them in another language."""

    type: str
    message: str
    line: int | None = None
    column: int | None = None
    key: str = ""
    params: dict[str, object] = field(default_factory=dict)

    @classmethod
    def of(cls, kind: str, said: str, line: int | None = None, column: int | None = None) -> SnippetError:
        """The error `kind` for the reason `said` (a `Reason` keeps its key and parameters)."""
        return cls(kind, str(said), line, column, getattr(said, "key", ""), getattr(said, "params", {}))

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "message": self.message, "line": self.line, "column": self.column,
                "key": self.key, "params": self.params}

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.type}: {self.message}"

    def said(self, lang: str = "en", *, introduced: bool = False) -> str:
        """This error as a learner reads it in `lang` (`line N: Type: message` in English): the runner's and the
        sandbox's reasons in that language; a program's own exception (Python's, PyTorch's, the engine's worded as
        PyTorch words it) quoted as it was said, introduced in that language unless the caller's own words already
        introduce it (`introduced`)."""
        if lang == "en":
            return str(self)
        where = t("error_at_line", lang, line=self.line) if self.line is not None else ""
        if self.key or introduced:
            return where + self.what(lang)
        return where + t("program_raised", lang, error=self.what(lang))

    def what(self, lang: str = "en") -> str:
        """`Type: message` without the line, the message in `lang` when it is the runner's or the sandbox's."""
        if lang == "en" or not self.key:
            return f"{self.type}: {self.message}"
        text = said(self.key, self.params, lang)
        if self.message.endswith(SAFETY) and not said(self.key, self.params, "en").endswith(SAFETY):
            text += t("refused_for_safety", lang)
        return f"{self.type}: {text}"


class SnippetFailure(Exception):
    """Raised by `RunResult.evaluate` when an expression is refused, fails or exceeds a limit."""

    def __init__(self, error: SnippetError) -> None:
        super().__init__(str(error))
        self.error = error


class _Stop(BaseException):
    """Base of the runner's own stops; carries the plain-language reason (and, for a `Reason`, its key)."""

    kind = "SnippetStopped"

    def __init__(self, said: str, *rest: object) -> None:
        super().__init__(said, *rest)
        self.key, self.params = getattr(said, "key", ""), getattr(said, "params", {})


class SnippetRejected(_Stop):
    """The code asked for something outside the allow-list (found statically or at run time)."""

    kind = "SnippetRejected"

    def __init__(self, said: str, *rest: object) -> None:
        super().__init__(for_safety(said), *rest)


def for_safety(reason: str) -> str:
    """A refusal's message says that the construct it names is refused for safety (not that the code is wrong);
    a name the tutor's torch simply does not have points to the API reference instead."""
    if "for safety" in reason or "docs/api.md" in reason:
        return reason
    safe = Reason(f"{reason}{SAFETY}")  # the same reason (its key kept): `SnippetError.what` adds the words again
    safe.key, safe.params = getattr(reason, "key", ""), getattr(reason, "params", {})
    return safe


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
