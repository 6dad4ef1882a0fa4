"""A rollback of a session the bank never had is refused at every door, not planned as nothing."""

from __future__ import annotations

import httpx
import pytest

from hindsight_es.client import Hindsight
from hindsight_es.errors import InvalidInputError
from hindsight_es.history import retraction
from streams.service import catch_up_all


async def test_a_session_the_bank_never_had_is_refused_over_http_and_in_process(
    hs: Hindsight, http: httpx.AsyncClient
) -> None:
    await hs.retain("alice", "We deploy on AWS.", session_id="s1")
    await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)

    answer = await http.post("/v1/banks/alice/rollback/plan", json={"session_id": "s-typo"})
    assert answer.status_code == 400, answer.text  # was 200 with an empty plan
    assert answer.json()["detail"] == "no session 's-typo' in bank 'alice': check the session id and the bank"
    applied = await http.post("/v1/banks/alice/rollback", json={"session_id": "s-typo", "reason": "poisoned"})
    assert applied.status_code == 400, applied.text  # was a SourceRetracted of nothing
    with pytest.raises(InvalidInputError):
        await hs.operator.rollback(retraction("alice", session_id="s-typo", reason="x"), wait=False)

    planned = await http.post("/v1/banks/alice/rollback/plan", json={"session_id": "s1"})
    assert planned.status_code == 200 and len(planned.json()["retract"]) >= 1  # a session it had: planned
