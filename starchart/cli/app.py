"""The ``starchart`` program's root: the Typer app, its consoles, one-line errors, and the table of commands.

This module is all that ``starchart --help`` loads besides Typer and Rich: each group of commands is a
module of :mod:`starchart.cli`, imported when one of its commands runs (or shows its own help). A new
command is one function in such a module plus one line in :data:`COMMANDS`.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from importlib.metadata import version as installed_version
from typing import Any, Optional

import typer
import typer.core
import typer.main
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from starchart.errors import StarchartError


@dataclass(frozen=True)
class CommandEntry:
    """Where a command is defined, and its one-line help for the command list."""

    module: str
    help: str


#: Every command of the ``starchart`` program, in the order ``--help`` lists them. The help line is the
#: first line of the command's docstring (a test holds them equal), so the list needs no module loaded.
COMMANDS: dict[str, CommandEntry] = {
    'info': CommandEntry("starchart.cli.data",
                       'Summarise a measurement file: format, device, statuses, parameters and metrics.'),
    'tree': CommandEntry("starchart.cli.data",
                       'Fit a Starchart tree to measured configurations and show it.'),
    'space': CommandEntry("starchart.cli.data",
                       'Describe a tuning space; count it; draw a uniform sample of valid configurations.'),
    'run': CommandEntry("starchart.cli.measure",
                       'Measure a uniform sample of a space (or given configurations), storing every result as it arrives.'),
    'resume': CommandEntry("starchart.cli.measure",
                       'Continue a study or a search: measure what it still lacks, never re-measuring anything stored.'),
    'export': CommandEntry("starchart.cli.measure",
                       'Write a study as CSV, a Kernel Tuner cache or a T4 results file.'),
    'doctor': CommandEntry("starchart.cli.measure",
                       'Check a store file for damage, and copy what can still be read into a new store.'),
    'demo': CommandEntry("starchart.cli.demo",
                       'Tune the bundled C matrix-multiply kernel on this CPU, then explain it with a Starchart tree.'),
    'report': CommandEntry("starchart.cli.report",
                       'Write one self-contained HTML report: tree, importance, best region, and whatever else applies.'),
    'carve': CommandEntry("starchart.cli.carve",
                       'Optimization carving: keep the configurations worth measuring (efficiency/utilization Pareto front).'),
    'search': CommandEntry("starchart.cli.search",
                       'Tree-guided search for the best configuration within a budget of evaluations.'),
    'samples': CommandEntry("starchart.cli.samples",
                       'Sample-size selection: measure growing samples until a tree predicts held-out designs within --target.'),
    'platforms': CommandEntry("starchart.cli.analyse",
                       "Compare platforms: each one's own best against one general setting, and what is good everywhere."),
    'compare': CommandEntry("starchart.cli.analyse",
                       'The tree against stepwise linear regression and a forest on unseen designs (the paper\'s Fig. 5).'),
    'tradeoff': CommandEntry("starchart.cli.analyse",
                       'Power/performance: the subspaces likely to meet every target (one tree per metric), the Pareto front.'),
    'inputs': CommandEntry("starchart.cli.analyse",
                       "Input sensitivity: how much the input matters, which parameters' effect depends on it, how bests transfer."),
    'msp': CommandEntry("starchart.cli.msp",
                       'Tune at the minimum saturation point: throughput curve, MSP, search there, winner at the target.'),
    'xapp': CommandEntry("starchart.cli.xapp",
                       'XAPP: predict what a GPU port of plain C code would gain, before writing it.'),
    'datasets': CommandEntry("starchart.cli.datasets",
                       'List the real measured datasets that ship with starchart (or download one), with licence and path.'),
}


#: Click's exceptions (newer Typers bring their own copy of Click, older ones use the click package).
_click_errors = importlib.import_module(typer.BadParameter.__module__)

#: The value placeholders --help shows, in place of Typer's Python type names (``<bool>`` on a flag,
#: ``<list[Path]>``): nothing for a flag, Click's words for the rest; choices are listed as they are.
_PLACEHOLDERS = {"bool": None, "str": "TEXT", "int": "INTEGER", "int range": "INTEGER", "float": "FLOAT",
                 "float range": "FLOAT", "path": "PATH", "Path": "PATH", "file": "FILE", "directory": "FOLDER"}


def value_placeholder(param: Any, ctx: Any) -> Optional[str]:
    """What ``--help`` shows as an option's value: its metavar, its choices, or a plain word (no Python type).

    >>> from types import SimpleNamespace as Param
    >>> value_placeholder(Param(is_flag=True), None) is None, value_placeholder(Param(is_flag=False, metavar="N"), None)
    (True, 'N')
    """
    if getattr(param, "is_flag", False):
        return None
    if param.metavar:
        return str(param.metavar)
    label = typer.core.TyperOption.display_type(param, ctx)[1:-1]  # Typer's "<list[Path]>", unwrapped
    if label.startswith("list[") and label.endswith("]"):
        label = label[5:-1]
    return _PLACEHOLDERS.get(label, label.upper() if label.isidentifier() else label)


for _kind in (typer.core.TyperOption, typer.core.TyperArgument):
    _kind.display_type_rich = value_placeholder  # type: ignore[method-assign,assignment]  # one place for every command


class OneLineErrorsGroup(TyperGroup):
    """The ``starchart`` command group, whose usage errors (a bad option value, a missing argument,
    an unknown command or option) print as one line plus a hint like every other error, not as a panel."""

    def make_context(self, info_name: Optional[str], args: list[str], parent: Any = None,
                     **extra: Any) -> Any:
        with _one_line_usage_errors():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _one_line_usage_errors(ctx):
            return super().invoke(ctx)


class LazyCommandsGroup(OneLineErrorsGroup):
    """The root group: lists :data:`COMMANDS` without importing them; imports a command's module when it runs.

    Listing the commands (``starchart --help``, a misspelt command's suggestions) needs only the table.
    Resolving one to run it, or to show its own ``--help``, imports its module, whose ``@app.command``
    registers it on :data:`app`, and converts it as Typer would have.
    """

    def list_commands(self, ctx: Any) -> list[str]:
        return [*COMMANDS, *(name for name in super().list_commands(ctx) if name not in COMMANDS)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in COMMANDS:
            return command
        # for the command list only: a placeholder with the table's help, nothing imported
        return typer.main.TyperCommand(cmd_name, help=COMMANDS[cmd_name].help, callback=None)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] in COMMANDS:
            self.load(args[0])
        try:
            return super().resolve_command(ctx, args)
        except _click_errors.UsageError as exc:
            # Typer suggests among the commands loaded so far; suggest among all of them
            matches = difflib.get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if matches and "Did you mean" not in exc.message:
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {', '.join(map(repr, matches))}?"
            raise

    def load(self, name: str) -> None:
        """Import the module of command ``name`` and add what it registered on :data:`app` to this group."""
        if name in self.commands:
            return
        importlib.import_module(COMMANDS[name].module)
        for info in app.registered_commands:
            command = typer.main.get_command_from_info(
                info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode)
            self.commands.setdefault(command.name or "", command)
        for group_info in app.registered_groups:
            group = typer.main.get_group_from_info(
                group_info, pretty_exceptions_short=app.pretty_exceptions_short,
                suggest_commands=app.suggest_commands, rich_markup_mode=app.rich_markup_mode)
            self.commands.setdefault(group.name or "", group)


app = typer.Typer(add_completion=False, no_args_is_help=True, cls=LazyCommandsGroup,
                  help="Starchart: understand and tune GPU/CPU kernel tuning spaces with regression trees.")


def _print_version(value: bool) -> None:
    if value:
        out.print(f"starchart {installed_version('starchart')}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="Print the installed version and exit.")) -> None:
    # A callback makes Typer build a group even before any command module has registered a command;
    # the commands come from COMMANDS. Its one option, --version, acts in its callback.
    pass


# markup=False: what these consoles print is mostly the user's text (paths, parameter names and values,
# a program's own words), where "[/b]" is text, not rich markup; the few styled lines say markup=True and
# escape() what they quote.
out = Console(markup=False)
err = Console(stderr=True, markup=False)


def friendly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a StarchartError or an OSError (a path) into one line on stderr and exit status 2 (no traceback)."""
    @wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except StarchartError as exc:
            # in the command line's words: its options where a command named them (option_names), and the
            # command-line side of what differs (say()) everywhere
            print_error(*exc.render(exc.options or {}))
            raise typer.Exit(2) from None
        except OSError as exc:  # a file we were told to read or write: one line, not a traceback
            print_error(str(exc.strerror or exc), exc.filename,
                        "check the path, that its folder exists and that you may write there")
            raise typer.Exit(2) from None
        except MemoryError:  # a file that unpacks or parses to more than this machine holds (a gzip bomb)
            print_error("ran out of memory", None, "the input is larger than this machine can hold: give a smaller "
                        "file, or lower STARCHART_MAX_INPUT_BYTES to refuse such files before reading them")
            raise typer.Exit(2) from None
    return run


def print_error(message: str, where: Any = None, hint: Optional[str] = None) -> None:
    """An error as one line on stderr (``error: WHERE: MESSAGE``), then its hint on a second."""
    err.print(f"[bold red]error:[/] {escape(f'{where}: ' if where else '')}{escape(message)}", markup=True, highlight=False,
              soft_wrap=True)
    if hint:
        err.print(f"[yellow]hint:[/] {escape(hint)}", markup=True, highlight=False, soft_wrap=True)


@contextmanager
def _one_line_usage_errors(group: Any = None) -> Iterator[None]:
    """Print a Click usage error raised inside as one line plus a hint, and exit with its status (2).

    ``group``: the group's context, whose sub-command is named when the error carries no context of its
    own (an option missing its value: "starchart tree", not "starchart")."""
    try:
        yield
    except _click_errors.UsageError as exc:
        if isinstance(exc, getattr(_click_errors, "NoArgsIsHelpError", ())):
            raise  # not an error: the help, already shown
        if exc.ctx is not None:
            command = exc.ctx.command_path
        elif group is not None and group.invoked_subcommand:
            command = f"{group.command_path} {group.invoked_subcommand}"
        else:
            command = "starchart"
        print_error(exc.format_message(), command, f"see {command} --help")
        raise typer.Exit(exc.exit_code) from None
