"""`autograd-tutor paths`: where the tutor keeps a learner's files."""
from __future__ import annotations

import click

from tutor.untrusted import echo


@click.command("paths")
@click.pass_context
def command(ctx: click.Context) -> None:
    """Print the data folder, the user lesson folder and the progress database."""
    from tutor import paths

    override = ctx.parent.params.get("data_dir") if ctx.parent is not None else None
    rows = [("data folder", paths.data_dir(override)), ("lesson folder", paths.lessons_dir(override)),
            ("progress database", paths.database_path(override))]
    width = max(len(name) for name, _ in rows)
    for name, path in rows:
        echo(f"{name + ':':<{width + 1}} {path}")
