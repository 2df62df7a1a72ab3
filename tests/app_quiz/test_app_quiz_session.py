"""A whole quiz in the app: typed right and wrong answers, a skip, the summary, the attempts on disk."""
import numpy as np
from first_question import question_shown
from textual.widgets import DataTable, Input

from tutor.progress import Outcome, ProgressStore
from tutor.quiz import QuizSession, builtin_templates
from tutor.screens.course import CourseScreen
from tutor.screens.quiz import QuizScreen
from tutor.screens.quiz_summary import QuizSummaryScreen
from tutor.screens.stats import StatsScreen
from tutor.widgets.answer_grid import AnswerGrid, format_cell


def as_text(values) -> str:
    """An answer the way a learner types it: nested lists of short decimals."""
    array = np.asarray(values, dtype=float)
    if array.ndim == 0:
        return format_cell(float(array))
    return "[" + ", ".join(as_text(row) for row in array) + "]"


def feedback(screen) -> str:
    return str(screen.query_one("#feedback").render())


async def type_answer(pilot, text: str) -> None:
    whole = pilot.app.screen.query_one("#whole", Input)
    whole.focus()
    await pilot.press(*text, "enter")
    await pilot.pause()


async def test_full_quiz_session_is_marked_summarised_and_recorded(make_app, data_dir):
    app = make_app(start="quiz", quiz_seed=1, quiz_count=3)
    asked = []
    async with app.run_test(size=(80, 24)) as pilot:
        await question_shown(pilot)
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        assert "Question 1 of 3" in str(screen.query_one("#progress").render())

        # 1: the engine's own answer, typed -> correct, every cell marked right
        question = screen.question
        asked.append(question.id)
        assert question.kind == "predict" and question.answer.kind == "tensor"
        assert screen.query_one("#snippet .code")  # the question's code cell is on screen
        await type_answer(pilot, as_text(question.answer.value))
        assert "Correct!" in feedback(screen)
        grid = screen.query_one("#grid", AnswerGrid)
        assert np.array(grid.marks).size == question.answer.value.size and np.all(grid.marks)
        assert "→" not in str(grid.render())
        await pilot.press("enter")  # Enter again: the next question
        await question_shown(pilot)

        # 2: every cell off by one -> wrong, cells marked, correct values shown beside
        question = screen.question
        asked.append(question.id)
        assert question.id != asked[0]
        assert "Question 2 of 3" in str(screen.query_one("#progress").render())
        await type_answer(pilot, as_text(np.asarray(question.answer.value) + 1))
        assert "Not quite." in feedback(screen)
        grid = screen.query_one("#grid", AnswerGrid)
        assert not np.any(grid.marks)
        drawn = str(grid.render())  # each wrong cell has the correct value under it
        assert "→" not in drawn  # the values stay hidden: the learner may try again
        assert "The answer is" not in feedback(screen)

        # 3: revealed (the answer shown at once) from outside the editor
        await pilot.press("escape", "n")
        await question_shown(pilot)
        question = screen.question
        asked.append(question.id)
        await pilot.press("escape", "s")
        await pilot.pause()
        assert "The answer is shown" in feedback(screen)
        await pilot.press("enter")
        await pilot.pause()

        summary = app.screen
        assert isinstance(summary, QuizSummaryScreen)
        assert "1 correct, 1 wrong, 1 shown of 3" in str(summary.query_one("#summary-total").render())
        table = summary.query_one("#summary-table", DataTable)
        concepts = {str(key.value) for key in table.rows}
        assert concepts == set(summary.summary.concepts)
        for concept in concepts:
            row = table.get_row(concept)
            tally = summary.summary.concepts[concept]
            assert [str(cell) for cell in row[1:4]] == [str(tally.correct), str(tally.wrong), str(tally.revealed)]
            assert row[4]  # when it comes back
        await pilot.press("f2")  # 日本語
        await pilot.pause()
        assert "3 問中 正解 1・不正解 1・答えを表示 1" in str(summary.query_one("#summary-total").render())
        await pilot.press("t")  # on to the Stats screen, which counts this quiz
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        assert "解答 3 回" in str(app.screen.query_one("#stats-summary").render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)

    with ProgressStore(data_dir=data_dir) as store:
        attempts = store.attempts("quiz")
        cards = store.cards()
    assert [a.step_id for a in attempts] == asked
    assert [a.outcome for a in attempts] == [Outcome.CORRECT, Outcome.WRONG, Outcome.REVEALED]
    assert all(a.duration_ms is not None and a.hints_used == 0 for a in attempts)
    assert {c for a in attempts for c in a.concepts} <= set(cards)


