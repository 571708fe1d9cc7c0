"""Check emitted blocks against the providers' own SDK types and documented API rules.

The SDKs' request types are ``TypedDict``s (anthropic, openai) that nothing
validates at run time, and pydantic models (google-genai, ollama). ``check_typed``
walks a TypedDict's annotations strictly: unknown keys, missing required keys,
wrong literal values and wrong primitive types are all rejected (pydantic's own
TypedDict validation ignores unknown keys and checks iterables lazily).

Every ``check_*`` function raises ``SchemaError`` (an AssertionError) on the
first problem, with a JSON-path-like location.
"""

from __future__ import annotations

import base64
import binascii
import collections.abc
import functools
import io
import json
import os
import re
import types
import typing
from collections.abc import Iterator
from typing import Any

import typing_extensions
from convert_samples import sniff
from lazy import LazyModule, load

# the SDKs, imported on first use (see tests/lazy.py)
anthropic_types = LazyModule("anthropic.types")
openai_chat = LazyModule("openai.types.chat")
openai_items = LazyModule("openai.types.responses.response_input_item_param")
gtypes = LazyModule("google.genai.types")
gint = LazyModule("google.genai.interactions")
ollama = LazyModule("ollama")
botocore_session = LazyModule("botocore.session")
botocore_validate = LazyModule("botocore.validate")
pydantic = LazyModule("pydantic")


def load_sdks() -> None:
    """Import the SDKs and build the checks' models now, not in the first check."""
    load(anthropic_types, openai_chat, openai_items, gtypes, gint, ollama, botocore_validate)
    _bedrock()
    _interactions_steps()


WIRES = (
    "anthropic",
    "openai",
    "responses",
    "gemini",
    "ollama",
    "hermes",
    "bedrock",
    "gemini-interactions",
)
#: The wires the golden files were written for: they stay byte-identical, so a wire
#: added after them (gemini-interactions) has its fixed expectations in its own test
#: file and runs over the golden inputs in test_convert_reverse_golden.py.
GOLDEN_WIRES = tuple(wire for wire in WIRES if wire != "gemini-interactions")
#: The id and name rules as issue 14 states them (written out here, not read from
#: the package): wire -> (id pattern, name pattern); None: no rule.
ID_NAME_RULES: dict[str, tuple[str | None, str | None]] = {
    "anthropic": (r"[a-zA-Z0-9_-]+", None),
    "openai": (r"(?s).+", None),
    "responses": (r"(?s).{1,64}", None),
    "gemini": (None, r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}"),
    "ollama": (None, r"(?s).+"),
    "hermes": (None, None),
    "bedrock": (r"[a-zA-Z0-9_.:-]{1,64}", None),
    "gemini-interactions": (r"(?s).+", r"(?:[A-Za-z_][A-Za-z0-9_.:-]{0,63})?"),
}


def keeps_rules(wire: str, id_: str, name: str) -> bool:
    """Return True when ``wire`` takes a result with this call id and tool name."""
    id_rule, name_rule = ID_NAME_RULES[wire]
    return (id_rule is None or re.fullmatch(id_rule, id_) is not None) and (
        name_rule is None or re.fullmatch(name_rule, name) is not None
    )


ANTHROPIC_MAX_IMAGE_BASE64 = 10 * 1024 * 1024  # first-party: 10 MB of base64
ANTHROPIC_IMAGE_MIMES = {"image/jpeg", "image/png", "image/gif", "image/webp"}
GEMINI_INLINE_MIMES = {"image/jpeg", "image/png", "image/webp", "application/pdf"}
FILENAME_MAX = 128
_DATA_URL = re.compile(r"data:([a-z]+/[a-z0-9.+-]+);base64,(.*)", re.DOTALL)


class SchemaError(AssertionError):
    """An emitted value that the provider's types or rules reject."""


# --- strict TypedDict walker -------------------------------------------------------

_NONE = type(None)
_SEQUENCES = (
    list,
    collections.abc.Iterable,
    collections.abc.Sequence,
    typing.Iterable,  # type: ignore[misc]
    typing.Sequence,  # type: ignore[misc]
    typing.List,  # noqa: UP006
)
_MAPPINGS = (dict, collections.abc.Mapping, typing.Dict, typing.Mapping)  # noqa: UP006


def _is_typeddict(tp: object) -> bool:
    return typing.is_typeddict(tp) or typing_extensions.is_typeddict(tp)


def _strip_qualifier(tp: Any) -> tuple[Any, str | None]:
    """Return (inner type, "required"/"not_required"/None) of a TypedDict field type."""
    origin = typing.get_origin(tp)
    if origin in (typing.Required, typing_extensions.Required):
        return typing.get_args(tp)[0], "required"
    if origin in (typing.NotRequired, typing_extensions.NotRequired):
        return typing.get_args(tp)[0], "not_required"
    return tp, None


