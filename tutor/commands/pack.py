"""`autograd-tutor pack DIR`: check a lesson pack (a folder with pack.toml) and write it as one archive.

Exit status 0 when the archive was written, 1 when the pack has problems (nothing is written),
2 for a usage error.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import click

from tutor.commands import top_level
from tutor.commands.trust import require_confinement, trust_option
from tutor.i18n import t
from tutor.untrusted import echo


@click.command("pack")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
              help="The archive file or the folder to write it into (default: the current folder).")
@trust_option
@click.pass_context
def command(ctx: click.Context, folder: Path, output: Path | None, trust_lessons: bool) -> None:
    """Check the lesson pack in FOLDER and write NAME-VERSION.zip."""
    from lessons.folders import PACK_FILE
    from lessons.packs import read_pack, write_archive
    from tutor.commands.check import check_paths, print_report
    from tutor.commands.snippet_file import usage
    from tutor.paths import lessons_dir

    lang = top_level.language(ctx)
    if not (folder / PACK_FILE).is_file():
        usage("pack", t("pack_no_pack_file", lang, folder=folder, file=PACK_FILE))
    require_confinement("pack", trust_lessons, (folder,), lang=lang)
    user_dir = lessons_dir(top_level.given(ctx, "data_dir"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = check_paths((folder,), user_dir=user_dir)
    status = print_report(report, strict=False, lang=lang)
    if status:
        echo(t("pack_not_packed", lang, folder=folder), err=True)
        sys.exit(1)
    pack, _ = read_pack(folder)
    target = output if output is not None else Path.cwd()
    try:
        written = write_archive(pack, target)
    except OSError as error:
        echo(t("pack_cannot_write", lang, target=target, reason=error.strerror or error), err=True)
        sys.exit(1)
    echo(t("pack_written", lang, path=written, name=pack.name, version=pack.version, count=len(pack.lessons),
           file=written.name))
