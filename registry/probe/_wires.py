"""The probe conversation on each wire: endpoint, credentials, request body, reply text.

Every request is one conversation. ``image_input`` (the baseline) is a plain user turn
with the PNG. Every other scenario is: the user asks for the code, the assistant turn
calls the tool ``read_code``, and the tool result -- built by ``toolwire.convert`` with
the scenario's native options forced on -- carries the challenge.

- anthropic: ``POST {base}/v1/messages``, ``x-api-key`` and ``anthropic-version``.
- openai: ``POST {base}/chat/completions``, ``Authorization: Bearer``.
- responses: ``POST {base}/responses``, ``Authorization: Bearer``.
- gemini: ``POST {base}/v1beta/models/{model}:generateContent``, ``x-goog-api-key``.
- ollama: ``POST {base}/api/chat`` (``stream: false``), ``Authorization: Bearer`` when
  a key is given.
- hermes: the OpenAI chat endpoint; the tool is described in ``<tools>`` in the
  system turn, the call is ``<tool_call>`` text and the result the converter's
  ``<tool_response>`` text; where the resolution sets ``call_ids`` (an engine of the
  openai family) the assistant turn also carries the call as ``tool_calls`` and the
  tool message answers it with ``tool_call_id``.
- bedrock: ``POST {base}/model/{modelId}/converse`` (the Converse API), with a Bedrock
  API key as ``Authorization: Bearer``, or signed with AWS SigV4 (``_sigv4``) when
  there is none; blobs are base64 in the JSON body, as the HTTP API takes them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from toolwire.convert import ToolResult, format_tool_results

__all__ = ["API", "MAX_TOKENS", "TOOL_NAME", "Turn", "WireApi"]

TOOL_NAME = "read_code"
TOOL_DESCRIPTION = "Return the code the user asks for."
CALL_ID = "call_probe"
#: Room for the six characters and a little chatter, no more.
MAX_TOKENS = 64
_NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True, slots=True)
class Turn:
    """What one probe request says: the prompt and either a PNG or a tool result."""

    prompt: str
    png_base64: str | None = None
    result: ToolResult | None = None
    options: Mapping[str, Any] | None = None
    system: str | None = None


@dataclass(frozen=True, slots=True)
class WireApi:
    """How one wire is spoken over HTTP."""

    path: Callable[[str], str]
    headers: Callable[[str | None], dict[str, str]]
    body: Callable[[str, Turn], dict[str, Any]]
    reply_text: Callable[[Any], str]


def _tool_messages(wire: str, turn: Turn) -> list[Any]:
    assert turn.result is not None
    return format_tool_results(wire, [turn.result], **dict(turn.options or {}))


def _bearer(key: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"} if key else {}


# -- anthropic -------------------------------------------------------------------------


def _anthropic_body(model: str, turn: Turn) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_tokens": MAX_TOKENS}
    if turn.png_base64 is not None:
        image = {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": turn.png_base64},
        }
        body["messages"] = [
            {"role": "user", "content": [image, {"type": "text", "text": turn.prompt}]}
        ]
        return body
    body["tools"] = [
        {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "input_schema": _NO_PARAMETERS}
    ]
    body["messages"] = [
        {"role": "user", "content": turn.prompt},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": CALL_ID, "name": TOOL_NAME, "input": {}}],
        },
        *_tool_messages("anthropic", turn),
    ]
    return body


def _anthropic_headers(key: str | None) -> dict[str, str]:
    return {"anthropic-version": "2023-06-01", **({"x-api-key": key} if key else {})}


def _anthropic_reply(data: Any) -> str:
    return "".join(
        block.get("text", "")
        for block in data.get("content") or []
        if isinstance(block, dict) and block.get("type") == "text"
    )


# -- openai and hermes (Chat Completions) ------------------------------------------------


def _chat_tools() -> list[dict[str, Any]]:
    function = {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": _NO_PARAMETERS}
    return [{"type": "function", "function": function}]


def _chat_call() -> dict[str, Any]:
    """The assistant's call of the probe tool, as Chat Completions spells it."""
    return {"id": CALL_ID, "type": "function", "function": {"name": TOOL_NAME, "arguments": "{}"}}


