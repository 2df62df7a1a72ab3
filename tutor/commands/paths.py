"""`autograd-tutor paths`: where the tutor keeps a learner's files."""
from __future__ import annotations

import click

from tutor.commands import top_level
from tutor.untrusted import echo


@click.command("paths")
@click.pass_context
def command(ctx: click.Context) -> None:
    """Print the data folder, the user lesson folder and the progress database."""
    from rich.cells import cell_len

    from tutor import paths
    from tutor.i18n import t

    lang, override = top_level.language(ctx), top_level.given(ctx, "data_dir")
    rows = [(t("paths_data", lang), paths.data_dir(override)), (t("paths_lessons", lang), paths.lessons_dir(override)),
            (t("paths_database", lang), paths.database_path(override))]
    width = max(cell_len(name) for name, _ in rows)  # Japanese labels are two columns a character
    for name, path in rows:
        echo(f"{name}:{' ' * (width - cell_len(name))} {path}")
