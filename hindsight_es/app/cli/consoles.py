"""The CLI's rich consoles, made on first use (importing rich costs start-up time every command would pay)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


#: The width of tables written to a pipe or a file (no terminal, no ``COLUMNS``): rich would use 80, and wrap
#: ids and Chinese words in the middle of what a script or a reader copies; a table still takes only the
#: width its content needs.
PIPE_WIDTH = 200


def _width(stream: Any) -> int | None:
    """None (rich decides: the terminal's width, or ``COLUMNS``) unless ``stream`` is a pipe or a file."""
    isatty = getattr(stream, "isatty", None)
    return None if os.environ.get("COLUMNS") or (isatty is not None and isatty()) else PIPE_WIDTH


class _Consoles:
    """rich consoles, made on first use."""

    _out: Console | None = None
    _err: Console | None = None

    @property
    def out(self) -> Console:
        if self._out is None:
            from rich.console import Console

            self._out = Console(width=_width(sys.stdout))
        return self._out

    @property
    def err(self) -> Console:
        if self._err is None:
            from rich.console import Console

            self._err = Console(stderr=True, soft_wrap=True, width=_width(sys.stderr))
        return self._err


consoles = _Consoles()


class _Proxy:
    """``console.print(...)`` / ``err_console.print(...)`` without building a Console at import; ``.real`` is the
    Console itself, for what needs one (a rich ``Progress``, which enters it as a context manager)."""

    def __init__(self, stream: str) -> None:
        self._stream = stream

    @property
    def real(self) -> Console:
        return consoles.out if self._stream == "out" else consoles.err

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    # rich's Live and Progress enter their console (``with console:``): dunders bypass __getattr__
    def __enter__(self) -> Console:
        return self.real.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.real.__exit__(*exc)


console: Any = _Proxy("out")
err_console: Any = _Proxy("err")


def to_stderr() -> None:
    """For ``--json``: what a command prints along the way goes to stderr, so stdout is only the JSON."""
    from rich.console import Console

    consoles._out = Console(stderr=True)
