"""`autograd-tutor serve`: the tutor in a class's browsers (see `tutor.classroom.server`).

Before the server starts, the teacher is told what the class gets (`tutor.classroom.offer`): the lessons
per pack and folder, and every file that cannot be loaded, which stops the start unless `--allow-broken`.
"""
from __future__ import annotations

import sys

import click


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Only this computer can connect unless you give another one "
                   "(e.g. 0.0.0.0 for the classroom network); then a class code is required.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--class-dir", type=click.Path(file_okay=False), default="class", show_default=True,
              help="The class folder: one progress database per student, and an optional roster.txt.")
@click.option("--lessons", "lesson_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, dir_okay=True),
              help="Also give students the lessons in DIR (repeatable). Your installed packs are served too.")
@click.option("--only", "only", multiple=True, metavar="PACK_OR_DIR",
              help="Serve just this installed pack or lesson folder (repeatable), without the bundled course "
                   "and your other packs.")
@click.option("--allow-broken", is_flag=True,
              help="Start even when some lesson files cannot be loaded (students do not get those lessons).")
@click.option("--class-code", default=None, metavar="CODE",
              help="Students must type this to join (default: none on localhost; generated and printed otherwise).")
@click.option("--max-students", default=40, show_default=True, type=click.IntRange(1, 1000),
              help="Students connected at once; the next one sees a 'class is full' page.")
@click.option("--memory-per-student", default=600, show_default=True, type=click.IntRange(150, 100_000), metavar="MB",
              help="A student's tutor (with its snippet runner) using more memory is stopped; the class uses at "
                   "most --max-students times this.")
@click.pass_context
def command(ctx: click.Context, host: str, port: int, class_dir: str, lesson_dirs: tuple[str, ...],
            only: tuple[str, ...], allow_broken: bool, class_code: str | None, max_students: int,
            memory_per_student: int) -> None:
    """Serve the tutor to students' browsers; each student's progress goes to the class folder."""
    try:
        from tutor.classroom.server import ClassroomServer, ListenError, generate_code, is_local
    except ImportError as error:
        raise click.ClickException(f"{error}. Install the classroom extra: pip install 'autograd-tutor[serve]'") from None
    from tutor.classroom.offer import OfferError, make_offer
    from tutor.commands import top_level
    from tutor.paths import lessons_dir

    lang = top_level.language(ctx)
    if class_code is not None and not class_code.strip():
        raise click.BadParameter("the class code cannot be empty", param_hint="--class-code")
    if class_code is None and not is_local(host):
        class_code = generate_code()
    try:
        offer = make_offer(lessons_dir(top_level.given(ctx, "data_dir")), top_level.given(ctx, "lesson_dirs", lesson_dirs) or (),
                           only)
    except OfferError as error:
        raise click.BadParameter(str(error), param_hint="--only") from None
    if not tell_offer(offer, lang, allow_broken):
        sys.exit(1)
    server = ClassroomServer(class_dir, host=host, port=port, class_code=class_code, max_students=max_students,
                             offer=offer, lang=lang, memory_per_student=memory_per_student * 1024 * 1024)
    try:
        server.serve()
    except ListenError as error:
        from tutor.untrusted import echo

        echo(f"autograd-tutor serve: {error}", err=True)
        sys.exit(1)


def tell_offer(offer, lang: str, allow_broken: bool) -> bool:
    """Print what the class gets and what cannot be loaded; whether the server may start."""
    from tutor.i18n import t
    from tutor.untrusted import plain

    echo = click.echo
    if offer.bundled:
        echo(t("serve_offer_bundled", lang, count=offer.bundled_lessons()))
    for source in offer.sources:
        if source.pack is not None:
            key = "serve_offer_installed_pack" if source.installed else "serve_offer_pack"
            echo(t(key, lang, name=plain(source.pack), count=source.lessons, folder=plain(source.folder)))
        else:
            echo(t("serve_offer_folder", lang, count=source.lessons, folder=plain(source.folder)))
    for folder in offer.shadowed:
        echo(t("serve_offer_shadowed", lang, folder=plain(folder)))
    if offer.broken:
        echo(t("serve_offer_broken", lang, count=len(offer.broken)), err=True)
        for problem in offer.broken:
            echo(f"  {plain(problem.localized(lang))}", err=True)
    if not offer.course.lessons:
        echo(t("serve_offer_empty", lang), err=True)
        return False
    if offer.broken and not allow_broken:
        echo(t("serve_refuse_broken", lang), err=True)
        return False
    return True
