"""mkdocs hook: the command-line reference, generated from the Typer app at build time.

``docs/reference/cli.md`` holds the marker ``<!-- cli-reference -->``; this hook replaces it with one
section per command (usage, help, a table of arguments and options), so the page cannot drift from
``starchart COMMAND --help``.
"""

from __future__ import annotations

from typing import Any

import typer.main

from starchart.cli.app import COMMANDS, app, value_placeholder

MARKER = "<!-- cli-reference -->"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _section(command: Any, path: str, parent: Any) -> list[str]:
    # Click's classes as Typer uses them (newer Typers bring their own copy of Click): no isinstance checks
    ctx = type(parent)(command, info_name=path.split()[-1], parent=parent)
    usage = " ".join([path, *command.collect_usage_pieces(ctx)])
    lines = [f"## `{path}`", "", (command.help or "").strip(), "", "```text", usage, "```", ""]
    rows = []
    for param in command.get_params(ctx):
        if param.name == "help":
            continue
        names = ", ".join(f"`{n}`" for n in [*param.opts, *getattr(param, "secondary_opts", [])])
        if param.param_type_name == "argument":
            names = f"`{(param.metavar or param.name).upper()}`"
        value = value_placeholder(param, ctx) or ""
        default = param.default if not callable(param.default) and param.default not in (None, False, ()) else ""
        if getattr(param, "show_default", None) is False:
            default = ""
        rows.append(f"| {names} | {_cell(value)} | {_cell(default)} | {_cell(getattr(param, 'help', '') or '')} |")
    if rows:
        lines += ["| argument or option | value | default | what |", "|---|---|---|---|", *rows, ""]
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                lines += _section(sub, f"{path} {name}", ctx)
    return lines


def reference() -> str:
    """Every command of the ``starchart`` program as markdown, in the order ``starchart --help`` lists them."""
    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="starchart")
    lines: list[str] = []
    for name in COMMANDS:
        root.load(name)  # type: ignore[attr-defined]  # LazyCommandsGroup: import the command's module
        command = root.get_command(ctx, name)
        lines += _section(command, f"starchart {name}", ctx)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    return markdown.replace(MARKER, reference()) if MARKER in markdown else markdown
