"""The strict base64 check's methods give the same verdict on every input.

``translate`` (standard library), ``pybase64`` (the ``speed`` extra) and
``compiled`` (toolwire's C helpers, where built) must agree on what is base64
and on the cleaned string (the same object when the payload is already clean),
and the compiled check made while copying must agree on the ``data:`` URL:
canonical and non-canonical final quanta, padding given, left out or misplaced,
whitespace anywhere, URL-safe symbols, anything else in the ASCII range, and
mutations on either side of the chunk boundaries of the pybase64 method, with
the string read through a view of its bytes and through slices of it. None
holds more than a chunk's worth of memory.
"""

from __future__ import annotations

import base64
import os
import sys
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace

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
    return it. With the compiled method, the data: URL made while checking agrees too."""
    by_translate = _base64.clean_translate(data)
    for name in _base64.methods():
        by_method = _base64._METHODS[name](data)
        assert by_method == by_translate, (name, repr(data)[:200])
        if by_translate is data:
            assert by_method is data, name  # a clean payload is never copied
    if "compiled" in _base64.methods() and isinstance(data, str):
        before = _base64.clean, _base64._method
        _base64.use("compiled")
        try:
            url = _base64.checked_url("image/png", data)
        finally:
            _base64.clean, _base64._method = before
        if by_translate is data and not len(data) % 4:
            assert url == _base64.data_url("image/png", data)  # clean as it stands
        else:
            assert url is None  # checked the usual way by the caller
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


@contextmanager
def viewing(on: bool) -> Iterator[None]:
    """Run the pybase64 method with the view of the string's bytes on or off."""
    before = _base64._viewer
    _base64._viewer = None if on else _base64._no_view
    try:
        yield
    finally:
        _base64._viewer = before


@pytest.mark.parametrize("view", [True, False], ids=["view", "slices"])
@settings(max_examples=60, deadline=None)
@given(
    st.integers(-8, 8),
    st.integers(0, 4),
    st.sampled_from(ODD + "A"),
    st.sampled_from(["replace", "insert", "truncate"]),
)
def test_large_payloads_around_chunk_boundaries(
    view: bool, offset: int, boundary: int, what: str, how: str
) -> None:
    at = max(0, min(len(BIG) - 1, boundary * CHUNK + offset))
    if how == "replace":
        data = BIG[:at] + what + BIG[at + 1 :]
    elif how == "insert":
        data = BIG[:at] + what + BIG[at:]
    else:
        data = BIG[:at]
    with viewing(view):
        agree(data)


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the view is CPython's")
def test_the_view_holds_the_strings_own_bytes() -> None:
    view_of = _base64._find_viewer()
    assert view_of is not _base64._no_view  # found: CI checks payloads through it
    for data in ("", "Q", "QUJD" * 1000, BIG, "".join(["QU", "JD"]) * 7):
        view = view_of(data)
        assert view is not None and view.readonly and view.tobytes() == data.encode("ascii")
        view.release()


@pytest.mark.skipif(
    sys.implementation.name != "cpython" or sys.version_info >= (3, 12),
    reason="a string's wide-character copy (PyUnicode_AsUnicode) is CPython 3.11's",
)
def test_a_string_holding_another_form_is_read_through_slices() -> None:
    import ctypes

    as_unicode = ctypes.pythonapi.PyUnicode_AsUnicode
    as_unicode.restype, as_unicode.argtypes = ctypes.c_void_p, [ctypes.py_object]
    data = BIG[:-8] + "".join(["QU", "JD", "RA=="])  # a new string of its own
    as_unicode(data)  # it now holds a wchar_t copy beside its bytes: no view of it
    assert _base64._find_viewer()(data) is None
    assert _base64._METHODS["pybase64"](data) is data
    broken = data[: CHUNK + 5] + "!" + data[CHUNK + 6 :]
    as_unicode(broken)
    assert _base64._METHODS["pybase64"](broken) is None


def test_no_view_where_the_interpreter_is_not_cpython(monkeypatch: pytest.MonkeyPatch) -> None:
    with viewing(True):
        monkeypatch.setattr(sys, "implementation", SimpleNamespace(name="pypy"))
        assert _base64._find_viewer() is _base64._no_view
        monkeypatch.undo()
        assert agree(BIG) is BIG  # the slices give the same verdict


def test_objects_that_are_not_strings() -> None:
    for value in (None, 1, b"QUJD", ["QUJD"], "QUJDé"):
        assert agree(value) is None


@pytest.mark.parametrize(
    ("name", "view"),
    [("translate", False), ("pybase64", True), ("pybase64", False), ("compiled", False)],
    ids=["translate", "pybase64-view", "pybase64-slices", "compiled"],
)
def test_memory_stays_flat(name: str, view: bool) -> None:
    """A 13 MB payload is checked holding no more than a few chunks at a time."""
    if name not in _base64.methods():
        pytest.skip(f"{name} is not installed")
    data = base64.b64encode(os.urandom(10 * 1024 * 1024)).decode("ascii")
    check = _base64._METHODS[name]
    with viewing(view):
        tracemalloc.start()
        try:
            assert check(data) is data
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 3 * CHUNK, peak  # a chunk, its decoded copy, the next chunk


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
    fastest = "compiled" if "compiled" in _base64.methods() else "pybase64"
    assert _base64.methods()[0] == fastest  # installed: the fastest comes first
