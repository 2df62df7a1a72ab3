"""The smallest terminal the tutor's layouts hold; below it the app covers its screens with the too-small notice
(`tutor.screens.too_small`). A module of its own: the app checks every size, from the first one at start-up, but
imports the notice's screen only when a terminal is too small."""
from __future__ import annotations

MIN_WIDTH = 60
MIN_HEIGHT = 16


def too_small(width: int, height: int) -> bool:
    return width < MIN_WIDTH or height < MIN_HEIGHT