@functools.cache  # the SDKs' TypedDicts are few; resolving their hints is not cheap
def _fields(tp: Any) -> dict[str, tuple[Any, bool]]:
    """Return key -> (type, required) for a TypedDict class."""
    hints = typing.get_type_hints(tp, include_extras=True)
    total = getattr(tp, "__total__", True)
    fields = {}
    for key, hint in hints.items():
        inner, qualifier = _strip_qualifier(hint)
        # Annotated[Required[X], ...] also occurs: look one level inside.
        if typing.get_origin(inner) is typing.Annotated and qualifier is None:
            inner, qualifier = _strip_qualifier(typing.get_args(inner)[0])
        required = qualifier == "required" or (qualifier is None and total)
        fields[key] = (inner, required)
    return fields


def check_typed(value: Any, tp: Any, path: str = "$") -> None:
    """Raise SchemaError unless ``value`` is exactly an instance of annotation ``tp``."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        check_typed(value, typing.get_args(tp)[0], path)
        return
    if tp is Any or tp is object:
        return
    if tp is None or tp is _NONE:
        if value is not None:
            raise SchemaError(f"{path}: expected null, got {value!r}")
        return
    if origin is typing.Literal or origin is typing_extensions.Literal:
        allowed = typing.get_args(tp)
        if not any(value == a and type(value) is type(a) for a in allowed):
            raise SchemaError(f"{path}: {value!r} is not one of {allowed!r}")
        return
    if origin is typing.Union or origin is types.UnionType:
        errors = []
        for option in typing.get_args(tp):
            try:
                check_typed(value, option, path)
                return
            except SchemaError as exc:
                errors.append(str(exc))
        raise SchemaError(f"{path}: matches no member of {tp!r}: " + " | ".join(errors))
    if _is_typeddict(tp):
        _check_typeddict(value, tp, path)
        return
    if origin in _SEQUENCES or tp in _SEQUENCES:
        if not isinstance(value, list):  # JSON arrays only; a str is no list of blocks
            raise SchemaError(f"{path}: expected a list, got {type(value).__name__}")
        args = typing.get_args(tp)
        for index, item in enumerate(value):
            if args:
                check_typed(item, args[0], f"{path}[{index}]")
        return
    if origin in _MAPPINGS or tp in _MAPPINGS:
        if not isinstance(value, dict):
            raise SchemaError(f"{path}: expected an object, got {type(value).__name__}")
        args = typing.get_args(tp)
        for key, item in value.items():
            if args:
                check_typed(key, args[0], f"{path}.<key>")
                check_typed(item, args[1], f"{path}.{key}")
        return
    if origin is typing.IO or tp is typing.IO:
        if not isinstance(value, io.IOBase):
            raise SchemaError(f"{path}: expected a file object, got {type(value).__name__}")
        return
    if tp is bool:
        if type(value) is not bool:
            raise SchemaError(f"{path}: expected a boolean, got {value!r}")
        return
    if tp is int:
        if type(value) is not int:
            raise SchemaError(f"{path}: expected an integer, got {value!r}")
        return
    if tp is float:
        if type(value) not in (int, float):
            raise SchemaError(f"{path}: expected a number, got {value!r}")
        return
    if tp is str:
        if not isinstance(value, str):
            raise SchemaError(f"{path}: expected a string, got {type(value).__name__}")
        return
    if tp is os.PathLike or origin is os.PathLike:
        if not isinstance(value, os.PathLike):
            raise SchemaError(f"{path}: expected a path, got {type(value).__name__}")
        return
    raise TypeError(f"{path}: check_typed does not know annotation {tp!r}")


def _check_typeddict(value: Any, tp: Any, path: str) -> None:
    if not isinstance(value, dict):
        raise SchemaError(f"{path}: expected an object ({tp.__name__}), got {value!r}")
    fields = _fields(tp)
    unknown = sorted(set(value) - set(fields))
    if unknown:
        raise SchemaError(f"{path}: unknown keys {unknown} for {tp.__name__}")
    for key, (field_type, required) in fields.items():
        if key not in value:
            if required:
                raise SchemaError(f"{path}: missing required key {key!r} of {tp.__name__}")
            continue
        check_typed(value[key], field_type, f"{path}.{key}")


# --- payload rules ---------------------------------------------------------------


def decode_base64(data: Any, path: str) -> bytes:
    """Return the bytes of a strict, whitespace-free, padded base64 string."""
    if not isinstance(data, str):
        raise SchemaError(f"{path}: base64 payload is not a string")
    if any(ch.isspace() for ch in data):
        raise SchemaError(f"{path}: base64 payload contains whitespace")
    if len(data) % 4:
        raise SchemaError(f"{path}: base64 payload is not padded")
    try:
        return base64.b64decode(data, validate=True)
    except binascii.Error as exc:
        raise SchemaError(f"{path}: invalid base64 ({exc})") from None


def check_media(data: str, mime: str, path: str) -> bytes:
    """Raise unless ``data`` is valid base64 whose leading bytes are ``mime``."""
    raw = decode_base64(data, path)
    found = sniff(raw)
    if found != mime:
        raise SchemaError(f"{path}: declared {mime} but the bytes are {found}")
    return raw


def parse_data_url(url: Any, path: str) -> tuple[str, bytes]:
    """Return (mime, bytes) of a ``data:MIME;base64,...`` URL, checked strictly."""
    match = _DATA_URL.fullmatch(url) if isinstance(url, str) else None
    if match is None:
        raise SchemaError(f"{path}: not a base64 data URL: {str(url)[:60]!r}")
    mime, data = match.groups()
    return mime, check_media(data, mime, path)


def check_https(url: Any, path: str) -> None:
    """Raise unless ``url`` is an absolute https URL (what a URL source may be)."""
    if not isinstance(url, str) or not re.fullmatch(r"https://[^\s/?#]+[^\s]*", url, re.I):
        raise SchemaError(f"{path}: not an https URL: {url!r}")


# --- per-wire checks -------------------------------------------------------------


def _walk(value: Any, path: str = "$") -> Iterator[tuple[str, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]")


def check_anthropic(block: Any) -> None:
    """Check one ``tool_result`` block (types and the rules the types cannot express)."""
    check_typed(block, anthropic_types.ToolResultBlockParam, "$")
    if block["type"] != "tool_result":
        raise SchemaError("$.type is not tool_result")
    if "is_error" in block and block["is_error"] is not True:
        raise SchemaError("$.is_error is sent only as true")
    if block.get("is_error") and (block["content"] == "" or block["content"] == []):
        raise SchemaError("$: is_error with empty content is rejected")
    if isinstance(block["content"], list) and not block["content"]:
        raise SchemaError("$.content: an empty block list is sent as a string")
    if isinstance(block["content"], str) and block["content"] and not block["content"].strip():
        raise SchemaError("$.content: whitespace-only content")
    for path, node in _walk(block["content"], "$.content"):
        if not isinstance(node, dict):
            continue
        if node.get("type") == "text" and "text" in node and not node["text"].strip():
            raise SchemaError(f"{path}: empty or whitespace-only text block")
        source = node.get("source")
        if node.get("type") == "document" and isinstance(source, dict):
            if source["type"] == "text":
                if source.get("media_type") != "text/plain":
                    raise SchemaError(f"{path}: text document not labelled text/plain")
                if not source["data"].strip():
                    raise SchemaError(f"{path}: empty text document")
            elif source["type"] == "base64":
                check_media(source["data"], "application/pdf", f"{path}.source.data")
            elif source["type"] == "url":
                check_https(source["url"], f"{path}.source.url")
        if node.get("type") == "image" and isinstance(source, dict) and source["type"] == "base64":
            if source["media_type"] not in ANTHROPIC_IMAGE_MIMES:
                raise SchemaError(f"{path}: image type {source['media_type']}")
            if len(source["data"]) > ANTHROPIC_MAX_IMAGE_BASE64:
                raise SchemaError(f"{path}: image over 10 MB of base64")
            check_media(source["data"], source["media_type"], f"{path}.source.data")


def check_openai(block: Any) -> None:
    """Check one Chat Completions tool message."""
    check_typed(block, openai_chat.ChatCompletionToolMessageParam, "$")
    if not isinstance(block["content"], str):
        raise SchemaError("$.content: the converter sends a string")


def check_responses(block: Any, url_sources: bool = False) -> None:
    """Check one Responses ``function_call_output`` input item (URLs only with url_sources)."""
    check_typed(block, openai_items.FunctionCallOutput, "$")
    if "role" in block:
        raise SchemaError("$: an input item has no role")
    output = block["output"]
    if isinstance(output, str):
        return
    if not output:
        raise SchemaError("$.output: an empty part list")
    if not any(part["type"] in ("input_image", "input_file") for part in output):
        raise SchemaError("$.output: a part list without native media is sent as a string")
    for index, part in enumerate(output):
        path = f"$.output[{index}]"
        if part["type"] == "input_text":
            if not part["text"].strip():
                raise SchemaError(f"{path}: empty input_text")
        elif part["type"] == "input_image":
            if url_sources and str(part.get("image_url"))[:6].lower() == "https:":
                check_https(part["image_url"], f"{path}.image_url")
                continue
            mime, _ = parse_data_url(part.get("image_url"), f"{path}.image_url")
            if mime not in ANTHROPIC_IMAGE_MIMES:
                raise SchemaError(f"{path}: image type {mime}")
        elif part["type"] == "input_file" and "file_url" in part and url_sources:
            if set(part) != {"type", "file_url"}:
                raise SchemaError(f"{path}: a file by URL carries only file_url")
            check_https(part["file_url"], f"{path}.file_url")
        elif part["type"] == "input_file":
            mime, _ = parse_data_url(part.get("file_data"), f"{path}.file_data")
            if mime != "application/pdf":
                raise SchemaError(f"{path}: file type {mime}")
            check_filename(part.get("filename"), f"{path}.filename")


def check_filename(name: Any, path: str = "$") -> None:
    """Raise unless ``name`` is a safe ``input_file`` filename."""
    if not isinstance(name, str) or not name.endswith(".pdf") or len(name) > FILENAME_MAX:
        raise SchemaError(f"{path}: bad filename {name!r}")
    if name.startswith(".") or name != name.strip() or len(name) == len(".pdf"):
        raise SchemaError(f"{path}: bad filename {name!r}")
    if any(ch in "/\\" or not ch.isprintable() for ch in name):
        raise SchemaError(f"{path}: separator or control character in {name!r}")


def validate_gemini_part(part: Any) -> gtypes.Part:
    """Return the SDK's ``Part`` for a camelCase JSON part (extra keys are forbidden)."""
    try:
        return gtypes.Part.model_validate_json(json.dumps(part))
    except Exception as exc:  # pydantic.ValidationError
        raise SchemaError(f"$: google-genai rejects the part: {exc}") from None


