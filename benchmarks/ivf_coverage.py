"""Does LanceDB's IVF_SQ index, built the way ``stores.lance_indexes`` builds it, hold every row?

N unit 384-d vectors (``--clusters 0``: uniformly random, as ``bench recall --history bulk`` writes them;
otherwise drawn around N / ``--per-cluster`` centres, as real embeddings group), one table, the index
trained with ``partition_rows(N)`` rows per partition; then Q rows searched by their own vector with
64 probes. Prints the build time, how many times LanceDB logged that it left a partition out ("partition
index is N but the number of partitions is M, skip loading it"), and how many rows did not find
themselves first. A developer tool: ``python -m benchmarks.ivf_coverage --rows 1080000``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import IvfSq

from hindsight_es.stores.lance_indexes import KMEANS_ITERATIONS, TRAIN_SAMPLE_RATE, partition_rows

DIM = 384


def build(rows: int, per_cluster: int, queries: int, zeros: int, fragments: int, optimize: bool) -> None:
    rng = np.random.default_rng(0)
    if per_cluster:
        centres = rng.standard_normal((max(1, rows // per_cluster), DIM)).astype(np.float32)
        v = centres[rng.integers(0, len(centres), rows)] + 0.5 * rng.standard_normal((rows, DIM)).astype(np.float32)
    else:
        v = rng.standard_normal((rows, DIM)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    v[:zeros] = 0.0  # as the tracking rows hold (``stores.lance_schema.tracking_table``)
    column = pa.FixedSizeListArray.from_arrays(pa.array(v.reshape(-1).astype(np.float16)), DIM)
    data = pa.table({"id": np.arange(rows), "vector": column})
    step = -(-rows // fragments)
    table = lancedb.connect(tempfile.mkdtemp()).create_table("m", data.slice(0, step))
    for at in range(step, rows, step):  # one fragment per append, as a rebuild writes
        table.add(data.slice(at, step))
    size = partition_rows(rows)
    started = time.perf_counter()
    config = IvfSq(
        distance_type="cosine",
        target_partition_size=size,
        sample_rate=TRAIN_SAMPLE_RATE,
        max_iterations=KMEANS_ITERATIONS,
    )
    table.create_index("vector", config=config)
    took = time.perf_counter() - started
    print(f"rows {rows:,}, {size} a partition (about {rows // size:,}): index built in {took:.1f} s")
    if optimize:  # as ``ensure_indexes`` does next: compacts the appended fragments and remaps the index
        table.optimize()
    stats = table.index_stats("vector_idx")
    indexed, unindexed = stats.num_indexed_rows, stats.num_unindexed_rows
    print(f"index: {indexed:,} rows indexed, {unindexed:,} not, {stats.num_indices} part(s)")
    missed = 0
    for i in zeros + rng.choice(rows - zeros, queries, replace=False):
        hit = table.search(v[i]).distance_type("cosine").nprobes(64).limit(1).select(["id", "_distance"]).to_list()
        missed += hit[0]["id"] != i
    print(f"rows not found first by their own vector: {missed} of {queries}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_080_000)
    parser.add_argument("--per-cluster", type=int, default=0, help="rows per cluster centre; 0: uniformly random")
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--zeros", type=int, default=0, help="rows whose vector is all zeros")
    parser.add_argument("--fragments", type=int, default=1, help="appends the table is written in")
    parser.add_argument("--optimize", action="store_true", help="optimize() after the index is built")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        build(args.rows, args.per_cluster, args.queries, args.zeros, args.fragments, args.optimize)
        return
    # LanceDB logs from Rust to stderr: run the build in a child and count the lines that say a partition was left out
    command = [sys.executable, "-m", "benchmarks.ivf_coverage", "--child", *sys.argv[1:]]
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ | {"RUST_LOG": "warn"}, check=True)
    print(done.stdout, end="")
    skipped = sum("skip loading it" in line for line in done.stderr.splitlines())
    print(f"partitions LanceDB left out of the index: {skipped}")


if __name__ == "__main__":
    main()
