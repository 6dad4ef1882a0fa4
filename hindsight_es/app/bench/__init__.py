"""Retrieval-quality benchmarks run through the real pipeline (log, bank actor, projections, recall)."""
