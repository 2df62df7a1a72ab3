"""The `autograd-tutor` command line.

Each subcommand lives in its own module under `tutor.commands` and is imported
lazily, so `autograd-tutor --help` and the app's start-up stay fast.
"""
from __future__ import annotations

import importlib

import click

# subcommand name -> module under tutor.commands that defines `command`
SUBCOMMANDS: dict[str, str] = {
    "check": "check",
    "class": "class_report",
    "explain": "explain",
    "grade": "grade",
    "install": "install",
    "new": "new",
    "pack": "pack",
    "paths": "paths",
    "progress": "progress",
    "quiz": "quiz",
    "run": "run",
    "serve": "serve",
}


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module only when it is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = SUBCOMMANDS.get(name)
        if module is None:
            return None
        return importlib.import_module(f"tutor.commands.{module}").command

    def main(self, args=None, *rest, **options):
        """Click's own words (usage, errors) in the language the command line asks for (`tutor.commands.click_words`)."""
        import sys

        from tutor.commands.click_words import asked_language, click_speaks

        with click_speaks(asked_language(sys.argv[1:] if args is None else list(args))):
            return super().main(args, *rest, **options)


@click.group(cls=LazyGroup, invoke_without_command=True)
@click.option("--lang", type=click.Choice(["en", "ja"]), default=None,
              help="Language of the app (default: from the locale).")
@click.option("--lessons", "lesson_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, dir_okay=True),
              help="Also load the lessons in DIR (repeatable); edits are picked up while the app runs.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Keep progress and your lessons here (default: $AUTOGRAD_TUTOR_DATA_DIR or the per-user folder).")
@click.option("--theme", type=click.Choice(["dark", "light"]), default="dark", show_default=True,
              help="Colour theme.")
@click.option("--trust-lessons", is_flag=True,
              help="Use lessons from outside the bundled course even where the OS sandbox is not available.")
@click.option("--open", "open_target", metavar="LESSON[:STEP]",
              help="Open this lesson (its id or file) at this step (its id or 1-based number) directly; "
                   "Esc returns to the course.")
@click.pass_context
def main(ctx: click.Context, lang: str | None, lesson_dirs: tuple[str, ...], data_dir: str | None, theme: str,
         trust_lessons: bool, open_target: str | None) -> None:
    """autograd-tutor: predict x.grad, then see why.

    With no subcommand, opens the interactive tutor on the bundled course.
    """
    from tutor.widgets.japanese_wrap import install

    install()  # Japanese paragraphs break between characters, in the app and in `explain`'s panels
    if ctx.invoked_subcommand is None:
        open_at = _open_at(open_target, lesson_dirs, data_dir, lang) if open_target is not None else None
        from tutor.app import TutorApp

        TutorApp(lang=lang, extra_dirs=lesson_dirs, data_dir=data_dir, theme=theme, trust_lessons=trust_lessons,
                 open_at=open_at).run_and_exit()


def _open_at(target: str, lesson_dirs: tuple[str, ...], data_dir: str | None,
             lang: str | None) -> tuple[str, str | None]:
    """Where `--open` goes, checked against the course the app will load; a clear error otherwise."""
    from lessons.course import load_course
    from tutor.commands.open_target import OpenError, resolve
    from tutor.i18n import default_language, t
    from tutor.paths import cache_dir, lessons_dir
    from tutor.untrusted import echo

    lang = lang or default_language()
    course = load_course(lesson_dirs, user_dir=lessons_dir(data_dir), cache_path=cache_dir(data_dir) / "lessons.json")
    for shadow in course.shadowed:  # an author previewing a pack's source: say which copy opens (as `check` does)
        note = t("pack_shadowed", lang, source=shadow.source, name=shadow.name, installed=shadow.installed)
        echo(f"autograd-tutor: {t('check_note', lang, note=note)}", err=True)
    try:
        return resolve(target, course)
    except OpenError as error:
        echo(f"autograd-tutor: --open {target}: {error.message(lang)}", err=True)
        raise SystemExit(error.status) from None