def _data_url(png_base64: str) -> str:
    return f"data:image/png;base64,{png_base64}"


def _chat_user_image(turn: Turn) -> dict[str, Any]:
    assert turn.png_base64 is not None
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": turn.prompt},
            {"type": "image_url", "image_url": {"url": _data_url(turn.png_base64)}},
        ],
    }


def _openai_body(model: str, turn: Turn) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_completion_tokens": MAX_TOKENS}
    if turn.png_base64 is not None:
        body["messages"] = [_chat_user_image(turn)]
        return body
    body["tools"] = _chat_tools()
    body["messages"] = [
        {"role": "user", "content": turn.prompt},
        {"role": "assistant", "tool_calls": [_chat_call()]},
        *_tool_messages("openai", turn),
    ]
    return body


def _hermes_body(model: str, turn: Turn) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_tokens": MAX_TOKENS}
    if turn.png_base64 is not None:
        body["messages"] = [_chat_user_image(turn)]
        return body
    tools = json.dumps(_chat_tools()[0]["function"])
    call = json.dumps({"name": TOOL_NAME, "arguments": {}})
    system = (
        "You are a function calling AI model. You may call the function described in "
        f"<tools></tools>.\n<tools>\n{tools}\n</tools>\nFor each call return "
        "<tool_call></tool_call> tags holding a JSON object with name and arguments."
    )
    assistant: dict[str, Any] = {
        "role": "assistant",
        "content": f"<tool_call>\n{call}\n</tool_call>",
    }
    if (turn.options or {}).get("call_ids"):
        # an OpenAI-compatible endpoint takes a tool message with a call id only as the
        # answer to an assistant turn that made that call
        assistant["tool_calls"] = [_chat_call()]
    body["messages"] = [
        {"role": "system", "content": system},
        {"role": "user", "content": turn.prompt},
        assistant,
        *_tool_messages("hermes", turn),
    ]
    return body


def _chat_reply(data: Any) -> str:
    choices = data.get("choices") or [{}]
    content = (choices[0].get("message") or {}).get("content")
    return content if isinstance(content, str) else ""


# -- responses ----------------------------------------------------------------------------


def _responses_body(model: str, turn: Turn) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_output_tokens": MAX_TOKENS, "store": False}
    if turn.png_base64 is not None:
        parts = [
            {"type": "input_text", "text": turn.prompt},
            {"type": "input_image", "image_url": _data_url(turn.png_base64), "detail": "auto"},
        ]
        body["input"] = [{"role": "user", "content": parts}]
        return body
    body["tools"] = [
        {
            "type": "function",
            "name": TOOL_NAME,
            "description": TOOL_DESCRIPTION,
            "parameters": _NO_PARAMETERS,
            "strict": False,
        }
    ]
    call = {"type": "function_call", "call_id": CALL_ID, "name": TOOL_NAME, "arguments": "{}"}
    body["input"] = [
        {"role": "user", "content": turn.prompt},
        call,
        *_tool_messages("responses", turn),
    ]
    return body


def _responses_reply(data: Any) -> str:
    texts = []
    for item in data.get("output") or []:
        if isinstance(item, dict) and item.get("type") == "message":
            for part in item.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "output_text":
                    texts.append(str(part.get("text", "")))
    return "".join(texts)


# -- gemini ------------------------------------------------------------------------------


def _gemini_body(model: str, turn: Turn) -> dict[str, Any]:
    body: dict[str, Any] = {"generationConfig": {"maxOutputTokens": MAX_TOKENS}}
    if turn.png_base64 is not None:
        image = {"inlineData": {"mimeType": "image/png", "data": turn.png_base64}}
        body["contents"] = [{"role": "user", "parts": [{"text": turn.prompt}, image]}]
        return body
    declaration = {"name": TOOL_NAME, "description": TOOL_DESCRIPTION}
    body["tools"] = [{"functionDeclarations": [declaration]}]
    call = {"functionCall": {"id": CALL_ID, "name": TOOL_NAME, "args": {}}}
    body["contents"] = [
        {"role": "user", "parts": [{"text": turn.prompt}]},
        {"role": "model", "parts": [call]},
        *_tool_messages("gemini", turn),
    ]
    return body


