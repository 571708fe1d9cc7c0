"""The ``gemini-interactions`` wire: a ``function_result`` step of Google's Interactions API.

``CreateInteraction`` (``POST /v1beta/interactions``), which ai.google.dev lists
as the recommended Gemini endpoint. Shape checked against the ``FunctionResultStep``
type of the installed Google Gen AI SDK (``google-genai`` 3.6,
``google.genai.interactions``; the tests validate every step against it) and the
js-genai reference (``FunctionResultStep``, ``FunctionResultContent``).

- Block: ``{"type": "function_result", "call_id": id, "name": name,
  "is_error": true, "result": ...}``. ``call_id`` is required (``ID_RULE``: any
  non-empty string; Gemini ids have no character rule and may carry thought
  signatures, so one never changes going back); a result without one is
  ``InvalidId`` naming the fix (give it its ``function_call``'s id: nothing else
  pairs the two, so no ``IdMap`` can make one up).
- ``name`` is optional on this wire ("the name of the tool that was called"): sent
  when the result has one, then checked under Gemini's function-name rule (a
  letter or ``_``, then up to 63 of ``[A-Za-z0-9_.:-]``; ``NAME_RULE``).
- ``is_error`` is an optional boolean ("whether the tool call resulted in an
  error"); it is sent only when the tool failed (``true``), as Anthropic's flag
  is: the field is optional, the documented example omits it, and a missing
  flag reads as false.
- ``result`` is one of the three forms the API takes (``str``, an object, or a
  list of ``{"type": "text", "text"}`` and ``{"type": "image", "data",
  "mime_type"}`` items):
  - the structured content itself, when the result has an object as
    structured content and no content items (the string form otherwise: MCP
    puts the same JSON in a text item beside it);
  - with ``image_input=True`` and an image going natively, the item list in
    content order: images (JPEG, PNG, WebP, as Gemini's multimodal function
    responses take them; no GIF) as base64 ``image`` items, every other item as
    a ``text`` item holding its string form (empty ones dropped). Documented for
    Gemini 3 and later (ai.google.dev multimodal function calling; the
    Interactions example on philschmid.de, 2026-02-13). At most 20 MiB of base64
    (Gemini's inline request limit); larger images stay placeholders;
  - else the string form, placeholders included.
- PDFs have no native form here: the documented subcontent of a function
  result is text and image only (js-genai ``FunctionResultSubcontent``, java-genai
  ``FunctionResultSubcontent``: ``ImageContent``, ``TextContent``). The 3.6
  Python SDK's generated union also admits ``document``, ``audio`` and
  ``video`` items, but no documentation shows a model reading one there, so a
  PDF is its placeholder. No URL form either (``url_sources`` is not read).
- ``signature`` (a backend validation hash) is never written.
- Envelope: the ``function_result`` steps themselves, one per result: the list a
  client passes as the interaction's ``input`` (the SDK's ``List[StepParam]``),
  after the model's ``function_call`` steps when the history is sent, or alone
  with ``previous_interaction_id``.

Reading a step back (``read``): ``call_id``, ``name`` (missing: ``""``) and
``is_error`` (missing: false). A string ``result`` is one text item (none for
``""``), placeholders included; an object is the structured content (``{}``
included); a list is one item per entry: ``text`` a text item, ``image`` (or
``document``, ``audio``) with ``data`` and ``mime_type`` an MCP image (blob
resource, audio) by that type, an ``image`` with only a ``uri`` a
``resource_link``, anything else its placeholder. Not a ``function_result``, a
non-string id or name, a non-boolean ``is_error``, or a result that is none of
the three forms: ``InvalidBlock``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import _read
from .._budget import own_budget
from .._idrules import IdRule, checker
from .._items import IMAGE, Form, native_media
from .._options import IMAGE_LIMITS, Options
from .._values import thaw
from .._wire import Result, Wire
from ..errors import InvalidId
from .gemini import IMAGE_MIMES, MAX_BASE64
from .gemini import NAME_RULE as GEMINI_NAME_RULE

WIRE_NAME = "gemini-interactions"
IMAGE_FORM = Form(mimes=IMAGE_MIMES, max_base64=MAX_BASE64)
ID_RULE = IdRule(
    name=WIRE_NAME,
    pattern=r"(?s)^.+$",
    max_length=None,
    description=(
        "call_id required, non-empty (Interactions API FunctionResultStep:"
        " 'Required. ID to match the ID from the function call block')"
    ),
)
#: Gemini's function-name rule; an empty name is allowed (none is sent)
NAME_RULE = IdRule(
    name=WIRE_NAME,
    pattern=rf"^(?:{GEMINI_NAME_RULE.pattern[1:-1]})?$",
    max_length=GEMINI_NAME_RULE.max_length,
    description=(
        "name optional; when given, Gemini's function-name rule: a letter or _, then"
        " up to 63 letters, digits, _ . : -"
    ),
    safe=GEMINI_NAME_RULE.safe,
    first=GEMINI_NAME_RULE.first,
)
_ids_seen, _check_id = checker(ID_RULE, WIRE_NAME)


def _no_id() -> InvalidId:
    return InvalidId(
        f"{WIRE_NAME} wire: call_id is required and the result has none; give the result the"
        " id of its function_call step (ToolResult(id=...), ToolResult.from_mcp(..., id=...))",
        wire=WIRE_NAME,
        rule=WIRE_NAME,
    )


_names_seen, _check_name = checker(NAME_RULE, WIRE_NAME, "name")


def block(result: Result, options: Options) -> dict[str, Any]:
    """Return the ``function_result`` step for ``result``.

    :raises InvalidId: for an empty id, or a name that breaks ``NAME_RULE``.
    """
    if result.id not in _ids_seen:
        if not result.id:
            raise _no_id()
        _check_id(result.id)
    name = result.name
    if name not in _names_seen:
        _check_name(name)
    step: dict[str, Any] = {"type": "function_result", "call_id": result.id}
    if name:
        step["name"] = name
    if result.is_error:
        step["is_error"] = True
    step["result"] = _result(result, options)
    return step


def _result(result: Result, options: Options) -> Any:
    """Return the ``result`` value: the structured object, the item list, or the string."""
    structured = result._structured[0]
    if structured is not None and not result._items and isinstance(structured, Mapping):
        return thaw(structured)
    if options.image_input and result._texts is None:
        items = _items(own_budget(WIRE, result, options), options)  # request limits too
        if items is not None:
            return items
    return result._string


def _items(result: Result, options: Options) -> list[dict[str, Any]] | str | None:
    """Return the item list; when no image goes natively, the string form if a payload
    failed the strict check on the way (its placeholder says so), else None."""
    items: list[dict[str, Any]] = []
    texts: list[str] = []
    native = changed = False
    for item in result._items:
        text = item.text
        if item.kind == IMAGE:
            _, data, text = native_media(item, options, IMAGE_FORM, None)
            if data is not None:
                items.append({"type": "image", "data": data, "mime_type": item.mime})
                native = True
                continue
        changed = changed or text is not item.text
        texts.append(text)
        if text.strip():
            items.append({"type": "text", "text": text})
    if native:
        return items
    return "\n".join(texts) if changed else None


def reason(item: Any, options: Options) -> str | None:
    """Return why an image, PDF or link item is not sent natively, or None when it is."""
    return native_media(item, options, IMAGE_FORM, None)[0]


def envelope(
    blocks: list[Any], results: Sequence[Result], options: Options
) -> list[dict[str, Any]]:
    """Return the interaction's input steps, one ``function_result`` per result."""
    return blocks


