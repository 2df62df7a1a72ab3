"""Snapshots at 80x24: the Stats screen on seeded data with a fixed clock, and one quiz question."""
from first_question import question_shown
from test_app_quiz_stats import seed_history, stats_screen

SIZE = (80, 24)


def test_stats_screen_snapshot(snap_compare, make_app, data_dir):
    seed_history(data_dir)

    async def open_stats(pilot):
        await pilot.app.push_screen(stats_screen())
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=open_stats)


def test_quiz_question_snapshot(snap_compare, make_app):
    assert snap_compare(make_app(start="quiz", quiz_seed=1, quiz_count=3), terminal_size=SIZE, run_before=question_shown)
