"""`autograd-tutor quiz` at start-up: the first question is drawn from the quiz templates saved beside the
course view's outline, without loading a lesson, and it is the question the loaded course gives."""
import threading

import pytest
from first_question import question_shown

from tutor.app import TutorApp
from tutor.screens.quiz import QuizScreen


def quiz_on_the_course(data_dir):
    """`autograd-tutor quiz --seed 3`: seed 3 draws a lesson's template first (a built-in one would not tell the
    two starts apart)."""
    return TutorApp(lang="en", data_dir=data_dir, start="quiz", quiz_seed=3)


async def first_question(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await question_shown(pilot)
        assert isinstance(app.screen, QuizScreen)
        return app.screen.question, app._course is None


async def test_the_first_question_needs_no_lesson_loaded_and_is_the_course_s(data_dir, monkeypatch):
    monkeypatch.setattr("tutor.app.COURSE_LOAD_SECONDS", 600)  # the lessons load only when something needs them
    loaded, was_unloaded = await first_question(quiz_on_the_course(data_dir))
    assert not was_unloaded and "/" in loaded.template_id  # no outline yet: the course loaded for the quiz
    assert (data_dir / "cache" / "quiz.json").is_file()
    saved, was_unloaded = await first_question(quiz_on_the_course(data_dir))
    assert was_unloaded
    assert (saved.id, saved.step, saved.answer.value.tolist()) == (loaded.id, loaded.step, loaded.answer.value.tolist())
    assert saved.lesson.title == loaded.lesson.title and saved.lesson.source == loaded.lesson.source


async def test_without_a_readable_quiz_part_the_lessons_load(data_dir):
    await first_question(quiz_on_the_course(data_dir))
    (data_dir / "cache" / "quiz.json").write_text("{damaged", encoding="utf-8")
    question, was_unloaded = await first_question(quiz_on_the_course(data_dir))
    assert not was_unloaded and "/" in question.template_id


async def preparing_said(pilot) -> None:
    """Until the quiz screen says it prepares a question (its notice comes on a timer)."""
    for _ in range(100):
        await pilot.pause(0.01)
        if pilot.app.screen.query("#preparing"):
            return
    raise AssertionError("no preparing notice")


@pytest.fixture
def slow_worker(monkeypatch):
    """The snippet worker busy (starting, or preloading explanations): making a question blocks its thread until the
    test sets the returned event. Made on the event loop, it would freeze the screen."""
    from tutor.quiz import session

    release = threading.Event()
    made = []

    def held(template, seed):
        release.wait(timeout=20)
        made.append(session.generate.__wrapped__(template, seed))
        return made[-1]

    held.__wrapped__ = session.generate
    monkeypatch.setattr(session, "generate", held)
    monkeypatch.setattr("tutor.screens.quiz.PREPARING_DELAY", 0.01)
    release.made = made
    return release


async def test_while_the_worker_is_busy_the_quiz_says_it_prepares_and_answers_keys(make_app, slow_worker):
    """While the question is made, the quiz screen says so (in the learner's language: F2 works meanwhile), only
    leaving is offered, and the question comes once the worker answers."""
    from tutor.screens.confirm import ConfirmScreen
    from tutor.screens.course import CourseScreen

    app = make_app(start="quiz", quiz_seed=1, quiz_count=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await preparing_said(pilot)
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.question is None
        assert "Preparing the first question" in str(screen.query_one("#preparing").render())
        assert "Question 1 of 2" in str(screen.query_one("#progress").render())
        await pilot.press("enter", "s", "h", "e", "r", "n")  # nothing to answer yet: nothing happens
        await pilot.pause()
        assert app.screen is screen and screen.question is None
        await pilot.press("f2")
        await pilot.pause()
        assert "最初の問題を準備しています" in str(screen.query_one("#preparing").render())
        await pilot.press("f2")
        slow_worker.set()
        await question_shown(pilot)
        assert app.screen is screen and not screen.query("#preparing") and screen.query("#snippet")
        assert screen.question is slow_worker.made[0]
        await pilot.press("escape", "escape")  # once a question is shown, leaving asks first, as ever
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)


async def test_a_later_question_made_while_the_worker_is_busy_takes_the_first_one_s_path(make_app, slow_worker):
    """`n` while the worker is busy: as for the first question, the screen says it prepares the next one (in place of
    the answered one, whose keys go with it; F2 switches the notice too), a second `n` asks for no second question,
    and the next one comes when the worker answers."""
    app = make_app(start="quiz", quiz_seed=1, quiz_count=3)
    async with app.run_test(size=(80, 24)) as pilot:
        slow_worker.set()
        await question_shown(pilot)
        screen = app.screen
        first = screen.question
        slow_worker.clear()
        await pilot.press("escape", "s", "n")
        await preparing_said(pilot)
        assert screen.drawing and screen.question is first
        assert "Preparing the next question" in str(screen.query_one("#preparing").render())
        assert not screen.query("#snippet") and not screen.query("#feedback")  # the answered question went
        assert [screen.check_action(key, ()) for key in ("next", "show_answer", "explain", "hint")] == [False] * 4
        await pilot.press("n", "s", "h", "e", "f2")
        await pilot.pause()
        assert app.lang == "ja" and screen.question is first and len(slow_worker.made) == 1
        assert "次の問題を準備しています" in str(screen.query_one("#preparing").render())
        slow_worker.set()
        await question_shown(pilot)
        assert screen.question is not first and screen.question is slow_worker.made[1] and len(slow_worker.made) == 2
        assert not screen.query("#preparing") and screen.query("#snippet")
        assert "問題 2 / 3" in str(screen.query_one("#progress").render())


async def test_esc_while_the_first_question_is_made_leaves_at_once_and_records_nothing(make_app, slow_worker,
                                                                                        data_dir):
    from tutor.paths import database_path
    from tutor.progress import ProgressStore
    from tutor.screens.course import CourseScreen

    app = make_app(start="quiz", quiz_seed=1)
    messages = []
    app.notify = lambda message, **options: messages.append(str(message))
    async with app.run_test(size=(80, 24)) as pilot:
        await preparing_said(pilot)
        await pilot.press("escape")  # nothing answered yet: nothing to ask about
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)
        slow_worker.set()  # the question made after all is dropped
        for _ in range(200):
            await pilot.pause(0.01)
            if slow_worker.made:
                break
        await pilot.pause(0.05)
        assert slow_worker.made and isinstance(app.screen, CourseScreen)
    assert messages == []
    with ProgressStore(database_path(data_dir)) as store:
        assert store.attempts() == []