def check_gemini(block: Any, url_sources: bool = False) -> None:
    """Check one ``functionResponse`` part (``fileData`` parts only with url_sources)."""
    if not isinstance(block, dict) or set(block) != {"functionResponse"}:
        raise SchemaError(f"$: expected exactly a functionResponse part, got {block!r}")
    part = validate_gemini_part(block)
    call = block["functionResponse"]
    if not set(call) <= {"name", "id", "response", "parts"}:
        raise SchemaError(f"$.functionResponse: unexpected keys {sorted(call)}")
    if not isinstance(call.get("response"), dict):
        raise SchemaError("$.functionResponse.response must be a JSON object")
    if "id" in call and not call["id"]:
        raise SchemaError("$.functionResponse.id: an empty id is omitted")
    if "parts" in call and not call["parts"]:
        raise SchemaError("$.functionResponse.parts: sent only with native media")
    sdk_parts = part.function_response.parts or []  # type: ignore[union-attr]
    for index, inner in enumerate(call.get("parts", [])):
        if "fileData" in inner and url_sources:
            path = f"$.functionResponse.parts[{index}].fileData"
            if set(inner) != {"fileData"} or set(inner["fileData"]) != {"mimeType", "fileUri"}:
                raise SchemaError(f"{path}: unexpected shape {sorted(inner)}")
            if inner["fileData"]["mimeType"] not in GEMINI_INLINE_MIMES:
                raise SchemaError(f"{path}: MIME type {inner['fileData']['mimeType']}")
            check_https(inner["fileData"]["fileUri"], f"{path}.fileUri")
            sdk = sdk_parts[index].file_data  # type: ignore[union-attr]
            if sdk is None or sdk.file_uri != inner["fileData"]["fileUri"]:
                raise SchemaError(f"{path}: the SDK reads another fileUri")
            continue
        path = f"$.functionResponse.parts[{index}].inlineData"
        if set(inner) != {"inlineData"} or set(inner["inlineData"]) != {"mimeType", "data"}:
            raise SchemaError(f"{path}: unexpected shape {sorted(inner)}")
        mime = inner["inlineData"]["mimeType"]
        if mime not in GEMINI_INLINE_MIMES:
            raise SchemaError(f"{path}: MIME type {mime} has no native form")
        raw = check_media(inner["inlineData"]["data"], mime, f"{path}.data")
        if sdk_parts[index].inline_data.data != raw:  # type: ignore[union-attr]
            raise SchemaError(f"{path}: the SDK decodes other bytes")


