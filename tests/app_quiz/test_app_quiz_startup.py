"""`autograd-tutor quiz` at start-up: the first question is drawn from the quiz templates saved beside the
course view's outline, without loading a lesson, and it is the question the loaded course gives."""
from tutor.app import TutorApp
from tutor.screens.quiz import QuizScreen


def quiz_on_the_course(data_dir):
    """`autograd-tutor quiz --seed 3`: seed 3 draws a lesson's template first (a built-in one would not tell the
    two starts apart)."""
    return TutorApp(lang="en", data_dir=data_dir, start="quiz", quiz_seed=3)


async def first_question(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
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
