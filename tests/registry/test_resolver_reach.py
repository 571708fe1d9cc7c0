"""The resolver's newer flags: URL sources and hoisting, cleared by the wire in force."""

from __future__ import annotations

from typing import Any

from toolwire.convert import ToolResult
from toolwire.registry import Registry, Resolution, Resolver

PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII="
)
SHOT = ToolResult(
    name="shot", id="call_1", content=[{"type": "image", "data": PNG_B64, "mimeType": "image/png"}]
)


def _claim(registry: Registry, engine: str, capability: str, value: bool, **where: Any) -> None:
    registry.set_claim(
        engine,
        capability,
        value,
        status="documented",
        evidence="test evidence",
        recorded_by="tests",
        **where,
    )


def _resolve(registry: Registry, engine: str, model: str, **kw: Any) -> Resolution:
    return Resolver(registry, max_age=0).resolve(engine, model, **kw)


def test_hoisting_is_off_unless_claimed(registry: Registry) -> None:
    found = _resolve(registry, "openai", "gpt-4o")
    assert dict(found.options) == {}
    assert found.trace["hoist_media"].decided_by == "none"
    assert len(found.format([SHOT])) == 1


def test_hoisting_on_openai_follows_image_input_and_pdf_input(registry: Registry) -> None:
    _claim(registry, "openai", "hoist_media", True)
    found = _resolve(registry, "openai", "gpt-4o")
    assert dict(found.options) == {"hoist": True, "image_input": True, "native_pdf": False}
    messages = found.format([SHOT])
    assert [m["role"] for m in messages] == ["tool", "user"]
    assert messages[1]["content"][2]["type"] == "image_url"

    _claim(registry, "openai", "pdf_input", True)
    assert _resolve(registry, "openai", "gpt-4o").options["native_pdf"] is True

    text_only = _resolve(registry, "openai", "gpt-3.5-turbo")
    # gpt-3.5 reads no images, but the engine's pdf_input claim still lets PDFs go
    assert dict(text_only.options) == {"hoist": True, "image_input": False, "native_pdf": True}


def test_hoisting_is_cleared_without_a_reader_or_on_a_native_wire(registry: Registry) -> None:
    _claim(registry, "openai", "hoist_media", True)
    cleared = _resolve(registry, "openai", "gpt-3.5-turbo")
    assert dict(cleared.options) == {}
    assert cleared.trace["hoist_media"].cleared_by == (
        "hoisting needs a model that reads images (image_input) or PDFs (pdf_input)"
    )
    forced = _resolve(registry, "openai", "gpt-4o", wire="responses")
    assert "hoist" not in forced.options
    assert "does not hoist" in str(forced.trace["hoist_media"].cleared_by)


def test_hoisting_on_ollama(registry: Registry) -> None:
    _claim(registry, "ollama", "hoist_media", True)
    _claim(registry, "ollama", "image_input", True, model="llava:13b")
    found = _resolve(registry, "ollama", "llava:13b")
    assert dict(found.options) == {"hoist": True, "image_input": True}
    messages = found.format([SHOT])
    assert messages[1]["images"] == [PNG_B64]
    assert dict(_resolve(registry, "ollama", "llama3.2").options) == {}


def test_url_sources_are_claimed_per_engine_and_cleared_by_the_wire(registry: Registry) -> None:
    assert "url_sources" not in _resolve(registry, "anthropic", "claude-sonnet-4-5").options
    _claim(registry, "anthropic", "tool_result_url_sources", True)
    found = _resolve(registry, "anthropic", "claude-sonnet-4-5")
    assert found.options["url_sources"] is True
    link = ToolResult(
        name="f",
        id="toolu_1",
        content=[
            {
                "type": "resource_link",
                "uri": "https://x.test/a.png",
                "name": "a",
                "mimeType": "image/png",
            }
        ],
    )
    block = found.format([link])[0]["content"][0]
    assert block["content"] == [
        {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}
    ]
    on_openai = _resolve(registry, "anthropic", "claude-sonnet-4-5", wire="openai")
    assert on_openai.trace["tool_result_url_sources"].cleared_by == (
        "the openai wire has no URL source form"
    )
    on_bedrock = _resolve(registry, "anthropic", "claude-sonnet-4-5", wire="bedrock")
    assert "url_sources" not in on_bedrock.options


def test_url_sources_need_some_native_media(registry: Registry) -> None:
    _claim(registry, "anthropic", "tool_result_url_sources", True)
    _claim(registry, "anthropic", "tool_result_pdf", False, model="claude-2.1")
    found = _resolve(registry, "anthropic", "claude-2.1")
    assert "url_sources" not in found.options
    assert "no image or PDF goes natively" in str(found.trace["tool_result_url_sources"].cleared_by)


def test_the_resolution_reports_what_the_model_gets(registry: Registry) -> None:
    # recorded: a model the engine does not know is reported as unknown_model instead
    registry.add_model("aki-anthropic", "qwen3.6-35b", created_by="tests")
    found = _resolve(registry, "aki-anthropic", "qwen3.6-35b")
    (decisions,) = found.report([SHOT])
    assert [(d.type, d.outcome, d.reason) for d in decisions] == [
        ("image", "placeholder", "not_read")
    ]
    seen = _resolve(registry, "anthropic", "claude-sonnet-4-5").report([SHOT, SHOT])
    assert [d.outcome for ds in seen for d in ds] == ["native", "native"]