# -- reader: a function_result step back to the fields of a ToolResult -----------------


def read(block: Any) -> _read.Read:
    """Return what a ``function_result`` step holds.

    :raises InvalidBlock: for a step that is not a ``function_result`` (see above).
    """
    data = _read.tool_block(WIRE_NAME, block, "type", "function_result")
    call_id = _read.string_field(WIRE_NAME, data, "call_id")
    name = _read.string_field(WIRE_NAME, data, "name")
    is_error = _read.flag(WIRE_NAME, data, "is_error")
    value = data.get("result")
    if value is None or isinstance(value, str):
        content = _read.text_content(value or "")
        return _read.Read(content, is_error=is_error, name=name, id=call_id)
    if isinstance(value, Mapping):
        return _read.Read([], is_error, value, name, call_id)
    if not isinstance(value, (list, tuple)):
        raise _read.fail(
            WIRE_NAME, f"result must be a string, an object or a list, not {type(value).__name__}"
        )
    entries = _read.block_list(WIRE_NAME, value, "result")
    return _read.Read([_entry(entry) for entry in entries], is_error, None, name, call_id)


def _entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    kind = entry["type"]
    mime = entry.get("mime_type")
    mime = mime if isinstance(mime, str) else ""
    if kind == "text" and isinstance(entry.get("text"), str):
        return {"type": "text", "text": entry["text"]}
    if kind in ("image", "document", "audio") and mime and entry.get("data") is not None:
        return _read.media_item(mime, _read.standard_base64(entry["data"]))
    if kind == "image" and isinstance(entry.get("uri"), str) and entry["uri"]:
        link = _read.url_link(entry["uri"], "image/jpeg")
        return {**link, "mimeType": mime} if mime.startswith("image/") else link
    return _read.placeholder_item(kind, mime)


WIRE = Wire(
    name=WIRE_NAME,
    native={"image": True},
    options=frozenset({"image_input", *IMAGE_LIMITS}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    reason=reason,
    read=read,
    id_rule=ID_RULE,
    name_rule=NAME_RULE,
)
