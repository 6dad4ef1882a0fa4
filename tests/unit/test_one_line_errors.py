"""A validation error reads the same at every door (``text.first_error``): ``dotted.path: message``, without
FastAPI's request part or pydantic's name of a union member; the dashboard, the codec, the LLM extractor,
rollback and the kernel's inputs all say it so."""

from __future__ import annotations

import json
from typing import Literal

import pytest
from pydantic import BaseModel, ValidationError

from hindsight_es.app.gateway.ui.filters import readable
from hindsight_es.client.inputs import build
from hindsight_es.errors import DecodeError, ExtractionError, InvalidInputError
from hindsight_es.events import TurnRecorded
from hindsight_es.events.codec import decode
from hindsight_es.extraction.llm import _answer
from hindsight_es.history import retraction
from hindsight_es.text import first_error


class Item(BaseModel):
    kind: Literal["fact", "plan"]


class Page(BaseModel):
    items: list[Item] = []
    source: Literal["user", "tool"] | Literal[""] = ""


def errors_of(**fields: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        Page.model_validate(fields)
    return caught.value


def test_the_path_is_dotted_down_to_the_item() -> None:
    assert first_error(errors_of(items=[{"kind": "fact"}, {"kind": "x"}])) == (
        "items.1.kind: Input should be 'fact' or 'plan'"
    )


def test_a_union_member_and_the_request_part_are_not_fields() -> None:
    assert first_error(errors_of(source="x")).startswith("source: Input should be 'user' or 'tool'")
    fastapi_like = [{"loc": ("body", "text"), "msg": "String should have at least 1 character"}]
    assert first_error(fastapi_like) == "text: String should have at least 1 character"


def test_no_path_is_the_message_alone_and_the_caller_may_name_the_field() -> None:
    assert first_error([{"loc": (), "msg": "give one of a, b"}]) == "give one of a, b"
    assert first_error([]) == "invalid input"
    assert first_error([{"loc": ("log_level",), "msg": "bad"}], lambda w: f"HINDSIGHT_{w.upper()}") == (
        "HINDSIGHT_LOG_LEVEL: bad"
    )


def test_the_dashboard_names_the_item_as_every_other_door() -> None:
    errors = [{"loc": ("query", "kind", 0), "msg": "Input should be 'episode' or 'fact'"}]
    assert readable(errors) == "kind.0: Input should be 'episode' or 'fact'"


def test_the_doors_say_the_same_line_for_the_same_kind_of_problem() -> None:
    with pytest.raises(InvalidInputError) as built:
        build(TurnRecorded, bank_id="b", session_id="s", turn_id="t", text="x", metadata={"a": [1]})
    assert str(built.value) == "metadata.a.str: Input should be a valid string"
    with pytest.raises(InvalidInputError) as rolled:
        retraction("b", source="bogus")  # type: ignore[arg-type]
    assert str(rolled.value) == "source: Input should be 'user', 'assistant', 'tool' or 'document'"
    record = {"type": "TurnRecorded", "bank_id": "b", "session_id": "s", "turn_id": "t", "text": "x", "role": "boss"}
    with pytest.raises(DecodeError) as decoded:
        decode(json.dumps(record).encode())
    assert str(decoded.value).startswith("invalid TurnRecorded: TurnRecorded.role: Input should be 'user'")
    answer = {"memories": [{"turn": 1, "kind": "banana", "text": "x"}]}
    completion = {"choices": [{"message": {"content": json.dumps(answer)}, "finish_reason": "stop"}]}
    with pytest.raises(ExtractionError) as llm:
        _answer(completion, calls=1)
    assert str(llm.value).startswith("off_schema: memories.0.kind: Input should be 'fact'")