#: the image types of Gemini's multimodal function responses (no GIF)
INTERACTIONS_IMAGE_MIMES = {"image/jpeg", "image/png", "image/webp"}
INTERACTIONS_MAX_BASE64 = 20 * 1024 * 1024


@functools.cache
def _interactions_steps() -> Any:
    """The SDK's adapter for a list of Interactions steps."""
    return pydantic.TypeAdapter(list[gint.Step])


def check_gemini_interactions(block: Any) -> None:
    """Check one Interactions API ``function_result`` step (SDK model, then the shape)."""
    if not isinstance(block, dict) or block.get("type") != "function_result":
        raise SchemaError(f"$: expected a function_result step, got {block!r}")
    try:
        step = gint.FunctionResultStep.model_validate_json(json.dumps(block))
    except Exception as exc:  # pydantic.ValidationError
        raise SchemaError(f"$: google-genai rejects the step: {exc}") from None
    if not set(block) <= {"type", "call_id", "name", "is_error", "result"} or "result" not in block:
        raise SchemaError(f"$: unexpected keys {sorted(block)}")
    if not isinstance(block["call_id"], str) or not block["call_id"]:
        raise SchemaError("$.call_id: required, a non-empty string")
    name = block.get("name")
    if "name" in block and not (
        isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}", name)
    ):
        raise SchemaError(f"$.name: {name!r} breaks Gemini's function-name rule (or is empty)")
    if "is_error" in block and block["is_error"] is not True:
        raise SchemaError("$.is_error: sent only as true")
    result = block["result"]
    if isinstance(result, str):
        if step.result != result:
            raise SchemaError("$.result: the SDK reads another string")
        return
    if isinstance(result, dict):
        if step.result.model_dump(mode="json") != result:  # type: ignore[union-attr]
            raise SchemaError("$.result: the SDK reads another object")
        return
    if not isinstance(result, list) or not result:
        raise SchemaError("$.result: a string, an object or a non-empty item list")
    if not any(item.get("type") == "image" for item in result):
        raise SchemaError("$.result: an item list only when an image goes natively")
    sdk_items = step.result
    for index, item in enumerate(result):
        path = f"$.result[{index}]"
        sdk = sdk_items[index]  # type: ignore[index]
        if item.get("type") == "text":
            if set(item) != {"type", "text"} or not isinstance(item["text"], str):
                raise SchemaError(f"{path}: a text item is type + text")
            if not item["text"].strip():
                raise SchemaError(f"{path}: empty text is dropped")
            if not isinstance(sdk, gint.TextContent) or sdk.text != item["text"]:
                raise SchemaError(f"{path}: the SDK reads another text")
            continue
        if item.get("type") != "image" or set(item) != {"type", "data", "mime_type"}:
            raise SchemaError(f"{path}: only text and image items ({sorted(item)})")
        mime = item["mime_type"]
        if mime not in INTERACTIONS_IMAGE_MIMES:
            raise SchemaError(f"{path}: MIME type {mime} has no native form")
        if len(item["data"]) > INTERACTIONS_MAX_BASE64:
            raise SchemaError(f"{path}: over 20 MiB of base64")
        check_media(item["data"], mime, f"{path}.data")
        if not isinstance(sdk, gint.ImageContent) or sdk.data != item["data"]:
            raise SchemaError(f"{path}: the SDK reads another image")


