"""Where the stores live, from the settings: the data directory (the embedded default), another path,
or ``s3://bucket/prefix`` on any S3-compatible object store, with the options LanceDB and obstore take."""

from __future__ import annotations

from pathlib import Path

from hindsight_es.config import Settings
from hindsight_es.stores.objects import ObjectStore, S3Options, is_remote, objects
from hindsight_es.stores.snapshots import Snapshots


def root(settings: Settings) -> Path | str:
    """The stores' root: ``HINDSIGHT_STORES_URI``, else the data directory."""
    uri = settings.stores_uri
    if uri is None:
        return settings.data_dir
    return uri.rstrip("/") if is_remote(uri) else Path(uri)


def s3_options(settings: Settings) -> S3Options:
    return S3Options(
        endpoint=settings.s3_endpoint,
        region=settings.s3_region,
        access_key_id=settings.s3_access_key_id,
        secret_access_key=settings.s3_secret_access_key,
        allow_http=settings.s3_allow_http,
    )


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
