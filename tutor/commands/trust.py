"""What the commands do where the OS sandbox cannot be installed.

Lesson files and snippets come from strangers. Where the worker's children cannot be confined
(no seccomp: not Linux, or an unusual processor), only the bundled course runs unless the user
says they trust what they run with `--trust-lessons`.
"""
from __future__ import annotations

import click

from tutor.commands.snippet_file import usage


def require_confinement(command: str, trust: bool, paths=(), profile: str = "full") -> None:
    """Exit with status 2 when the snippet worker cannot start (the tutor's problem: said so, no lesson
    blamed, no sandbox to switch off), or when `command` would run a stranger's code unconfined
    (`paths`: the lesson files or folders it would run; all inside the bundled course is fine)."""
    from engine.sandbox import worker
    from lessons.folders import is_bundled

    confinement = worker(profile).confinement()
    if not confinement.started:
        usage(command, f"{confinement.reason}. This is a problem with the tutor on this computer, not with your "
                       "files; reinstalling autograd-tutor usually fixes it.")
    if confinement.confined or trust or (paths and all(map(is_bundled, paths))):
        return
    usage(command, f"snippets cannot be sandboxed here ({confinement.reason}). Run only files you trust, "
                   "and say so with --trust-lessons.")


trust_option = click.option("--trust-lessons", is_flag=True,
                            help="Run lessons and snippets even where the OS sandbox is not available.")

