"""Cross-check a recall weight per LoCoMo conversation: fit it on one, read it on the other.

    hindsight-es bench locomo --data ../shared/bench/locomo/locomo_dev.json --work-dir /tmp/locomo
    python -m benchmarks.weights --work-dir /tmp/locomo --weight scoring.WHEN --values 0,0.5,1

The store is ingested once by ``bench locomo``; each value of the weight (a module constant of
``hindsight_es.recall``, set in this process only) is then measured over the same memories, per
conversation and per category. A developer's tool, not a runtime path: nothing in the product reads it.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
from pathlib import Path

from hindsight_es.app.bench import locomo as bench
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def _mean(rows: list[dict], key: str, category: int | None = None) -> float:
    values = [r[key] for r in rows if category is None or r["category"] == category]
    return sum(values) / max(len(values), 1)


async def sweep(work_dir: Path, data: Path, weight: str, values: list[float]) -> None:
    module_name, _, name = weight.rpartition(".")
    module = importlib.import_module(f"hindsight_es.recall.{module_name}")
    default = getattr(module, name)
    conversations = bench.load(data)
    async with Hindsight(Settings(data_dir=work_dir)) as hs:
        for value in values:
            setattr(module, name, value)
            rows: list[dict] = []
            await bench.evaluate(hs, conversations, on_question=rows.append)
            parts = []
            for conversation in [*(c["id"] for c in conversations), "all"]:
                mine = [r for r in rows if conversation == "all" or r["qid"].split("#")[0] == conversation]
                parts.append(
                    f"{conversation}: R@5 {_mean(mine, 'R@5'):.3f} R@10 {_mean(mine, 'R@10'):.3f} "
                    f"Full@10 {_mean(mine, 'Full@10'):.3f} temporal R@5 {_mean(mine, 'R@5', 2):.3f}"
                )
            print(f"{weight}={value:g}{' (default)' if value == default else ''}: " + " | ".join(parts), flush=True)
    setattr(module, name, default)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-dir", type=Path, required=True, help="a data directory `bench locomo` ingested")
    parser.add_argument("--data", type=Path, default=Path("../shared/bench/locomo/locomo_dev.json"))
    parser.add_argument("--weight", required=True, help="module.NAME under hindsight_es.recall, e.g. scoring.WHEN")
    parser.add_argument("--values", required=True, help="comma-separated values")
    args = parser.parse_args()
    asyncio.run(sweep(args.work_dir, args.data, args.weight, [float(v) for v in args.values.split(",")]))


if __name__ == "__main__":
    main()