def check_ollama(block: Any) -> None:
    """Check one native ``/api/chat`` tool message."""
    if not isinstance(block, dict):
        raise SchemaError("$: not an object")
    known = set(ollama.Message.model_fields) | {"tool_call_id"}  # the server reads it
    unknown = sorted(set(block) - known)
    if unknown:
        raise SchemaError(f"$: unknown keys {unknown}")
    if block.get("role") != "tool" or not isinstance(block.get("content"), str):
        raise SchemaError("$: a tool message with string content")
    if not isinstance(block.get("tool_name"), str):
        raise SchemaError("$.tool_name: a string")
    if "tool_call_id" in block and (
        not isinstance(block["tool_call_id"], str) or not block["tool_call_id"]
    ):
        raise SchemaError("$.tool_call_id: a non-empty string when present")
    message = {k: v for k, v in block.items() if k != "tool_call_id"}
    try:
        ollama.Message.model_validate(message)
    except Exception as exc:  # pydantic.ValidationError
        raise SchemaError(f"$: ollama rejects the message: {exc}") from None


def split_hermes(block: Any, tag: str = "tool_response") -> dict[str, Any]:
    """Return the JSON body of a hermes block, checking its framing and canonical form."""
    if not isinstance(block, str):
        raise SchemaError("$: a hermes block is a string")
    head, tail = f"<{tag}>\n", f"\n</{tag}>"
    if not (block.startswith(head) and block.endswith(tail)):
        raise SchemaError(f"$: not framed by <{tag}>: {block[:40]!r}")
    body = block[len(head) : -len(tail)]
    if "</" in body or "\n" in body:
        raise SchemaError("$: the body could break the framing")
    value = json.loads(body)
    if not isinstance(value, dict) or set(value) != {"content", "name"}:
        raise SchemaError(f"$: body keys {sorted(value) if isinstance(value, dict) else value}")
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if body != canonical.replace("</", "<\\/"):
        raise SchemaError("$: body is not canonical JSON")
    return value  # type: ignore[no-any-return]


