"""The checks every test of the terminal boundary makes on what a program wrote to its terminal."""
import re
from pathlib import Path

HOSTILE = Path(__file__).parent / "hostile_lessons"  # one lesson per channel

# What a program may legitimately write: SGR styles and cursor moves (CSI with digits, `;` and `?`),
# mode switches and the like. Anything else beginning with ESC, and any C1 control or BEL, is not ours.
_CSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]")
_OBEYED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_MOVE = re.compile(r"\x1b\[(\d+);(\d+)H")
# The payloads' own sequences, which must never appear as such (Textual's own output has none of them).
PAYLOADS = ("\x1b]0;PWNED", "\x1b]2;PWNED", "\x1b]52;", "\x1b]8;", "\u009b2J", "\x07")


def assert_inert(output: str, where: str = "") -> None:
    """No escape sequence but CSI, no other control character, no payload: nothing from the content was obeyed."""
    for payload in PAYLOADS:
        assert payload not in output, f"{where}: {payload!r} reached the terminal"
    rest = _CSI.sub("", output).replace("\r", "").replace("\n", "")
    found = _OBEYED.search(rest)
    assert found is None, f"{where}: {found.group()!r} reached the terminal near {rest[max(found.start() - 40, 0):found.end() + 40]!r}"


def visible(output: str) -> str:
    """The screen a terminal shows for a full update of Textual's (`ESC[row;colH` then the row's text), row by
    row, without the styles."""
    parts = _MOVE.split(output)
    rows: dict[int, str] = {}
    for index in range(1, len(parts), 3):
        row = int(parts[index])
        rows[row] = rows.get(row, "") + _CSI.sub("", parts[index + 2])
    return "\n".join(rows[row] for row in sorted(rows))
