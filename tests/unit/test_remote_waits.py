"""How long the remote clients read an answer (``remote.transport.request_args``): a call that asks the server to
wait is read that long and more; a whole bank's erasure, which lasts as long as its sessions take, without a
time-out, so it is never cut short and sent again while the server still works on it."""

from __future__ import annotations

import httpx

from hindsight_es.remote import calls
from hindsight_es.remote.transport import WAIT_MARGIN_S, request_args

TIMEOUT = httpx.Timeout(5.0, read=30.0)


def test_an_erase_asking_to_wait_is_read_for_its_wait_and_the_margin() -> None:
    args = request_args(calls.erase("alice", session_id="s1", reason="asked", timeout_s=60), TIMEOUT)
    assert args["timeout"].read == 60 + WAIT_MARGIN_S and args["json"]["session_id"] == "s1"


def test_a_call_that_does_not_wait_keeps_the_client_s_time_out() -> None:
    assert "timeout" not in request_args(calls.erase("alice", session_id="s1", reason="asked"), TIMEOUT)


def test_a_whole_bank_s_erasure_is_read_without_a_time_out() -> None:
    args = request_args(calls.erase_bank("alice", reason="account closed", timeout_s=20), TIMEOUT)
    assert args["timeout"].read is None and args["timeout"].connect == 5.0
    assert args["json"] == {"reason": "account closed", "wait": True, "timeout_s": 20}