def check_hermes(block: Any, tag: str = "tool_response") -> None:
    """Check one hermes block (a tagged string)."""
    value = split_hermes(block, tag)
    if not isinstance(value["content"], str) or not isinstance(value["name"], str):
        raise SchemaError("$: content and name are strings")


# --- bedrock: botocore's own validator against the bedrock-runtime service model ---


@functools.cache
def _bedrock() -> Any:
    """botocore's model of the bedrock-runtime service."""
    return botocore_session.get_session().get_service_model("bedrock-runtime")


BEDROCK_IMAGE_FORMATS = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}
BEDROCK_MAX_IMAGE = 3_750_000
BEDROCK_MAX_DOCUMENT = 4_500_000
_BEDROCK_NAME = re.compile(r"[A-Za-z0-9()\[\]-]+( [A-Za-z0-9()\[\]-]+)*")


def converse_request(blocks: list[Any]) -> dict[str, Any]:
    """Return a Converse request whose user turn answers one toolUse per block."""
    uses = [
        {"toolUse": {"toolUseId": b["toolResult"]["toolUseId"] or "x", "name": "t", "input": {}}}
        for b in blocks
    ]
    for b in blocks:  # an empty id is passed through; Bedrock's own rule is checked apart
        if not b["toolResult"]["toolUseId"]:
            b["toolResult"] = {**b["toolResult"], "toolUseId": "x"}
    return {
        "modelId": "anthropic.claude-sonnet-4-5",
        "messages": [
            {"role": "user", "content": [{"text": "go"}]},
            {"role": "assistant", "content": uses},
            {"role": "user", "content": blocks},
        ],
        "toolConfig": {
            "tools": [{"toolSpec": {"name": "t", "inputSchema": {"json": {"type": "object"}}}}]
        },
    }


def validate_converse(request: dict[str, Any]) -> None:
    """Raise unless botocore's validator accepts ``request`` as Converse input."""
    converse = _bedrock().operation_model("Converse").input_shape
    report = botocore_validate.ParamValidator().validate(request, converse)
    if report.has_errors():
        raise SchemaError(f"botocore rejects the request: {report.generate_report()}")


def check_bedrock(block: Any, raw_bytes: bool = False) -> None:
    """Check one ``toolResult`` block: botocore's validator, then Bedrock's documented rules."""
    if not isinstance(block, dict) or set(block) != {"toolResult"}:
        raise SchemaError(f"$: expected exactly a toolResult block, got {block!r}")
    result = block["toolResult"]
    if set(result) != {"toolUseId", "content", "status"}:
        raise SchemaError(f"$.toolResult: unexpected keys {sorted(result)}")
    validate_converse(converse_request([{"toolResult": dict(result)}]))
    if not result["content"]:
        raise SchemaError("$.toolResult.content: empty")
    names: set[str] = set()
    for index, part in enumerate(result["content"]):
        path = f"$.toolResult.content[{index}]"
        if len(part) != 1:
            raise SchemaError(f"{path}: a union sets exactly one member: {sorted(part)}")
        if "text" in part and not part["text"].strip():
            raise SchemaError(f"{path}: blank text is rejected")
        if "json" in part and not isinstance(part["json"], dict):
            raise SchemaError(f"{path}: json is sent as an object")
        media = part.get("image") or part.get("document")
        if media is None:
            continue
        enum = _bedrock().shape_for("ImageFormat" if "image" in part else "DocumentFormat").enum
        if media["format"] not in enum:  # botocore's validator does not check enums
            raise SchemaError(f"{path}: format {media['format']!r} not in the service model")
        data = media["source"]["bytes"]
        if raw_bytes != isinstance(data, bytes):
            raise SchemaError(f"{path}: bytes form {type(data).__name__}, raw_bytes={raw_bytes}")
        raw = data if isinstance(data, bytes) else decode_base64(data, f"{path}.source.bytes")
        if "image" in part:
            mime = BEDROCK_IMAGE_FORMATS[media["format"]]
            if sniff(raw) != mime or len(raw) > BEDROCK_MAX_IMAGE:
                raise SchemaError(f"{path}: {media['format']} of {len(raw)} bytes")
        else:
            if media["format"] != "pdf" or sniff(raw) != "application/pdf":
                raise SchemaError(f"{path}: only PDFs go as documents")
            if len(raw) > BEDROCK_MAX_DOCUMENT:
                raise SchemaError(f"{path}: document of {len(raw)} bytes")
            name = media["name"]
            if not _BEDROCK_NAME.fullmatch(name) or len(name) > 200 or name in names:
                raise SchemaError(f"{path}: document name {name!r}")
            names.add(name)


