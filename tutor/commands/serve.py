"""`autograd-tutor serve`: the tutor in a class's browsers (see `tutor.classroom.server`)."""
from __future__ import annotations

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
              help="Also give students the lessons in DIR (repeatable).")
@click.option("--class-code", default=None, metavar="CODE",
              help="Students must type this to join (default: none on localhost; generated and printed otherwise).")
@click.option("--max-students", default=40, show_default=True, type=click.IntRange(1, 1000),
              help="Students connected at once; the next one sees a 'class is full' page.")
@click.pass_context
def command(ctx: click.Context, host: str, port: int, class_dir: str, lesson_dirs: tuple[str, ...],
            class_code: str | None, max_students: int) -> None:
    """Serve the tutor to students' browsers; each student's progress goes to the class folder."""
    try:
        from tutor.classroom.server import ClassroomServer, generate_code, is_local
    except ImportError as error:
        raise click.ClickException(f"{error}. Install the classroom extra: pip install 'autograd-tutor[serve]'") from None
    from tutor.i18n import default_language

    parent = ctx.parent.params if ctx.parent is not None else {}
    lang = parent.get("lang") or default_language()
    if class_code is not None and not class_code.strip():
        raise click.BadParameter("the class code cannot be empty", param_hint="--class-code")
    if class_code is None and not is_local(host):
        class_code = generate_code()
    server = ClassroomServer(class_dir, host=host, port=port, class_code=class_code, max_students=max_students,
                             lesson_dirs=lesson_dirs or parent.get("lesson_dirs") or (), lang=lang)
    server.serve()
