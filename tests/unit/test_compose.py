"""docker-compose.yml cannot run here (no Docker engine): check it against the CLI and the settings."""

from __future__ import annotations

from pathlib import Path

import typer.main
import yaml

from hindsight_es.app.cli.main import app
from hindsight_es.config import Settings

COMPOSE = yaml.safe_load((Path(__file__).parents[2] / "docker-compose.yml").read_text())


def _cli_commands() -> set[str]:
    return set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_compose_has_kafka_in_kraft_mode_and_the_service():
    services = COMPOSE["services"]
    assert "broker,controller" in services["kafka"]["environment"]["KAFKA_PROCESS_ROLES"]
    assert services["hindsight"]["depends_on"]["kafka"]["condition"] == "service_healthy"
    for name in ("kafka", "hindsight"):
        assert services[name]["restart"] and services[name]["healthcheck"]["test"]
    assert set(COMPOSE["volumes"]) >= {"kafka-data", "hindsight-data"}


def test_every_hindsight_command_exists_in_the_cli():
    commands = _cli_commands()
    hindsight = COMPOSE["services"]["hindsight"]
    for argv in (hindsight["command"], hindsight["healthcheck"]["test"][1:]):
        assert argv[0] == "hindsight-es"
        assert argv[1] in commands, f"{argv[1]} is not a hindsight-es command"


def test_every_hindsight_variable_is_a_setting():
    fields = {f"HINDSIGHT_{name.upper()}" for name in Settings.model_fields}
    env = COMPOSE["services"]["hindsight"]["environment"]
    assert set(env) <= fields, set(env) - fields
    settings = Settings(**{k.removeprefix("HINDSIGHT_").lower(): v for k, v in env.items()})
    assert settings.broker == "kafka:9092"
