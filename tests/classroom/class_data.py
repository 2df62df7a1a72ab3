"""A class folder with students and their answers, on the app tests' fixture lesson (no bundled course)."""
from datetime import datetime, timedelta, timezone
from pathlib import Path

COURSE = Path(__file__).parent.parent / "app" / "fixtures" / "course"
LESSON = "fixture-squares"
GRADABLE = ("predict-grad", "predict-matrix", "predict-flag", "nonscalar", "why-argument")
START = datetime(2025, 5, 1, 9, 0, tzinfo=timezone.utc)


def answer(folder, name, answers, *, quiz=0):
    """Record `answers` [(step, outcome)] for `name`, one minute apart, in the fixture lesson."""
    from tutor.progress import ProgressStore

    student = folder.student(name, create=True)
    with ProgressStore(student.database) as store:
        for minute, (step, outcome) in enumerate(answers):
            store.record_attempt(lesson_id=LESSON, step_id=step, concepts=["vjp"], answer="1", outcome=outcome,
                                 at=START + timedelta(minutes=minute))
        for number in range(quiz):
            store.record_attempt(lesson_id="quiz", step_id=f"t#{number}", concepts=["vjp"], answer="1",
                                 outcome="wrong", at=START + timedelta(hours=1))
    return student


def make_class(path):
    """Alice did the whole lesson right first time; Bob got predict-flag wrong then right; Chloé only joined."""
    from tutor.classroom.folder import ClassFolder

    folder = ClassFolder(path)
    answer(folder, "Alice", [(step, "correct") for step in GRADABLE], quiz=2)
    answer(folder, "Bob", [("predict-grad", "correct"), ("predict-flag", "wrong"), ("predict-flag", "correct"),
                           ("nonscalar", "revealed")])
    folder.student("Chloé", create=True)
    return folder.path
