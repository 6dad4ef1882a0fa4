"""Settings: the one place that reads the environment (prefix ``HINDSIGHT_``).

Built once in each entry point and passed down; nothing else reads ``os.environ``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

TOPIC_TURNS = "hindsight.turns"
TOPIC_COMMANDS = "hindsight.commands"
TOPIC_MEMORIES = "hindsight.memories"
TOPIC_DEAD_LETTER = "hindsight.deadletter"
ALL_TOPICS = (TOPIC_TURNS, TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_DEAD_LETTER)


class Settings(BaseSettings):
    """Runtime configuration; every field can be set as ``HINDSIGHT_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_", extra="ignore")

    data_dir: Path = Field(Path("./hindsight-data"), description="Log (embedded), LanceDB and Parquet stores")
    broker: str | None = Field(None, description="Kafka bootstrap servers; unset = embedded log")
    partitions: int = Field(4, ge=1, le=256, description="Partitions per topic (embedded log, topic creation)")
    embedder: str = Field("minilm", description="Embedding model: minilm | use")
    max_text_chars: int = Field(16_000, ge=16, description="Turns longer than this are refused")
    working_memory_turns: int = Field(12, ge=0, description="Recent turns per session kept for context")
    poll_max_records: int = Field(500, ge=1, description="Records per consumer poll")
    poll_timeout_ms: int = Field(200, ge=1, description="Consumer poll wait")
    kafka_session_timeout_ms: int = Field(10_000, ge=100)
    kafka_heartbeat_interval_ms: int = Field(3_000, ge=50)
    request_timeout_s: float = Field(10.0, gt=0, description="Time-out for log and store calls made by clients")
    log_level: str = Field("INFO")

    @property
    def log_path(self) -> Path:
        return self.data_dir / "log.sqlite3"

    @property
    def lance_path(self) -> Path:
        return self.data_dir / "lance"

    @property
    def archive_path(self) -> Path:
        return self.data_dir / "archive"
