"""Off-topic probes on the peers corpus's hindsight store: the corpus's own questions with the person
renamed to one no memory names (English and Chinese), and general-knowledge questions, each counted as
empty when recall at the default floor returns nothing; beside the corpus's in-bank hit@5 at that floor.

Build the store once (``python -m benchmarks.peers.run --sizes N --systems hindsight --rounds 0
--work-dir D --keep``), then, from the checkout whose code is measured, with hindsight's own venv:

    .venv/bin/python -m benchmarks.peers.offtopic --store D/N/hindsight --size N

Recall does not write (``record_recalls`` off), so the store can be probed by two builds in turn.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
from pathlib import Path

from benchmarks.peers.corpus import Corpus, generate
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings

BANK = "peers"  # benchmarks.peers.run
FRESH_EN = ["Zebulon Quaritch", "Ottoline Vasquez-Brandt", "Thaddeus Oyelaran", "Marisol Kettleby", "Ingvar Pemberton"]
FRESH_ZH = ["龚雨桐", "邝思远", "翟可馨", "阮星河", "詹慕言"]
GENERAL = [
    "What is the capital of Australia?", "How do I bake sourdough bread?", "Who won the 1998 World Cup?",
    "What's the boiling point of water at altitude?", "How many moons does Jupiter have?",
    "Can you recommend a good sci-fi novel?", "What is the speed of light?", "How do I reset my router?",
    "What's a good stretching routine?", "Explain quantum entanglement simply.", "What time zone is Tokyo in?",
    "How do I make cold brew coffee?", "What is the tallest mountain in Africa?",
    "Which planet is closest to the sun?", "How do vaccines work?",
    "What's the difference between a virus and bacteria?", "澳大利亚的首都是哪里？", "怎么做红烧肉？", "光速是多少？",
    "木星有几颗卫星？",
]  # fmt: skip


def renamed(corpus: Corpus, limit: int = 150) -> tuple[list[str], list[str]]:
    """The corpus's questions about a person, asked about one no memory names: an English question's
    first "First Last" replaced; a Chinese one's name (what it shares at its start with its answer)."""
    text = " ".join(m.text for m in corpus.memories)
    assert not any(name in text for name in FRESH_EN + FRESH_ZH), "a fresh name is in the corpus"
    answers = {m.id: m.text for m in corpus.memories}
    rng = random.Random(5)
    en: list[str] = []
    zh: list[str] = []
    for q in corpus.queries:
        if q.lang == "en" and (names := re.findall(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", q.question)):
            en.append(q.question.replace(names[0], rng.choice(FRESH_EN)))
        elif q.lang == "zh" and 2 <= len(name := os.path.commonprefix([q.question, answers[q.answer]])) <= 3:
            zh.append(q.question.replace(name, rng.choice(FRESH_ZH), 1))
    return en[:limit], zh[:limit]


async def main(store: Path, size: int) -> None:
    corpus = generate(size)  # benchmarks.peers.run's corpus (its default questions and seed)
    en, zh = renamed(corpus)
    now = max(m.time for m in corpus.memories)
    async with Hindsight(Settings(data_dir=store, record_recalls=False)) as hs:
        for label, probes in (("renamed en", en), ("renamed zh", zh), ("general", GENERAL)):
            empty = sum([not await hs.recall(BANK, p, limit=10, now=now) for p in probes])
            print(f"{label}: {empty}/{len(probes)} empty ({empty / len(probes):.3f})")
        for lang in ("en", "zh"):
            asked = [q for q in corpus.queries if q.lang == lang]
            hit = 0
            for q in asked:
                hits = await hs.recall(BANK, q.question, limit=5, now=now)
                hit += any(q.answer in h.source_turn_ids for h in hits)
            print(f"in-bank {lang}: hit@5 {hit}/{len(asked)} ({hit / len(asked):.3f})")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="the hindsight data directory the run kept")
    ap.add_argument("--size", type=int, default=10000, help="the corpus size it was built with")
    args = ap.parse_args()
    asyncio.run(main(args.store, args.size))
