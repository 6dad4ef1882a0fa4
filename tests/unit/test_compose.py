"""docker-compose.yml cannot run here (no Docker engine): check it against the CLI, the settings and the
shape of a scaled-out deployment (a durable Kafka log, an object store, workers, a gateway)."""

from __future__ import annotations

from pathlib import Path

import typer.main
import yaml

from hindsight_es.app.cli.main import command
from hindsight_es.config import Settings

COMPOSE = yaml.safe_load((Path(__file__).parents[2] / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
HINDSIGHT = {name: s for name, s in SERVICES.items() if s.get("command", [None])[0] == "hindsight-es"}


def _cli_commands() -> set[str]:
    group = command()
    assert isinstance(group, typer.core.TyperGroup)
    return set(group.commands)


def test_kafka_keeps_its_log_on_the_volume():
    kafka = SERVICES["kafka"]
    env = kafka["environment"]
    assert "broker,controller" in env["KAFKA_PROCESS_ROLES"]
    mounted = {v.split(":")[1] for v in kafka["volumes"]}
    assert env["KAFKA_LOG_DIRS"] in mounted, "KAFKA_LOG_DIRS must be the mounted volume, or the log is lost"
    assert env["KAFKA_LOG_RETENTION_MS"] == "-1"
    assert any(p.endswith(":29092") for p in kafka["ports"])  # producers on the host
    assert "kafka-topics" not in " ".join(kafka["healthcheck"]["test"])  # no JVM per health check


def test_two_workers_and_a_gateway_on_shared_object_storage():
    roles = sorted(s["command"][1] for s in HINDSIGHT.values())
    assert roles == ["serve", "worker", "worker"]
    assert SERVICES["minio"]["image"].startswith("minio/minio")
    for name, service in HINDSIGHT.items():
        env = service["environment"]
        assert env["HINDSIGHT_STORES_URI"].startswith("s3://"), name
        assert env["HINDSIGHT_S3_ENDPOINT"] == "http://minio:9000"
        assert env["HINDSIGHT_EMBEDDER"] == "hybrid"  # bilingual
        assert {"kafka", "minio"} <= set(service["depends_on"])
        assert service["restart"]
    gateway = next(s for s in HINDSIGHT.values() if s["command"][1] == "serve")
    assert gateway["environment"]["HINDSIGHT_MCP_TOKENS"].startswith("${HINDSIGHT_MCP_TOKENS")  # from the environment
    assert any(p.endswith(":8765") for p in gateway["ports"])


def test_health_checks_are_light_http_requests():
    for name, service in HINDSIGHT.items():
        check = " ".join(service["healthcheck"]["test"])
        assert "/healthz" in check and "hindsight-es" not in check, name


def test_every_hindsight_command_exists_in_the_cli():
    commands = _cli_commands()
    for service in HINDSIGHT.values():
        assert service["command"][1] in commands


def test_every_hindsight_variable_is_a_setting():
    fields = {f"HINDSIGHT_{name.upper()}" for name in Settings.model_fields}
    for name, service in HINDSIGHT.items():
        env = service["environment"]
        assert set(env) <= fields, (name, set(env) - fields)
        values = {k.removeprefix("HINDSIGHT_").lower(): v for k, v in env.items() if "${" not in str(v)}
        settings = Settings(**values)
        assert settings.broker == "kafka:9092" and settings.stores_uri == "s3://hindsight/stores"