async def test_a_question_that_comes_at_once_is_not_preceded_by_a_preparing_notice(make_app, monkeypatch):
    """A question made within PREPARING_DELAY (here: at once) is shown without a "Preparing…" flashed first."""
    from tutor.quiz import builtin_templates, generate, session

    ready = generate(builtin_templates()[0], 1)
    monkeypatch.setattr(session, "generate", lambda template, seed: ready)
    notices = []
    monkeypatch.setattr(QuizScreen, "_say_preparing", lambda screen: notices.append(screen.question))
    app = make_app(quiz_seed=1, quiz_count=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        await question_shown(pilot)
        assert app.screen.question is ready and not app.screen.query("#preparing")
        await pilot.pause(0.4)  # past PREPARING_DELAY
    assert notices == []


@pytest.mark.parametrize("lang, says", [("en", ("The quiz cannot start", "no quiz template")),
                                         ("ja", ("クイズを開始できません", "どのクイズテンプレートからも問題を作れません"))])
async def test_a_first_question_that_cannot_be_made_says_why_and_returns_to_the_course(make_app, monkeypatch, lang,
                                                                                      says):
    """Why, in the learner's language (the QuizError's own words too)."""
    from tutor.quiz import QuizError, QuizSession
    from tutor.screens.course import CourseScreen

    def broken(self, order):
        raise QuizError("quiz_no_template")

    monkeypatch.setattr(QuizSession, "draw", broken)
    app = make_app(lang=lang, start="quiz", quiz_seed=1)
    messages = []
    app.notify = lambda message, **options: messages.append(str(message))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            await pilot.pause()
            if isinstance(app.screen, CourseScreen):
                break
            await app.workers.wait_for_complete()
        assert isinstance(app.screen, CourseScreen)
    assert any(all(part in message for part in says) for message in messages), messages
