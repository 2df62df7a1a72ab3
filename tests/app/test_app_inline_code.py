"""Maths in inline code is not marked as a Python error (no red), while Python in it is still highlighted."""
from rich.console import Console

from tutor.widgets.markdown_text import INLINE_CODE_THEMES, _LessonMarkdown


def styles_of(markdown: str) -> list:
    console = Console(width=80, color_system="truecolor", record=True)
    rendered = _LessonMarkdown(markdown, code_theme="monokai", inline_code_lexer="python",
                               inline_code_theme=INLINE_CODE_THEMES[True])
    return [segment.style for segment in console.render(rendered) if segment.style is not None]


def test_maths_in_inline_code_has_no_error_marks():
    from pygments.styles.monokai import MonokaiStyle
    from pygments.token import Error
    from rich.color import Color

    red = Color.parse(MonokaiStyle.styles[Error].split("bg:")[1].split()[0]).triplet
    for text in ("`∂y/∂x = 2x`", "`y = x²`", "`a ≠ b`", "`∇f`"):  # the Python lexer calls these errors
        assert not any(style.bgcolor is not None and style.bgcolor.triplet == red for style in styles_of(text)), text
    assert any(style.color is not None for style in styles_of("`torch.tensor([1., 2.], requires_grad=True)`"))
