"""One-line Markdown (`code`, **bold**) as rich Text, for list rows where a Markdown widget is too heavy."""
from __future__ import annotations

import re

from rich.text import Text

from tutor.untrusted import plain

_SPANS = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")


def inline_markdown(source: str, style: str = "") -> Text:
    """`source` (a lesson's text) with code spans and bold rendered, other Markdown left as written."""
    source = plain(source)
    text = Text()  # styles as spans, never the Text's own style: Textual reads that one as a CSS colour name
    position = 0
    for match in _SPANS.finditer(source):
        text.append(source[position : match.start()], style=style)
        if match.group(1) is not None:
            text.append(match.group(1), style=f"{style} bold cyan")
        else:
            text.append(match.group(2), style=f"{style} bold")
        position = match.end()
    text.append(source[position:], style=style)
    return text
