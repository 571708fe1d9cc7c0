"""Loopback HTTP servers that speak each provider's API and act out models seen in the field.

One server per wire. Every request is parsed with the provider SDK's own request types
(the same strict checks as the converter tests); every reply is built in the documented
response shape and validated with the SDK's response model before it is sent. What the
"model" does is chosen by a word in the model id:

- ``reader``: reads every image (real OCR with tesseract), PDF (pdftotext) and text
  source it was sent, and answers with the code it found;
- ``ignorer``: answers without looking at any media;
- ``rejecter``: answers 400 to a request with a document form (anthropic ``document``
  / ``search_result``, responses ``input_file``, gemini PDF ``inlineData``, bedrock
  ``document``), like a
  shim that does not take them, and reads everything else;
- ``crasher``: 500; ``sleeper``: answers only after the client gave up;
- ``mute``: a 200 reply without any text (its output tokens all spent on thinking).

Two more words act before that one: ``throttled`` answers its first two requests with
429 and ``Retry-After: 0``, ``swamped`` answers every request with 503 and
``Retry-After: 0``. A server given ``max_in_flight`` records a failure whenever more
requests than that are open at once (``peak`` keeps the most seen), and ``delay`` keeps
each request open that long, so concurrency shows.

A request without the right key gets a 401 whose message echoes the key it got, as
some providers do, so the tests can check the probe never lets it through.

A bedrock server given ``sigv4_region`` also takes AWS SigV4: it recomputes the
signature with botocore for the test credentials (``SIGV4_ACCESS_KEY``,
``SIGV4_SECRET_KEY``, ``SIGV4_TOKEN``) over the headers the request signed and the
exact body, and answers 403 to a signature that does not match. Every request path
(query included) is kept in ``paths``; the route is the path without its query.
"""

from __future__ import annotations

import base64
import functools
import hmac
import json
import re
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from convert_checks import (
    SchemaError,
    check_anthropic,
    check_bedrock,
    check_gemini,
    check_hermes,
    check_ollama,
    check_openai,
    check_responses,
    check_typed,
    load_sdks,
    validate_converse,
)
from lazy import LazyModule, load

# the SDKs, imported on first use (see tests/lazy.py)
anthropic_types = LazyModule("anthropic.types")
anthropic_params = LazyModule("anthropic.types.message_create_params")
openai_chat = LazyModule("openai.types.chat")
openai_chat_params = LazyModule("openai.types.chat.completion_create_params")
openai_responses = LazyModule("openai.types.responses")
openai_responses_params = LazyModule("openai.types.responses.response_create_params")
gtypes = LazyModule("google.genai.types")
ollama = LazyModule("ollama")
ollama_types = LazyModule("ollama._types")
botocore_session = LazyModule("botocore.session")
botocore_validate = LazyModule("botocore.validate")

KEY = "tw-test-key-4f9c2a7e81b3d605"
#: The AWS credentials a ``sigv4_region`` server accepts (the secret never travels).
SIGV4_ACCESS_KEY = "AKIATOOLWIRETEST0001"
SIGV4_SECRET_KEY = "tw/Secret+Key/For/Tests/Only/0123456789ab"
SIGV4_TOKEN = "tw-session-token-for-tests"
_SIGV4 = re.compile(
    r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
    r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})"
)
BEHAVIOURS = ("reader", "ignorer", "rejecter", "crasher", "sleeper", "mute")
#: The scenarios whose request carries a document form, per wire.
DOCUMENT_SCENARIOS = {
    "anthropic": {"tool_result_pdf", "source_blocks"},
    "responses": {"tool_result_pdf"},
    "gemini": {"tool_result_pdf"},
    "bedrock": {"tool_result_pdf"},
}
OCR_TOOLS = ("tesseract", "pdftotext")
#: A code is not a word: tesseract reads it letter by letter without its dictionaries.
_NO_DICTIONARY = ("-c", "load_system_dawg=0", "-c", "load_freq_dawg=0")


def missing_ocr_tools() -> list[str]:
    """Return the OCR tools not installed (tesseract-ocr, poppler-utils)."""
    return [tool for tool in OCR_TOOLS if shutil.which(tool) is None]


