"""What reading rows back by row id costs LanceDB: the columns recall shows, one by one, against their card.

Opens the ``memories`` table of a store (a generation's ``lance`` directory, e.g. one ``bench recall
--history bulk`` built), then times takes of random row ids, as a cold recall makes them
(``recall.rowcache``): the 17 columns of ``stores.cards.COLUMNS``, and the one ``card`` column. Prints
the wall time and the process's CPU time (every thread) per take. A developer tool:
``python -m benchmarks.take_cost --store DIR/generations/G/lance --rows 50,150``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time

import lancedb
from lancedb.background_loop import LOOP

from hindsight_es.stores.cards import CARD, COLUMNS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="a LanceDB directory holding a memories table")
    parser.add_argument("--rows", default="50,150", help="rows per take, comma-separated")
    parser.add_argument("--takes", type=int, default=20, help="takes per figure")
    args = parser.parse_args()
    table = lancedb.connect(args.store).open_table("memories")
    inner = table._table  # the async table recall's searches use (``stores.lance_search``)
    ids = table.search().select(["memory_id"]).with_row_id(True).limit(None).to_arrow().column("_rowid").to_pylist()
    has_card = CARD in table.schema.names
    print(f"{len(ids):,} rows; card column: {'yes' if has_card else 'no'}")
    rng = random.Random(1)
    for rows in (int(r) for r in args.rows.split(",")):
        for label, columns in (("17 columns", list(COLUMNS)), ("card", [CARD])):
            if columns == [CARD] and not has_card:
                continue
            cpu0, wall0 = os.times(), time.perf_counter()
            for _ in range(args.takes):
                take = inner.take_row_ids(rng.sample(ids, rows)).with_row_id().select(columns).to_arrow()
                asyncio.run_coroutine_threadsafe(take, LOOP.loop).result()
            cpu1, wall1 = os.times(), time.perf_counter()
            cpu = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / args.takes
            wall = 1000 * (wall1 - wall0) / args.takes
            print(f"{rows:>5} rows, {label:<10}: wall {wall:6.1f} ms, CPU {1000 * cpu:6.1f} ms")


if __name__ == "__main__":
    main()
