"""Accuracy over time as a bar chart: one bar per practice day, 0–100 %, each labelled with its value (a day at
0 % has no bar to see: without its label the chart of a first, failed day looked empty)."""
from __future__ import annotations

from textual_plotext import PlotextPlot

from tutor.i18n import t

MAX_DAYS = 14  # the last two weeks of practice fit side by side at 80 columns
LABEL_LIFT = 8  # percentage points above its value a label is written: on the bar's top row, a 0 % one above the axis


class AccuracyPlot(PlotextPlot):
    """The points of `tutor.progress.stats.accuracy_over_time`, drawn once (the Stats screen recomposes)."""

    def __init__(self, points, lang: str, **kwargs) -> None:
        super().__init__(**kwargs)
        recent = points[-MAX_DAYS:]
        plt = self.plt
        plt.title(t("stats_plot_title", lang))
        values = [round(100 * point.accuracy) for point in recent]
        plt.bar([point.day.strftime("%m-%d") for point in recent], values)
        for position, value in enumerate(values, start=1):
            plt.text(f"{value}%", x=position, y=min(value + LABEL_LIFT, 100), alignment="center", color="default",
                     background="default")
        plt.ylim(0, 100)
        plt.yticks([0, 50, 100])
