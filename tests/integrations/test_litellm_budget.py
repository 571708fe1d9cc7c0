"""The request budget through the LiteLLM callback: the whole conversation counts.

A provider counts its request limits over everything the request carries: the
images and PDFs of the user turns (and, on gemini, of the assistant turns) as well
as those of the tool results. Each test sends a conversation through the real
LiteLLM to a loopback provider server and reads what the server received: media of
the tool results past a limit arrive as placeholders, the others natively. The
models of ``FEW`` take at most 3 images per request (the anthropic one also at most
100 PDF bytes: two of the 45-byte test PDFs).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from lazy import LazyModule
from litellm_helpers import (
    FEW,
    PDF,
    PNG,
    image_part,
    litellm,
    media_parts,
    nodes,
    pdf_part,
    run,
    send,
)
from providers import ProviderServer
from toolwire.convert import AlreadySent
from toolwire.integrations._chat import rewrite
from toolwire.integrations._sent import already_sent
from toolwire.registry import Registry, resolve

if TYPE_CHECKING:
    from toolwire.integrations.litellm import ToolwireCallback

toolwire_litellm = LazyModule("toolwire.integrations.litellm")  # tests/lazy.py

pytestmark = [
    pytest.mark.usefixtures("server_checks"),
    # LiteLLM's own types warn as pydantic builds their schemas on first use
    pytest.mark.filterwarnings("ignore::UserWarning:pydantic._internal._generate_schema"),
]

IMAGE_PLACEHOLDER = "[image] image/png (70 bytes)"
PDF_PLACEHOLDER = "[document] application/pdf <r> (45 bytes)"  # the file named r.pdf


def chat(
    history: list[dict[str, Any]],
    results: list[list[dict[str, Any]]],
    assistant: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Return a conversation: a user turn holding ``history`` parts, an assistant turn
    (with ``assistant`` parts) calling one tool per entry of ``results``, and the
    tool messages with those parts."""
    calls = [
        {"id": f"toolu_0{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
        for i in range(len(results))
    ]
    reply: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
    if assistant is not None:
        reply["content"] = [{"type": "text", "text": "here is what I saw"}, *assistant]
    return [
        {"role": "user", "content": [{"type": "text", "text": "look at these"}, *history]},
        reply,
        *(
            {"role": "tool", "tool_call_id": call["id"], "content": parts}
            for call, parts in zip(calls, results, strict=True)
        ),
    ]


def blocks(body: Any, kind: str) -> list[dict[str, Any]]:
    """The Anthropic content blocks of ``kind`` anywhere in ``body``."""
    return [n for n in nodes(body) if isinstance(n, dict) and n.get("type") == kind]


def tool_results(body: Any) -> list[dict[str, Any]]:
    return blocks(body, "tool_result")


def kinds(result: dict[str, Any]) -> list[str]:
    """The block types of one Anthropic tool_result, a placeholder shown as its text (a
    result left with no native block is its whole string form)."""
    if isinstance(result["content"], str):
        return result["content"].split("\n")
    return [
        block["text"] if block["type"] == "text" else block["type"] for block in result["content"]
    ]


# -- anthropic: max_images and max_pdf_request_bytes over the whole request --------------


@pytest.mark.parametrize("earlier", [0, 1, 2, 3, 4])
def test_images_past_max_images_after_the_earlier_ones_are_placeholders(
    servers: dict[str, ProviderServer], callback: ToolwireCallback, earlier: int
) -> None:
    messages = chat([image_part()] * earlier, [[image_part(), image_part()], [image_part()]])
    body = run(send(servers["anthropic"], f"anthropic/{FEW['anthropic']}", messages))
    room = max(0, 3 - earlier)
    sent = [kind for result in tool_results(body) for kind in kinds(result)]
    assert sent == ["image"] * min(room, 3) + [IMAGE_PLACEHOLDER] * (3 - min(room, 3))
    # the user's images are the user's: all of them arrive, as images
    assert len(blocks(body["messages"][0], "image")) == earlier
    # the request holds at most 3 images, unless the user turn alone holds more
    assert len(blocks(body, "image")) == max(earlier, 3)


def test_the_tool_messages_share_one_budget_without_earlier_media(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    messages = chat([], [[image_part()], [image_part()], [image_part()], [image_part()]])
    body = run(send(servers["anthropic"], f"anthropic/{FEW['anthropic']}", messages))
    assert [kinds(result) for result in tool_results(body)] == [
        ["image"],
        ["image"],
        ["image"],
        [IMAGE_PLACEHOLDER],
    ]


def test_an_earlier_turn_s_tool_images_go_before_the_later_turn_s(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    first = chat([], [[image_part(), image_part()]])
    second = chat([], [[image_part(), image_part()]])[1:]
    second[0]["tool_calls"][0]["id"] = second[1]["tool_call_id"] = "toolu_later"
    body = run(send(servers["anthropic"], f"anthropic/{FEW['anthropic']}", first + second))
    assert [kinds(result) for result in tool_results(body)] == [
        ["image", "image"],
        ["image", IMAGE_PLACEHOLDER],
    ]


def test_pdf_bytes_of_the_user_turn_count_against_max_pdf_request_bytes(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    messages = chat([pdf_part()], [[pdf_part(), pdf_part()]])
    body = run(send(servers["anthropic"], f"anthropic/{FEW['anthropic']}", messages))
    (result,) = tool_results(body)
    assert kinds(result) == ["document", PDF_PLACEHOLDER]  # 45 + 45 fit in 100, 45 more do not
    assert len(blocks(body["messages"][0], "document")) == 1


def test_an_image_link_in_the_user_turn_counts(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    link = {"type": "image_url", "image_url": {"url": "https://example.com/chart.png"}}
    messages = chat([link, link], [[image_part(), image_part()]])
    body = run(send(servers["anthropic"], f"anthropic/{FEW['anthropic']}", messages))
    (result,) = tool_results(body)
    assert kinds(result) == ["image", IMAGE_PLACEHOLDER]


def test_assistant_images_do_not_count_on_anthropic_where_litellm_drops_them(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    messages = chat([], [[image_part(), image_part(), image_part()]], assistant=[image_part()] * 2)
    body = run(send(servers["anthropic"], f"anthropic/{FEW['anthropic']}", messages))
    (result,) = tool_results(body)
    assert kinds(result) == ["image", "image", "image"]
    assert len(blocks(body, "image")) == 3  # the assistant's never reached the provider


# -- gemini: the model turn's media are sent, and count ------------------------------------


def test_assistant_images_count_on_gemini(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    messages = chat([image_part()], [[image_part(), image_part()]], assistant=[image_part()])
    body = run(send(servers["gemini"], f"gemini/{FEW['gemini']}", messages))
    inline = [n for n in nodes(body) if isinstance(n, dict) and "inline_data" in n]
    assert len(inline) == 3  # one in the user turn, one in the model turn, one tool image
    (response,) = [
        n["function_response"]
        for n in nodes(body)
        if isinstance(n, dict) and "function_response" in n
    ]
    assert [p["inline_data"]["mime_type"] for p in response["parts"]] == ["image/png"]
    assert IMAGE_PLACEHOLDER in json.dumps(response)


# -- openai with hoisting: the user turn it writes is within the budget --------------------


def test_hoisting_sends_only_the_images_within_the_budget(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    messages = chat([image_part()] * 2, [media_parts(), media_parts()])
    body = run(send(servers["openai"], f"openai/{FEW['openai']}", messages))
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user"]
    first, second, hoisted = body["messages"][2:]
    assert f"{IMAGE_PLACEHOLDER} [attachment 1]" in first["content"]
    assert IMAGE_PLACEHOLDER in second["content"]
    assert f"{IMAGE_PLACEHOLDER} [attachment" not in second["content"]
    urls = [p["image_url"]["url"] for p in hoisted["content"] if p["type"] == "image_url"]
    assert urls == [f"data:image/png;base64,{PNG}"]  # 2 in the user turn + 1 = 3
    files = [p["file"]["file_data"] for p in hoisted["content"] if p["type"] == "file"]
    assert files == [f"data:application/pdf;base64,{PDF}"] * 2  # no PDF limit here


# -- nothing earlier, nothing past a limit: nothing changed ----------------------------


def test_tool_media_within_the_budget_pass_byte_identical(
    servers: dict[str, ProviderServer], registry: Registry
) -> None:
    server = servers["anthropic"]
    messages = chat([], [[image_part(), pdf_part()], [image_part(), image_part()]])
    before = litellm.callbacks
    try:
        litellm.callbacks = []
        run(send(server, f"anthropic/{FEW['anthropic']}", messages))
        litellm.callbacks = [toolwire_litellm.ToolwireCallback(registry=registry)]
        run(send(server, f"anthropic/{FEW['anthropic']}", messages))
    finally:
        litellm.callbacks = before
    assert len(server.raw) == 2
    assert server.raw[0] == server.raw[1]
    assert server.raw[1].count(PNG.encode()) == 3


# -- the decision report and the count ------------------------------------------------------


def test_the_report_names_the_limit(registry: Registry) -> None:
    messages = chat([image_part()] * 2, [[image_part(), image_part()]])
    done = rewrite(messages, resolve("anthropic", FEW["anthropic"], registry=registry))
    assert done is not None
    assert [(m["message"], m["part"], m["outcome"], m["reason"]) for m in done.report["media"]] == [
        (2, 0, "native", None),
        (2, 1, "placeholder", "max_images"),
    ]


def test_what_the_other_messages_send() -> None:
    link = {"type": "image_url", "image_url": "https://example.com/chart"}
    by_id = {"type": "file", "file": {"file_id": "file-abc"}}
    image_file = {
        "type": "file",
        "file": {"file_data": f"data:image/png;base64,{PNG}", "filename": "s.png"},
    }
    broken = {"type": "file", "file": {"file_data": "data:application/pdf;base64,@@@"}}
    messages = [
        {"role": "system", "content": [{"type": "text", "text": "be brief"}, image_part()]},
        {"role": "user", "content": [image_part(), link, pdf_part(), by_id, image_file, broken]},
        {"role": "assistant", "content": [image_part(), pdf_part()]},
        {"role": "tool", "tool_call_id": "t", "content": [image_part(), pdf_part()]},
        {"role": "user", "content": "plain"},
        "not a dict",
    ]
    assert already_sent(messages, "anthropic") == AlreadySent(images=3, pdf_bytes=45)
    assert already_sent(messages, "gemini") == AlreadySent(images=4, pdf_bytes=90)
    assert already_sent(messages[3:], "gemini") == AlreadySent()
