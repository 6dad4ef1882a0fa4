"""Record values as the embedded log stores them: compressed with zlib and a preset dictionary.

A stored value is either the value as given (logs written before this, and any value compression
does not shrink) or ``MARK`` + a version byte + a zlib stream compressed with that version's
dictionary. ``MARK`` (0xFF) never starts UTF-8 text, so no JSON value or other text is taken for a
compressed one. A version's dictionary is fixed forever: the values it compressed need it to be read.

The dictionary holds the field names and common values of the events (JSON object keys repeat in
every record and dominate what compresses): on a bench log, 3.79 MB of records took 2.60 MB with
zlib alone and 2.32 MB with the dictionary. UUIDs and packed vectors (base64) are most of the rest.
"""

from __future__ import annotations

import zlib

MARK = 0xFF
LEVEL = 6
# Version 1. Never edit: add a version (and keep this one) to change it. The most frequent strings
# come last, where zlib finds them nearest.
_DICTIONARY_V1 = (
    b'"kind":"constraint""kind":"instruction""kind":"decision""kind":"preference""kind":"fact"'
    b'"type":"MemoryReinforced""evidence_turn_ids":["confirmed":false"type":"MemorySuperseded"'
    b'"superseded_by":"valid_to":"along_with":"kind":"episode""type":"TurnRecorded""turn_id":'
    b'"role":"user""metadata":{}"reason":"type":"MemoryRetained""schema_version":3"kind":"key":'
    b'"value":"entities":["importance":"context":"trust":"trusted""source_turn_ids":["valid_from":'
    b'"vector":"embedder":"hybrid(minilm-l6-v2-qint8@1+use-multilingual-v3@1)@1""extractor":"rules/'
    b'"valid_until":null"provenance":"user""confirmed":true"quote":"confidence":"schema_version":1'
    b'"text":"scope":"global""owner":null"session_id":"speaker":"trust":"memory_id":"source":"user"'
    b'"event_id":"type":"schema_version":"bank_id":"occurred_at":"causation_id":"actor":"user"'
)
_DICTIONARIES = {1: _DICTIONARY_V1}
_CURRENT = 1


def pack(value: bytes) -> bytes:
    """``value`` as stored: compressed when that makes it smaller, else as it is."""
    if value[:1] == bytes([MARK]):  # would read back as compressed: keep it, compressed, unambiguous
        return _compressed(value)
    packed = _compressed(value)
    return packed if len(packed) < len(value) else value


def unpack(stored: bytes) -> bytes:
    """The value ``pack`` was given."""
    if not stored or stored[0] != MARK:
        return stored
    decompressor = zlib.decompressobj(zdict=_DICTIONARIES[stored[1]])
    return decompressor.decompress(stored[2:]) + decompressor.flush()


def _compressed(value: bytes) -> bytes:
    compressor = zlib.compressobj(LEVEL, zdict=_DICTIONARIES[_CURRENT])
    return bytes([MARK, _CURRENT]) + compressor.compress(value) + compressor.flush()
