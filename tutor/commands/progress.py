"""`autograd-tutor progress`: a summary of the learner's progress; export and import it as JSON."""
from __future__ import annotations

from datetime import datetime, timezone

import click

from tutor.untrusted import echo


@click.command("progress")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="The folder holding progress.sqlite3 (default: the global --data-dir, "
                   "$AUTOGRAD_TUTOR_DATA_DIR or the per-user folder).")
@click.option("--export", "export_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write all progress to FILE (JSON), to move it to another machine.")
@click.option("--import", "import_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Merge progress exported on another machine (importing twice adds nothing).")
@click.pass_context
def command(ctx: click.Context, data_dir: str | None, export_path: str | None, import_path: str | None) -> None:
    """Print lessons done, accuracy per concept and what is due when; or export/import progress."""
    from tutor.commands import top_level
    from tutor.i18n import t
    from tutor.progress import ProgressError, ProgressStore
    from tutor.progress.exchange import export_json, import_json
    from tutor.untrusted import plain

    if export_path and import_path:
        raise click.UsageError("give either --export FILE or --import FILE, not both")
    try:
        store = ProgressStore(data_dir=top_level.given(ctx, "data_dir", data_dir))
    except ProgressError as error:
        raise click.ClickException(plain(error)) from None
    lang = top_level.language(ctx)
    with store:
        if store.recovered_from is not None:
            echo(t("progress_salvaged", lang, count=store.salvaged["attempts"], path=store.recovered_from), err=True)
        try:
            if export_path:
                count = export_json(store, export_path)
                echo(f"Exported {count} attempts to {export_path}")
            elif import_path:
                changed = import_json(store, import_path)
                echo(f"Imported from {import_path}: {changed['attempts']} new attempts, "
                           f"{changed['positions']} lesson positions, {changed['cards']} review cards updated")
            else:
                echo(summary(store, top_level.lesson_dirs(ctx), top_level.given(ctx, "data_dir", data_dir)))
        except ProgressError as error:
            raise click.ClickException(plain(error)) from None
        finally:
            if store.skipped:
                echo(t("progress_rows_skipped", lang, count=len(store.skipped)), err=True)
                for note in store.skipped:
                    echo(f"  {note}", err=True)


def summary(store, lesson_dirs=(), data_dir=None) -> str:
    """The text `autograd-tutor progress` prints (the course includes `data_dir`'s own lessons)."""
    from lessons.course import load_course
    from tutor.paths import lessons_dir
    from tutor.progress import QUIZ_LESSON, LessonStatus, gradable_step_ids
    from tutor.progress.scheduler import CardState, ConceptScheduler
    from tutor.progress.stats import concept_stats, streak

    now = datetime.now(timezone.utc)
    lines = [f"Progress file: {store.path}", ""]

    course = load_course(lesson_dirs, user_dir=lessons_dir(data_dir))
    statuses = {lesson.id: store.lesson_progress(lesson.id, gradable_step_ids(lesson.steps)) for lesson in course.lessons}
    counts = {status: sum(p.status is status for p in statuses.values()) for status in LessonStatus}
    lines.append(f"Lessons: {counts[LessonStatus.DONE]} done, {counts[LessonStatus.IN_PROGRESS]} in progress, "
                 f"{counts[LessonStatus.NEW]} new")
    for lesson in course.lessons:
        progress = statuses[lesson.id]
        if progress.status is not LessonStatus.NEW:
            lines.append(f"  {progress.status.value:<12} {len(progress.solved)}/{progress.total}  "
                         f"{lesson.id}: {lesson.title.en}")
    unknown = [lesson for lesson in store.lesson_ids() if lesson != QUIZ_LESSON and lesson not in statuses]
    if unknown:
        lines.append(f"  (also progress for lessons not in the course: {', '.join(unknown)})")

    attempts = store.attempts()
    correct = sum(a.outcome.value == "correct" for a in attempts)
    lines.append("")
    if not attempts:
        lines.append("No attempts yet: open a lesson with `autograd-tutor` or try `autograd-tutor quiz`.")
        return "\n".join(lines)
    run = streak(attempts, datetime.now().astimezone().date())
    lines.append(f"Attempts: {len(attempts)}, {correct} correct ({correct / len(attempts):.0%}); "
                 f"streak {run.current} day{'s' * (run.current != 1)} (longest {run.longest})")

    stats = concept_stats(ConceptScheduler(store), now)
    if stats:
        width = max(len("concept"), *(len(s.concept) for s in stats))
        lines += ["", f"{'concept':<{width}}  right  wrong  revealed  accuracy  next review"]
        for s in stats:
            accuracy = f"{s.accuracy:.0%}" if s.accuracy is not None else "-"
            review = "due now" if s.state is CardState.DUE else ("new" if s.due is None else _when(s.due, now))
            lines.append(f"{s.concept:<{width}}  {s.correct:>5}  {s.wrong:>5}  {s.revealed:>8}  {accuracy:>8}  {review}")
    return "\n".join(lines)


def _when(due: datetime, now: datetime) -> str:
    seconds = (due - now).total_seconds()
    if seconds < 3600:
        relative = f"in {max(1, round(seconds / 60))} min"
    elif seconds < 86400:
        relative = f"in {round(seconds / 3600)} h"
    else:
        relative = f"in {round(seconds / 86400)} days"
    return f"{relative} ({due.astimezone().strftime('%Y-%m-%d %H:%M')})"
