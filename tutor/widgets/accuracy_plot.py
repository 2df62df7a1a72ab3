"""Accuracy over time as a bar chart: one bar per practice day, 0–100 %."""
from __future__ import annotations

from textual_plotext import PlotextPlot

from tutor.i18n import t

MAX_DAYS = 14  # the last two weeks of practice fit side by side at 80 columns


class AccuracyPlot(PlotextPlot):
    """Shows `tutor.progress.stats.accuracy_over_time` points; the Stats screen calls `show`."""

    def show(self, points, lang: str) -> None:
        recent = points[-MAX_DAYS:]
        plt = self.plt
        plt.clear_data()
        plt.title(t("stats_plot_title", lang))
        plt.bar([point.day.strftime("%m-%d") for point in recent], [round(100 * point.accuracy) for point in recent])
        plt.ylim(0, 100)
        plt.yticks([0, 50, 100])
        self.refresh()
