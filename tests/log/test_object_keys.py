"""The data keys on object storage (``log.object_keys``), on a real S3 server (SeaweedFS): processes racing
to key the same units agree on one key; an erase covers the session's turns and the memories drawn from
them; a destroyed key leaves no byte in any object and is never keyed again; a reader holding keys in
memory stops opening the erased content as soon as it reads the erasure, and within ``REFRESH_S`` without."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

import pytest
from prometheus_client import REGISTRY

from hindsight_es.config import TOPIC_MEMORIES, Settings
from hindsight_es.events import ContentErased, MemoryRetained, TurnRecorded, decode, encode
from hindsight_es.log import sealer_for
from hindsight_es.log.keys import UnitTags
from hindsight_es.log.object_keys import REFRESH_S, ObjectKeyStore
from hindsight_es.log.port import Record
from hindsight_es.log.sealed import Sealer
from hindsight_es.objects import objects, s3_options
from tests.unit.test_sealed import memory

REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 12, 1, tzinfo=UTC)
RACE = """
import json, sys
from hindsight_es.config import Settings
from hindsight_es.log import sealer_for
from hindsight_es.log.keys import UnitTags
settings = Settings.model_validate_json(sys.argv[1])
store = sealer_for(settings).keys
units = {f"turn:r{i}": UnitTags(session_id="race") for i in range(40)}
keys = store.keys("bob", units)
print(json.dumps({u: k.hex() for u, k in keys.items()}))
store.close()
"""


@pytest.fixture
def settings(s3_server: dict[str, str], tmp_path: Path) -> Settings:
    fields = {**s3_server, "stores_uri": f"{s3_server['stores_uri']}/keys-{uuid4().hex[:8]}"}
    return Settings(data_dir=tmp_path / "data", **fields)


def store_of(settings: Settings) -> ObjectKeyStore:
    """A key store of its own (its own client and generation), as another process would have."""
    sealer = sealer_for(settings)
    assert sealer is not None and isinstance(sealer.keys, ObjectKeyStore)
    return sealer.keys


def every_object(settings: Settings) -> bytes:
    assert settings.stores_uri is not None
    store = objects(settings.stores_uri, s3_options(settings))
    return b"\n".join(store.get(name) or b"" for name, _ in store.list(""))


def test_processes_racing_to_key_the_same_units_agree_on_one_key(settings: Settings) -> None:
    env = {"PYTHONPATH": str(REPO), "PATH": str(Path(sys.executable).parent)}
    argv = [sys.executable, "-c", RACE, settings.model_dump_json()]
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    found = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        found.append(json.loads(out))
    assert len(found[0]) == 40 and found[0] == found[1] == found[2]
    here = store_of(settings).lookup("bob", found[0])
    assert {u: k.hex() for u, k in here.items() if isinstance(k, bytes)} == found[0]


def requests() -> dict[str, float]:
    """The object-store requests this process has made so far, by operation (``/metrics``)."""
    return {
        op: REGISTRY.get_sample_value("hindsight_object_requests_total", {"operation": op}) or 0.0
        for op in ("get", "put", "put-if-absent", "list", "delete")
    }


def spent(before: dict[str, float]) -> dict[str, int]:
    return {op: int(n - before[op]) for op, n in requests().items() if n != before[op]}


def test_keying_new_units_reads_nothing_back(settings: Settings) -> None:
    store = store_of(settings)
    turns = {f"turn:t{i}": UnitTags(session_id="s1") for i in range(3)}
    before = requests()
    keys = store.keys("bob", turns)
    # an index object and a conditional put each: no read of units that cannot exist yet
    assert spent(before) == {"put": 3, "put-if-absent": 3}
    memories = {f"memory:{uuid4()}": UnitTags(session_id="s1", turn_ids=("t0", "t1")) for _ in range(2)}
    before = requests()
    keys |= store.keys("bob", memories)
    # the two source turns read once each (a memory of an erased turn is born erased), two index objects each
    assert spent(before) == {"get": 2, "put": 6, "put-if-absent": 2}

    again = store_of(settings)  # another process keying the same units: the first keys, read back
    before = requests()
    assert again.keys("bob", turns | memories) == keys
    assert spent(before)["get"] == 2 + 5 and spent(before)["put-if-absent"] == 5
    assert again.lookup("bob", keys) == keys


def test_an_erase_destroys_the_session_and_what_came_from_it_for_good(settings: Settings) -> None:
    writer, other = store_of(settings), store_of(settings)
    m1, m2 = f"memory:{uuid4()}", f"memory:{uuid4()}"
    units = {
        "turn:t1": UnitTags(session_id="s1"),
        "turn:t2": UnitTags(session_id="s1"),
        "turn:t3": UnitTags(session_id="s2"),
        m1: UnitTags(session_id="s1", turn_ids=("t1",)),
        m2: UnitTags(session_id="s9", turn_ids=("t2", "t3")),  # another session's memory, drawn from s1's t2
    }
    keys = writer.keys("alice", units)
    assert all(isinstance(k, bytes) and len(k) == 32 for k in keys.values())
    assert other.keys("alice", units) == keys  # created once, found by everyone after
    assert other.select("alice", session_id="s1") == sorted(["turn:t1", "turn:t2", m1, m2])
    assert other.select("alice", turn_id="t3") == sorted(["turn:t3", m2])
    assert other.select("alice", memory_id=m1.removeprefix("memory:")) == [m1]
    assert other.select("bob", session_id="s1") == []
    generation = other.generation()

    covered = other.select("alice", session_id="s1")
    tomb = other.destroy("alice", covered, by="operator", reason="gdpr", at=NOW)
    assert tomb.at == "2026-12-01T00:00:00+00:00"
    after = writer.lookup("alice", units)
    assert [u for u, k in after.items() if isinstance(k, bytes)] == ["turn:t3"]
    assert after["turn:t1"] == tomb
    raw = every_object(settings)
    assert not any(keys[u] in raw or base64.b64encode(keys[u]) in raw for u in covered)
    assert base64.b64encode(keys["turn:t3"]) in raw  # the proof above can fail: the keys are in the objects
    assert writer.select("alice", session_id="s1") == [] and writer.select("alice", turn_id="t3") == ["turn:t3"]
    # keyed again (a redelivered turn, a late memory from an erased turn): erased it stays
    late = f"memory:{uuid4()}"
    again = writer.keys("alice", {"turn:t1": UnitTags(session_id="s1"), late: UnitTags("s3", ("t1",))})
    assert again == {"turn:t1": tomb, late: tomb}
    time.sleep(REFRESH_S)
    assert writer.generation() != generation


def sealed_pair(sealer: Sealer) -> tuple[Record, Record, MemoryRetained]:
    turn = TurnRecorded(bank_id="b", session_id="s1", turn_id="t1", text="my pin is 8841")
    retained = memory(text="the pin is 8841")
    sealed = sealer.seal_all([encode(turn), encode(retained)])
    assert not any(b"8841" in s for s in sealed)
    return Record("t", 0, 0, "b", sealed[0], 0), Record(TOPIC_MEMORIES, 0, 1, "b", sealed[1], 0), retained


def texts(sealer: Sealer, records: list[Record]) -> list[str]:
    return [getattr(decode(r.value), "text", "") for r in sealer.open(records)]


def test_a_reader_holding_keys_stops_opening_erased_content(settings: Settings) -> None:
    writer = sealer_for(settings)
    reader_a, reader_b = sealer_for(settings), sealer_for(settings)  # two processes' readers
    assert writer is not None and reader_a is not None and reader_b is not None
    turn, mem, retained = sealed_pair(writer)
    assert texts(reader_a, [turn, mem]) == texts(reader_b, [turn, mem]) == ["my pin is 8841", "the pin is 8841"]

    keys = writer.keys
    keys.destroy("b", keys.select("b", session_id="s1"), by="operator", reason="asked", at=NOW)
    erased = ContentErased(
        bank_id="b", memory_ids=(retained.memory_id,), turn_ids=("t1",), session_id="s1", erased_by="operator"
    )
    note = Record(TOPIC_MEMORIES, 0, 2, "b", encode(erased), 0)
    # reader A reads the erasure in its batch: nothing in it opens any more, whatever it had cached
    assert all(t.startswith("[erased by operator at 2026-12-01") for t in texts(reader_a, [note, turn, mem])[1:])
    # reader B reads no erasure: within REFRESH_S it sees the key store's new generation
    time.sleep(REFRESH_S)
    assert all(t.startswith("[erased by operator") for t in texts(reader_b, [turn, mem]))
    for sealer in (writer, reader_a, reader_b):
        sealer.close()


@pytest.mark.parametrize("store", ["sqlite", "s3"])
def test_live_lists_every_unit_whose_key_is_not_destroyed_with_its_session(
    store: str, settings: Settings, tmp_path: Path
) -> None:
    from hindsight_es.log.keys import SqliteKeyStore

    keys = SqliteKeyStore(tmp_path / "keys.sqlite3") if store == "sqlite" else sealer_for(settings).keys
    keys.keys("bob", {"turn:t1": UnitTags(session_id="s1"), "turn:t2": UnitTags(session_id="s2")})
    keys.keys("bob", {"memory:m1": UnitTags(session_id="s1", turn_ids=("t1",)), "memory:c1": UnitTags()})
    keys.keys("eve", {"turn:e1": UnitTags(session_id="s1")})
    assert keys.live("bob") == {"memory:c1": None, "memory:m1": "s1", "turn:t1": "s1", "turn:t2": "s2"}
    keys.destroy("bob", keys.select("bob", session_id="s1"), by="operator", reason="test")
    assert keys.live("bob") == {"memory:c1": None, "turn:t2": "s2"}  # a session-less unit stays to be erased
    assert keys.live("eve") == {"turn:e1": "s1"} and keys.live("nobody") == {}
    keys.close()
