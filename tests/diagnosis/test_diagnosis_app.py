"""The step view's verdict names the misconception behind a wrong prediction (EN and JA), and the picture
of it at 80x24 (tests/diagnosis/pictures/, rendered to PNG and looked at before committing)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tutor.app import TutorApp

PICTURES = os.environ.get("DIAGNOSIS_PICTURES")  # a folder: also save the verdict as SVG there


async def _wrong_answer(pilot, text: str) -> str:
    """The feedback once the diagnosis (computed off the UI thread) has come."""
    screen = pilot.app.screen
    whole = screen.query_one("#whole")
    whole.focus()
    whole.value = text
    await pilot.press("enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return str(screen.query_one("#feedback").render())


@pytest.mark.parametrize("lang, says", [
    ("en", ["Not quite.", "Misconception: Every number of yours is 6× the answer: that is “mean without 1/n”.",
            "This step teaches it."]),   # (the step that teaches it is this one: it says so)
    ("ja", ["残念、不正解です。", "つまずき: あなたの答えはどの値も正解の 6 倍です。", "まさにこのステップで学ぶ内容です。"]),
])
async def test_the_verdict_names_the_misconception_in_the_learners_numbers(data_dir, lang, says):
    app = TutorApp(lang=lang, data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("trying-autograd", "mean-grad")
        await pilot.pause()
        feedback = " ".join((await _wrong_answer(pilot, "[[7, 8, 9], [10, 11, 12]]")).split())
        for part in says:
            assert " ".join(part.split()) in feedback, feedback
        if PICTURES:
            app.save_screenshot(filename=f"verdict-{lang}.svg", path=PICTURES)
        # a random wrong answer: the usual feedback, no name
        feedback = await _wrong_answer(pilot, "[[2, 5, 1], [0, 3, 9]]")
        assert "Not quite" in feedback or "残念" in feedback
        assert "Misconception" not in feedback and "つまずき" not in feedback


async def test_a_diagnosis_follows_a_language_switch(data_dir):
    app = TutorApp(lang="en", data_dir=data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_lesson("reduction-gradients", "column-means")
        await pilot.pause()
        feedback = await _wrong_answer(pilot, "[[1, 2, 3], [1, 2, 3]]")
        assert "mean without 1/n" in " ".join(feedback.split())
        screen = app.screen
        app.lang = "ja"
        screen.query_one("StepView")._show_verdict("ja")
        await pilot.pause()
        assert "1/n を忘れた平均" in str(screen.query_one("#feedback").render())


def test_pictures_folder_is_optional():
    assert PICTURES is None or Path(PICTURES).is_dir()


@pytest.mark.parametrize("lang, says", [("en", ["Misconceptions diagnosed", "mean without 1/n: 2×",
                                                "(last: “Trying autograd”, step 6)"]),
                                        ("ja", ["不正解の予想から見つかったつまずき", "1/n を忘れた平均: 2 回",
                                                "（最後は「Autograd を試す」のステップ 6）"])])
async def test_the_stats_screen_lists_the_diagnosed_misconceptions(data_dir, lang, says):
    from datetime import datetime, timezone

    from tutor.progress import ProgressStore

    with ProgressStore(data_dir=data_dir) as store:
        for minute in range(2):
            store.record_attempt(lesson_id="trying-autograd", step_id="mean-grad", concepts=["mean-gradient"],
                                 answer="[[7, 8, 9], [10, 11, 12]]", outcome="wrong", misconception="mean-without-n",
                                 at=datetime(2025, 5, 1, 9, minute, tzinfo=timezone.utc))
    app = TutorApp(lang=lang, data_dir=data_dir)
    async with app.run_test(size=(100, 40)) as pilot:
        app.open_stats()
        await pilot.pause()
        shown = str(app.screen.query_one("#stats-misconceptions").render())
        for part in says:
            assert part in shown, shown
        assert "trying-autograd" not in shown and "mean-grad" not in shown  # the learner knows titles, not ids
        if PICTURES:
            app.save_screenshot(filename=f"stats-{lang}.svg", path=PICTURES)


def test_the_diagnosis_points_only_to_a_lesson_of_the_learners_course():
    """A class served only a pack: the misconception is named and explained, but no bundled lesson it does not
    have is pointed to (by its raw id)."""
    from types import SimpleNamespace

    import numpy as np

    from lessons.misconceptions import CATALOGUE
    from tutor.grading import diagnosis_message

    entry = next(iter(CATALOGUE.values()))
    found = SimpleNamespace(id=entry.id, believed=SimpleNamespace(value=np.array([1.0, 1.0, 1.0])))
    answer = SimpleNamespace(value=np.array([2.0, 4.0, 6.0]))
    for lang in ("en", "ja"):
        alone = diagnosis_message(found, answer, [1, 1, 1], lang, titles={"my-pack/layer-norm": "Layer norm"})
        assert entry.lesson_id not in alone and entry.step_id not in alone
        assert (entry.name.get(lang) or entry.name["en"]) in alone
        taught = diagnosis_message(found, answer, [1, 1, 1], lang, titles={entry.lesson_id: "The lesson"})
        assert "The lesson" in taught and entry.step_id in taught


def _hold_the_diagnosis(monkeypatch):
    """The buggy rules' sandbox job held until the returned event is set, with no cached answers; `jobs` records,
    per job, whether it ran on the UI (main) thread."""
    import threading

    import engine.sandbox.client as client
    import lessons.misconceptions as misconceptions

    monkeypatch.setattr(misconceptions, "_CACHE", {})
    real, release, jobs = client.believed_answers, threading.Event(), []

    def held(*args, **kwargs):
        jobs.append(threading.current_thread() is threading.main_thread())
        assert release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(client, "believed_answers", held)
    return release, jobs


async def _mean_grad_answered_wrongly(app, pilot):
    """010 mean-grad opened and answered with t2 itself (the mean without its 1/n); the answer field."""
    app.open_lesson("trying-autograd", "mean-grad")
    await pilot.pause()
    whole = app.screen.query_one("#whole")
    whole.focus()
    whole.value = "[[7, 8, 9], [10, 11, 12]]"
    await pilot.press("enter")
    await pilot.pause()
    return whole


async def test_the_diagnosis_comes_off_the_ui_thread_and_the_screen_stays_responsive(data_dir, monkeypatch):
    """The verdict at once; while the buggy rules run (held here until the test lets them go) the learner can
    type; then the diagnosis line follows and the attempt is recorded with it. A second wrong answer to the
    step uses the cached buggy answers: no second sandbox job."""
    from tutor.progress import ProgressStore

    release, jobs = _hold_the_diagnosis(monkeypatch)
    app = TutorApp(lang="en", data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        whole = await _mean_grad_answered_wrongly(app, pilot)
        feedback = app.screen.query_one("#feedback")
        assert "Not quite" in str(feedback.render()) and "Misconception" not in str(feedback.render())
        await pilot.press("end", "backspace")   # the UI answers while the diagnosis is computed
        await pilot.pause()
        assert whole.value == "[[7, 8, 9], [10, 11, 12]"
        assert jobs == [False]                  # one job, in a worker thread
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = " ".join(str(feedback.render()).split())
        assert "Misconception: Every number of yours is 6× the answer" in shown
        second = " ".join((await _wrong_answer(pilot, "[[1, 2, 3], [4, 5, 6]]")).split())
        assert "Not quite" in second and jobs == [False]   # the cache: no second job
    with ProgressStore(data_dir=data_dir) as store:
        attempts = [a for a in store.attempts() if a.step_id == "mean-grad"]
    assert [a.misconception for a in attempts][:1] == ["mean-without-n"]


async def test_a_wrongly_shaped_answer_that_a_misconception_explains_is_graded_and_named(data_dir):
    app = TutorApp(lang="en", data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("broadcasting-gradients", "row-times-matrix")
        await pilot.pause()
        feedback = " ".join((await _wrong_answer(pilot, "[[10, 20, 30], [40, 50, 60]]")).split())
        assert "Not quite" in feedback and "“broadcast gradient not summed”" in feedback, feedback
        assert "(Your answer has the shape (2, 3); the answer has the shape (3,).)" in feedback, feedback
        if PICTURES:
            app.save_screenshot(filename="verdict-shape-en.svg", path=PICTURES)
        refused = " ".join((await _wrong_answer(pilot, "[[1, 2, 3], [4, 5, 6]]")).split())
        assert "shape" in refused and "Misconception" not in refused, refused


async def test_attempts_keep_their_order_when_the_learner_moves_on_before_the_diagnosis(data_dir, monkeypatch):
    """A wrong answer waits for its diagnosis to be recorded with it; showing the answer meanwhile records the
    wrong attempt first (without the diagnosis, which has not come), then the reveal — never the other way."""
    from tutor.progress import ProgressStore

    release, _ = _hold_the_diagnosis(monkeypatch)
    app = TutorApp(lang="en", data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await _mean_grad_answered_wrongly(app, pilot)
        await pilot.press("escape", "s")
        await pilot.pause()
        assert "The answer is shown" in str(app.screen.query_one("#feedback").render())
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
    with ProgressStore(data_dir=data_dir) as store:
        attempts = [(a.outcome, a.misconception) for a in store.attempts() if a.step_id == "mean-grad"]
    assert attempts == [("wrong", None), ("revealed", None)]
