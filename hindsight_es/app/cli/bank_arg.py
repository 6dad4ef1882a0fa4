"""The bank, either way: every command that names one bank takes it as its first argument or as ``--bank``.

Commands were written both ways (``recall BANK``, ``disputes list --bank BANK``); scripts use each. So the
command line accepts the other spelling too, by rewriting the arguments before click parses them:

- a command whose first argument is BANK also takes ``--bank BANK`` (``disputes reject --bank bob ID``);
- a command with a ``--bank`` option also takes the bank as its first argument when no other argument could
  be meant (``disputes list bob``, ``replay state bob``; ``replay export bob FILE``, as FILE is its only
  argument); ``replay audit X`` stays a memory id, its argument.

``either_way`` patches a click command tree (once, when it is built) and says so in each ``--help``.
"""

from __future__ import annotations

from typing import Any

OPTION = "--bank"

# typer ships its own click (``typer._click``): its commands, groups and parameters are told apart by what they
# have (``commands``, ``param_type_name``), not by the classes of the click package.
Command = Any
Param = Any


def _arguments(command: Command) -> list[Param]:
    return [p for p in command.params if p.param_type_name == "argument"]


def _options(command: Command) -> list[Param]:
    return [p for p in command.params if p.param_type_name == "option"]


def either_way(command: Command) -> None:
    """Let every command under ``command`` take its bank as the first argument or as ``--bank``."""
    if hasattr(command, "commands"):  # a group
        for sub in command.commands.values():
            either_way(sub)
        return
    arguments = _arguments(command)
    option = next((p for p in _options(command) if OPTION in p.opts), None)
    if arguments and arguments[0].name == "bank" and option is None:
        _help(arguments[0], "or give it as --bank BANK")
        _rewrite(command, _option_to_argument)
    elif option is not None and all(a.nargs > 0 for a in arguments):  # a list argument: never sure
        _help(option, "or give it as the first argument")
        _rewrite(command, _argument_to_option)


def _help(param: Param, note: str) -> None:
    help_text = getattr(param, "help", None) or "Bank id"
    if note not in help_text:
        param.help = f"{help_text}; {note}"


def _rewrite(command: Command, how: Any) -> None:
    parse = command.parse_args

    def parse_args(ctx: Any, args: list[str]) -> list[str]:
        return parse(ctx, how(command, list(args)))

    command.parse_args = parse_args


def _takes_value(command: Command, token: str) -> bool:
    """Whether option ``token`` (no ``=``) is followed by its value; an unknown one is left to click."""
    for param in _options(command):
        if token in (*param.opts, *param.secondary_opts):
            return not (param.is_flag or param.count)
    return False


def _positions(command: Command, args: list[str]) -> list[int]:
    """Where the positional tokens of ``args`` are (option values skipped; everything after ``--``)."""
    found: list[int] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            return found + list(range(i + 1, len(args)))
        if token.startswith("-") and len(token) > 1:
            i += 2 if "=" not in token and _takes_value(command, token) else 1
            continue
        found.append(i)
        i += 1
    return found


def _option_to_argument(command: Command, args: list[str]) -> list[str]:
    """``--bank B`` (or ``--bank=B``) becomes the first argument."""
    for i, token in enumerate(args):
        if token == "--":
            break
        if token == OPTION and i + 1 < len(args):
            return [args[i + 1], *args[:i], *args[i + 2 :]]
        if token.startswith(OPTION + "="):
            return [token.split("=", 1)[1], *args[:i], *args[i + 1 :]]
    return args


def _argument_to_option(command: Command, args: list[str]) -> list[str]:
    """With no ``--bank`` and one argument more than the command takes, the first becomes ``--bank``."""
    if any(a == OPTION or a.startswith(OPTION + "=") for a in args):
        return args
    positions = _positions(command, args)
    takes = sum(p.nargs for p in _arguments(command))
    if len(positions) != takes + 1:
        return args
    first = positions[0]
    return [OPTION, args[first], *args[:first], *args[first + 1 :]]


__all__ = ["either_way"]
