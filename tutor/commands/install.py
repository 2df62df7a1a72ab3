"""`autograd-tutor install FILE`: check a pack archive and unpack it into the user lesson folder.

The archive is vetted in memory first (`lessons.packs.read_archive`: member names, kinds, sizes,
count, compression ratio, the streams themselves, pack.toml's name), before any sandbox worker
starts, so a hostile archive is refused at once; then the unpacked pack is checked like `check`
would (its programs run in the sandbox) and only a sound pack is moved into place, as
`<lesson folder>/<pack name>/`, with an `INSTALLED_FILE` marker. `--replace` replaces only a folder
with that marker: a learner's own folder of the same name is never deleted. Exit status 0
installed, 1 refused, 2 usage error.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import warnings
from pathlib import Path

import click

from tutor.commands import top_level
from tutor.commands.trust import require_confinement, trust_option
from tutor.untrusted import echo


class _Refused(Exception):
    """Why the pack is not installed (the message follows `not installed: `)."""


@click.command("install")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Replace an installed pack of the same name (another version).")
@trust_option
@click.pass_context
def command(ctx: click.Context, file: Path, replace: bool, trust_lessons: bool) -> None:
    """Install the lesson pack archive FILE (written by `autograd-tutor pack`)."""
    from lessons.packs import ArchiveError, read_archive
    from tutor.paths import lessons_dir

    user_dir = lessons_dir(top_level.given(ctx, "data_dir"))
    try:
        archive = read_archive(file)
        _refuse_to_overwrite(user_dir / archive.name, archive.name, replace)
        require_confinement("install", trust_lessons, ())
        _install(file, archive, user_dir, replace)
    except (ArchiveError, _Refused) as error:
        echo(f"not installed: {error}", err=True)
        sys.exit(1)
    except OSError as error:
        echo(f"not installed: cannot write into {user_dir}: {error.strerror or error}", err=True)
        sys.exit(1)


def _install(file: Path, archive, user_dir: Path, replace: bool) -> None:
    from lessons.folders import INSTALLED_FILE
    from lessons.packs import read_pack
    from tutor.commands.check import check_paths

    staging = archive.unpack(user_dir)
    try:
        pack, problems = read_pack(staging)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = check_paths((staging,), user_dir=None)
        if problems or report.problems:
            for problem in [*problems, *report.problems]:
                echo(str(problem).replace(str(staging), f"{file}!"), err=True)
            raise _Refused("the pack has problems (above); tell its author")
        (staging / INSTALLED_FILE).write_text(json.dumps({"name": pack.name, "version": pack.version,
                                                          "archive": file.name}), encoding="utf-8")
        target = user_dir / pack.name
        _refuse_to_overwrite(target, pack.name, replace)  # again: the folder may have appeared meanwhile
        if target.exists():
            old = target.with_name(f".{pack.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
            os.replace(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    if report.warnings:
        echo(f"{len(report.warnings)} pedagogy warnings (`autograd-tutor check --strict {target}` lists them)")
    echo(f"Installed {pack.name} {pack.version} ({len(pack.lessons)} lesson"
         f"{'s' if len(pack.lessons) != 1 else ''}) into {target}")


def _refuse_to_overwrite(target: Path, name: str, replace: bool) -> None:
    """Only a folder an earlier `install` made (it has the marker) may be replaced, and only when asked."""
    from lessons.folders import INSTALLED_FILE
    from lessons.packs import read_pack

    if not os.path.lexists(target):
        return
    if not (target / INSTALLED_FILE).is_file() or target.is_symlink():
        raise _Refused(f"{target} already exists and was not made by `autograd-tutor install` (your own "
                       f"lessons?); it is left as it is. Rename or move that folder to install the pack '{name}'")
    if not replace:
        installed, _ = read_pack(target)
        version = f" version {installed.version}" if installed is not None else ""
        raise _Refused(f"{name}{version} is already installed in {target}; add --replace to install this "
                       "archive instead")

