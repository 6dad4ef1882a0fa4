"""Bank access of MCP callers: token -> banks, binding, refusals, and the HTTP exposure rules."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hindsight_es.app.gateway.auth import Access, BankTokens
from hindsight_es.app.gateway.http import check_exposure, is_loopback
from hindsight_es.config import Settings
from hindsight_es.errors import AccessDeniedError, ConfigError, InvalidInputError

ALICE, OPS = "alice-token-000000000001", "ops-token-00000000000002"


async def test_tokens_map_to_their_banks() -> None:
    tokens = BankTokens({ALICE: ["alice"], OPS: "*"})
    alice = await tokens.verify_token(ALICE)
    assert alice is not None and alice.scopes == ["alice"]
    ops = await tokens.verify_token(OPS)
    assert ops is not None and ops.scopes == ["*"]
    assert alice.client_id != ops.client_id and ALICE not in alice.client_id
    for wrong in ("", "alice-token-00000000000", ALICE + "x", ALICE.upper()):
        assert await tokens.verify_token(wrong) is None


async def test_a_one_bank_token_binds_the_connection_and_refuses_other_banks() -> None:
    alice = Access.of_token(await BankTokens({ALICE: ["alice"]}).verify_token(ALICE))  # type: ignore[arg-type]
    assert alice.bank(None) == "alice" and alice.bank("alice") == "alice"
    with pytest.raises(AccessDeniedError, match="may not use bank 'bob'"):
        alice.bank("bob")
    two = Access(frozenset({"a", "b"}))
    with pytest.raises(InvalidInputError, match="no bank given"):
        two.bank(None)
    assert Access.local().allows("anything") and not Access.nothing().allows("anything")
    with pytest.raises(AccessDeniedError):
        Access.nothing().bank("alice")


def test_settings_refuse_weak_or_empty_tokens() -> None:
    assert Settings(mcp_tokens={ALICE: ["alice"], OPS: "*"}).mcp_tokens[OPS] == "*"
    for bad in ({"short": ["alice"]}, {ALICE: []}, {ALICE: "some"}):
        with pytest.raises(ValidationError) as raised:
            Settings(mcp_tokens=bad)
        assert ALICE not in str(raised.value)  # a token never shows in the error


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("0.0.0.0", False),
        ("192.168.1.4", False),
        ("example.com", False),
    ],
)
def test_only_loopback_may_go_without_tokens(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
    if loopback:
        check_exposure(Settings(mcp_host=host))
    else:
        with pytest.raises(ConfigError, match="without tokens"):
            check_exposure(Settings(mcp_host=host))
    check_exposure(Settings(mcp_host=host, mcp_tokens={ALICE: ["alice"]}))


@pytest.mark.parametrize(
    ("tokens", "says"),
    [
        ({" " * 16: ["alice"]}, "white space"),
        ({"\t" * 20: "*"}, "white space"),
        ({"a-good-token-0000 ": ["alice"]}, "white space"),
        ({ALICE: ["*"]}, 'maps to "*", not to a list'),
        ({ALICE: ["alice", "*"]}, 'maps to "*", not to a list'),
        ({ALICE: ["../etc"]}, "must be bank ids"),
    ],
)
def test_settings_refuse_blank_tokens_and_ambiguous_bank_lists(tokens: dict, says: str) -> None:
    with pytest.raises(ValidationError, match=says.replace("*", r"\*").replace("[", r"\[")):
        Settings(mcp_tokens=tokens)
