"""The `autograd-tutor` command line.

Each subcommand lives in its own module under `tutor.commands` and is imported
lazily, so `autograd-tutor --help` and the app's start-up stay fast.
"""
from __future__ import annotations

import importlib

import click

# subcommand name -> module under tutor.commands that defines `command`
SUBCOMMANDS: dict[str, str] = {
    "check": "check",
    "new": "new",
    "paths": "paths",
}


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module only when it is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = SUBCOMMANDS.get(name)
        if module is None:
            return None
        return importlib.import_module(f"tutor.commands.{module}").command


@click.group(cls=LazyGroup, invoke_without_command=True)
@click.pass_context
def main(ctx: click.Context) -> None:
    """autograd-tutor: predict x.grad, then see why.

    With no subcommand, opens the interactive tutor on the bundled course.
    """
    if ctx.invoked_subcommand is None:
        click.echo("The interactive app is not built yet; try `autograd-tutor --help`.")
