"""A command that fails before it writes leaves the data directory as it found it.

``up`` and ``replay import`` create the data directory (and the stores' directory) when it is missing: the
lock, the key store, an empty log. If such a command fails before it has written anything (a taken port, a bad
file), what it created is removed again, so a retry with the mistake fixed starts where the user did.
Only paths that did not exist when the command started are ever removed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hindsight_es.config import Settings


class Fresh:
    """The directories this command will create (none when they exist). Call ``own`` once the command holds
    the data directory's service lock (no other ``up`` or import works there), ``keep`` once it has written."""

    def __init__(self, settings: Settings) -> None:
        local = [settings.data_dir]
        if settings.stores_uri and "://" not in settings.stores_uri:
            local.append(Path(settings.stores_uri))
        self.created = [root for root in dict.fromkeys(map(_missing_root, local)) if root is not None]
        self.owned = self.kept = False

    def own(self) -> None:
        self.owned = True

    def keep(self) -> None:
        """From now on the command has written (or served): what it created stays, whatever happens next."""
        self.kept = True

    def undo(self) -> None:
        """Remove what this command created, unless it wrote, or another command may be using it (a process
        that lost the race for the lock found the directory made by the one that won)."""
        if self.owned and not self.kept:
            for root in self.created:
                shutil.rmtree(root, ignore_errors=True)


@contextmanager
def undone_on_failure(fresh: Fresh) -> Iterator[Fresh]:
    """Run a command's body; if it fails (an exception, or a non-zero exit), ``fresh.undo()``. A zero exit
    (``typer.Exit(0)``, the clean stop of ``up``) keeps what it created."""
    try:
        yield fresh
    except BaseException as exc:
        if _failed(exc):
            fresh.undo()
        raise


def _failed(exc: BaseException) -> bool:
    code = getattr(exc, "exit_code", getattr(exc, "code", 1))  # typer.Exit, click.exceptions.Exit, SystemExit
    return code not in (0, None)


def _missing_root(path: Path) -> Path | None:
    """The outermost directory of ``path`` that does not exist yet (what ``mkdir(parents=True)`` creates);
    None when ``path`` exists."""
    path = path.absolute()
    if os.path.lexists(path):  # a dangling link exists too: never ours to remove
        return None
    while not os.path.lexists(path.parent):
        path = path.parent
    return path


__all__ = ["Fresh", "undone_on_failure"]
