"""The stores' objects: ``hindsight_es.objects`` (which the log's key store shares)."""

from hindsight_es.objects import (
    LocalObjects,
    ObjectStore,
    S3Objects,
    S3Options,
    is_remote,
    join,
    objects,
    s3_options,
)

__all__ = ["LocalObjects", "ObjectStore", "S3Objects", "S3Options", "is_remote", "join", "objects", "s3_options"]
