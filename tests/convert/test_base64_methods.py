"""The strict base64 check's methods give the same verdict on every input.

``translate`` (standard library) and ``pybase64`` (the ``speed`` extra) must
agree on what is base64 and on the cleaned string (the same object when the
payload is already clean): canonical and non-canonical final quanta, padding
given, left out or misplaced, whitespace anywhere, URL-safe symbols, anything
else in the ASCII range, and mutations on either side of the chunk boundaries
of the pybase64 method, checked in chunks and whole (``copied``). In chunks neither
holds more than a chunk's worth of memory; before a ``data:`` URL, no more than the URL.
"""

from __future__ import annotations

import base64
import os
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolwire.convert import ToolResult, _base64

pytest.importorskip("pybase64", reason="the pybase64 method needs pybase64 (the speed extra)")

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SYMBOLS = _base64._SYMBOLS
ODD = " \n\r\t\f\v=-_.!*~\x00\x7f"
CHUNK = _base64._FAST_CHUNK
# a payload four chunks long and a bit, so mutations land in every chunk and past them
BIG = base64.b64encode(os.urandom(CHUNK * 3 + 1001)).decode("ascii")


def agree(data: object) -> str | None:
    """Assert every installed method gives the same verdict (and object) on ``data``;
    return it."""
    by_translate = _base64.clean_translate(data)
    for name in _base64.methods():
        for copied in (False, True):  # in chunks, or whole before a data: URL's copy
            by_method = _base64._METHODS[name](data, copied)
            assert by_method == by_translate, (name, copied, repr(data)[:200])
            if by_translate is data:
                assert by_method is data, name  # a clean payload is never copied
    return by_translate


def non_canonical(data: str, bits: int) -> str:
    """Return ``data`` with ``bits`` set in the spare bits of its last symbol."""
    core = data.rstrip("=")
    spare = 0x0F if len(core) % 4 == 2 else 0x03
    last = SYMBOLS[SYMBOLS.index(core[-1]) | (bits & spare)]
    return core[:-1] + last + data[len(core) :]


@SETTINGS
@given(st.binary(max_size=300), st.integers(0, 15), st.sampled_from(["keep", "drop", "extra"]))
def test_encoded_bytes_any_final_quantum_and_padding(raw: bytes, bits: int, padding: str) -> None:
    data = base64.b64encode(raw).decode("ascii")
    if len(raw) % 3:
        data = non_canonical(data, bits)
    if padding == "drop":
        data = data.rstrip("=")
    elif padding == "extra":
        data += "="
    cleaned = agree(data)
    if raw and len(raw) % 3 and bits % (16 if len(raw) % 3 == 1 else 4) and padding != "extra":
        assert cleaned is None  # spare bits set: not canonical


@SETTINGS
@given(st.binary(min_size=1, max_size=300), st.data())
def test_whitespace_and_foreign_symbols_anywhere(raw: bytes, data: st.DataObject) -> None:
    text = base64.b64encode(raw).decode("ascii")
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        what = data.draw(st.sampled_from(ODD))
        replace = data.draw(st.booleans())
        text = text[:at] + what + text[at + replace :]
    agree(text)


@SETTINGS
@given(st.binary(max_size=300))
def test_url_safe_alphabet(raw: bytes) -> None:
    data = base64.urlsafe_b64encode(raw).decode("ascii")
    cleaned = agree(data)
    assert cleaned is None or cleaned == base64.b64encode(raw).decode("ascii")


@SETTINGS
@given(st.text(alphabet=SYMBOLS + ODD, max_size=40))
def test_any_short_text(text: str) -> None:
    agree(text)


@SETTINGS
@given(st.text(max_size=12))
def test_any_text_at_all(text: str) -> None:
    agree(text)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(-8, 8),
    st.integers(0, 4),
    st.sampled_from(ODD + "A"),
    st.sampled_from(["replace", "insert", "truncate"]),
)
def test_large_payloads_around_chunk_boundaries(
    offset: int, boundary: int, what: str, how: str
) -> None:
    at = max(0, min(len(BIG) - 1, boundary * CHUNK + offset))
    if how == "replace":
        data = BIG[:at] + what + BIG[at + 1 :]
    elif how == "insert":
        data = BIG[:at] + what + BIG[at:]
    else:
        data = BIG[:at]
    agree(data)


def test_objects_that_are_not_strings() -> None:
    for value in (None, 1, b"QUJD", ["QUJD"], "QUJDé"):
        assert agree(value) is None


@pytest.mark.parametrize("name", ["translate", "pybase64"])
def test_memory_stays_flat(name: str) -> None:
    """A 13 MB payload is checked holding no more than a few chunks at a time."""
    if name not in _base64.methods():
        pytest.skip(f"{name} is not installed")
    data = base64.b64encode(os.urandom(10 * 1024 * 1024)).decode("ascii")
    check = _base64._METHODS[name]
    tracemalloc.start()
    try:
        assert check(data) is data
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * CHUNK, peak  # a chunk, its decoded copy, the next chunk


@pytest.mark.parametrize("name", ["translate", "pybase64"])
def test_a_data_url_takes_at_most_one_payload(name: str) -> None:
    """Before a ``data:`` URL's copy the check may decode a payload whole; it drops the
    bytes first, so the URL stays the largest thing held (as the copy LiteLLM makes)."""
    if name not in _base64.methods():
        pytest.skip(f"{name} is not installed")
    data = base64.b64encode(b"%PDF-1.7\n" + os.urandom(10 * 1024 * 1024)).decode("ascii")
    before = _base64.clean, _base64._method
    _base64.use(name)
    pdf = {"uri": "file:///big.pdf", "mimeType": "application/pdf", "blob": data}
    result = ToolResult(id="call_1", name="read", content=[{"type": "resource", "resource": pdf}])
    tracemalloc.start()
    try:
        output = result.to("responses", native_pdf=True)["output"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        _base64.clean, _base64._method = before
    assert output[0]["file_data"] == f"data:application/pdf;base64,{data}"
    assert len(data) < peak < len(data) + 3 * CHUNK, peak


def test_use_picks_the_method_and_the_conversion_follows(strict_check: str) -> None:
    assert _base64.method() == strict_check
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + os.urandom(64)).decode("ascii")
    broken = png[:40] + "-" + png[41:]
    for data, native in ((png, True), (broken, False)):
        item = {"type": "image", "data": data, "mimeType": "image/png"}
        result = ToolResult(id="call_1", name="shot", content=[item])
        output = result.to("responses", image_input=True)["output"]
        assert (type(output) is list and output[0]["type"] == "input_image") is native


def test_use_refuses_a_method_not_installed() -> None:
    with pytest.raises(ValueError, match="no strict-check method 'simd'"):
        _base64.use("simd")
    assert _base64.methods()[0] == "pybase64"  # installed: the fastest comes first
