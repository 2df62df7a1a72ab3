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

    lang = top_level.language(ctx)
    if export_path and import_path:
        from tutor.commands.snippet_file import usage

        usage("progress", t("progress_export_or_import", lang))
    try:
        store = ProgressStore(data_dir=top_level.given(ctx, "data_dir", data_dir))
    except ProgressError as error:
        raise click.ClickException(plain(error.said(lang))) from None
    with store:
        if store.recovered_from is not None:
            echo(t("progress_salvaged", lang, count=store.salvaged["attempts"], path=store.recovered_from), err=True)
        try:
            if export_path:
                count = export_json(store, export_path)
                echo(t("progress_exported", lang, count=count, path=export_path))
            elif import_path:
                changed = import_json(store, import_path)
                echo(t("progress_imported", lang, path=import_path, **changed))
            else:
                echo(summary(store, top_level.lesson_dirs(ctx), top_level.given(ctx, "data_dir", data_dir), lang))
        except ProgressError as error:
            raise click.ClickException(plain(error.said(lang))) from None
        finally:
            if store.skipped:
                echo(t("progress_rows_skipped", lang, count=len(store.skipped)), err=True)
                for note in store.skipped:
                    echo(f"  {note.said(lang)}", err=True)


def summary(store, lesson_dirs=(), data_dir=None, lang: str = "en") -> str:
    """The text `autograd-tutor progress` prints in `lang` (the course includes `data_dir`'s own lessons)."""
    from lessons.course import load_course
    from lessons.glossary import concept_label
    from tutor.i18n import t
    from tutor.paths import lessons_dir
    from tutor.progress import QUIZ_LESSON, LessonStatus, gradable_step_ids
    from tutor.progress.scheduler import ConceptScheduler
    from tutor.progress.stats import concept_stats, streak

    now = datetime.now(timezone.utc)
    lines = [t("progress_file", lang, path=store.path), ""]
    course = load_course(lesson_dirs, user_dir=lessons_dir(data_dir))
    statuses = {lesson.id: store.lesson_progress(lesson.id, gradable_step_ids(lesson.steps)) for lesson in course.lessons}
    counts = {status: sum(p.status is status for p in statuses.values()) for status in LessonStatus}
    lines.append(t("progress_lessons", lang, done=counts[LessonStatus.DONE],
                   in_progress=counts[LessonStatus.IN_PROGRESS], new=counts[LessonStatus.NEW]))
    started = [(lesson, statuses[lesson.id]) for lesson in course.lessons
               if statuses[lesson.id].status is not LessonStatus.NEW]
    lines += _columns([[t(f"status_{progress.status.name.lower()}", lang), f"{len(progress.solved)}/{progress.total}",
                        f"{lesson.id}: {lesson.title.get(lang)}"] for lesson, progress in started], indent="  ")
    unknown = [lesson for lesson in store.lesson_ids() if lesson != QUIZ_LESSON and lesson not in statuses]
    if unknown:
        lines.append("  " + t("progress_unknown_lessons", lang, ids=", ".join(unknown)))
    attempts = store.attempts()
    correct = sum(a.outcome.value == "correct" for a in attempts)
    lines.append("")
    if not attempts:
        lines.append(t("progress_no_attempts", lang))
        return "\n".join(lines)
    run = streak(attempts, datetime.now().astimezone().date())
    lines.append(t("progress_attempts", lang, count=len(attempts), correct=correct,
                   accuracy=f"{correct / len(attempts):.0%}", days=run.current, longest=run.longest))
    stats = concept_stats(ConceptScheduler(store), now)
    if stats:
        header = [t(key, lang) for key in ("col_concept", "col_correct", "col_wrong", "col_revealed", "col_accuracy",
                                            "col_next_review")]
        rows = [[concept_label(s.concept, lang), s.correct, s.wrong, s.revealed,
                 f"{s.accuracy:.0%}" if s.accuracy is not None else "-", _when(s.due, now, lang)] for s in stats]
        lines += ["", *_columns([header, *rows], numbers=(1, 2, 3, 4))]
    return "\n".join(lines)


def _columns(rows: list[list], numbers: tuple[int, ...] = (), indent: str = "") -> list[str]:
    """`rows` as lines of columns two spaces apart, padded by terminal cells (a Japanese character takes two);
    the columns in `numbers` right-aligned."""
    from rich.cells import cell_len

    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max(cell_len(row[column]) for row in cells) for column in range(len(cells[0]))] if cells else []
    lines = []
    for row in cells:
        padded = [(" " * (width - cell_len(cell)) + cell) if column in numbers else
                  (cell + " " * (width - cell_len(cell)) if column < len(row) - 1 else cell)
                  for column, (cell, width) in enumerate(zip(row, widths))]
        lines.append(indent + "  ".join(padded))
    return lines


def _when(due: datetime | None, now: datetime, lang: str) -> str:
    """When a concept is reviewed next: words, and the date for one still to come."""
    from tutor.i18n import t
    from tutor.widgets.due_label import due_label

    words = due_label(due, now, lang)
    if due is None or due <= now:
        return words
    return t("progress_due_at", lang, when=words, date=due.astimezone().strftime("%Y-%m-%d %H:%M"))
