"""Observability of a running service: the tracer provider (``HINDSIGHT_TRACES``) and the lag sampler."""
