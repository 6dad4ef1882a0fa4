"""Where the stores live, from the settings: the data directory (the embedded default), another path,
or ``s3://bucket/prefix`` on any S3-compatible object store, with the options LanceDB and obstore take."""

from __future__ import annotations

from pathlib import Path

from hindsight_es.config import Settings
from hindsight_es.objects import ObjectStore, is_remote, objects, s3_options
from hindsight_es.stores.snapshots import Snapshots

__all__ = ["current", "object_store", "root", "s3_options", "shard", "snapshots"]


def root(settings: Settings) -> Path | str:
    """The stores' root: ``HINDSIGHT_STORES_URI``, else the data directory."""
    uri = settings.stores_uri
    if uri is None:
        return settings.data_dir
    return uri.rstrip("/") if is_remote(uri) else Path(uri)


def object_store(settings: Settings) -> ObjectStore:
    return objects(root(settings), s3_options(settings))


def snapshots(settings: Settings, actor: str) -> Snapshots:
    """The partition snapshots of ``actor`` (``bank-actor``), next to the stores."""
    return Snapshots(object_store(settings), actor)


def shard(settings: Settings) -> int | None:
    """Partitions a new hot store is sharded into (one store per partition), or None for one store:
    ``HINDSIGHT_STORE_SHARDS``; ``auto`` shards the stores that several workers share (on Kafka, with
    ``HINDSIGHT_STORES_URI`` set); a data directory of its own is one store, as it always was."""
    wanted = settings.store_shards
    if wanted == "auto":
        wanted = "partition" if settings.broker and settings.stores_uri else "single"
    return settings.partitions if wanted == "partition" else None


def current(settings: Settings) -> dict[str, Path | str]:
    """The current generation's stores (``stores.generations``) under the stores' root."""
    from hindsight_es.stores import generations

    return generations.current(root(settings), s3_options(settings))
