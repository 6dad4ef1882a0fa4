"""``replay gc`` on object storage lists the store prefixes no reader is pointed at, over a real S3 server."""

from __future__ import annotations

import json
from pathlib import Path

from hindsight_es.stores import generations
from hindsight_es.stores.objects import S3Options, objects


def test_unused_store_prefixes_on_object_storage_are_the_ones_the_pointer_does_not_name(
    s3_server: dict[str, str], s3_options: S3Options, tmp_path: Path
) -> None:
    options = s3_options
    root = f"{s3_server['stores_uri']}/gc-{tmp_path.name}"
    store = objects(root, options)
    for key in (
        "lance/memories.lance/data/a",  # the first location, replaced by a rebuild
        "archive/part-0.parquet",
        "generations/g1/lance/memories.lance/data/b",  # the current generation
        "generations/g1/archive/part-0.parquet",
        "generations/g0/lance/memories.lance/data/c",  # an older rebuild
        "keys/alice/k",  # the key store and snapshots are never store generations
        "snapshots/bank-actor/p0",
    ):
        store.put(key, b"x" * 10)
    assert {uri for uri, _, _ in generations.unused_remote(root, options)} == {
        f"{root}/generations/g1/lance",  # no pointer yet: the first location is current
        f"{root}/generations/g1/archive",
        f"{root}/generations/g0/lance",
    }
    pointer = {"stores": {"lance": "generations/g1/lance", "archive": "generations/g1/archive"}}
    store.put(generations.POINTER, json.dumps(pointer).encode())
    assert generations.unused_remote(root, options) == [
        (f"{root}/archive", 1, 10),
        (f"{root}/generations/g0/lance", 1, 10),
        (f"{root}/lance", 1, 10),
    ]
