"""The relevance floor in a large bank of look-alike memories: a question that names who it is about and
what it asks finds its memory above the default floor, although the cosine alone is no better than what
the best of a few thousand unrelated memories scores (``recall.lexical.evidence``); a question about
nobody in the bank still gets nothing."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.recall.search import recall
from hindsight_es.stores import location
from hindsight_es.stores.lance import LanceStore
from streams.service import catch_up_all

BANK = "people"
FIRST = "Priya Omar Lena Marcus Aiko Diego Fatima Jonas Chloe Rahul Ingrid Mateo Yusuf Hana Victor Sofia".split()
LAST = "Shah Becker Okafor Lindqvist Tanaka Moreno Haddad Novak Dubois Mehta Larsen Rossi Aydin Kim Petrov".split()
FACTS = (
    "{n} keeps a {x} collection of more than two hundred pieces.",
    "{n} volunteers at the {x} every Tuesday evening.",
    "{n} is learning {x} with a phone app, a little every day.",
    "{n} signed up for a {x} course at the community college.",
)
FILLS = (
    ["vinyl record", "stamp", "vintage camera", "comic book", "fountain pen", "postcard"],
    ["food bank", "animal shelter", "children's hospital", "public library"],
    ["Portuguese", "Japanese", "Korean", "Italian", "Swahili", "Turkish"],
    ["pottery", "woodworking", "photography", "first aid", "accounting"],
)
RARE = [("Xiomara Quist", 0), ("Bartholomew Ekwueme", 1), ("Saoirse Villanueva", 2), ("Thaddeus Oyelaran", 0)]
QUESTIONS = ("What does {n} collect?", "Where does {n} volunteer?", "Which language is {n} studying?")


def memories() -> list[tuple[str, str, int]]:
    """(text, person, kind): one fact of each kind about every person (16 × 15 people) and four
    people named once: 964 memories that differ
    by names and a word, in no order (each is embedded with the turn after it, as a conversation's turns are)."""
    rng = random.Random(7)
    people = [f"{f} {s}" for f in FIRST for s in LAST]
    out = [(FACTS[k].format(n=n, x=FILLS[k][0]), n, k) for n, k in RARE]  # names said once in the bank
    kinds = list(enumerate(zip(FACTS, FILLS, strict=True)))
    out += [(fact.format(n=n, x=rng.choice(fill)), n, k) for n in people for k, (fact, fill) in kinds]
    rng.shuffle(out)
    return out


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


async def test_a_named_question_finds_its_memory_above_the_floor_in_a_large_bank(tmp_path, embedder):
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm", record_recalls=False)
    said = memories()
    async with Hindsight(settings, embedder=embedder) as hs:
        for i, (text, _, _) in enumerate(said):
            await hs.record_turn(BANK, text, session_id=f"s{i // 20}", turn_id=f"t{i}")
        await catch_up_all(settings, hs.log, embedder=embedder)
    store = LanceStore(location.current(settings)["lance"])
    asked = [i for i in random.Random(11).sample(range(len(said)), 30) if said[i][2] < len(QUESTIONS)]
    found = 0
    for i in asked:
        _, person, kind = said[i]
        hits = recall(store, embedder, BANK, QUESTIONS[kind].format(n=person), min_relevance=settings.min_relevance)
        found += [f"t{i}"] in [h.source_turn_ids for h in hits[:3]]  # an empty answer finds nothing
    assert found == len(asked), f"{found} of {len(asked)} questions found their memory in the top 3, above the floor"
    for question in ("What is the capital of Australia?", "Which dentist did Zoe Quinn recommend?"):
        assert recall(store, embedder, BANK, question, min_relevance=settings.min_relevance) == []

    # The words alone: with a query model whose vectors say nothing (cosines at noise level: no vector
    # evidence), a question naming someone the bank mentions once is answered by their two rare names and its
    # word; a question about someone the bank never mentions is not.
    blind = Blind(embedder)
    for i, (_, person, kind) in enumerate(said):
        if person in dict(RARE):
            hits = recall(store, blind, BANK, QUESTIONS[kind].format(n=person), min_relevance=settings.min_relevance)
            assert [f"t{i}"] in [h.source_turn_ids for h in hits], QUESTIONS[kind].format(n=person)
    assert recall(store, blind, BANK, "Which dentist did Zoe Quinn recommend?", min_relevance=0.19) == []


class Blind:
    """The embedder with a query model that knows nothing: a random unit vector per query."""

    def __init__(self, inner) -> None:
        self.inner, self.rng = inner, np.random.default_rng(3)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def embed_query(self, text: str) -> np.ndarray:
        vector = self.rng.standard_normal(self.inner.dim).astype(np.float32)
        return vector / np.linalg.norm(vector)