@functools.lru_cache(maxsize=64)  # the same picture reads the same: OCR it once
def ocr_png(data: bytes) -> str:
    """Return the text tesseract reads in a PNG (one line of text)."""
    with tempfile.NamedTemporaryFile(suffix=".png") as handle:
        handle.write(data)
        handle.flush()
        done = subprocess.run(
            [*("tesseract", handle.name, "stdout", "--psm", "7"), *_NO_DICTIONARY],
            capture_output=True,
            text=True,
            check=True,
        )
    return done.stdout


@functools.lru_cache(maxsize=64)
def pdf_text(data: bytes) -> str:
    """Return the text pdftotext extracts from a PDF."""
    done = subprocess.run(["pdftotext", "-", "-"], input=data, capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace")


class Rejected(Exception):
    """The fake endpoint refuses the request with this status and message."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


# -- media found in a request ------------------------------------------------------------


def _walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


_DATA_URL = re.compile(r"data:([a-z]+/[a-z0-9.+-]+);base64,(.*)", re.DOTALL)


def media(body: Any) -> list[tuple[str, Any]]:
    """Return every (kind, payload) a model could look at: ("png"|"pdf", bytes) or ("text", str)."""
    found: list[tuple[str, Any]] = []

    def blob(mime: str, data: str) -> None:
        raw = base64.b64decode(data, validate=True)
        found.append(("png" if mime == "image/png" else "pdf", raw))

    for node in _walk(body):
        if not isinstance(node, dict):
            continue
        source = node.get("source")
        if node.get("type") in ("image", "document") and isinstance(source, dict):
            if source.get("type") == "base64":
                blob(source["media_type"], source["data"])
            elif source.get("type") == "text":
                found.append(("text", source["data"]))
        if node.get("type") == "search_result":
            found += [("text", part["text"]) for part in node["content"]]
        for key in ("image_url", "file_data"):
            url = node.get(key)
            url = url.get("url") if isinstance(url, dict) else url
            if isinstance(url, str) and (match := _DATA_URL.fullmatch(url)):
                blob(*match.groups())
        inline = node.get("inlineData")
        if isinstance(inline, dict):
            blob(inline["mimeType"], inline["data"])
        for image in node.get("images") or []:
            blob("image/png", image)
        for key, mime in (("image", "image/png"), ("document", "application/pdf")):
            block = node.get(key)  # bedrock: {"image": {"format": ..., "source": {"bytes"}}}
            source = block.get("source") if isinstance(block, dict) else None
            if isinstance(source, dict) and isinstance(source.get("bytes"), str):
                blob(mime, source["bytes"])
    return found


def read_media(body: Any) -> str:
    """Return what a reading model answers: the code pieces it finds, joined."""
    texts = []
    for kind, payload in media(body):
        if kind == "png":
            texts.append(ocr_png(payload))
        elif kind == "pdf":
            texts.append(pdf_text(payload))
        else:
            texts.append(payload)
    pieces = re.findall(r"\b[A-Z0-9]{3,}\b", " ".join(texts))
    return "".join(pieces) or "I see no code."


# -- one fake API per wire ----------------------------------------------------------------


class Api:
    """What one provider's server checks and answers; subclasses fill in the details."""

    wire = ""
    #: also hold each tool result to the converter's own output (False: the provider
    #: API's rules only, for requests another program wrote, such as LiteLLM's)
    converter_checks = True

    def model_and_key(self, path: str, headers: Any, body: Any) -> tuple[str, str | None]:
        """Return the model the request is for and the key it carries."""
        raise NotImplementedError

    def check(self, path: str, body: Any) -> None:
        """Raise SchemaError unless the request is valid for the SDK's types."""
        raise NotImplementedError

    def has_document(self, body: Any) -> bool:
        """Return whether the request carries a document form."""
        return False

    def reply(self, model: str, text: str) -> dict[str, Any]:
        """Return the documented success reply carrying ``text`` (validated)."""
        raise NotImplementedError

    def error(self, status: int, message: str) -> dict[str, Any]:
        """Return the documented error body."""
        raise NotImplementedError


def _bearer(headers: Any) -> str | None:
    value = headers.get("authorization") or ""
    return value[len("Bearer ") :] if value.startswith("Bearer ") else None


class AnthropicApi(Api):
    wire = "anthropic"

    def model_and_key(self, path: str, headers: Any, body: Any) -> tuple[str, str | None]:
        if path != "/v1/messages" or headers.get("anthropic-version") != "2023-06-01":
            raise Rejected(404, f"no route {path}")
        return body["model"], headers.get("x-api-key")

    def check(self, path: str, body: Any) -> None:
        check_typed(body, anthropic_params.MessageCreateParamsNonStreaming)
        for node in _walk(body["messages"]):
            if (
                self.converter_checks
                and isinstance(node, dict)
                and node.get("type") == "tool_result"
            ):
                check_anthropic(node)

    def has_document(self, body: Any) -> bool:
        return any(
            isinstance(n, dict) and n.get("type") in ("document", "search_result")
            for n in _walk(body["messages"])
        )

    def reply(self, model: str, text: str) -> dict[str, Any]:
        data = {
            "id": "msg_01probe",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 3},
        }
        anthropic_types.Message.model_validate(data)
        return data

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = {400: "invalid_request_error", 401: "authentication_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}


def check_tool_answers(messages: list[Any]) -> None:
    """Chat Completions' rule: a tool message with a ``tool_call_id`` answers a call the
    assistant turn before it made (``tool_calls``), or the API refuses the request."""
    calls: set[str] = set()
    for message in messages:
        if message["role"] == "assistant":
            calls = {call["id"] for call in message.get("tool_calls") or ()}
            continue
        answered = message.get("tool_call_id") if message["role"] == "tool" else None
        if answered is not None and answered not in calls:
            raise SchemaError(
                f"a tool message answers call {message['tool_call_id']!r}, which no"
                " assistant turn before it made"
            )


class OpenAIApi(Api):
    wire = "openai"

    def model_and_key(self, path: str, headers: Any, body: Any) -> tuple[str, str | None]:
        if path != "/v1/chat/completions":
            raise Rejected(404, f"no route {path}")
        return body["model"], _bearer(headers)

    def check(self, path: str, body: Any) -> None:
        check_typed(body, openai_chat_params.CompletionCreateParamsNonStreaming)
        check_tool_answers(body["messages"])
        for message in body["messages"]:
            if self.converter_checks and message["role"] == "tool":
                check_openai(message)

    def reply(self, model: str, text: str) -> dict[str, Any]:
        data = {
            "id": "chatcmpl-probe",
            "object": "chat.completion",
            "created": 1764547200,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        }
        openai_chat.ChatCompletion.model_validate(data)
        return data

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = "invalid_request_error" if status < 500 else "server_error"
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class HermesApi(OpenAIApi):
    """Hermes over the OpenAI chat endpoint: the tool turn is tagged text."""

    wire = "hermes"

    def check(self, path: str, body: Any) -> None:
        tool_messages = [m for m in body["messages"] if m["role"] == "tool"]
        for message in tool_messages:
            extra = set(message) - {"role", "content"}
            if extra - {"tool_call_id"} or not isinstance(message.get("tool_call_id", ""), str):
                raise SchemaError(
                    f"a hermes tool message is role + content (+ tool_call_id): {message}"
                )
            check_hermes(message["content"])
        others = {**body, "messages": [m for m in body["messages"] if m["role"] != "tool"]}
        check_typed(others, openai_chat_params.CompletionCreateParamsNonStreaming)
        check_tool_answers(body["messages"])
        if tool_messages and "<tool_call>" not in body["messages"][-2]["content"]:
            raise SchemaError("the assistant turn before a tool response holds <tool_call>")


class ResponsesApi(Api):
    wire = "responses"

    def model_and_key(self, path: str, headers: Any, body: Any) -> tuple[str, str | None]:
        if path != "/v1/responses":
            raise Rejected(404, f"no route {path}")
        return body["model"], _bearer(headers)

    def check(self, path: str, body: Any) -> None:
        check_typed(body, openai_responses_params.ResponseCreateParamsNonStreaming)
        for item in body["input"]:
            if self.converter_checks and item.get("type") == "function_call_output":
                check_responses(item)

    def has_document(self, body: Any) -> bool:
        return any(isinstance(n, dict) and n.get("type") == "input_file" for n in _walk(body))

    def reply(self, model: str, text: str) -> dict[str, Any]:
        data = {
            "id": "resp_probe",
            "object": "response",
            "created_at": 1764547200,
            "status": "completed",
            "model": model,
            "output": [
                {
                    "type": "message",
                    "id": "msg_probe",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
        openai_responses.Response.model_validate(data)
        return data

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = "invalid_request_error" if status < 500 else "server_error"
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class GeminiApi(Api):
    wire = "gemini"
    _PATH = re.compile(r"/v1beta/models/([^/:]+):generateContent")

    def model_and_key(self, path: str, headers: Any, body: Any) -> tuple[str, str | None]:
        match = self._PATH.fullmatch(path)
        if match is None:
            raise Rejected(404, f"no route {path}")
        return match.group(1), headers.get("x-goog-api-key")

    def check(self, path: str, body: Any) -> None:
        unknown = set(body) - {"contents", "tools", "generationConfig"}
        if unknown:
            raise SchemaError(f"unknown request keys {sorted(unknown)}")
        try:
            for content in body["contents"]:
                gtypes.Content.model_validate_json(json.dumps(content))
            for tool in body.get("tools", []):
                gtypes.Tool.model_validate_json(json.dumps(tool))
            gtypes.GenerationConfig.model_validate_json(json.dumps(body["generationConfig"]))
        except Exception as exc:  # pydantic.ValidationError
            raise SchemaError(f"google-genai rejects the request: {exc}") from None
        for content in body["contents"]:
            for part in content["parts"]:
                if self.converter_checks and "functionResponse" in part:
                    check_gemini(part)

    def has_document(self, body: Any) -> bool:
        return any(
            isinstance(n, dict) and n.get("mimeType") == "application/pdf" for n in _walk(body)
        )

    def reply(self, model: str, text: str) -> dict[str, Any]:
        data = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": text}]},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3},
            "modelVersion": model,
        }
        gtypes.GenerateContentResponse.model_validate_json(json.dumps(data))
        return data

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED"}.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": kind}}


class OllamaApi(Api):
    wire = "ollama"

    def model_and_key(self, path: str, headers: Any, body: Any) -> tuple[str, str | None]:
        if path != "/api/chat":
            raise Rejected(404, f"no route {path}")
        return body["model"], _bearer(headers)

    def check(self, path: str, body: Any) -> None:
        try:
            ollama_types.ChatRequest.model_validate(body)
        except Exception as exc:  # pydantic.ValidationError
            raise SchemaError(f"ollama rejects the request: {exc}") from None
        for message in body["messages"]:
            if self.converter_checks and message["role"] == "tool":
                check_ollama(message)

    def reply(self, model: str, text: str) -> dict[str, Any]:
        data = {
            "model": model,
            "created_at": "2026-12-01T00:00:00Z",
            "message": {"role": "assistant", "content": text},
            "done": True,
            "done_reason": "stop",
        }
        ollama.ChatResponse.model_validate(data)
        return data

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"error": message}


