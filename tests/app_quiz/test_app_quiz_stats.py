"""The Stats screen: per-concept accuracy, due dates, streak and the accuracy plot; the empty state."""
from datetime import timedelta, timezone

from quiz_clock import NOW
from textual.widgets import DataTable

from tutor.progress import Outcome, ProgressStore
from tutor.progress.scheduler import ConceptScheduler
from tutor.screens.stats import StatsScreen
from tutor.widgets.accuracy_plot import AccuracyPlot

# (days before NOW, concepts, outcome): three practice days in a row, ending today
HISTORY = [
    (2, ("broadcasting",), Outcome.CORRECT),
    (2, ("matmul", "vjp"), Outcome.WRONG),
    (1, ("broadcasting",), Outcome.WRONG),
    (1, ("vjp",), Outcome.REVEALED),
    (1, ("matmul",), Outcome.CORRECT),
    (0, ("broadcasting",), Outcome.CORRECT),
    (0, ("matmul",), Outcome.CORRECT),
]


def seed_history(data_dir) -> None:
    """Record HISTORY through the scheduler (so cards exist), at fixed moments."""
    moment = [NOW]
    with ProgressStore(data_dir=data_dir) as store:
        scheduler = ConceptScheduler(store, now=lambda: moment[0], enable_fuzzing=False)
        for index, (days, concepts, outcome) in enumerate(HISTORY):
            moment[0] = NOW - timedelta(days=days, hours=2) + timedelta(minutes=index)
            scheduler.record(lesson_id="quiz", step_id=f"t#{index}", concepts=concepts, answer="[1]", outcome=outcome)


def stats_screen() -> StatsScreen:
    return StatsScreen(now=lambda: NOW, tz=timezone.utc)


async def test_stats_show_accuracy_per_concept_streak_and_plot(make_app, data_dir):
    seed_history(data_dir)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(stats_screen())
        await pilot.pause()
        screen = app.screen
        summary = str(screen.query_one("#stats-summary").render())
        assert "Streak: 3 days (longest: 3)" in summary
        assert "7 attempts, 57% correct" in summary
        table = screen.query_one("#stats-table", DataTable)
        rows = {str(key.value): [str(cell) for cell in table.get_row(key)] for key in table.rows}
        assert set(rows) == {"broadcasting", "matmul", "vjp"}
        assert rows["broadcasting"][1:3] == ["3", "███████░░░  67%"]
        assert rows["matmul"][1:3] == ["3", "███████░░░  67%"]
        assert rows["vjp"][1:3] == ["2", "░░░░░░░░░░   0%"]
        # a skip or a wrong answer brings a concept back at once; two right answers in a row space it out
        assert rows["vjp"][3] == rows["broadcasting"][3] == "due now"
        assert rows["matmul"][3] == "in 4 days"
        assert list(rows) == ["vjp", "broadcasting", "matmul"]  # most overdue first
        plot = screen.query_one("#stats-plot", AccuracyPlot)
        assert plot.display and plot.size.height >= 8
        drawn = app.export_screenshot()  # each day's bar is labelled (a day at 0 % has no bar to see)
        assert all(f">{value}%<" in drawn for value in (50, 33, 100))
        await pilot.press("f2")  # 日本語: composed again, same numbers
        await pilot.pause()
        assert "連続学習: 3 日" in str(screen.query_one("#stats-summary").render())
        table = screen.query_one("#stats-table", DataTable)
        assert [str(cell) for cell in table.get_row("matmul")] == ["matmul", "3", "███████░░░  67%", "4 日後"]
        # a concept is named by the glossary in Japanese (a tag it lacks, like "matmul", stays as it is)
        assert str(table.get_row("vjp")[0]) == "ベクトル・ヤコビ行列積（VJP）"
        assert str(table.get_row("broadcasting")[0]) == "ブロードキャストと勾配への影響"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, StatsScreen)


async def test_stats_key_opens_the_empty_state(make_app):
    app = make_app(lang="ja")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f5")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        assert "まだ解答がありません" in str(screen.query_one("#stats-summary").render())
        assert not screen.query("#stats-table, #stats-plot")
        await pilot.press("f2")  # English
        await pilot.pause()
        assert "No attempts yet — take a quiz" in str(screen.query_one("#stats-summary").render())


async def test_a_lesson_attempt_reviews_its_concepts_and_reaches_the_stats(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.record_attempt(lesson_id="some-lesson", step_id="s1", concepts=("jacobian",), answer="[1]",
                           outcome="wrong", hints_used=0, duration_ms=900)
        await pilot.press("f5")
        await pilot.pause()
        row = [str(cell) for cell in app.screen.query_one("#stats-table", DataTable).get_row("jacobian")]
        assert row[1:3] == ["1", "░░░░░░░░░░   0%"]
    with ProgressStore(data_dir=data_dir) as store:
        assert "jacobian" in store.cards()  # scheduled for review, like a quiz answer