BLOCK_CHECKS = {
    "anthropic": check_anthropic,
    "openai": check_openai,
    "responses": check_responses,
    "gemini": check_gemini,
    "ollama": check_ollama,
    "hermes": check_hermes,
    "bedrock": check_bedrock,
    "gemini-interactions": check_gemini_interactions,
}


def check_block(wire: str, block: Any, options: dict[str, Any] | None = None) -> None:
    """Run the checks of ``wire`` on one block."""
    if wire == "hermes":
        check_hermes(block, (options or {}).get("response_tag") or "tool_response")
    elif wire == "bedrock":
        check_bedrock(block, bool((options or {}).get("raw_bytes")))
    elif wire in ("responses", "gemini"):
        BLOCK_CHECKS[wire](block, bool((options or {}).get("url_sources")))  # type: ignore[call-arg]
    else:
        BLOCK_CHECKS[wire](block)


def check_envelope(
    wire: str, messages: Any, count: int, options: dict[str, Any] | None = None
) -> None:
    """Check what ``format_tool_results`` returned for ``count`` results on ``wire``."""
    if not isinstance(messages, list):
        raise SchemaError("$: the envelope is a list")
    if wire == "anthropic":
        if len(messages) != 1:
            raise SchemaError("$: one user message")
        check_typed(messages[0], anthropic_types.MessageParam, "$[0]")
        if messages[0]["role"] != "user" or len(messages[0]["content"]) != count:
            raise SchemaError("$[0]: a user message with one block per result")
        for block in messages[0]["content"]:
            check_anthropic(block)
    elif wire == "gemini":
        if len(messages) != 1:
            raise SchemaError("$: one user content")
        try:
            content = gtypes.Content.model_validate_json(json.dumps(messages[0]))
        except Exception as exc:  # pydantic.ValidationError
            raise SchemaError(f"$[0]: google-genai rejects the content: {exc}") from None
        if content.role != "user" or len(messages[0]["parts"]) != count:
            raise SchemaError("$[0]: a user content with one part per result")
        for part in messages[0]["parts"]:
            check_gemini(part, bool((options or {}).get("url_sources")))
    elif wire == "bedrock":
        if len(messages) != 1 or set(messages[0]) != {"role", "content"}:
            raise SchemaError("$: one user message")
        if messages[0]["role"] != "user" or len(messages[0]["content"]) != count:
            raise SchemaError("$[0]: a user message with one toolResult per result")
        blocks = [{"toolResult": dict(b["toolResult"])} for b in messages[0]["content"]]
        validate_converse(converse_request(blocks))
        for block in messages[0]["content"]:
            check_bedrock(block, bool((options or {}).get("raw_bytes")))
    elif wire == "gemini-interactions":
        try:  # the interaction's input: a list of steps
            steps = _interactions_steps().validate_json(json.dumps(messages))
        except Exception as exc:  # pydantic.ValidationError
            raise SchemaError(f"$: google-genai rejects the input steps: {exc}") from None
        if len(messages) != count or not all(
            isinstance(step, gint.FunctionResultStep) for step in steps
        ):
            raise SchemaError("$: one function_result step per result")
        for message in messages:
            check_gemini_interactions(message)
    elif wire == "hermes":
        if len(messages) != count:
            raise SchemaError("$: one message per result")
        call_ids = bool((options or {}).get("call_ids"))
        for message in messages:
            keys = {"role", "content"}
            if call_ids and "tool_call_id" in message:  # an OpenAI-compatible tool message
                keys.add("tool_call_id")
                if not message["tool_call_id"]:
                    raise SchemaError(f"$: an empty tool_call_id is left out: {message!r}")
                check_typed(message, openai_chat.ChatCompletionToolMessageParam, "$")
            if set(message) != keys or message["role"] != "tool":
                raise SchemaError(f"$: a hermes message is role tool + content: {message!r}")
            ollama.Message.model_validate(message)
            check_block("hermes", message["content"], options)
    else:
        if len(messages) != count:
            raise SchemaError("$: one message per result")
        for message in messages:
            check_block(wire, message, options)


# --- string forms and payloads ---------------------------------------------------


