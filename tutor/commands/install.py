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
from tutor.i18n import t
from tutor.untrusted import echo


class _Refused(Exception):
    """Why the pack is not installed (the i18n string `key`, said after `not installed: `)."""

    def __init__(self, key: str, **params) -> None:
        super().__init__(t(key, "en", **params))
        self.key, self.params = key, params

    def message(self, lang: str) -> str:
        return t(self.key, lang, **self.params)


@click.command("install")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Replace an installed pack of the same name (another version).")
@trust_option
@click.pass_context
def command(ctx: click.Context, file: Path, replace: bool, trust_lessons: bool) -> None:
    """Install the lesson pack archive FILE (written by `autograd-tutor pack`)."""
    from lessons.packs import ArchiveError, read_archive
    from tutor.paths import lessons_dir

    lang = top_level.language(ctx)
    user_dir = lessons_dir(top_level.given(ctx, "data_dir"))
    try:
        archive = read_archive(file)
        _refuse_to_overwrite(user_dir / archive.name, archive.name, replace)
        require_confinement("install", trust_lessons, (), lang=lang)
        _install(file, archive, user_dir, replace, lang)
    except _Refused as error:
        echo(t("install_refused", lang, reason=error.message(lang)), err=True)
        sys.exit(1)
    except ArchiveError as error:
        echo(t("install_refused", lang, reason=error.localized(lang)), err=True)
        sys.exit(1)
    except OSError as error:
        reason = t("install_cannot_write", lang, folder=user_dir, reason=error.strerror or error)
        echo(t("install_refused", lang, reason=reason), err=True)
        sys.exit(1)


def _install(file: Path, archive, user_dir: Path, replace: bool, lang: str) -> None:
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
                echo(problem.localized(lang).replace(str(staging), f"{file}!"), err=True)
            raise _Refused("install_pack_problems")
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
        echo(t("install_warnings", lang, count=len(report.warnings), target=target))
    echo(t("install_done", lang, name=pack.name, version=pack.version, count=len(pack.lessons), target=target))


def _refuse_to_overwrite(target: Path, name: str, replace: bool) -> None:
    """Only a folder an earlier `install` made (it has the marker) may be replaced, and only when asked."""
    from lessons.folders import INSTALLED_FILE
    from lessons.packs import read_pack

    if not os.path.lexists(target):
        return
    if not (target / INSTALLED_FILE).is_file() or target.is_symlink():
        raise _Refused("install_not_ours", target=target, name=name)
    if not replace:
        installed, _ = read_pack(target)
        if installed is None:
            raise _Refused("install_already", name=name, target=target)
        raise _Refused("install_already_version", name=name, version=installed.version, target=target)

