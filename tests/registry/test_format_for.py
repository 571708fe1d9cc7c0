"""format_for on the seeded registry: every engine decision, checked on the payload itself.

Each test formats one real tool result -- a text, a 1x1 PNG, a one-page PDF resource
and a text resource -- and reads back from the payload how the image, the PDF and the
text resource went out: natively, as a metadata placeholder, or as a text document.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

import pytest
from lazy import LazyModule
from toolwire.convert import ToolResult
from toolwire.registry import Registry, format_for

pydantic = LazyModule("pydantic")
openai_chat = LazyModule("openai.types.chat")


def _png() -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 5))
        + chunk(b"IEND", b"")
    )


def _pdf() -> bytes:
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]>>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj" % number + body + b"endobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


PNG = _png()
PDF = _pdf()
PNG_B64 = base64.b64encode(PNG).decode("ascii")
PDF_B64 = base64.b64encode(PDF).decode("ascii")
PDF_URI = "file:///reports/q3%20summary.pdf"
NOTES = "notes from the resource"
NOTES_URI = "file:///reports/notes.md"

RESULT = ToolResult(
    name="get_report",
    id="call_01",
    content=[
        {"type": "text", "text": "revenue up 12%"},
        {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
        {
            "type": "resource",
            "resource": {"uri": PDF_URI, "mimeType": "application/pdf", "blob": PDF_B64},
        },
        {
            "type": "resource",
            "resource": {
                "uri": "file:///reports/notes.md",
                "mimeType": "text/markdown",
                "text": NOTES,
            },
        },
    ],
)
IMAGE_PLACEHOLDER = f"[image] image/png ({len(PNG)} bytes)"
PDF_PLACEHOLDER = f"[resource] application/pdf <{PDF_URI}> ({len(PDF)} bytes)"


def test_media_are_well_formed() -> None:
    assert PNG.startswith(b"\x89PNG\r\n\x1a\n") and PNG.endswith(b"IEND\xaeB`\x82")
    assert PDF.startswith(b"%PDF-1.4") and PDF.rstrip().endswith(b"%%EOF")
    xref = int(PDF.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert PDF[xref:].startswith(b"xref\n")


def _string_lines(text: str) -> dict[str, str]:
    """Read the string form: placeholders and the text resource, never the base64."""
    assert PNG_B64 not in text and PDF_B64 not in text
    lines = text.split("\n")
    assert lines[0] == "revenue up 12%"
    return {
        "image": "placeholder" if IMAGE_PLACEHOLDER in lines else "missing",
        "pdf": "placeholder" if PDF_PLACEHOLDER in lines else "missing",
        "notes": "text" if NOTES in lines else "missing",
    }


def _anthropic(blocks: list[dict[str, Any]]) -> dict[str, str]:
    view: dict[str, str] = {}
    assert blocks[0] == {"type": "text", "text": "revenue up 12%"}
    for block in blocks[1:]:
        kind, source = block["type"], block.get("source", {})
        if kind == "image":
            assert source == {"type": "base64", "media_type": "image/png", "data": PNG_B64}
            view["image"] = "native"
        elif kind == "document" and source.get("type") == "base64":
            assert source == {"type": "base64", "media_type": "application/pdf", "data": PDF_B64}
            view["pdf"] = "native"
        elif kind == "document":
            assert source == {"type": "text", "media_type": "text/plain", "data": NOTES}
            view["notes"] = "document"
        else:
            assert kind == "text", block
            label = {IMAGE_PLACEHOLDER: "image", PDF_PLACEHOLDER: "pdf", NOTES: "notes"}
            key = label[block["text"]]
            view[key] = "text" if key == "notes" else "placeholder"
    assert len(view) == 3, view
    return view


def _responses(output: str | list[dict[str, Any]]) -> dict[str, str]:
    if isinstance(output, str):
        return _string_lines(output)
    view: dict[str, str] = {}
    assert output[0] == {"type": "input_text", "text": "revenue up 12%"}
    for part in output[1:]:
        if part["type"] == "input_image":
            assert part["image_url"] == f"data:image/png;base64,{PNG_B64}"
            view["image"] = "native"
        elif part["type"] == "input_file":
            assert part["file_data"] == f"data:application/pdf;base64,{PDF_B64}"
            assert part["filename"] == "q3 summary.pdf"
            view["pdf"] = "native"
        else:
            assert part["type"] == "input_text", part
            key = {IMAGE_PLACEHOLDER: "image", PDF_PLACEHOLDER: "pdf", NOTES: "notes"}[part["text"]]
            view[key] = "text" if key == "notes" else "placeholder"
    assert len(view) == 3, view
    return view


def _gemini(response: dict[str, Any]) -> dict[str, str]:
    text = response["response"]["result"]
    view = {k: v for k, v in _string_lines(text).items() if v != "missing"}
    for part in response.get("parts", []):
        inline = part["inlineData"]
        if inline["mimeType"] == "image/png":
            assert inline["data"] == PNG_B64
            view["image"] = "native"
        else:
            assert inline == {"mimeType": "application/pdf", "data": PDF_B64}
            view["pdf"] = "native"
    assert len(view) == 3, view
    return view


def _interactions(result: str | list[dict[str, Any]]) -> dict[str, str]:
    if isinstance(result, str):
        return _string_lines(result)
    view: dict[str, str] = {}
    assert result[0] == {"type": "text", "text": "revenue up 12%"}
    for item in result[1:]:
        if item["type"] == "image":
            assert item == {"type": "image", "data": PNG_B64, "mime_type": "image/png"}
            view["image"] = "native"
        else:
            assert item["type"] == "text", item
            key = {IMAGE_PLACEHOLDER: "image", PDF_PLACEHOLDER: "pdf", NOTES: "notes"}[item["text"]]
            view[key] = "text" if key == "notes" else "placeholder"
    assert len(view) == 3, view
    return view


def read_payload(payload: list[Any]) -> tuple[str, dict[str, str]]:
    """Return the wire a payload is shaped for, and how each medium went out."""
    assert len(payload) == 1
    (message,) = payload
    if message.get("role") == "user" and "content" in message:
        (block,) = message["content"]
        assert block["type"] == "tool_result" and block["tool_use_id"] == "call_01"
        assert "is_error" not in block
        return "anthropic", _anthropic(block["content"])
    if message.get("role") == "user":
        (part,) = message["parts"]
        response = part["functionResponse"]
        assert response["name"] == "get_report" and response["id"] == "call_01"
        return "gemini", _gemini(response)
    if message.get("type") == "function_call_output":
        assert message["call_id"] == "call_01" and "role" not in message
        return "responses", _responses(message["output"])
    if message.get("type") == "function_result":
        assert message["call_id"] == "call_01" and message["name"] == "get_report"
        assert "is_error" not in message and "role" not in message
        return "gemini-interactions", _interactions(message["result"])
    assert message["role"] == "tool"
    content = message["content"]
    if content.startswith("<tool_response>\n"):
        assert content.endswith("\n</tool_response>") and "<tool_call>" not in content
        # the call id goes along on an OpenAI-compatible endpoint only (see the tests below)
        assert set(message) in ({"role", "content"}, {"role", "tool_call_id", "content"})
        assert message.get("tool_call_id", "call_01") == "call_01"
        body = json.loads(
            content.removeprefix("<tool_response>\n").removesuffix("\n</tool_response>")
        )
        assert body["name"] == "get_report"
        return "hermes", _string_lines(body["content"])
    if "tool_name" in message:
        assert message["tool_name"] == "get_report" and message["tool_call_id"] == "call_01"
        return "ollama", _string_lines(content)
    assert set(message) == {"role", "tool_call_id", "content"}
    assert message["tool_call_id"] == "call_01"
    return "openai", _string_lines(content)


NATIVE, HOLDER = "native", "placeholder"
DOC, TEXT = "document", "text"

# engine, model, wire expected, image, pdf, text resource
DECISIONS = [
    # first-party Anthropic: Claude 3+ sees images; PDFs go as documents for every model
    ("anthropic", "claude-sonnet-4-5", "anthropic", NATIVE, NATIVE, DOC),
    ("anthropic", "claude-3-haiku-20240307", "anthropic", NATIVE, NATIVE, DOC),
    ("anthropic", "claude-opus-4-1-20250805", "anthropic", NATIVE, NATIVE, DOC),
    ("anthropic", "claude-2.1", "anthropic", HOLDER, NATIVE, DOC),
    ("anthropic", "claude-instant-1.2", "anthropic", HOLDER, NATIVE, DOC),
    # MiniMax: PDF read by text-only M2.7 too (no vision needed on anthropic); images for M3
    ("minimax-anthropic", "MiniMax-M2.7", "anthropic", HOLDER, NATIVE, DOC),
    ("minimax-anthropic", "MiniMax-M3", "anthropic", NATIVE, NATIVE, DOC),
    ("minimax-anthropic", "minimax-m3-preview", "anthropic", NATIVE, NATIVE, DOC),
    ("minimax-anthropic", "MiniMax-M30", "anthropic", HOLDER, NATIVE, DOC),
    # AKI.IO shim: no tool-result images, no source blocks
    ("aki-anthropic", "qwen3.6-35b", "anthropic", HOLDER, HOLDER, TEXT),
    ("aki-anthropic", "gpt-oss-120b", "anthropic", HOLDER, HOLDER, TEXT),
    # Moonshot: images for Kimi vision models, never source blocks
    ("moonshot-anthropic", "kimi-k3", "anthropic", NATIVE, HOLDER, TEXT),
    ("moonshot-anthropic", "kimi-k2.6", "anthropic", NATIVE, HOLDER, TEXT),
    ("moonshot-anthropic", "kimi-k2.7-code-preview", "anthropic", NATIVE, HOLDER, TEXT),
    ("moonshot-anthropic", "kimi-k2-0905-preview", "anthropic", HOLDER, HOLDER, TEXT),
    ("moonshot-anthropic", "kimi-k30", "anthropic", HOLDER, HOLDER, TEXT),
    # LM Studio: no source blocks; images only for models recorded as vision
    ("lmstudio-anthropic", "qwen2.5-vl-7b-instruct", "anthropic", HOLDER, HOLDER, TEXT),
    # OpenAI Chat: never a native form
    ("openai", "gpt-4o", "openai", HOLDER, HOLDER, TEXT),
    ("openai", "gpt-3.5-turbo", "openai", HOLDER, HOLDER, TEXT),
    # OpenAI Responses: input_image and input_file for vision models only
    ("openai-responses", "gpt-4o", "responses", NATIVE, NATIVE, TEXT),
    ("openai-responses", "gpt-4.1-mini-2099-01-01", "responses", NATIVE, NATIVE, TEXT),
    ("openai-responses", "gpt-3.5-turbo", "responses", HOLDER, HOLDER, TEXT),
    ("openai-responses", "gpt-oss-120b", "responses", HOLDER, HOLDER, TEXT),
    ("openai-responses", "gpt-4", "responses", HOLDER, HOLDER, TEXT),
    # Perplexity: input_image for routed vision models, never input_file
    ("perplexity", "openai/gpt-5", "responses", NATIVE, HOLDER, TEXT),
    ("perplexity", "anthropic/claude-sonnet-4-5", "responses", NATIVE, HOLDER, TEXT),
    ("perplexity", "google/gemini-2.5-pro", "responses", NATIVE, HOLDER, TEXT),
    ("perplexity", "openai/gpt-oss-120b", "responses", HOLDER, HOLDER, TEXT),
    ("perplexity", "sonar", "responses", HOLDER, HOLDER, TEXT),
    ("perplexity", "sonar-pro", "responses", HOLDER, HOLDER, TEXT),
    # Gemini: native parts for Gemini 3 and later only
    ("gemini", "gemini-2.5-flash", "gemini", HOLDER, HOLDER, TEXT),
    ("gemini", "gemini-3-flash-preview", "gemini", NATIVE, NATIVE, TEXT),
    ("gemini", "gemini-3.1-pro-preview", "gemini", NATIVE, NATIVE, TEXT),
    ("gemini", "gemini-30-future", "gemini", HOLDER, HOLDER, TEXT),
    ("gemini", "gemini-3-flash-preview-tts", "gemini", HOLDER, HOLDER, TEXT),
    # Gemini Interactions: image items for Gemini 3 and later; no PDF form on the wire
    ("gemini-interactions", "gemini-2.5-flash", "gemini-interactions", HOLDER, HOLDER, TEXT),
    ("gemini-interactions", "gemini-3-flash-preview", "gemini-interactions", NATIVE, HOLDER, TEXT),
    ("gemini-interactions", "gemini-3.1-pro-preview", "gemini-interactions", NATIVE, HOLDER, TEXT),
    ("gemini-interactions", "gemini-30-future", "gemini-interactions", HOLDER, HOLDER, TEXT),
    (
        "gemini-interactions",
        "gemini-3-flash-preview-tts",
        "gemini-interactions",
        HOLDER,
        HOLDER,
        TEXT,
    ),
    # Hermes models on the hermes wire (case-insensitive), others on openai
    ("nousresearch", "Hermes-4-405B", "hermes", HOLDER, HOLDER, TEXT),
    ("nousresearch", "NousResearch/Hermes-3-Llama-3.1-70B", "hermes", HOLDER, HOLDER, TEXT),
    ("nousresearch", "DeepHermes-3-Mistral-24B-Preview", "hermes", HOLDER, HOLDER, TEXT),
    ("nousresearch", "nousresearch/hermes-4-70b", "hermes", HOLDER, HOLDER, TEXT),
    ("nousresearch", "nous-hermes-2-mixtral-8x7b-dpo", "hermes", HOLDER, HOLDER, TEXT),
    ("nousresearch", "Meta-Llama-3.1-70B-Instruct", "openai", HOLDER, HOLDER, TEXT),
    ("nousresearch", "not-hermes-4", "openai", HOLDER, HOLDER, TEXT),
    ("aki-openai", "qwen3.6-35b", "hermes", HOLDER, HOLDER, TEXT),
    ("ollama", "llava:13b", "ollama", HOLDER, HOLDER, TEXT),
    ("deepseek", "deepseek-chat", "openai", HOLDER, HOLDER, TEXT),
    ("openrouter", "anthropic/claude-sonnet-4.5", "openai", HOLDER, HOLDER, TEXT),
]


@pytest.mark.parametrize(("engine", "model", "wire", "image", "pdf", "notes"), DECISIONS)
def test_format_for_follows_the_engine_table(
    registry: Registry, engine: str, model: str, wire: str, image: str, pdf: str, notes: str
) -> None:
    payload = format_for(engine, model, [RESULT], registry=registry)
    assert read_payload(payload) == (wire, {"image": image, "pdf": pdf, "notes": notes})


def test_aki_never_sends_images_even_for_a_recorded_vision_model(registry: Registry) -> None:
    registry.set_claim(
        "aki-anthropic",
        "image_input",
        True,
        model="qwen3.6-35b",
        status="live-verified",
        evidence="the model reads images in a user turn",
        recorded_by="ops",
    )
    payload = format_for("aki-anthropic", "qwen3.6-35b", [RESULT], registry=registry)
    assert read_payload(payload) == (
        "anthropic",
        {"image": HOLDER, "pdf": HOLDER, "notes": TEXT},
    )


def test_lmstudio_sends_images_to_a_model_recorded_as_vision(registry: Registry) -> None:
    model = "qwen2.5-vl-7b-instruct"  # placeholder while unrecorded: see DECISIONS
    registry.set_claim(
        "lmstudio-anthropic",
        "image_input",
        True,
        model=model,
        status="inferred",
        evidence="the server's model list reports vision",
        recorded_by="probe",
    )
    after = format_for("lmstudio-anthropic", model, [RESULT], registry=registry)
    assert read_payload(after) == ("anthropic", {"image": NATIVE, "pdf": HOLDER, "notes": TEXT})


def test_ollama_has_no_native_form_whatever_the_model_reads(registry: Registry) -> None:
    registry.set_claim(
        "ollama",
        "image_input",
        True,
        model="llava:13b",
        status="live-verified",
        evidence="llava reads images",
        recorded_by="ops",
    )
    registry.set_claim(
        "ollama",
        "tool_result_images",
        True,
        status="unverified",
        evidence="wishful thinking",
        recorded_by="ops",
    )
    payload = format_for("ollama", "llava:13b", [RESULT], registry=registry)
    assert read_payload(payload) == ("ollama", {"image": HOLDER, "pdf": HOLDER, "notes": TEXT})


@pytest.mark.parametrize(
    ("engine", "model", "forced", "image", "pdf", "notes"),
    [
        # Claude on the Responses wire: the Responses rule (PDF needs vision) applies
        ("anthropic", "claude-sonnet-4-5", "responses", NATIVE, NATIVE, TEXT),
        ("anthropic", "claude-2.1", "responses", HOLDER, HOLDER, TEXT),
        ("anthropic", "claude-sonnet-4-5", "openai", HOLDER, HOLDER, TEXT),
        ("anthropic", "claude-sonnet-4-5", "hermes", HOLDER, HOLDER, TEXT),
        # Gemini 3 on the anthropic wire: no source_blocks claim, so no PDF document
        ("gemini", "gemini-3-flash-preview", "anthropic", NATIVE, HOLDER, TEXT),
        ("nousresearch", "Hermes-4-405B", "openai", HOLDER, HOLDER, TEXT),
        ("openai", "gpt-4o", "ollama", HOLDER, HOLDER, TEXT),
    ],
)
def test_a_forced_wire_makes_the_rule_follow_the_wire_in_force(
    registry: Registry, engine: str, model: str, forced: str, image: str, pdf: str, notes: str
) -> None:
    payload = format_for(engine, model, [RESULT], wire=forced, registry=registry)
    assert read_payload(payload) == (forced, {"image": image, "pdf": pdf, "notes": notes})


def test_several_results_keep_their_ids_and_order(registry: Registry) -> None:
    second = ToolResult(name="ping", id="call_02", content=[{"type": "text", "text": "pong"}])
    payload = format_for("openai", "gpt-4o", [RESULT, second], registry=registry)
    assert [m["tool_call_id"] for m in payload] == ["call_01", "call_02"]
    assert payload[1] == {"role": "tool", "tool_call_id": "call_02", "content": "pong"}
    (message,) = format_for("anthropic", "claude-sonnet-4-5", [RESULT, second], registry=registry)
    assert [b["tool_use_id"] for b in message["content"]] == ["call_01", "call_02"]


@pytest.mark.parametrize(
    ("engine", "model"), [("nousresearch", "Hermes-4-405B"), ("aki-openai", "qwen3.6-35b")]
)
def test_hermes_on_an_openai_compatible_endpoint_carries_the_call_ids(
    registry: Registry, engine: str, model: str
) -> None:
    unnamed = ToolResult(name="ping", id="", content=[{"type": "text", "text": "pong"}])
    payload = format_for(engine, model, [RESULT, unnamed], registry=registry)
    assert read_payload(payload[:1])[0] == "hermes"
    assert payload[0]["tool_call_id"] == "call_01"
    assert set(payload[1]) == {"role", "content"}  # no id: no key
    checked = pydantic.TypeAdapter(openai_chat.ChatCompletionToolMessageParam).validate_python(
        payload[0]
    )
    assert checked == payload[0]


def test_hermes_forced_on_another_family_sends_no_call_id(registry: Registry) -> None:
    (message,) = format_for(
        "anthropic", "claude-sonnet-4-5", [RESULT], wire="hermes", registry=registry
    )
    assert read_payload([message])[0] == "hermes"
    assert set(message) == {"role", "content"}


def test_min_evidence_live_verified_keeps_only_live_verified_media(registry: Registry) -> None:
    # MiniMax's PDF document is live-verified; the image claim is not.
    payload = format_for(
        "minimax-anthropic", "MiniMax-M3", [RESULT], registry=registry, min_evidence="live-verified"
    )
    assert read_payload(payload) == ("anthropic", {"image": HOLDER, "pdf": NATIVE, "notes": DOC})
    # First-party Anthropic and Gemini rest on documentation only.
    policy = "live-verified"
    for engine, model, wire in (
        ("anthropic", "claude-sonnet-4-5", "anthropic"),
        ("gemini", "gemini-3-flash-preview", "gemini"),
    ):
        payload = format_for(engine, model, [RESULT], registry=registry, min_evidence=policy)
        assert read_payload(payload) == (wire, {"image": HOLDER, "pdf": HOLDER, "notes": TEXT})
    documented = format_for(
        "anthropic", "claude-sonnet-4-5", [RESULT], registry=registry, min_evidence="documented"
    )
    assert read_payload(documented)[1] == {"image": NATIVE, "pdf": NATIVE, "notes": DOC}