async def test_hints_count_and_explanation_opens_after_an_answer(make_app, data_dir):
    app = make_app(start="quiz", quiz_seed=1, quiz_count=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await question_shown(pilot)
        screen = app.screen
        question = screen.question
        await pilot.press("escape", "e")  # not before an attempt
        await pilot.pause()
        assert screen is app.screen
        await pilot.press("h")
        await pilot.pause()
        assert screen.query_one("#hints").display
        assert "Hint 1 of" in screen.query_one("#hints").source
        await type_answer(pilot, as_text(question.answer.value))
        await pilot.press("e")  # the answer moved focus out of the editor
        await pilot.pause()
        from tutor.screens.reveal import RevealScreen

        assert isinstance(app.screen, RevealScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
    with ProgressStore(data_dir=data_dir) as store:
        [attempt] = store.attempts("quiz")
    assert attempt.outcome is Outcome.CORRECT and attempt.hints_used == 1


async def test_a_malformed_answer_costs_nothing_and_next_waits_for_an_answer(make_app, data_dir):
    app = make_app(start="quiz", quiz_seed=1, quiz_count=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await question_shown(pilot)
        screen = app.screen
        first = screen.question.id
        await type_answer(pilot, "[1, 2, 3, 4, 5, 6, 7]")
        assert "Expected shape" in feedback(screen)
        await pilot.press("escape", "n")
        await pilot.pause()
        assert screen.question.id == first
    with ProgressStore(data_dir=data_dir) as store:
        assert store.attempts("quiz") == []


async def test_error_question_is_answered_by_choice(make_app, data_dir):
    from tutor.progress.scheduler import ConceptScheduler

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        errors = [template for template in builtin_templates() if template.source.kind == "error"]
        session = QuizSession(ConceptScheduler(app.store), errors, count=1, seed=5)
        screen = QuizScreen(session)
        await app.push_screen(screen)
        await question_shown(pilot)
        answer = screen.question.answer
        assert answer.kind == "error"
        choices = screen.query_one("#choices")
        choices.focus()
        choices.highlighted = answer.value
        await pilot.press("enter")
        await pilot.pause()
        assert "Correct!" in feedback(screen)
        assert "✓" in str(choices.get_option_at_index(answer.value).prompt)
    with ProgressStore(data_dir=data_dir) as store:
        assert [a.outcome for a in store.attempts("quiz")] == [Outcome.CORRECT]


async def test_quiz_and_stats_are_in_the_command_palette(make_app):
    app = make_app(lang="ja")
    async with app.run_test(size=(80, 24)) as pilot:
        titles = {command.title: command for command in app.get_system_commands(app.screen)}
        assert {"クイズ", "統計"} <= set(titles)
        titles["クイズ"].callback()
        await question_shown(pilot)
        assert isinstance(app.screen, QuizScreen)
        assert "クイズ" in app.screen.sub_title
        from lessons.glossary import concept_name  # the question's concepts by their Japanese names, not tags
        names = [concept_name(c, "ja") for c in app.screen.question.concepts]
        assert app.screen.sub_title == "クイズ · " + "、".join(names)  # a Japanese list: 、 between its items
        assert not any(c in app.screen.sub_title for c in app.screen.question.concepts if c != concept_name(c, "ja"))


async def test_quiz_without_a_progress_file_says_why(tmp_path):
    from tutor.app import TutorApp

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    app = TutorApp(lang="en", data_dir=blocker, include_bundled=False, start="quiz")
    messages = []
    app.notify = lambda message, **options: messages.append(str(message))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)
    assert any("The quiz cannot start" in message for message in messages)


async def test_a_quiz_whose_templates_fail_ends_with_its_summary(make_app, monkeypatch):
    from tutor.quiz import QuizError

    app = make_app(start="quiz", quiz_seed=1, quiz_count=3)
    messages = []
    async with app.run_test(size=(80, 24)) as pilot:
        await question_shown(pilot)
        screen = app.screen
        await pilot.press("escape", "s")
        await pilot.pause()

        def broken(order):
            raise QuizError("quiz template 'x' (seed 1) gave no usable question")

        monkeypatch.setattr(screen.session, "draw", broken)
        monkeypatch.setattr(screen, "notify", lambda message, **options: messages.append(message))
        await pilot.press("n")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, QuizSummaryScreen)
        assert "0 correct, 0 wrong, 1 shown of 1" in str(app.screen.query_one("#summary-total").render())
    assert messages and messages[0].startswith("The quiz stopped early: quiz template 'x'")
