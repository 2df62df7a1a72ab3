"""Line breaking for Japanese: a line may break between any two characters of Japanese text.

Rich and Textual wrap at spaces only, and Japanese has none between words, so a paragraph broke
only around inline code (`2×3 の行列を 2` / `つ用意し…`), leaving ragged half-empty lines. Both
libraries find the units they may break between with one module-level regular expression; these
replace them with ones where each Japanese character is a unit of its own, with the kinsoku rules:
closing brackets, 、。 and small kana stay with the character before them, opening brackets with
the one after. Other text still breaks at spaces only.
"""
from __future__ import annotations

import functools
import re

_JAPANESE = "\u3001-\u303f\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uffef"
_OPEN = "「『（【〔［｛〈《"
_CLOSE = "、。，．・：；！？」』）】〕］｝〉》ー々〜…‥ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
_UNIT = rf"[{_OPEN}]*(?:[{_JAPANESE}]|[^\s{_JAPANESE}]+)[{_CLOSE}]*"

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)

# Every character the units treat apart (_JAPANESE, _OPEN, _CLOSE) is at or after U+3001, but … and ‥, which end a
# unit as \S+ does: text below it splits into the same units as with the libraries' own patterns.
_FIRST_APART = "\u3001"


class _Units:
    """The `match` rich's and Textual's wrapping call: the libraries' own pattern (`plain`) for text below
    _FIRST_APART, the Japanese units (`units`, compiled the first time such text is wrapped: their character
    classes take milliseconds to compile, at every start, and an English screen needs none) for the rest."""

    def __init__(self, plain: str, units: str) -> None:
        self._plain = re.compile(plain)
        self._units = units
        self._compiled: re.Pattern[str] | None = None
        self._last: tuple[str | None, bool] = (None, False)  # the text last asked about, and whether it is Japanese

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        last = self._last  # (one read: another thread may wrap its own text meanwhile)
        if last[0] is not text:  # rich asks word by word about one text: look at it once
            last = (text, bool(text) and max(text) >= _FIRST_APART)
            self._last = last
        if not last[1]:
            return self._plain.match(text, pos)
        if self._compiled is None:
            self._compiled = re.compile(self._units)
        return self._compiled.match(text, pos)


RICH_WORD = _Units(r"\s*\S+\s*", rf"\s*{_UNIT}\s*")        # rich._wrap.re_word was r"\s*\S+\s*"
TEXTUAL_CHUNK = _Units(r"\S+\s*|\s+", rf"{_UNIT}\s*|\s+")   # textual._wrap.re_chunk was r"\S+\s*|\s+"


def install() -> bool:
    """Use these units in rich's and Textual's wrapping; False if either library no longer has the hook
    (then Japanese wraps at spaces only, as before — a test notices)."""
    import rich._wrap
    import textual._wrap

    hooks = (re.Pattern, _Units)  # (_Units: installed already)
    if not (isinstance(getattr(rich._wrap, "re_word", None), hooks)
            and isinstance(getattr(textual._wrap, "re_chunk", None), hooks)):
        return False
    rich._wrap.re_word = RICH_WORD
    textual._wrap.re_chunk = TEXTUAL_CHUNK
    return True


def join_japanese_lines(markdown: str) -> str:
    """Markdown turns a line break inside a paragraph into a space, which Japanese does not put between
    characters (`作ります。 既定の`): join such lines where both sides are Japanese, or after a Japanese full
    stop or comma, outside code blocks."""
    parts, position = [], 0
    for fence in _FENCE.finditer(markdown):
        parts += [_join(markdown[position:fence.start()]), fence.group(0)]
        position = fence.end()
    parts.append(_join(markdown[position:]))
    return "".join(parts)


@functools.cache
def _soft_breaks() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Compiled when lesson Markdown is first shown, not at start-up (the Japanese classes cost milliseconds)."""
    between = re.compile(rf"(?:(?<=[{_JAPANESE}])|(?<=[{_JAPANESE}]\*\*))[ \t]*\n[ \t]*(?=(?:\*\*)?[{_JAPANESE}])")
    # after 。、！？ and closing brackets Japanese puts no space even before Latin text (`渡します。W₂ の`),
    # unless the next line starts a Markdown block (a list item, a heading, a fence …)
    after_stop = re.compile(r"(?<=[、。！？」』）])[ \t]*\n[ \t]*(?=\S)(?![-*+>#|]|\d+[.)]\s|```|~~~)")
    return between, after_stop


def _join(text: str) -> str:
    between, after_stop = _soft_breaks()
    return after_stop.sub("", between.sub("", text))
