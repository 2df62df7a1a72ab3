"""Accuracy over time as a bar chart: one bar per practice day, 0–100 %."""
from __future__ import annotations

from textual_plotext import PlotextPlot

from tutor.i18n import t

MAX_DAYS = 14  # the last two weeks of practice fit side by side at 80 columns


class AccuracyPlot(PlotextPlot):
    """The points of `tutor.progress.stats.accuracy_over_time`, drawn once (the Stats screen recomposes)."""

    def __init__(self, points, lang: str, **kwargs) -> None:
        super().__init__(**kwargs)
        recent = points[-MAX_DAYS:]
        plt = self.plt
        plt.title(t("stats_plot_title", lang))
        plt.bar([point.day.strftime("%m-%d") for point in recent], [round(100 * point.accuracy) for point in recent])
        plt.ylim(0, 100)
        plt.yticks([0, 50, 100])
