"""Each operation of the HTTP API as a ``Call``: method, path, body or query, and the result model.

The sync and the async client send the same calls; only the transport differs (``client``, ``aio``).
A problem-details answer becomes the error of its status (``errors``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar, cast
from urllib.parse import quote
from uuid import UUID, uuid4

from pydantic import BaseModel, TypeAdapter, ValidationError

from hindsight_es.remote import models as m
from hindsight_es.remote import requests as r
from hindsight_es.remote.erasure import BankErasureResult, EraseBankRequest, EraseRequest, ErasureResult
from hindsight_es.remote.errors import RefusedError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    method: str
    path: str
    result: Any  # a model class, or a TypeAdapter for a list of them
    json: Any = None
    params: Mapping[str, Any] = field(default_factory=dict)
    # The answer takes as long as the work does (a whole bank's erasure, a session at a time): read with no
    # time-out, as a client that stopped reading would send it again while the server still works on it.
    unbounded: bool = False

    def parse(self, payload: Any) -> T:
        if isinstance(self.result, TypeAdapter):
            return cast(T, self.result.validate_python(payload))
        return cast(T, self.result.model_validate(payload))


def _bank(bank_id: str) -> str:
    return f"/v1/banks/{quote(bank_id, safe='')}"


def _body(model: type[BaseModel], **fields: Any) -> dict[str, Any]:
    """The request body, validated here first: a bad field is a ``RefusedError`` (an ``InvalidInputError``,
    as the server's 422 would be) naming it, before anything is sent."""
    try:
        body = model(**{k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False, include_context=False)
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
        problem = {"title": "The request does not fit the schema", "detail": detail, "errors": errors}
        raise RefusedError(422, problem) from None
    return body.model_dump(mode="json", exclude_none=True)


def retain(bank_id: str, text: str, **fields: Any) -> Call[m.RetainResult]:
    # A turn id makes a retried request idempotent: the server decides the same turn once.
    fields.setdefault("turn_id", str(uuid4()))
    return Call("POST", f"{_bank(bank_id)}/memories", m.RetainResult, _body(r.RetainRequest, text=text, **fields))


def recall(bank_id: str, query: str, **options: Any) -> Call[m.RecallResult]:
    return Call("POST", f"{_bank(bank_id)}/recall", m.RecallResult, _body(r.RecallRequest, query=query, **options))


def context(bank_id: str, session_id: str, text: str = "", **options: Any) -> Call[m.Context]:
    body = _body(r.ContextRequest, session_id=session_id, text=text, **options)
    return Call("POST", f"{_bank(bank_id)}/context", m.Context, body)


def memories(
    bank_id: str,
    *,
    kinds: Sequence[str] = (),
    statuses: Sequence[str] = (),
    source: str | None = None,
    session_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    min_importance: float | None = None,
    text: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> Call[m.MemoryPage]:
    params: dict[str, Any] = {"kind": list(kinds), "status": list(statuses), "limit": limit, "offset": offset}
    for name, value in (("source", source), ("session_id", session_id), ("min_importance", min_importance)):
        if value is not None:
            params[name] = value
    for name, when in (("since", since), ("until", until)):
        if when is not None:
            params[name] = when.isoformat()
    if text:
        params["text"] = text
    return Call("GET", f"{_bank(bank_id)}/memories", m.MemoryPage, params=params)


def memory(bank_id: str, memory_id: str | UUID) -> Call[m.Memory]:
    return Call("GET", f"{_bank(bank_id)}/memories/{memory_id}", m.Memory)


def history(bank_id: str, memory_id: str | UUID) -> Call[m.HistoryResult]:
    return Call("GET", f"{_bank(bank_id)}/memories/{memory_id}/history", m.HistoryResult)


def forget(bank_id: str, memory_id: str | UUID, **options: Any) -> Call[m.ForgetResult]:
    body = _body(r.ForgetRequest, **options)
    return Call("POST", f"{_bank(bank_id)}/memories/{memory_id}/forget", m.ForgetResult, body)


def correct(bank_id: str, memory_id: str | UUID, text: str, **options: Any) -> Call[m.CorrectResult]:
    body = _body(r.CorrectRequest, text=text, **options)
    return Call("POST", f"{_bank(bank_id)}/memories/{memory_id}/correct", m.CorrectResult, body)


def restore(bank_id: str, memory_id: str | UUID, **options: Any) -> Call[m.RestoreResult]:
    body = _body(r.RestoreRequest, **options)
    return Call("POST", f"{_bank(bank_id)}/memories/{memory_id}/restore", m.RestoreResult, body)


def banks() -> Call[list[m.BankSummary]]:
    return Call("GET", "/v1/banks", TypeAdapter(list[m.BankSummary]))


def stats(bank_id: str) -> Call[m.BankStats]:
    return Call("GET", f"{_bank(bank_id)}/stats", m.BankStats)


def sessions(bank_id: str) -> Call[list[m.SessionSummary]]:
    return Call("GET", f"{_bank(bank_id)}/sessions", TypeAdapter(list[m.SessionSummary]))


def session(bank_id: str, session_id: str) -> Call[m.SessionTimeline]:
    return Call("GET", f"{_bank(bank_id)}/sessions/{quote(session_id, safe='')}", m.SessionTimeline)


def quarantined(bank_id: str | None = None, limit: int = 200) -> Call[m.QuarantineResult]:
    params: dict[str, Any] = {"limit": limit} | ({"bank_id": bank_id} if bank_id else {})
    return Call("GET", "/v1/quarantine", m.QuarantineResult, params=params)


def review(
    bank_id: str, memory_ids: Sequence[str | UUID], *, release: bool, **options: Any
) -> Call[m.QuarantineResult]:
    body = _body(r.ReviewRequest, memory_ids=[str(i) for i in memory_ids], **options)
    action = "release" if release else "reject"
    return Call("POST", f"{_bank(bank_id)}/quarantine/{action}", m.QuarantineResult, body)


def disputes(bank_id: str) -> Call[m.TrustResult]:
    return Call("GET", f"{_bank(bank_id)}/disputes", m.TrustResult)


def resolve(bank_id: str, memory_ids: Sequence[str | UUID], *, accept: bool, **options: Any) -> Call[m.TrustResult]:
    body = _body(r.ReviewRequest, memory_ids=[str(i) for i in memory_ids], **options)
    return Call("POST", f"{_bank(bank_id)}/disputes/{'accept' if accept else 'reject'}", m.TrustResult, body)


def owners(bank_id: str) -> Call[m.TrustResult]:
    return Call("GET", f"{_bank(bank_id)}/owners", m.TrustResult)


def set_owners(bank_id: str, owners: Sequence[str], **options: Any) -> Call[m.TrustResult]:
    return Call(
        "PUT", f"{_bank(bank_id)}/owners", m.TrustResult, _body(r.OwnersRequest, owners=list(owners), **options)
    )


def rollback_plan(bank_id: str, **selection: Any) -> Call[m.RollbackPlan]:
    return Call("POST", f"{_bank(bank_id)}/rollback/plan", m.RollbackPlan, _body(r.RollbackSelection, **selection))


def rollback(bank_id: str, **selection: Any) -> Call[m.RollbackResult]:
    return Call("POST", f"{_bank(bank_id)}/rollback", m.RollbackResult, _body(r.RollbackRequest, **selection))


def erase(bank_id: str, **scope_and_options: Any) -> Call[ErasureResult]:
    """``session_id``, ``turn_id`` or ``memory_id`` (one), ``reason``, and ``wait`` / ``timeout_s``."""
    return Call("POST", f"{_bank(bank_id)}/erase", ErasureResult, _body(EraseRequest, **scope_and_options))


def erase_bank(bank_id: str, **options: Any) -> Call[BankErasureResult]:
    """``reason``, and ``wait`` / ``timeout_s`` (for each erasure)."""
    body = _body(EraseBankRequest, **options)
    return Call("POST", f"{_bank(bank_id)}/erase-all", BankErasureResult, body, unbounded=True)


def undo_rollback(bank_id: str, retraction_id: str | UUID, **options: Any) -> Call[m.UndoResult]:
    body = _body(r.UndoRequest, **options)
    return Call("POST", f"{_bank(bank_id)}/rollback/{retraction_id}/undo", m.UndoResult, body)


def state(bank_id: str, as_of: datetime | None = None, every: bool = False) -> Call[m.StateAsOf]:
    params: dict[str, Any] = {"all": "true" if every else "false"} | ({"as_of": as_of.isoformat()} if as_of else {})
    return Call("GET", f"{_bank(bank_id)}/state", m.StateAsOf, params=params)
