"""Turn text into memory candidates: the ``Extractor`` protocol and the deterministic rule extractor."""

from hindsight_es.extraction.rules import RuleExtractor, extract
from hindsight_es.extraction.schema import Candidate, Extractor

__all__ = ["Candidate", "Extractor", "RuleExtractor", "extract"]
