"""`autograd-tutor quiz`: open the tutor directly on a quiz session."""
from __future__ import annotations

import click

from tutor.commands.trust import trust_option

MAX_COUNT = 200  # a session longer than this is a typo, not a study plan


@click.command("quiz")
@click.option("--seed", type=click.IntRange(min=0), default=None, metavar="N",
              help="Ask the same questions again: the same seed over the same progress gives the same quiz.")
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=10, show_default=True, metavar="N",
              help="Number of questions.")
@click.option("--lang", type=click.Choice(["en", "ja"]), default=None,
              help="Language of the app (default: the global --lang, else from the locale).")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Keep progress here (default: the global --data-dir, $AUTOGRAD_TUTOR_DATA_DIR or the per-user folder).")
@click.option("--lessons", "lesson_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, dir_okay=True),
              help="Also use the quiz templates of the lessons in DIR (repeatable).")
@trust_option
@click.pass_context
def command(ctx: click.Context, seed: int | None, count: int, lang: str | None, data_dir: str | None,
            lesson_dirs: tuple[str, ...], trust_lessons: bool) -> None:
    """A quiz on the concepts due for review, then new ones; answers are recorded and rescheduled (FSRS)."""
    from tutor import worker_start

    worker_start.start()  # before the app is imported: the first question waits for the worker
    from tutor.app import TutorApp
    from tutor.commands import top_level

    TutorApp(
        lang=top_level.given(ctx, "lang", lang),
        extra_dirs=top_level.lesson_dirs(ctx, lesson_dirs),
        data_dir=top_level.given(ctx, "data_dir", data_dir),
        theme=top_level.given(ctx, "theme") or "dark",
        start="quiz",
        quiz_seed=seed,
        quiz_count=count,
        trust_lessons=bool(top_level.given(ctx, "trust_lessons", trust_lessons)),
    ).run_and_exit()