def _gemini_reply(data: Any) -> str:
    candidates = data.get("candidates") or [{}]
    parts = (candidates[0].get("content") or {}).get("parts") or []
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))


# -- ollama ------------------------------------------------------------------------------


def _ollama_body(model: str, turn: Turn) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "stream": False, "options": {"num_predict": MAX_TOKENS}}
    if turn.png_base64 is not None:
        body["messages"] = [{"role": "user", "content": turn.prompt, "images": [turn.png_base64]}]
        return body
    body["tools"] = _chat_tools()
    call = {"function": {"name": TOOL_NAME, "arguments": {}}}
    body["messages"] = [
        {"role": "user", "content": turn.prompt},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        *_tool_messages("ollama", turn),
    ]
    return body


def _ollama_reply(data: Any) -> str:
    content = (data.get("message") or {}).get("content")
    return content if isinstance(content, str) else ""


# -- bedrock (Converse) -------------------------------------------------------------------


def _bedrock_body(model: str, turn: Turn) -> dict[str, Any]:
    body: dict[str, Any] = {"inferenceConfig": {"maxTokens": MAX_TOKENS}}
    if turn.png_base64 is not None:
        image = {"image": {"format": "png", "source": {"bytes": turn.png_base64}}}
        body["messages"] = [{"role": "user", "content": [{"text": turn.prompt}, image]}]
        return body
    spec = {
        "name": TOOL_NAME,
        "description": TOOL_DESCRIPTION,
        "inputSchema": {"json": _NO_PARAMETERS},
    }
    body["toolConfig"] = {"tools": [{"toolSpec": spec}]}
    call = {"toolUse": {"toolUseId": CALL_ID, "name": TOOL_NAME, "input": {}}}
    body["messages"] = [
        {"role": "user", "content": [{"text": turn.prompt}]},
        {"role": "assistant", "content": [call]},
        *_tool_messages("bedrock", turn),
    ]
    return body


def _bedrock_reply(data: Any) -> str:
    message = (data.get("output") or {}).get("message") or {}
    return "".join(
        str(block.get("text", ""))
        for block in message.get("content") or []
        if isinstance(block, dict)
    )


#: How each wire is spoken, by wire name.
API: Mapping[str, WireApi] = {
    "anthropic": WireApi(
        path=lambda model: "/v1/messages",
        headers=_anthropic_headers,
        body=_anthropic_body,
        reply_text=_anthropic_reply,
    ),
    "openai": WireApi(
        path=lambda model: "/chat/completions",
        headers=_bearer,
        body=_openai_body,
        reply_text=_chat_reply,
    ),
    "responses": WireApi(
        path=lambda model: "/responses",
        headers=_bearer,
        body=_responses_body,
        reply_text=_responses_reply,
    ),
    "gemini": WireApi(
        path=lambda model: f"/v1beta/models/{quote(model, safe='')}:generateContent",
        headers=lambda key: {"x-goog-api-key": key} if key else {},
        body=_gemini_body,
        reply_text=_gemini_reply,
    ),
    "ollama": WireApi(
        path=lambda model: "/api/chat",
        headers=_bearer,
        body=_ollama_body,
        reply_text=_ollama_reply,
    ),
    "hermes": WireApi(
        path=lambda model: "/chat/completions",
        headers=_bearer,
        body=_hermes_body,
        reply_text=_chat_reply,
    ),
    "bedrock": WireApi(
        path=lambda model: f"/model/{quote(model, safe='')}/converse",
        headers=_bearer,
        body=_bedrock_body,
        reply_text=_bedrock_reply,
    ),
}
