"""Settings: the one place that reads the environment (prefix ``HINDSIGHT_``).

Built once in each entry point and passed down; nothing else reads ``os.environ``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

TOPIC_TURNS = "hindsight.turns"
TOPIC_COMMANDS = "hindsight.commands"
TOPIC_MEMORIES = "hindsight.memories"
TOPIC_DEAD_LETTER = "hindsight.deadletter"
ALL_TOPICS = (TOPIC_TURNS, TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_DEAD_LETTER)
DEFAULT_MAX_TEXT_CHARS = 16_000
#: The embedders ``Settings.embedder`` may name: the keys of ``embedding.registry.EMBEDDERS`` (a test pins it),
#: checked here so that every command refuses an unknown one, not only those that load a model.
EMBEDDER_NAMES = ("hybrid", "minilm", "use")
_BANK_ID = re.compile(r"[\w.:@\-]{1,128}")  # as ``types.BankId``


#: The default ``readers`` stops here: each process holds its own models and caches (about 0.6 GB).
MAX_DEFAULT_READERS = 4


def default_readers() -> int:
    """One HTTP process per core this process may run on (its CPU affinity: a container's cpuset), at most
    ``MAX_DEFAULT_READERS``: one Python process keeps only about 1.2–1.5 cores busy with recalls."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_READERS))


class Settings(BaseSettings):
    """Runtime configuration; every field can be set as ``HINDSIGHT_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_", extra="ignore", hide_input_in_errors=True)  # tokens

    data_dir: Path = Field(default=Path("./hindsight-data"), description="Log (embedded), LanceDB and Parquet stores")
    broker: str | None = Field(default=None, description="Kafka bootstrap servers; unset = embedded log")
    log_max_bytes: int | None = Field(
        default=None,
        ge=65_536,
        description="Most bytes the embedded log file may hold (unset: the disk's size); at the limit writes fail "
        "and retry as on a full disk",
    )
    partitions: int = Field(default=4, ge=1, le=256, description="Partitions per topic (embedded log, topic creation)")
    seal_content: bool = Field(
        default=True, description="Encrypt personal content in the log with erasable per-turn/per-memory keys"
    )
    embedder: str = Field(
        default="hybrid", description="Embedding model: hybrid (MiniLM + multilingual USE) | minilm | use"
    )
    max_text_chars: int = Field(default=DEFAULT_MAX_TEXT_CHARS, ge=16, description="Turns longer than this are refused")
    working_memory_turns: int = Field(default=12, ge=0, description="Recent turns per session kept for context")
    poll_max_records: int = Field(default=500, ge=1, description="Records per consumer poll")
    poll_timeout_ms: int = Field(default=200, ge=1, description="Consumer poll wait")
    kafka_session_timeout_ms: int = Field(default=10_000, ge=100)
    kafka_heartbeat_interval_ms: int = Field(default=3_000, ge=50)
    kafka_fetch_max_wait_ms: int = Field(
        default=100,
        ge=0,
        le=30_000,
        description="How long the broker may hold a consumer's fetch that finds nothing new: the most a record "
        "can wait for a caught-up consumer on a broker that answers a held fetch only when it times out (Tansu)",
    )
    prewarm_mb: int = Field(
        default=1024,
        ge=0,
        description="A reader loads the memories table's search indexes whole into memory at start while they "
        "fit in this many MB together (a cold IVF partition costs a recall a read; 0: never)",
    )
    request_timeout_s: float = Field(default=10.0, gt=0, description="Time-out for log and store calls made by clients")
    read_threads: int = Field(
        default=8,
        ge=1,
        le=256,
        description="Threads of a client's store reads (recall, context, browse): their own pool, so reads never "
        "queue behind the pipeline's writes and index builds in the same process",
    )
    io_threads: int = Field(
        default=32,
        ge=4,
        le=512,
        description="Threads of the service's blocking calls (store writes, index builds, object-store "
        "requests): most wait on IO or run native code without the GIL, so they are many, or the actors' "
        "steps would queue behind the projections' slow object-store writes",
    )
    # Shared stores (hindsight_es/stores/location.py): a local path (default: the data directory) or s3://.
    stores_uri: str | None = Field(
        default=None,
        description="Where the LanceDB tables, the archive and the snapshots live: a path or s3://bucket/prefix",
    )
    store_shards: Literal["auto", "single", "partition"] = Field(
        default="auto",
        description="LanceDB layout of a new store: one set of tables, or one per partition (auto: per partition "
        "on Kafka or object storage)",
    )
    s3_endpoint: str | None = Field(default=None, description="S3 endpoint URL, e.g. http://minio:9000 (AWS: unset)")
    s3_region: str | None = Field(default=None, description="S3 region")
    s3_access_key_id: str | None = Field(default=None, repr=False, description="S3 access key id")
    s3_secret_access_key: str | None = Field(default=None, repr=False, description="S3 secret access key")
    s3_allow_http: bool = Field(default=False, description="Allow a plain-HTTP S3 endpoint")
    snapshot_every: int = Field(
        default=10_000, ge=1, description="Memory events folded into a partition's state between its snapshots"
    )
    log_level: str = Field(default="INFO", description="DEBUG | INFO | WARNING | ERROR | CRITICAL")
    # MCP gateway (hindsight_es/app/gateway/): streamable HTTP in `up`, stdio in `mcp`.
    mcp_http: bool = Field(default=True, description="`up` also serves MCP over streamable HTTP")
    mcp_host: str = Field(default="127.0.0.1", description="Interface of the MCP HTTP server")
    mcp_port: int = Field(default=8765, ge=1, le=65535, description="Port of the MCP HTTP server (path /mcp)")
    readers: int = Field(
        default_factory=default_readers,
        ge=1,
        le=32,
        description="Processes serving HTTP (MCP and API) on the port: `up` itself and readers-1 `serve` processes "
        "it starts and restarts, sharing the port (SO_REUSEPORT) and the stores; each loads its own models and "
        "caches (about 0.6 GB), and recalls then use more cores than one process can. By default one per core "
        f"this process may run on, at most {MAX_DEFAULT_READERS}",
    )
    mcp_tokens: dict[str, Any] = Field(  # checked below, so a bad entry's error never names its token
        default_factory=dict,
        repr=False,
        description='Bearer token -> banks it may read and write (a list) or "*", JSON: {"t1": ["alice"], "t2": "*"}',
    )
    mcp_bank: str | None = Field(default=None, description="Bank a stdio connection is bound to (default for calls)")
    mcp_wait_timeout_s: float = Field(default=10.0, gt=0, le=120, description="Default wait of retain/forget/correct")
    # LLM extraction (hindsight_es/extraction/llm.py): off unless llm_base_url and llm_model are set.
    llm_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible API root, e.g. https://api.openai.com/v1, http://localhost:11434/v1 (Ollama)",
    )
    llm_model: str | None = Field(default=None, description="Model id sent to the chat-completions API")
    llm_api_key: str | None = Field(default=None, repr=False, description="Bearer key (none for local servers)")
    llm_timeout_s: float = Field(default=30.0, gt=0, description="Time-out of one chat-completions request")
    llm_max_retries: int = Field(default=2, ge=0, le=10, description="Retries of a failed request (time-out, 429, 5xx)")
    llm_retry_backoff_s: float = Field(
        default=1.0, ge=0, description="First back-off between retries (doubles, jittered)"
    )
    llm_concurrency: int = Field(default=4, ge=1, le=64, description="Requests in flight at once (all banks)")
    llm_batch_turns: int = Field(default=8, ge=1, le=64, description="Recent turns of one bank per request")
    llm_json_mode: bool = Field(default=True, description='Ask for response_format {"type": "json_object"}')
    llm_judge: bool = Field(
        default=True, description="Show the LLM the nearest active memories to judge restatements and contradictions"
    )
    # Write-time poisoning guard (hindsight_es/memory/guard.py): quarantine at score >= threshold of the trust.
    guard_enabled: bool = Field(default=True, description="Screen every candidate before it becomes active")
    guard_threshold_trusted: float = Field(
        default=1.0, gt=0, description="Guard score that quarantines a user's statement"
    )
    guard_judge: bool = Field(
        default=False,
        description="With an LLM configured, also ask it to judge turns from documents, tools and the assistant "
        "against the nearest trusted memories (recorded in the log; it can only hold a turn back)",
    )
    guard_threshold_normal: float = Field(default=0.6, gt=0, description="… an assistant's")
    guard_threshold_untrusted: float = Field(
        default=0.5, gt=0, description="… a tool output's or a retrieved document's"
    )

    # Forgetting lifecycle (memory/retention.py, streams/janitor.py): decay, capacity, scopes, sharing.
    janitor_enabled: bool = Field(default=True, description="`up` runs the janitor (scheduled and over-capacity ticks)")
    janitor_interval_s: float = Field(default=3600.0, gt=0, description="Seconds between scheduled ticks of every bank")
    janitor_check_s: float = Field(default=30.0, gt=0, description="Seconds between capacity checks of every bank")
    retention_threshold: float = Field(
        default=0.1, ge=0, le=1, description="Archive memories whose retention falls below"
    )
    retention_half_life_days: dict[str, float | None] = Field(
        default_factory=dict,
        description="Half-life per kind in days, over the defaults; null = never fades: "
        '{"episode": 7, "constraint": null}',
    )
    retention_weights: dict[str, float] = Field(
        default_factory=dict, description="Weights of importance, confidence and recalls, over the defaults"
    )
    retention_recall_saturation: int = Field(default=8, ge=1, description="Recalls that earn the whole recall weight")
    retention_grace_days: float = Field(default=1.0, ge=0, description="Younger memories are never archived for decay")
    bank_capacity: int | None = Field(
        default=100_000, ge=1, description="Most active memories per bank (None: no limit)"
    )
    bank_capacities: dict[str, int] = Field(default_factory=dict, description="Capacity per bank, over bank_capacity")
    session_idle_hours: float | None = Field(
        default=24.0,
        gt=0,
        description="Session-scoped memories expire after this idle time (None: only on session end)",
    )
    record_recalls: bool = Field(
        default=True, description="Publish what recall serves (RecallsTallied, per bank and interval) for retention"
    )
    recall_tally_s: float = Field(
        default=60.0, gt=0, description="Seconds between the recall-use events of a bank (one per bank and interval)"
    )
    restore_on_recall: bool = Field(default=True, description="An archived memory served by recall comes back")
    shared_banks: dict[str, list[str]] = Field(
        default_factory=dict, description='Bank -> shared banks its recalls may include: {"alice": ["team"]}'
    )
    recall_weights: dict[str, float] = Field(
        default_factory=dict,
        description='Score weights of "private" (the agent\'s own), "bank" (unowned, this '
        'bank) and "shared" (a shared bank) hits, over the defaults',
    )
    min_relevance: float = Field(
        default=0.19,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="Recall and context return no long-term memories unless the best hit is at least this "
        "relevant (calibrated, 0 to 1; 0: off); a per-call min_relevance overrides it",
    )
    log_format: Literal["text", "json"] = Field(default="text", description="Log lines as text or one JSON object each")
    traces: str = Field(
        default="off",
        description="OpenTelemetry traces: off | console (stderr) | file:PATH (JSON lines) | otlp (the otlp extra; "
        "OTEL_EXPORTER_OTLP_ENDPOINT says where)",
    )
    lag_sample_s: float = Field(default=5.0, gt=0, description="Seconds between samples of consumer lag in /metrics")
    metrics_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Also serve /metrics on 127.0.0.1:PORT (it is always on the MCP HTTP server)",
    )

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        if value.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError("must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
        return value.upper()

    @field_validator("embedder")
    @classmethod
    def _known_embedder(cls, value: str) -> str:
        if value not in EMBEDDER_NAMES:
            raise ValueError(f"unknown embedder {value!r}; valid names: {', '.join(EMBEDDER_NAMES)}")
        return value

    @field_validator("traces")
    @classmethod
    def _known_exporter(cls, value: str) -> str:
        if value not in ("off", "console", "otlp") and not (value.startswith("file:") and len(value) > 5):
            raise ValueError("must be off, console, otlp or file:PATH")
        return value

    @field_validator("mcp_tokens")
    @classmethod
    def _tokens_name_banks(cls, value: dict[str, Any]) -> dict[str, Any]:
        for token, banks in value.items():
            if len(token) < 16:
                raise ValueError("every MCP token must be at least 16 characters long")
            if any(c.isspace() or not c.isprintable() for c in token):
                raise ValueError("an MCP token must not contain white space or control characters (one is blank?)")
            if banks == "*":
                continue
            if not (isinstance(banks, list) and banks and all(isinstance(b, str) and b for b in banks)):
                raise ValueError('every MCP token must map to a list of banks or to "*" (all banks)')
            if "*" in banks:
                raise ValueError('a token for every bank maps to "*", not to a list holding "*" (["*"] is ambiguous)')
            if not all(_BANK_ID.fullmatch(b) for b in banks):
                raise ValueError("an MCP token's banks must be bank ids (letters, digits and . : @ - _, up to 128)")
        return value

    @property
    def llm_enabled(self) -> bool:
        return bool(self.llm_base_url and self.llm_model)

    @property
    def log_path(self) -> Path:
        return self.data_dir / "log.sqlite3"

    @property
    def read_only(self) -> bool:
        """Whether the data directory exists and this process may not write it (a backup on read-only media, a
        mount without write permission). Asked each time, not cached: the answer is the file system's. Then its
        log and key store open read-only, nothing catches up or records what recall served, and any write is
        refused with a ``ReadOnlyError`` (``access`` reports a read-only file system as well as a permission)."""
        return self.data_dir.is_dir() and not os.access(self.data_dir, os.W_OK)

    @property
    def keys_path(self) -> Path | None:
        """The data keys' SQLite store beside the stores every process shares (``stores_uri``, else the
        data directory); None on object storage, where the keys are objects under ``<stores_uri>/keys``."""
        if self.stores_uri is None:
            return self.data_dir / "keys.sqlite3"
        return None if self.stores_uri.startswith("s3://") else Path(self.stores_uri) / "keys.sqlite3"
