"""Inputs found by fuzzing that once got through validation, and the deferred strict check."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from convert_checks import keeps_rules
from convert_samples import PDF, PDF_B64, PNG, PNG_B64, b64
from toolwire.convert import (
    WIRES,
    InvalidId,
    InvalidToolResult,
    ToolResult,
    _base64,
    format_tool_results,
)

NATIVE = {"image_input": True, "native_pdf": True}
# every test under both strict-check methods (see conftest.py)
pytestmark = pytest.mark.usefixtures("strict_check")


def image(data: Any, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def non_canonical(data: str) -> str:
    """Return ``data`` with trailing bits set in its last symbol (decodes the same)."""
    core = data.rstrip("=")
    assert len(core) % 4 in (2, 3), "needs a short final quantum"
    last = _base64._SYMBOLS.index(core[-1]) | 1
    return core[:-1] + _base64._SYMBOLS[last] + data[len(core) :]


# --- non-canonical final quantum ------------------------------------------------------


def test_non_canonical_final_quantum_is_invalid_on_every_wire() -> None:
    bad = non_canonical(PNG_B64)
    assert bad != PNG_B64 and len(bad) == len(PNG_B64)
    result = ToolResult(name="t", id="call_1", content=[image(bad)])
    for wire in WIRES:
        assert "parts" not in json.dumps(result.to(wire, **NATIVE)) or wire != "gemini"
    assert result.to("openai")["content"] == "[image] image/png (invalid base64)"
    gemini = result.to("gemini", image_input=True)["functionResponse"]
    assert "parts" not in gemini
    assert gemini["response"] == {"result": "[image] image/png (invalid base64)"}


@pytest.mark.parametrize("data", ["QUJ=", "QUK=", "QR==", "QUJDQR==", "QUJDQUL="])
def test_non_canonical_short_payloads(data: str) -> None:
    assert _base64.screen(data) is None
    assert _base64.clean(data) is None


@pytest.mark.parametrize("data", ["QUI=", "QQ==", "QUJD", "QUI", "QQ"])
def test_canonical_short_payloads(data: str) -> None:
    assert _base64.screen(data) is not None
    assert _base64.clean(data) is not None


# --- depth and cycles -----------------------------------------------------------------


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


@pytest.mark.parametrize("depth", [495, 1000, 100_000])
def test_deep_structured_content_is_invalid(depth: int) -> None:
    with pytest.raises(InvalidToolResult, match="nests deeper than"):
        ToolResult(structured_content={"a": nested(depth)})


@pytest.mark.parametrize("depth", [495, 100_000])
def test_deep_item_field_is_invalid(depth: int) -> None:
    item = {"type": "text", "text": "t", "_meta": nested(depth)}
    with pytest.raises(InvalidToolResult, match=r"content\[0\] nests deeper than"):
        ToolResult(content=[item])
    with pytest.raises(InvalidToolResult, match="nests deeper than"):
        ToolResult.from_mcp({"content": [item]})


def test_cyclic_values_are_invalid() -> None:
    cyclic: dict[str, Any] = {"a": 1}
    cyclic["self"] = cyclic
    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(InvalidToolResult, match="cyclic"):
        ToolResult(structured_content=cyclic)
    with pytest.raises(InvalidToolResult, match="cyclic"):
        ToolResult(content=[{"type": "unknown", "x": looped}])


def test_nesting_below_the_limit_is_kept() -> None:
    deep = nested(150)
    result = ToolResult(name="t", id="call_1", structured_content={"a": deep})
    assert json.loads(result.to("openai")["content"]) == {"a": deep}
    assert result.to("gemini")["functionResponse"]["response"] == {"a": deep}


# --- lone surrogates ------------------------------------------------------------------


def test_lone_surrogates_become_replacement_characters() -> None:
    raw = json.loads('"a\\ud800b\\udfff"')
    assert raw == "a\ud800b\udfff"
    result = ToolResult(
        name=raw,
        id=raw,
        content=[
            {"type": "text", "text": raw},
            {"type": "text", "text": raw, "cache_control": {"type": "ephemeral"}},
            {"type": "resource", "resource": {"uri": "file:///" + raw, "text": raw}},
            {"type": "resource", "resource": {"uri": "x:y", "mimeType": "text/plain",
                                              "blob": b64(b"caf\xed\xa0\x80")}},
        ],
        structured_content={raw: [raw]},
    )  # fmt: skip
    fixed = "a\ufffdb\ufffd"
    assert result.name == fixed and result.id == fixed
    assert result.content[0]["text"] == fixed
    assert result.structured_content == {fixed: (fixed,)}
    for wire in WIRES:
        for options in ({}, NATIVE):
            if not keeps_rules(wire, fixed, fixed):  # the id (or name) is refused there
                with pytest.raises(InvalidId):
                    format_tool_results(wire, [result], **options)
                continue
            out = format_tool_results(wire, [result], **options)
            encoded = json.dumps(out, ensure_ascii=False).encode("utf-8")  # no surrogate left
            assert fixed.encode() in encoded


def test_lone_surrogate_in_all_text_fast_path() -> None:
    result = ToolResult.from_mcp({"content": [{"type": "text", "text": "x\udc80"}]}, id="c")
    assert result.to("openai")["content"] == "x\ufffd"
    assert result.content == ({"type": "text", "text": "x\ufffd"},)


# --- data: URIs with leading whitespace -----------------------------------------------


@pytest.mark.parametrize("lead", [" ", "\t\n", "\x00 ", "\u3000", "\ufeff"])
def test_data_uri_with_leading_whitespace_hides_its_payload(lead: str) -> None:
    uri = f"{lead}data:image/png;base64,{PNG_B64}"
    result = ToolResult(
        name="t",
        id="call_1",
        content=[
            {"type": "resource_link", "uri": uri, "name": "chart"},
            {"type": "resource", "resource": {"uri": uri, "mimeType": "application/zip",
                                              "blob": b64(b"PK\x03\x04")}},
        ]
    )  # fmt: skip
    for wire in WIRES:
        assert PNG_B64[20:60] not in json.dumps(result.to(wire, **NATIVE))
    assert "<data:image/png;base64,...>" in result.to("openai")["content"]


# --- non-string keys, is_error, keyword-only ------------------------------------------


@pytest.mark.parametrize("bad", [{1: "a"}, {"a": {None: 1}}, [{(1, 2): 3}], {True: 1}])
def test_non_string_keys_in_structured_content_are_refused(bad: Any) -> None:
    with pytest.raises(InvalidToolResult, match="key that is not a string"):
        ToolResult(structured_content=bad)
    with pytest.raises(InvalidToolResult, match="key that is not a string"):
        ToolResult.from_mcp({"content": [], "structuredContent": bad})


@pytest.mark.parametrize("flag", ["false", "true", "", None, [], 2, 0.5])
def test_is_error_takes_booleans_only(flag: Any) -> None:
    with pytest.raises(InvalidToolResult, match="is_error must be true or false"):
        ToolResult(is_error=flag)


def test_parameters_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        ToolResult("name", "id")  # type: ignore[misc]
    with pytest.raises(TypeError):
        ToolResult.from_mcp({"content": []}, "id")  # type: ignore[misc]
    assert ToolResult(name="n", id="i").name == "n"


# --- the strict check runs on first native use, once ----------------------------------


def broken_inside(data: str) -> str:
    """Return ``data`` with a symbol outside the alphabet in its middle (ends intact)."""
    middle = len(data) // 2
    return data[:middle] + "!" + data[middle + 1 :]


def test_no_payload_work_where_nothing_is_sent_natively(
    monkeypatch: Any, strict_check: str
) -> None:
    calls: list[int] = []
    real = _base64.clean

    def counting(data: object, copied: bool = False) -> str | None:
        calls.append(1)
        return real(data, copied)

    monkeypatch.setattr(_base64, "clean", counting)
    pdf = {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": PDF_B64}
    result = ToolResult(
        name="t", id="call_1", content=[image(PNG_B64), {"type": "resource", "resource": pdf}]
    )
    for wire in ("openai", "ollama", "hermes"):
        result.to(wire, **NATIVE)
    result.to("anthropic", image_input=False, native_pdf=False)
    result.to("gemini")
    result.to("responses")
    assert calls == []
    result.to("anthropic", image_input=True, native_pdf=False)
    assert len(calls) == 1  # the image, checked once
    result.to("gemini", image_input=True)
    result.to("responses", image_input=True)
    assert len(calls) == 1  # remembered
    result.to("gemini", native_pdf=True)
    assert len(calls) == 2


def test_a_bad_symbol_inside_is_found_when_the_payload_would_be_sent() -> None:
    bad = broken_inside(PNG_B64 * 1 + "")
    result = ToolResult(id="call_1", name="t", content=[{"type": "text", "text": "t"}, image(bad)])
    size = len(PNG)
    assert result.to("openai")["content"] == f"t\n[image] image/png ({size} bytes)"
    invalid = "[image] image/png (invalid base64)"
    for _ in range(2):
        assert result.to("anthropic", image_input=True)["content"][1] == {
            "type": "text",
            "text": invalid,
        }
        assert result.to("gemini", image_input=True)["functionResponse"] == {
            "name": "t",
            "id": "call_1",
            "response": {"result": f"t\n{invalid}"},
        }
        assert result.to("responses", image_input=True)["output"] == f"t\n{invalid}"
    # The placeholder where nothing is sent natively does not depend on what ran before.
    assert result.to("openai")["content"] == f"t\n[image] image/png ({size} bytes)"


def test_shared_result_converts_the_same_in_many_threads() -> None:
    resource = {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": PDF_B64}
    pdf = {"type": "resource", "resource": resource}
    bad = broken_inside(b64(PDF + b"\x00" * 3000))
    broken = {"type": "resource", "resource": {**resource, "blob": bad}}
    shared = [
        ToolResult(name="t", id="call_1", content=[image(PNG_B64), pdf]),
        ToolResult(name="t", id="call_2", content=[broken, pdf]),
    ]
    fresh = [ToolResult(name="t", id=r.id, content=list(r.content)) for r in shared]
    expected = [[r.to(w, **NATIVE) for w in WIRES] for r in fresh]
    outputs: list[Any] = []
    barrier = threading.Barrier(8)

    def work() -> None:
        barrier.wait()
        outputs.append([[r.to(w, **NATIVE) for w in WIRES] for r in shared])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outputs == [expected] * 8
