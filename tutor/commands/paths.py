"""`autograd-tutor paths`: where the tutor keeps a learner's files."""
from __future__ import annotations

import click


@click.command("paths")
def command() -> None:
    """Print the data folder, the user lesson folder and the progress database."""
    from tutor import paths

    rows = [("data folder", paths.data_dir()), ("lesson folder", paths.lessons_dir()),
            ("progress database", paths.database_path())]
    width = max(len(name) for name, _ in rows)
    for name, path in rows:
        click.echo(f"{name + ':':<{width + 1}} {path}")
