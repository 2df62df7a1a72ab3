"""`autograd-tutor install FILE`: check a pack archive and unpack it into the user lesson folder.

The archive is refused before anything is written when a member escapes the pack folder, is a
link, is too big or is not pack.toml or one of its lessons; then the unpacked pack is checked like
`check` would (its programs run in the sandbox) and only a sound pack is moved into place, as
`<lesson folder>/<pack name>/`. Exit status 0 installed, 1 refused, 2 usage error.
"""
from __future__ import annotations

import os
import shutil
import sys
import warnings
from pathlib import Path

import click

from tutor.commands.trust import require_confinement, trust_option
from tutor.untrusted import echo


@click.command("install")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Replace an installed pack of the same name (another version).")
@trust_option
@click.pass_context
def command(ctx: click.Context, file: Path, replace: bool, trust_lessons: bool) -> None:
    """Install the lesson pack archive FILE (written by `autograd-tutor pack`)."""
    from lessons.packs import ArchiveError, open_archive, read_pack
    from tutor.commands.check import check_paths
    from tutor.paths import lessons_dir

    require_confinement("install", trust_lessons, ())
    user_dir = lessons_dir(ctx.parent.params.get("data_dir") if ctx.parent is not None else None)
    try:
        staging = open_archive(file, user_dir)
    except ArchiveError as error:
        echo(f"not installed: {error}", err=True)
        sys.exit(1)
    try:
        pack, problems = read_pack(staging)
        if pack is not None and not staging.name.startswith(f".{pack.name}-"):
            echo(f"not installed: {file}: its folder is not named after the pack ('{pack.name}')", err=True)
            sys.exit(1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = check_paths((staging,), user_dir=None)
        if problems or report.problems:
            for problem in problems:
                echo(str(problem).replace(str(staging), f"{file}!"), err=True)
            for problem in report.problems:
                echo(str(problem).replace(str(staging), f"{file}!"), err=True)
            echo("not installed: the pack has problems (above); tell its author", err=True)
            sys.exit(1)
        target = user_dir / pack.name
        if target.exists() and not replace:
            installed, _ = read_pack(target)
            version = f" version {installed.version}" if installed is not None else ""
            echo(f"not installed: {pack.name}{version} is already installed in {target}; "
                       f"add --replace to install {pack.version} instead", err=True)
            sys.exit(1)
        if target.exists():
            old = target.with_name(f".{pack.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
            os.replace(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
        if report.warnings:
            echo(f"{len(report.warnings)} pedagogy warnings (`autograd-tutor check --strict {target}` lists them)")
        echo(f"Installed {pack.name} {pack.version} ({len(pack.lessons)} lesson"
                   f"{'s' if len(pack.lessons) != 1 else ''}) into {target}")
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
