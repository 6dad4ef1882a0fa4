"""What the memory browser reads from its query string, checked: the form's filters, the search and the page.

A value that cannot be used is refused as invalid input (400, naming the field), never passed on to fail
deep in a store; the limits are the API's (a query of at most 4,000 characters, ids without control
characters). Search hits are narrowed by the same filters where recall's hits carry the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from hindsight_es.app.gateway.ui.forms import parse_time
from hindsight_es.errors import InvalidInputError
from hindsight_es.recall.models import RecallHit
from hindsight_es.text import first_error
from hindsight_es.types import MemoryKind, Source

PAGE = 50  # memories on a page of the browser
HITS = 20  # hits of a search
MAX_OFFSET = 1_000_000  # far past any bank's page count, and a number a store's slice takes
MAX_QUERY = 4000  # as the API's RecallRequest.query
Status = Literal["active", "superseded", "disputed", "forgotten", "quarantined", "retracted", "archived"]
STATUSES: list[str] = list(Status.__args__)  # type: ignore[attr-defined]


def _blank_is_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


class Filters(BaseModel):
    """The browser's query string; a field left empty does not narrow."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: list[MemoryKind] = []
    status: list[Status] = []
    source: Source | Literal[""] = ""
    session_id: str = Field("", max_length=256, pattern=r"^[^\x00-\x1f\x7f]*$")  # no control character, as the API
    since: str = ""
    until: str = ""
    min_importance: Annotated[float | None, BeforeValidator(_blank_is_none)] = Field(
        None, ge=0, le=1, allow_inf_nan=False
    )
    q: str = Field("", max_length=MAX_QUERY)
    offset: int = Field(0, ge=0, le=MAX_OFFSET)

    @field_validator("since", "until")
    @classmethod
    def _a_time(cls, value: str, info: ValidationInfo) -> str:
        parse_time(value, info.field_name or "time")  # InvalidInputError for one that is not a time
        return value

    @model_validator(mode="after")
    def _in_order(self) -> Filters:
        since, until = self.since_at, self.until_at
        if since is not None and until is not None and since >= until:
            raise InvalidInputError(f"since {self.since} must be before until {self.until}")
        return self

    @property
    def since_at(self) -> datetime | None:
        return parse_time(self.since, "since")

    @property
    def until_at(self) -> datetime | None:
        return parse_time(self.until, "until")

    def query(self, **changes: Any) -> str:
        """This query string with ``changes``, empty fields left out (a link to another page of it)."""
        fields = self.model_dump() | changes
        pairs = [(k, v) for k, v in fields.items() if v not in ("", None, [], 0)]
        return urlencode(pairs, doseq=True)

    def recall_options(self) -> dict[str, Any]:
        """What recall itself narrows by: kinds, the valid-from range, the statuses (archived ones from the
        cold archive; active ones when no status is chosen)."""
        hot = [s for s in self.status if s != "archived"] or ["active"]
        return {
            "kinds": self.kind or None,
            "since": self.since_at,
            "until": self.until_at,
            "statuses": hot,
            "include_archived": "archived" in self.status,
        }

    def keeps(self, hit: RecallHit) -> bool:
        """A hit passes the filters recall does not apply itself (status, source, session)."""
        return (
            (not self.status or hit.status in self.status)
            and (not self.source or hit.source == self.source)
            and (not self.session_id or hit.session_id == self.session_id)
        )

    @property
    def narrows_after(self) -> bool:
        """Whether some hits may be dropped after recall (so recall is asked for more than a page)."""
        return bool(self.status or self.source or self.session_id)


def filters_of(params: Any) -> Filters:
    """The ``Filters`` of a request's query parameters (a Starlette ``QueryParams``); invalid input names
    its field."""
    raw: dict[str, Any] = {k: params.get(k) for k in Filters.model_fields if k in params}
    for many in ("kind", "status"):
        if many in params:
            raw[many] = params.getlist(many)
    try:
        return Filters.model_validate(raw)
    except ValidationError as exc:
        raise InvalidInputError(readable(exc.errors())) from exc


def readable(errors: Sequence[Any]) -> str:
    """Pydantic's (or FastAPI's) first error as one line, as every door says it (``text.first_error``)."""
    return first_error(errors)
