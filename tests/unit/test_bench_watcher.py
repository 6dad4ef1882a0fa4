"""``Watcher.seen`` is read by the bench's progress display while ``poll`` adds to it on another thread."""

from __future__ import annotations

import threading

from hindsight_es.app.bench.watcher import Watcher
from hindsight_es.config import Settings


def test_seen_can_be_read_while_a_poll_adds_turns(tmp_path):
    watcher = Watcher(Settings(data_dir=tmp_path), "b")
    stop = threading.Event()

    def poll() -> None:  # ``poll`` growing ``seen_in``, as fast as a thread can (a window of 2,000 turns)
        i = 0
        while not stop.is_set():
            watcher.seen_in.setdefault(("b", str(i)), float(i))
            watcher.seen_in.pop(("b", str(i - 2_000)), None)
            i += 1

    thread = threading.Thread(target=poll)
    thread.start()
    try:
        for _ in range(300):
            seen = watcher.seen  # raised "dictionary changed size during iteration" before
            assert all(at == float(turn) for turn, at in seen.items())
    finally:
        stop.set()
        thread.join()
