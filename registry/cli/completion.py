"""``toolwire completion``: the shell completion script for bash, zsh or fish."""

from __future__ import annotations

import click

from ._common import echo

#: The environment variable click's completion scripts set when they ask for words.
COMPLETE_VAR = "_TOOLWIRE_COMPLETE"


@click.command(name="completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
@click.pass_context
def completion_command(ctx: click.Context, shell: str) -> None:
    """Print the completion script for SHELL; engines, models and capabilities complete too.

    bash: eval "$(toolwire completion bash)" in ~/.bashrc; zsh: the same in ~/.zshrc;
    fish: toolwire completion fish > ~/.config/fish/completions/toolwire.fish.
    Engine names, capabilities and (for an engine already typed) model ids come from the
    registry; statuses, wires, scenarios and outcomes from their fixed lists.
    """
    from click.shell_completion import get_completion_class

    found = get_completion_class(shell)
    assert found is not None  # every choice has a class in click
    root = ctx.find_root().command
    echo(found(root, {}, "toolwire", COMPLETE_VAR).source())


COMMANDS = [completion_command]