def _decoded_blobs(value: Any) -> Any:
    """Return ``value`` with each base64 ``bytes`` field decoded, as botocore holds blobs."""
    if isinstance(value, dict):
        return {
            k: (
                base64.b64decode(v, validate=True)
                if k == "bytes" and isinstance(v, str)
                else _decoded_blobs(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_decoded_blobs(v) for v in value]
    return value


@functools.cache
def _converse_output() -> Any:
    """botocore's shape of a Converse reply."""
    model = botocore_session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("Converse").output_shape


class BedrockApi(Api):
    """The Converse API with a Bedrock API key (``Authorization: Bearer``)."""

    wire = "bedrock"
    _PATH = re.compile(r"/model/([^/]+)/converse")

    def model_and_key(self, path: str, headers: Any, body: Any) -> tuple[str, str | None]:
        match = self._PATH.fullmatch(path)
        if match is None:
            raise Rejected(404, f"no route {path}")
        return urllib.parse.unquote(match.group(1)), _bearer(headers)

    def check(self, path: str, body: Any) -> None:
        model, _ = self.model_and_key(path, {}, body)
        if "modelId" in body:
            raise SchemaError("modelId belongs in the path, not the body")
        try:
            request = {"modelId": model, **_decoded_blobs(body)}
        except ValueError as exc:  # binascii.Error: a blob that is not base64
            raise SchemaError(f"a bytes field is not base64: {exc}") from None
        validate_converse(request)
        for message in body["messages"]:
            for block in message["content"]:
                if self.converter_checks and "toolResult" in block:
                    check_bedrock(block)

    def has_document(self, body: Any) -> bool:
        return any(isinstance(n, dict) and "document" in n for n in _walk(body))

    def reply(self, model: str, text: str) -> dict[str, Any]:
        content = [{"text": text}] if text else []
        data = {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": "end_turn",
            "usage": {"inputTokens": 10, "outputTokens": 3, "totalTokens": 13},
            "metrics": {"latencyMs": 12},
        }
        shape = _converse_output()
        report = botocore_validate.ParamValidator().validate(data, shape)
        if report.has_errors():
            raise AssertionError(f"botocore rejects the reply: {report.generate_report()}")
        return data

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"message": message}  # the type is in the x-amzn-ErrorType header


APIS: dict[str, Callable[[], Api]] = {
    api.wire: api
    for api in (
        AnthropicApi,
        OpenAIApi,
        HermesApi,
        ResponsesApi,
        GeminiApi,
        OllamaApi,
        BedrockApi,
    )
}
#: The path prefix of each wire's base URL (openai-style bases include /v1).
BASE_PATHS = {"openai": "/v1", "hermes": "/v1", "responses": "/v1"}


class ProviderServer:
    """A threaded HTTP server on 127.0.0.1 speaking one wire's provider API."""

    def __init__(
        self,
        wire: str,
        sleep: float = 2.0,
        *,
        max_in_flight: int | None = None,
        delay: float = 0.0,
        sigv4_region: str | None = None,
        converter_checks: bool = True,
    ) -> None:
        self.api = APIS[wire]()
        self.api.converter_checks = converter_checks
        self.sigv4_region = sigv4_region
        self.paths: list[str] = []
        self.sleep = sleep
        self.max_in_flight = max_in_flight
        self.delay = delay
        self.in_flight = 0
        self.peak = 0
        self.throttled: dict[str, int] = {}
        self._count = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        #: each request's body as it came over the wire
        self.raw: list[bytes] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                server.handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """Return the base URL a probe is given (with /v1 where the engine table has it)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}{BASE_PATHS.get(self.api.wire, '')}"

    def start(self) -> ProviderServer:
        """Serve from a thread, the SDKs imported first: a reply never waits on an import."""
        load_sdks()
        load(anthropic_types, anthropic_params, openai_chat, openai_chat_params)
        load(openai_responses, openai_responses_params, gtypes, ollama, ollama_types)
        _converse_output()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        with self._count:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            if self.max_in_flight is not None and self.in_flight > self.max_in_flight:
                self.failures.append(
                    f"{self.in_flight} requests in flight, more than {self.max_in_flight}"
                )
        try:
            if self.delay:
                self._stop.wait(self.delay)
            self._handle(request)
        finally:
            with self._count:
                self.in_flight -= 1

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("content-length") or 0)
        raw = request.rfile.read(length)
        self.raw.append(raw)
        try:
            body = json.loads(raw)
            self.requests.append(body)
            self.paths.append(request.path)
            extra: dict[str, str] = {}
            signed = self._sigv4(request, raw)
            route = request.path.partition("?")[0]
            status, data = 200, self._answer(route, request.headers, body, signed)
        except Rejected as refusal:
            status, data = refusal.status, self.api.error(refusal.status, refusal.message)
            extra = refusal.headers
        except SchemaError as problem:
            self.failures.append(str(problem))
            status, data = 400, self.api.error(400, f"invalid request: {problem}")
        encoded = json.dumps(data).encode("utf-8")
        try:
            request.send_response(status)
            request.send_header("content-type", "application/json")
            for name, value in extra.items():
                request.send_header(name, value)
            if self.api.wire == "bedrock" and status >= 400:
                kind = {400: "ValidationException", 401: "UnrecognizedClientException"}
                request.send_header("x-amzn-errortype", kind.get(status, "InternalServerException"))
            request.send_header("content-length", str(len(encoded)))
            request.end_headers()
            request.wfile.write(encoded)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (sleeper)
            pass

    def _sigv4(self, request: BaseHTTPRequestHandler, raw: bytes) -> bool | None:
        """Return whether a SigV4 signature is right; None when none is given or taken."""
        header = request.headers.get("authorization") or ""
        if self.sigv4_region is None or not header.startswith("AWS4-HMAC-SHA256 "):
            return None
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        match = _SIGV4.fullmatch(header)
        if match is None:
            return False
        access, day, region, service, signed, signature = match.groups()
        stamp = request.headers.get("x-amz-date") or ""
        token = request.headers.get("x-amz-security-token")
        if (access, region, service) != (SIGV4_ACCESS_KEY, self.sigv4_region, "bedrock"):
            return False
        if not stamp.startswith(day) or token not in (None, SIGV4_TOKEN):
            return False
        names = signed.split(";")
        if "host" not in names or "x-amz-date" not in names:
            return False
        headers = {name: request.headers.get(name) or "" for name in names}
        url = f"http://{request.headers['host']}{request.path}"
        rebuilt = AWSRequest(method="POST", url=url, data=raw, headers=headers)
        rebuilt.context["timestamp"] = stamp
        signer = SigV4Auth(Credentials(access, SIGV4_SECRET_KEY, token), service, region)
        canonical = signer.canonical_request(rebuilt)
        expected = signer.signature(signer.string_to_sign(rebuilt, canonical), rebuilt)
        return hmac.compare_digest(expected, signature)

    def _answer(
        self, path: str, headers: Any, body: Any, signed: bool | None = None
    ) -> dict[str, Any]:
        model, key = self.api.model_and_key(path, headers, body)
        if signed is False:
            raise Rejected(403, "The request signature we calculated does not match")
        if signed:
            key = KEY
        if key != KEY:
            raise Rejected(401, f"Incorrect API key provided: {key}")
        self.api.check(path, body)
        if "swamped" in model:
            raise Rejected(503, "overloaded", {"retry-after": "0"})
        if "throttled" in model:
            with self._count:
                seen = self.throttled[model] = self.throttled.get(model, 0) + 1
            if seen <= 2:
                raise Rejected(429, "rate limited", {"retry-after": "0"})
        behaviour = next((b for b in BEHAVIOURS if b in model), "reader")
        if behaviour == "crasher":
            raise Rejected(500, "internal server error")
        if behaviour == "sleeper":
            self._stop.wait(self.sleep)
        if behaviour == "rejecter" and self.api.has_document(body):
            offending = json.dumps(body)[-400:]  # an echo of the request, base64 and all
            raise Rejected(400, f"Unsupported content type: document in {offending}")
        if behaviour == "mute":
            return self.api.reply(model, "")
        text = "I cannot see any code." if behaviour == "ignorer" else read_media(body)
        return self.api.reply(model, text)


def all_servers() -> dict[str, ProviderServer]:
    """Return one started server per wire."""
    return {wire: ProviderServer(wire).start() for wire in APIS}


def text_of_database(url: str) -> str:
    """Return every value of every table of the database at ``url``, as one string."""
    import sqlalchemy as sa
    from toolwire.registry.db import create_engine

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            chunks = []
            for table in sa.inspect(connection).get_table_names():
                for row in connection.execute(sa.text(f'SELECT * FROM "{table}"')):
                    chunks.append(" ".join(str(value) for value in row))
            return "\n".join(chunks)
    finally:
        engine.dispose()


__all__ = [
    "BEHAVIOURS",
    "DOCUMENT_SCENARIOS",
    "KEY",
    "SIGV4_ACCESS_KEY",
    "SIGV4_SECRET_KEY",
    "SIGV4_TOKEN",
    "ProviderServer",
    "all_servers",
    "missing_ocr_tools",
    "ocr_png",
    "pdf_text",
    "text_of_database",
]
