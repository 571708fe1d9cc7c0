"""The resolution's report says what would change an outcome, where the registry knows it."""

from __future__ import annotations

from toolwire.convert import REASONS, ToolResult
from toolwire.registry import Registry, Resolver

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGP438AARwzEcQB+"
    "ohfxXaFgBQAAAABJRU5ErkJggg=="
)
RESULT = ToolResult.from_mcp(
    {
        "content": [
            {"type": "text", "text": "the chart"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
        ]
    },
    id="call_1",
    name="chart",
)


def _claim(registry: Registry, engine: str, model: str, capability: str, value: bool) -> None:
    registry.set_claim(
        engine,
        capability,
        value,
        model=model,
        status="documented",
        evidence="tests",
        recorded_by="tests",
    )


def _image(registry: Registry, engine: str, model: str) -> tuple[str, str | None, str]:
    (decisions,) = Resolver(registry).resolve(engine, model).report([RESULT])
    image = decisions[1]
    return image.outcome, image.reason, image.message


def test_an_image_on_a_wire_without_a_form_names_the_hoisting_claim(registry: Registry) -> None:
    registry.add_model("openai", "gpt-4o", created_by="tests")
    outcome, reason, message = _image(registry, "openai", "gpt-4o")
    assert (outcome, reason) == ("placeholder", "hoist_off")
    assert "hoist_media" in message and message.endswith(REASONS["hoist_off"])
    # with the claim the image goes in a user turn: nothing left to suggest
    _claim(registry, "openai", "gpt-4o", "hoist_media", True)
    assert _image(registry, "openai", "gpt-4o")[:2] == ("hoisted", None)


def test_the_hoisting_hint_holds_for_an_unknown_model_too(registry: Registry) -> None:
    # the wire has no form whatever the model; what hoisting needs is a claim on it
    assert _image(registry, "openai", "gpt-unrecorded")[:2] == ("placeholder", "hoist_off")


def test_a_gemini_2_image_says_the_function_response_cannot_carry_it(registry: Registry) -> None:
    registry.add_model("gemini", "gemini-2.5-flash", created_by="tests")
    outcome, reason, message = _image(registry, "gemini", "gemini-2.5-flash")
    assert (outcome, reason) == ("placeholder", "not_in_tool_result")
    assert "Gemini 3" in message
    # Gemini 3 gets it natively
    registry.add_model("gemini", "gemini-3-flash-preview", created_by="tests")
    assert _image(registry, "gemini", "gemini-3-flash-preview")[:2] == ("native", None)


def test_a_model_that_reads_no_images_still_does_not_read_them(registry: Registry) -> None:
    registry.add_model("gemini", "gemini-2.5-flash", created_by="tests")
    _claim(registry, "gemini", "gemini-2.5-flash", "image_input", False)
    assert _image(registry, "gemini", "gemini-2.5-flash")[:2] == ("placeholder", "not_read")


def test_the_json_report_is_the_report_per_result(shared_registry: Registry) -> None:
    resolution = Resolver(shared_registry).resolve("openai", "gpt-4o")
    other = ToolResult.from_mcp({"content": [{"type": "text", "text": "ok"}]}, id="call_2")
    decided = resolution.report([RESULT, other])
    assert resolution.report_json([RESULT, other]) == [
        {
            "result": 0,
            "id": "call_1",
            "name": "chart",
            "items": [decision.as_dict() for decision in decided[0]],
        },
        {"result": 1, "id": "call_2", "name": "", "items": [decided[1][0].as_dict()]},
    ]
    assert resolution.report_json([RESULT])[0]["items"][1]["reason"] == "hoist_off"
