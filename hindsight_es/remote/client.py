"""``HindsightClient``: the HTTP API from Python, synchronously (httpx), with typed results.

    with HindsightClient("http://127.0.0.1:8765", token="…") as hs:
        hs.retain("alice", "we moved to Paris", session_id="s1", wait=True)
        hits = hs.recall("alice", "where do we live?").hits

``hs.operator`` has the operator's calls (quarantine review, rollback, erase). Errors are the kernel's error
classes (``hindsight_es.remote.errors``); 429 and 5xx answers are retried (``transport``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

import httpx

from hindsight_es.remote import calls
from hindsight_es.remote import models as m
from hindsight_es.remote.erasure import BankErasureResult, ErasureResult
from hindsight_es.remote.transport import Policy, headers, outcome, request_args, retryable, unreachable

T = TypeVar("T")


class HindsightClient:
    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8765",
        token: str | None = None,
        *,
        timeout_s: float = 30.0,
        retries: int = 3,
        backoff_s: float = 0.25,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.policy = Policy(retries, backoff_s)
        self._http = httpx.Client(
            base_url=self.base_url, headers=headers(token), timeout=timeout_s, transport=transport
        )
        self.operator = Operator(self)

    def __enter__(self) -> HindsightClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def send(self, call: calls.Call[T]) -> T:
        for attempt in range(self.policy.retries + 1):
            last = attempt == self.policy.retries
            try:
                response = self._http.request(call.method, call.path, **request_args(call, self._http.timeout))
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                if last:
                    raise unreachable(self.base_url, exc) from exc
                time.sleep(self.policy.wait_s(attempt, None))
                continue
            if retryable(response) and not last:
                time.sleep(self.policy.wait_s(attempt, response))
                continue
            return outcome(call, response)
        raise AssertionError("unreachable")

    def retain(self, bank_id: str, text: str, **fields: Any) -> m.RetainResult:
        return self.send(calls.retain(bank_id, text, **fields))

    def recall(self, bank_id: str, query: str, **options: Any) -> m.RecallResult:
        return self.send(calls.recall(bank_id, query, **options))

    def context(self, bank_id: str, session_id: str, text: str = "", **options: Any) -> m.Context:
        return self.send(calls.context(bank_id, session_id, text, **options))

    def memories(self, bank_id: str, **filters: Any) -> m.MemoryPage:
        return self.send(calls.memories(bank_id, **filters))

    def memory(self, bank_id: str, memory_id: str | UUID) -> m.Memory:
        return self.send(calls.memory(bank_id, memory_id))

    def history(self, bank_id: str, memory_id: str | UUID) -> m.HistoryResult:
        return self.send(calls.history(bank_id, memory_id))

    def forget(self, bank_id: str, memory_id: str | UUID, **options: Any) -> m.ForgetResult:
        return self.send(calls.forget(bank_id, memory_id, **options))

    def correct(self, bank_id: str, memory_id: str | UUID, text: str, **options: Any) -> m.CorrectResult:
        return self.send(calls.correct(bank_id, memory_id, text, **options))

    def restore(self, bank_id: str, memory_id: str | UUID, **options: Any) -> m.RestoreResult:
        return self.send(calls.restore(bank_id, memory_id, **options))

    def banks(self) -> list[m.BankSummary]:
        return self.send(calls.banks())

    def stats(self, bank_id: str) -> m.BankStats:
        return self.send(calls.stats(bank_id))

    def sessions(self, bank_id: str) -> list[m.SessionSummary]:
        return self.send(calls.sessions(bank_id))

    def session(self, bank_id: str, session_id: str) -> m.SessionTimeline:
        return self.send(calls.session(bank_id, session_id))

    def disputes(self, bank_id: str) -> m.TrustResult:
        """Open disputes of the bank (less trusted memories contradicting the owner's own)."""
        return self.send(calls.disputes(bank_id))

    def resolve(self, bank_id: str, memory_ids: Sequence[str | UUID], *, accept: bool, **options: Any) -> m.TrustResult:
        """Accept (the challengers supersede) or reject (they are forgotten): the bank's owner or an operator."""
        return self.send(calls.resolve(bank_id, memory_ids, accept=accept, **options))

    def owners(self, bank_id: str) -> m.TrustResult:
        return self.send(calls.owners(bank_id))

    def state(self, bank_id: str, as_of: datetime | None = None, *, every: bool = False) -> m.StateAsOf:
        return self.send(calls.state(bank_id, as_of, every))


class Operator:
    """The operator's calls (a token for every bank)."""

    def __init__(self, client: HindsightClient) -> None:
        self._client = client

    def quarantined(self, bank_id: str | None = None, limit: int = 200) -> m.QuarantineResult:
        return self._client.send(calls.quarantined(bank_id, limit))

    def release(self, bank_id: str, memory_ids: Sequence[str | UUID], **options: Any) -> m.QuarantineResult:
        return self._client.send(calls.review(bank_id, memory_ids, release=True, **options))

    def reject(self, bank_id: str, memory_ids: Sequence[str | UUID], **options: Any) -> m.QuarantineResult:
        return self._client.send(calls.review(bank_id, memory_ids, release=False, **options))

    def set_owners(self, bank_id: str, owners: Sequence[str], **options: Any) -> m.TrustResult:
        return self._client.send(calls.set_owners(bank_id, owners, **options))

    def rollback_plan(self, bank_id: str, **selection: Any) -> m.RollbackPlan:
        return self._client.send(calls.rollback_plan(bank_id, **selection))

    def rollback(self, bank_id: str, **selection: Any) -> m.RollbackResult:
        return self._client.send(calls.rollback(bank_id, **selection))

    def erase(self, bank_id: str, reason: str, **scope_and_options: Any) -> ErasureResult:
        """Erase a session, a turn or a memory for good (``session_id=``, ``turn_id=`` or ``memory_id=``)."""
        return self._client.send(calls.erase(bank_id, reason=reason, **scope_and_options))

    def erase_bank(self, bank_id: str, reason: str, **options: Any) -> BankErasureResult:
        """Erase everything the bank holds for good, a session at a time (``wait=``, ``timeout_s=`` for each)."""
        return self._client.send(calls.erase_bank(bank_id, reason=reason, **options))

    def undo_rollback(self, bank_id: str, retraction_id: str | UUID, **options: Any) -> m.UndoResult:
        return self._client.send(calls.undo_rollback(bank_id, retraction_id, **options))
