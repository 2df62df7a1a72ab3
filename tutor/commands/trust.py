"""What the commands do where the OS sandbox cannot be installed.

Lesson files and snippets come from strangers. Where the worker's children cannot be confined
(no seccomp: not Linux, or an unusual processor), only the bundled course runs unless the user
says they trust what they run with `--trust-lessons`.
"""
from __future__ import annotations

import click

from tutor.commands.snippet_file import usage


def require_confinement(command: str, trust: bool, paths=(), profile: str = "full", lang: str = "en") -> None:
    """Exit with status 2 when `confinement_refusal` refuses."""
    refusal = confinement_refusal(trust, paths, profile, lang)
    if refusal is not None:
        usage(command, refusal[1])


def confinement_refusal(trust: bool, paths=(), profile: str = "full", lang: str = "en") -> tuple[str, str] | None:
    """(kind, message) when the snippet worker cannot start ("worker_broken": the tutor's problem, said so, no
    lesson blamed, no sandbox to switch off), or when a command would run a stranger's code unconfined
    ("not_sandboxed"; `paths`: the lesson files or folders it would run; all inside the bundled course is fine);
    None when it may go on."""
    from engine.sandbox import worker
    from lessons.folders import is_bundled
    from tutor.i18n import t

    confinement = worker(profile).confinement()
    if not confinement.started:
        return "worker_broken", t("cli_worker_broken", lang, reason=confinement.reason)
    if confinement.confined or trust or (paths and all(map(is_bundled, paths))):
        return None
    return "not_sandboxed", t("cli_not_sandboxed", lang, reason=confinement.reason)


trust_option = click.option("--trust-lessons", is_flag=True,
                            help="Run lessons and snippets even where the OS sandbox is not available.")

