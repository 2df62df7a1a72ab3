"""Contrast of every character on a screen, read from the SVG Textual exports (the colours a terminal shows
after Textual's blending of translucent backgrounds, its dimming and its ANSI-to-RGB mapping).

WCAG 2.1: text needs 4.5:1 against its background (1.4.3); marks that carry meaning (✓ ✗ ● ○ →) 3:1
(1.4.11). Lines and blocks (borders, rules, scrollbars, bars: U+2500–U+259F) are decoration, and blank
cells are not counted. `region` limits the check to part of the screen (a dialog: what is behind it is
veiled on purpose).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

from rich.cells import cell_len

TEXT_MINIMUM = 4.5
GRAPHIC_MINIMUM = 3.0
CELL_WIDTH, LINE_HEIGHT = 12.2, 24.4  # Rich's SVG export: pixels per terminal cell
_CLASS = re.compile(r"\.(terminal-(?:\d+-)?r\d+) \{ fill: (#[0-9a-f]{6})")
_RECT = re.compile(r'<rect fill="(#[0-9a-f]{6})" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="[\d.]+" '
                   r'shape-rendering')
_TEXT = re.compile(r'<text class="(terminal-(?:\d+-)?r\d+)" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" '
                   r'clip-path="url\(#terminal-(?:\d+-)?line-(\d+)\)">([^<]*)</text>')


def _luminance(colour: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def ratio(foreground: str, background: str) -> float:
    light, dark = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _decoration(char: str) -> bool:
    return 0x2500 <= ord(char) <= 0x259F or char in "▔▕"


def _graphic(char: str) -> bool:
    return 0x25A0 <= ord(char) <= 0x25FF or 0x2190 <= ord(char) <= 0x21FF or char in "✓✗⭘"


@dataclass(frozen=True)
class Low:
    line: int
    column: int
    text: str
    foreground: str
    background: str
    ratio: float

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.text!r} {self.foreground} on {self.background} " \
               f"= {self.ratio:.2f}:1"


def low_contrast(svg: str, region: tuple[int, int, int, int] | None = None) -> list[Low]:
    """Every run of text on the screen (or in `region`: x, y, width, height in cells) whose contrast is below
    the minimum for what it is, one entry per run."""
    fills = dict(_CLASS.findall(svg))
    rows: dict[int, list[tuple[float, float, str]]] = {}
    for fill, x, y, width in _RECT.findall(svg):
        rows.setdefault(round((float(y) - 1.5) / LINE_HEIGHT), []).append((float(x), float(x) + float(width), fill))
    found = []
    for css, x, line, body in _TEXT.findall(svg):
        line = int(line)
        if region is not None and not region[1] <= line < region[1] + region[3]:
            continue
        text = html.unescape(body).replace("\xa0", " ")
        column = round(float(x) / CELL_WIDTH)
        for char in text:
            width = cell_len(char)
            centre = (column + width / 2) * CELL_WIDTH
            inside = region is None or region[0] <= column < region[0] + region[2]
            if inside and not char.isspace() and not _decoration(char) and css in fills:
                background = next((fill for left, right, fill in rows.get(line, ()) if left <= centre < right), None)
                value = ratio(fills[css], background) if background is not None else None
                if value is not None and value < (GRAPHIC_MINIMUM if _graphic(char) else TEXT_MINIMUM):
                    found.append(Low(line, column, text.strip(), fills[css], background, value))
                    break
            column += width
    return found


def foregrounds(svg: str, text: str) -> list[tuple[int, str]]:
    """(line, colour) of every run of text on the screen that contains `text`: what colour a mark is drawn in."""
    fills = dict(_CLASS.findall(svg))
    return [(int(line), fills[css]) for css, _x, line, body in _TEXT.findall(svg)
            if text in html.unescape(body).replace("\xa0", " ") and css in fills]
