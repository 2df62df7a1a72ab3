"""The ✓ and ✗ on a chosen option read on the highlighted row too: each carries its own background, with a
WCAG contrast of at least 4.5 against it."""
from rich.style import Style

from tutor.widgets.choice_list import MARK_STYLES


def luminance(triplet) -> float:
    def channel(value: int) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(value) for value in triplet)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_marks_have_their_own_background_with_contrast():
    for mark, style in MARK_STYLES.items():
        parsed = Style.parse(style)
        assert parsed.bgcolor is not None, mark  # not the row's highlight colour
        light, dark = sorted((luminance(parsed.color.triplet), luminance(parsed.bgcolor.triplet)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5, mark
