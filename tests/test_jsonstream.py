"""The streaming JSON-array reader gives exactly orjson's values, or refuses (and the build parses whole)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import orjson
import pytest

from surge_dataset.data.jsonstream import StreamError, iter_json_array

_PIECES = ["a", " ", ",", "[", "]", "{", "}", '"', "\\", ":", "é", "\n", "\u2028", "😀"]


def _value(rng: random.Random, depth: int = 0):
    kind = rng.randint(0, 6 if depth < 3 else 3)
    if kind == 0:
        return rng.randint(-5, 10 ** rng.randint(0, 18))
    if kind == 1:
        return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 8)))
    if kind == 2:
        return rng.choice([None, True, False, 1.5, -0.0])
    if kind == 3:
        return rng.random()
    if kind == 4:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {str(_value(rng, 3)): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _read(path: Path, block: int) -> list:
    return [value for batch in iter_json_array(path, block_bytes=block) for value in batch]


def test_values_equal_orjson_for_any_block_size(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = tmp_path / "a.json"
    for _ in range(400):
        array = [_value(rng) for _ in range(rng.randint(0, 6))]
        text = json.dumps(array, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1]))
        path.write_bytes(rng.choice([b"", b" \n"]) + text.encode() + rng.choice([b"", b"\n"]))
        assert _read(path, rng.randint(1, 40)) == orjson.loads(path.read_bytes())


def test_refuses_whatever_orjson_refuses(tmp_path: Path) -> None:
    rng = random.Random(11)
    path = tmp_path / "a.json"
    refused = 0
    for _ in range(600):
        text = json.dumps([_value(rng) for _ in range(rng.randint(1, 5))]).encode()
        for _ in range(rng.randint(1, 2)):  # insert, delete or truncate somewhere
            i = rng.randint(0, len(text))
            op = rng.random()
            if op < 0.4:
                text = text[:i] + rng.choice([b",", b"]", b"[", b'"', b"\\", b"}", b"x", b"\xff"]) + text[i:]
            elif op < 0.8:
                text = text[:i] + text[i + 1 :]
            else:
                text = text[:i]
        path.write_bytes(text)
        try:
            expected = orjson.loads(text)
        except orjson.JSONDecodeError:
            with pytest.raises(StreamError):
                _read(path, rng.randint(1, 40))
            refused += 1
            continue
        if isinstance(expected, list):
            assert _read(path, rng.randint(1, 40)) == expected
    assert refused > 100


@pytest.mark.parametrize("text", [b'{"a": [1]}', b"", b"  ", b"[1] [2]", b"[1,]", b"[,1]", b"[1,,2]", b"\xef\xbb\xbf[1]",
                                  b"[1", b'["a\\"]', b"[1]\\"])
def test_refused(tmp_path: Path, text: bytes) -> None:
    (tmp_path / "a.json").write_bytes(text)
    with pytest.raises(StreamError):
        _read(tmp_path / "a.json", 2)


def test_empty_array_and_batches(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b" [ ] ")
    assert list(iter_json_array(path)) == []
    path.write_bytes(orjson.dumps([{"i": i, "s": "x" * 50} for i in range(1000)]))
    batches = list(iter_json_array(path, block_bytes=4096))
    assert len(batches) > 10 and [v["i"] for b in batches for v in b] == list(range(1000))
