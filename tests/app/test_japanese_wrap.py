"""Japanese paragraphs break between characters (with the kinsoku rules), in rich's and Textual's wrapping."""
import pytest
from rich.console import Console
from rich.text import Text
from textual.content import Content

from tutor.widgets.japanese_wrap import install, join_japanese_lines

PARAGRAPH = ("2×3 の行列を 2 つ用意し、あとで微分できるように各成分に名前を付けておきます。「括弧」のテスト（かっこ）"
             "です。`torch.Tensor(...)`（大文字の T）は古くからあるコンストラクタで、既定の型は float32 です。")
NO_LINE_START = tuple("、。，．）」』】〕！？ー")
NO_LINE_END = tuple("（「『【〔")


@pytest.fixture(autouse=True, scope="module")
def installed():
    assert install(), "rich or Textual no longer has the wrapping hook japanese_wrap replaces"


def check(lines: list[str], width: int) -> None:
    assert "".join(line.rstrip() for line in lines).replace(" ", "") == PARAGRAPH.replace(" ", "")
    for line, following in zip(lines, lines[1:]):  # a line before Japanese is filled (it breaks anywhere)
        if "\u3000" <= following[0] <= "\uffef":  # (a Latin word that did not fit still moves down whole)
            assert width - 4 <= Text(line.rstrip()).cell_len <= width, lines
    for line in lines:
        assert not line.startswith(NO_LINE_START) and not line.rstrip().endswith(NO_LINE_END), lines


@pytest.mark.parametrize("width", [30, 41, 57, 80])
def test_rich_breaks_between_japanese_characters(width):
    console = Console(width=width, record=True)
    console.print(Text(PARAGRAPH))
    check(console.export_text().splitlines(), width)


@pytest.mark.parametrize("width", [30, 41, 57, 80])
def test_textual_breaks_between_japanese_characters(width):
    lines = Content(PARAGRAPH).wrap(width)
    check([line.plain for line in lines], width)


def test_english_still_breaks_at_spaces():
    console = Console(width=20, record=True)
    console.print(Text("the gradient of a sum is a sum of gradients"))
    assert [line.rstrip() for line in console.export_text().splitlines()] == ["the gradient of a", "sum is a sum of",
                                                                              "gradients"]


def test_soft_line_breaks_inside_japanese_paragraphs_join_without_a_space():
    source = "作ります。\n既定の型は\nfloat32 です。\n\n段落\n続き\n```python\n# 日本語\n# 続き\n```\nあ\nい"
    assert join_japanese_lines(source) == ("作ります。既定の型は\nfloat32 です。\n\n段落続き\n```python\n# 日本語\n# 続き\n"
                                           "```\nあい")


def test_no_space_after_a_japanese_full_stop_even_before_latin_text():
    source = "渡します。\nW₂ の `requires_grad`。\n- 項目\n1. 番号\n、\n`x` です"
    assert join_japanese_lines(source) == "渡します。W₂ の `requires_grad`。\n- 項目\n1. 番号、`x` です"


def test_soft_line_breaks_around_bold_japanese_join_too():
    assert join_japanese_lines("そこで\n**何か**の数\nです。\n- リスト") == "そこで**何か**の数です。\n- リスト"


def test_text_without_japanese_splits_as_with_the_libraries_own_patterns():
    """Below U+3001 the wrapping uses rich's and Textual's own patterns (the Japanese units are compiled only for
    Japanese text): for every character there, in words, before a space, after ‥ and …, the units are the same."""
    import re

    from tutor.widgets.japanese_wrap import RICH_WORD, TEXTUAL_CHUNK

    def units(pattern, text):
        found, position = [], 0
        while position < len(text) and (match := pattern.match(text, position)) is not None and match.end() > position:
            found.append(match.group())
            position = match.end()
        return found

    for wrapping in (RICH_WORD, TEXTUAL_CHUNK):
        japanese = re.compile(wrapping._units)
        for code in range(0x3001):
            if 0xD800 <= code <= 0xDFFF:
                continue
            text = f"a{chr(code)}b {chr(code)} c… ‥d{chr(code)}"
            assert units(wrapping, text) == units(japanese, text), hex(code)
        assert units(wrapping, PARAGRAPH) == units(japanese, PARAGRAPH) and len(units(japanese, PARAGRAPH)) > 60


def test_installing_twice_keeps_the_units():
    """Every app and command installs the units; a second install (the same process) finds them in place."""
    import rich._wrap

    from tutor.widgets.japanese_wrap import RICH_WORD

    assert install() and install() and rich._wrap.re_word is RICH_WORD
