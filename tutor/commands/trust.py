"""What the commands do where the OS sandbox cannot be installed.

Lesson files and snippets come from strangers. Where the worker's children cannot be confined
(no seccomp: not Linux, or an unusual processor), only the bundled course runs unless the user
says they trust what they run with `--trust-lessons`.
"""
from __future__ import annotations

import click

from tutor.commands.snippet_file import usage


def unconfined_reason(profile: str = "full") -> str | None:
    """Why snippets would run without the OS sandbox here, or None when they are confined."""
    from engine.sandbox import worker

    confinement = worker(profile).confinement()
    return None if confinement.confined else confinement.reason


def require_confinement(command: str, trust: bool, paths=(), profile: str = "full") -> None:
    """Exit with a usage error (status 2) when `command` would run a stranger's code unconfined
    (`paths`: the lesson files or folders it would run; all inside the bundled course is fine)."""
    from lessons.folders import is_bundled

    if trust or (paths and all(map(is_bundled, paths))):
        return
    reason = unconfined_reason(profile)
    if reason is not None:
        usage(command, f"snippets cannot be sandboxed here ({reason}). Run only files you trust, "
                       "and say so with --trust-lessons.")


trust_option = click.option("--trust-lessons", is_flag=True,
                            help="Run lessons and snippets even where the OS sandbox is not available.")

