"""Peer benchmark: hindsight beside LanceDB alone, mem0 (pgvector, Qdrant) and Vectorize Hindsight.

Not part of the package: its own requirements and venv (see README.md); run as
``python -m benchmarks.peers.run`` from the repository root.
"""
