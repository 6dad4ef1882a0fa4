"""Does a bank's IVF search find what an exact search finds, on real text?

Every message of the repository's bank sets (``hindsight_es/app/bench/data/*banks*.jsonl``, about 6,600 short
first-person messages in Chinese and English) and the turns of its blind LoCoMo slices go into one bank
``mix``, each set's bank a session, through the real pipeline (publish, then the bank actor and the
projections catch up: the IVF index is built once the table passes ``VECTOR_INDEX_ROWS``). Then each of the
sets' questions (about 3,800) is searched by the vector list alone, exactly (the vectors kept in process) and
with IVF at the probes recall plans for the bank and at 16 and 64, and the tool prints, per search, its CPU,
the share of the exact top 10 it finds, and the share of the question's evidence messages among the sources of
its top 10. A store already built in ``--work-dir`` is reused. A developer tool:
``python -m benchmarks.ivf_agreement --work-dir /tmp/ivf``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from hindsight_es.recall.rowcache import row_cache
from hindsight_es.recall.search import _plan, query_vector
from hindsight_es.stores.filters import MemoryFilter

DATA = Path(__file__).resolve().parents[1] / "hindsight_es" / "app" / "bench" / "data"
BANK = "mix"


def corpus() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(turns, questions): every distinct message of the bank sets and of the blind LoCoMo slices."""
    turns: dict[str, dict[str, Any]] = {}
    questions = []
    for path in sorted(DATA.glob("*banks*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            bank = json.loads(line)
            for m in bank["messages"]:
                turns.setdefault(m["id"], {"session": bank["bank"][:60], "text": m["text"], "speaker": None})
            questions += [{"q": q["question"], "evidence": q["evidence"]} for q in bank.get("questions", [])]
    for path in sorted(DATA.glob("locomo_blind_*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for conversation in data if isinstance(data, list) else [data]:
            sessions = conversation.get("conversation", conversation)
            for name, said in sessions.items():
                if name.startswith("session_") and isinstance(said, list):
                    for t in said:
                        turn = {"session": f"{path.stem}-{name}", "text": t["text"], "speaker": t.get("speaker")}
                        turns.setdefault(f"{path.stem}-{t['dia_id']}", turn)
    return [{"id": k, **v} for k, v in turns.items()], questions


async def build(settings: Settings, turns: list[dict[str, Any]]) -> None:
    from streams.service import catch_up_all

    async with Hindsight(settings) as hs:
        batch = [
            make_turn(settings, BANK, t["text"], session_id=t["session"], turn_id=t["id"], speaker=t["speaker"])
            for t in turns
        ]
        await hs.publish(batch)
        await catch_up_all(settings, hs.log, embedder=hs.embedder)


async def measure(settings: Settings, questions: list[dict[str, Any]]) -> None:
    async with Hindsight(settings) as hs:
        store, embedder = hs.conn.stores().lance, hs.embedder
        rows, planned = _plan(store, BANK)
        print(f"bank {BANK}: {rows:,} rows; IVF index {store.vector_index_info()}; recall probes {planned}")
        where = MemoryFilter(BANK, statuses=("active",))
        search, cache = store.search, row_cache(store)
        vectors = [query_vector(embedder, q["q"]) for q in questions]
        exact: list[list[tuple[int, float]]] = []
        for label, probes in (("exact", None), (f"IVF, {planned} probes", planned), ("IVF, 16", 16), ("IVF, 64", 64)):
            if label != "exact" and probes is None:
                continue  # the bank is searched exactly anyway
            t0 = time.process_time()
            found = [search.start(search.vector_search(v, where, 10, nprobes=probes)).result() for v in vectors]
            cpu_ms = (time.process_time() - t0) * 1000 / len(vectors)
            shares = []
            for q, hits in zip(questions, found, strict=True):
                shown = cache.rows([row_id for row_id, _ in hits])
                sources = {t for row in shown.values() for t in row.get("source_turn_ids") or ()}
                shares.append(len(sources & set(q["evidence"])) / len(q["evidence"]))
            line = f"{label:18s} CPU {cpu_ms:5.2f} ms a search; evidence in the top 10 {np.mean(shares):.4f}"
            if exact:
                pairs = zip(found, exact, strict=True)
                same = [len({r for r, _ in a} & {r for r, _ in b}) / max(1, len(b)) for a, b in pairs]
                line += f"; of the exact top 10 {np.mean(same):.3f}"
            else:
                exact = found
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work-dir", type=Path, required=True, help="the store (built there when absent)")
    args = parser.parse_args()
    settings = Settings(data_dir=args.work_dir)
    turns, questions = corpus()
    if not (args.work_dir / "lance").exists():
        print(f"building bank {BANK}: {len(turns):,} turns")
        asyncio.run(build(settings, turns))
    asyncio.run(measure(settings, questions))


if __name__ == "__main__":
    main()
