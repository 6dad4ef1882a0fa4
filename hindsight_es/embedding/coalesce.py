"""Concurrent single-text calls of a batch function, run together.

Recalls embed one query each, on their own threads. The multilingual USE model is a numpy forward pass
whose cost is mostly streaming its weight matrices, once per call: one query costs about 1.6 ms of CPU,
each of eight queries in one call about 0.5 ms. ``Coalesced`` lets a caller that finds the function idle
run it at once on its own text (an idle service pays no wait), and the callers that arrive meanwhile
queue; when the running call ends, the next caller takes every queued text (up to ``max_batch``) and runs
them as one call. Under load the batches form by themselves; no timer holds a text back.

A text's vector in a batch equals its vector alone up to float rounding (1.8e-7 at most over the texts
tried): the model reads each text's tokens apart from its neighbours'.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class _Slot:
    __slots__ = ("done", "error", "text", "vector")

    def __init__(self, text: str) -> None:
        self.text = text
        self.done = False
        self.vector: np.ndarray | None = None
        self.error: BaseException | None = None


class Coalesced:
    """``embed(texts) -> (len(texts), dim)`` called with one text at a time from many threads."""

    def __init__(self, embed: Callable[[Sequence[str]], Any], max_batch: int = 32) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        self._embed = embed
        self.max_batch = max_batch
        self._cond = threading.Condition()
        self._queue: list[_Slot] = []
        self._running = False
        self.calls = 0  # batches run, for tests and benchmarks
        self.texts = 0

    def __call__(self, text: str) -> np.ndarray:
        slot = _Slot(text)
        with self._cond:
            self._queue.append(slot)
            while True:
                while self._running and not slot.done:
                    self._cond.wait()
                if slot.done:
                    break
                # idle, and this text not yet embedded: run the queue's head (this text is in it, or
                # in a later batch this thread runs next)
                batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
                self._running = True
                self._cond.release()
                try:
                    self._run(batch)
                finally:
                    self._cond.acquire()
                    self._running = False
                    self._cond.notify_all()
        if slot.error is not None:
            raise slot.error
        assert slot.vector is not None
        return slot.vector

    def _run(self, batch: list[_Slot]) -> None:
        """Embed ``batch``; every slot ends done, with its vector or the call's error."""
        try:
            vectors = np.asarray(self._embed([s.text for s in batch]))
            for slot, vector in zip(batch, vectors, strict=True):
                slot.vector = vector
        except BaseException as exc:  # each waiting caller gets the error, none waits forever
            for slot in batch:
                slot.error = exc
        finally:
            self.calls += 1
            self.texts += len(batch)
            for slot in batch:
                slot.done = True