def string_forms(wire: str, block: Any) -> list[str]:
    """Return every model-visible string a block carries (where no payload may appear)."""
    if wire in ("openai", "ollama"):
        return [block["content"], json.dumps(block, ensure_ascii=False)]
    if wire == "hermes":
        return [block]
    if wire == "responses":
        output = block["output"]
        if isinstance(output, str):
            return [output]
        return [part["text"] for part in output if part["type"] == "input_text"]
    if wire == "gemini":
        return [json.dumps(block["functionResponse"]["response"], ensure_ascii=False)]
    if wire == "gemini-interactions":
        result = block["result"]
        if isinstance(result, str):
            return [result]
        if isinstance(result, dict):
            return [json.dumps(result, ensure_ascii=False)]
        return [item["text"] for item in result if item["type"] == "text"]
    if wire == "bedrock":
        return [p["text"] for p in block["toolResult"]["content"] if "text" in p] + [
            json.dumps(p["json"], ensure_ascii=False)
            for p in block["toolResult"]["content"]
            if "json" in p
        ]
    if wire == "anthropic":
        content = block["content"]
        if isinstance(content, str):
            return [content]
        found = []
        for _, node in _walk(content):
            if isinstance(node, dict) and node.get("type") == "text" and "text" in node:
                found.append(node["text"])
            if isinstance(node, dict) and node.get("type") == "search_result":
                found.append(node["title"])
            if isinstance(node, dict) and node.get("type") == "document":
                source = node["source"]
                if source["type"] == "text":
                    found.append(source["data"])
                found.extend(node.get(key, "") for key in ("title", "context"))
        return found
    raise KeyError(wire)


def payload_chunks(payload: str, size: int = 24) -> list[str]:
    """Return the whitespace-free chunks of a base64 payload to look for in strings."""
    clean = "".join(payload.split())
    if len(clean) < size:
        return []
    return [clean[i : i + size] for i in range(0, len(clean) - size + 1, size)]


def assert_no_payload(wire: str, block: Any, payloads: list[str]) -> None:
    """Raise when any chunk of any payload shows up in a string form of ``block``."""
    strings = string_forms(wire, block)
    for payload in payloads:
        for chunk in payload_chunks(payload):
            for text in strings:
                if chunk in text:
                    raise SchemaError(f"{wire}: base64 payload leaked into {text[:80]!r}")


def native_payloads(wire: str, block: Any) -> list[tuple[str, str]]:
    """Return (MIME type, base64) of every native media payload a block carries."""
    found: list[tuple[str, str]] = []
    if wire == "anthropic" and isinstance(block["content"], list):
        for part in block["content"]:
            source = part.get("source")
            if isinstance(source, dict) and source.get("type") == "base64":
                found.append((source["media_type"], source["data"]))
    elif wire == "responses" and isinstance(block["output"], list):
        for part in block["output"]:
            url = part.get("image_url") or part.get("file_data")
            if url and url.startswith("data:"):  # not a URL source (``native_urls``)
                head, _, data = url.partition(",")
                found.append((head[5:].split(";")[0], data))
    elif wire == "gemini":
        for part in block["functionResponse"].get("parts", []):
            if "inlineData" in part:
                found.append((part["inlineData"]["mimeType"], part["inlineData"]["data"]))
    elif wire == "gemini-interactions" and isinstance(block["result"], list):
        for item in block["result"]:
            if item["type"] == "image":
                found.append((item["mime_type"], item["data"]))
    elif wire == "bedrock":
        for part in block["toolResult"]["content"]:
            for kind, media in part.items():
                if kind in ("image", "document") and "bytes" in media["source"]:
                    data = media["source"]["bytes"]
                    if isinstance(data, bytes):
                        data = base64.b64encode(data).decode("ascii")
                    found.append((_BEDROCK_MIME[media["format"]], data))
    return found


_BEDROCK_MIME = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "pdf": "application/pdf",
}


def native_urls(wire: str, block: Any) -> list[str]:
    """Return the URL of every URL source (``url_sources``) a block carries."""
    found: list[str] = []
    if wire == "anthropic" and isinstance(block["content"], list):
        for part in block["content"]:
            source = part.get("source")
            if isinstance(source, dict) and source.get("type") == "url":
                found.append(source["url"])
    elif wire == "responses" and isinstance(block["output"], list):
        for part in block["output"]:
            url = part.get("file_url") or part.get("image_url")
            if url and not url.startswith("data:"):
                found.append(url)
    elif wire == "gemini":
        for part in block["functionResponse"].get("parts", []):
            if "fileData" in part:
                found.append(part["fileData"]["fileUri"])
    return found
