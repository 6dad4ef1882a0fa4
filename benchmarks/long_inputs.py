"""What the longest and oddest inputs cost the rules: seconds per turn or query, by the shape of its text.

A turn may hold up to ``HINDSIGHT_MAX_TEXT_CHARS`` (16,000) characters and a query 4,000, and the bank
actor reads every turn with a few hundred regular expressions (the rule extractor, the guard's
normalization and rules), recall every query with its own (the slip reader reads only short messages). A
pattern that can split one run of text between two of its parts is tried in every split, so its time grows
with the square or the cube of the run's length: this prints, per shape (long runs of spaces, of line
breaks, of digits; one long token; capitalised words; plain English or Chinese without a sentence end), the
seconds each reader takes on one text of that length. A developer tool:
``python -m benchmarks.long_inputs --chars 4000,16000``.
"""

from __future__ import annotations

import argparse
import random
import string
import time
from collections.abc import Callable

from hindsight_es.extraction.rules import extract
from hindsight_es.memory import guard
from hindsight_es.recall.asked import asked
from hindsight_es.recall.query import parse_query
from hindsight_es.text import flattened


def shapes(length: int, seed: int = 5) -> dict[str, str]:
    """One text per shape, ``length`` characters long (about)."""
    rnd = random.Random(seed)

    def words(capitalised: bool) -> str:
        out: list[str] = []
        while sum(len(w) + 1 for w in out) < length:
            word = "".join(rnd.choices(string.ascii_lowercase, k=rnd.randint(2, 8)))
            out.append(word.capitalize() if capitalised else word)
        return " ".join(out)[:length]

    return {
        "spaces": "Actually it is Berlin" + " " * (length - 40) + "not Paris.",
        "ideographic spaces": "不对，是" + "\u3000" * (length - 10) + "上海",
        "line breaks": "I live in Paris\n" + "\n" * (length - 40) + "x",
        "digits": "".join(rnd.choices(string.digits, k=length)),
        "one token": "Here is the key " + "".join(rnd.choices(string.ascii_letters + string.digits, k=length)),
        "capitalised words": "Actually " + words(True),
        "words": "Actually " + words(False),
        "English, no sentence end": ("I moved to Berlin last month and we use FedEx now and " * length)[:length],
        "Chinese, no sentence end": ("我本来打算明天去北京出差但是后来改成了上海因为客户在那边" * length)[:length],
        "random CJK": "".join(chr(rnd.randint(0x4E00, 0x9FA5)) for _ in range(length)),
    }


READERS: dict[str, Callable[[str], object]] = {
    "extract": extract,
    "guard": guard.scan,
    "query": lambda text: _read_as_recall(flattened(text)),
}


def _read_as_recall(query: str) -> object:
    """A query's parse and question forms, read as recall reads them (white space flattened once)."""
    return parse_query(query), asked(query)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", default="4000,16000", help="text lengths, comma-separated")
    args = parser.parse_args()
    extract("I live in Berlin. 我住在上海，王磊喜欢喝茶。")  # rules compiled, jieba and its tagger loaded: not timed
    print(f"{'shape':<26} {'chars':>6} " + " ".join(f"{name:>8}" for name in READERS) + "   (seconds)")
    for length in (int(n) for n in args.chars.split(",")):
        for shape, text in shapes(length).items():
            took = []
            for read in READERS.values():
                start = time.perf_counter()
                read(text)
                took.append(time.perf_counter() - start)
            print(f"{shape:<26} {len(text):>6} " + " ".join(f"{s:>8.3f}" for s in took), flush=True)


if __name__ == "__main__":
    main()
