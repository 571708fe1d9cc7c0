"""Run a probe: build each scenario's request, send it, classify the reply, record it."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from toolwire.convert import ToolResult, carries_native, wire_options

from .._output import plural
from .._paths import install_hint
from ..errors import InvalidInput, RegistryError
from ..observations import Observation, claim_from_observation, record_observation
from ..records import Claim
from ..resolver import Resolver
from ..store import Registry
from ..vocab import OBSERVATION_SCENARIOS
from . import _challenge
from ._wires import API, TOOL_NAME, Turn

__all__ = [
    "DEFAULT_KEY_ENV",
    "ProbeReport",
    "ProbeResult",
    "ProbeUnavailable",
    "classify",
    "default_scenarios",
    "endpoint_of",
    "key_env",
    "probe",
    "redact",
]

#: The environment variable holding the key, per engine family (else FAMILY_API_KEY).
DEFAULT_KEY_ENV = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "responses": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "ollama": "OLLAMA_API_KEY",
    "bedrock": "AWS_BEARER_TOKEN_BEDROCK",  # a Bedrock API key, as the AWS SDKs read it
}
#: 4xx statuses that are about the caller, not the request shape: they are errors.
_NOT_SHAPE = frozenset({401, 402, 403, 404, 407, 408, 429})
_EXCERPT = 200
_TOKEN = re.compile(r"[A-Za-z0-9+/=_\-.]{8,}")
_PROMPT = "Call the read_code tool and reply with the 6-character code it gives, and nothing else."
_IMAGE_PROMPT = "The image shows a 6-character code. Reply with the code only, nothing else."
_KIND = {"tool_result_images": "image", "tool_result_pdf": "pdf"}


class ProbeUnavailable(RegistryError, RuntimeError):
    """The optional packages a probe needs (httpx, Pillow) are not installed."""


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """How one scenario's request ended, and what was recorded for it."""

    scenario: str
    outcome: str
    http_status: int | None
    latency_ms: int | None
    excerpt: str
    observation: Observation
    claim: Claim | None


@dataclass(frozen=True, slots=True)
class ProbeReport:
    """Every scenario a probe ran against one model on one endpoint."""

    engine: str
    model: str
    wire: str
    endpoint: str
    challenge: str
    results: tuple[ProbeResult, ...]

    @property
    def reached_model(self) -> bool:
        """Return whether every request reached the model (no ``error``)."""
        return all(result.outcome != "error" for result in self.results)


def key_env(family: str) -> str:
    """Return the default environment variable of an engine family's key."""
    return DEFAULT_KEY_ENV.get(family, f"{re.sub(r'[^A-Z0-9]', '_', family.upper())}_API_KEY")


def default_scenarios(wire: str) -> tuple[str, ...]:
    """Return ``image_input`` and every scenario ``wire`` has a native form for."""
    return tuple(s for s in OBSERVATION_SCENARIOS if _supported(wire, s))


def _supported(wire: str, scenario: str) -> bool:
    if scenario in _KIND:
        return carries_native(wire, _KIND[scenario])
    if scenario == "source_blocks":
        return "source_blocks" in wire_options(wire)
    return scenario == "image_input"


def endpoint_of(base_url: str) -> str:
    """Return ``base_url`` without credentials, query or fragment."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def classify(status: int | None, reply: str | None, challenge: str) -> str:
    """Return the outcome of a request: read, ignored, rejected or error.

    ``status`` None means no HTTP reply (timeout, network); ``reply`` None a 2xx body
    that is not the wire's JSON. 401/402/403/404/407/408/429 say nothing about the
    request shape, so they are errors like 5xx; any other 4xx is ``rejected``. A 2xx
    reply without any text (a model that spent its few tokens thinking) is an error
    too: it is no evidence that the media went unread.
    """
    if status is None or status >= 500 or status < 200 or status in _NOT_SHAPE:
        return "error"
    if status >= 400:
        return "rejected"
    if status >= 300 or reply is None or not reply.strip():
        return "error"
    letters = re.sub(r"[^A-Z0-9]", "", reply.upper())
    return "read" if challenge in letters else "ignored"


def redact(text: str, *, key: str | None, sent: str) -> str:
    """Return ``text`` bounded, on one line, without the key or base64 from the request.

    A token that contains the key, is contained in it or shares eight characters with
    it becomes ``[key]``; a long base64-like token, or one copied from the request
    body, becomes ``[...]``.
    """

    def scrub(match: re.Match[str]) -> str:
        token = match.group(0)
        if key and (key in token or token in key or _shares(token, key)):
            return "[key]"
        if len(token) >= 40 or (len(token) >= 16 and token in sent):
            return "[...]"
        return token

    line = " ".join(text.split())
    if key:
        line = line.replace(key, "[key]")
    line = _TOKEN.sub(scrub, line)
    return line if len(line) <= _EXCERPT else line[: _EXCERPT - 1] + "…"


def _shares(token: str, key: str, size: int = 8) -> bool:
    return any(token[i : i + size] in key for i in range(len(token) - size + 1))


def _turn(scenario: str, wire: str, code: str, response_tag: str | None) -> Turn:
    """Return what the request of ``scenario`` says, with the challenge in its media."""
    if scenario == "image_input":
        png = base64.b64encode(_challenge.render_png(code)).decode("ascii")
        return Turn(_IMAGE_PROMPT, png_base64=png)
    if scenario == "tool_result_images":
        data = base64.b64encode(_challenge.render_png(code)).decode("ascii")
        content: list[dict[str, Any]] = [
            {"type": "text", "text": "The code is in this image."},
            {"type": "image", "data": data, "mimeType": "image/png"},
        ]
    elif scenario == "tool_result_pdf":
        blob = base64.b64encode(_challenge.render_pdf(code)).decode("ascii")
        resource = {"uri": "file:///code.pdf", "mimeType": "application/pdf", "blob": blob}
        content = [
            {"type": "text", "text": "The code is in this PDF."},
            {"type": "resource", "resource": resource},
        ]
    else:  # source_blocks: half the code in a text document, half in a search result
        first = {
            "uri": "file:///code.txt",
            "mimeType": "text/plain",
            "text": f"The first half of the code is {code[:3]}.",
        }
        second = {
            "type": "search_result",
            "source": "https://toolwire.invalid/code",
            "title": "The second half of the code",
            "content": [{"type": "text", "text": f"The second half of the code is {code[3:]}."}],
        }
        content = [{"type": "resource", "resource": first}, second]
    forced = {
        "image_input": True,
        "native_pdf": True,
        "source_blocks": True,
        "response_tag": response_tag,
    }
    options = {k: v for k, v in forced.items() if k in wire_options(wire) and v is not None}
    result = ToolResult(name=TOOL_NAME, id="call_probe", content=content)
    return Turn(_PROMPT, result=result, options=options)


def probe(
    registry: Registry,
    engine: str,
    model: str,
    *,
    recorded_by: str,
    scenarios: Sequence[str] = (),
    base_url: str | None = None,
    api_key: str | None = None,
    challenge: str | None = None,
    record_claims: bool = False,
    max_requests: int = 10,
    timeout: float = 60.0,
) -> ProbeReport:
    """Send one request per scenario to ``model`` on ``engine`` and record each outcome.

    The wire is the one ``resolve`` finds; scenarios default to ``default_scenarios``.
    Each request becomes an observation; with ``record_claims`` each informative
    outcome also becomes a live-verified claim on the model (same transaction). The key
    is sent, never stored: excerpts are redacted (``redact``).

    :raises UnknownEngine: for an engine the registry does not know.
    :raises InvalidInput: for an unknown scenario, one the wire has no native form for,
        an invalid challenge, more scenarios than ``max_requests``, or no base URL.
    :raises ProbeUnavailable: when httpx or Pillow is not installed.
    """
    try:
        import httpx
        import PIL  # noqa: F401  (the renderer imports it lazily)
    except ImportError as error:
        raise ProbeUnavailable(
            f"probing needs {error.name}, in the probe extra: {install_hint('probe')}"
        ) from None
    resolution = Resolver(registry).resolve(engine, model)
    wire = resolution.wire
    chosen = tuple(dict.fromkeys(scenarios)) or default_scenarios(wire)
    for scenario in chosen:
        if scenario not in OBSERVATION_SCENARIOS:
            raise InvalidInput(
                f"unknown scenario {scenario!r}; valid: {', '.join(OBSERVATION_SCENARIOS)}"
            )
        if not _supported(wire, scenario):
            raise InvalidInput(
                f"the {wire} wire has no native form for {scenario}: nothing to probe"
            )
    if len(chosen) > max_requests:
        raise InvalidInput(
            f"{plural(len(chosen), 'scenario')} need {plural(len(chosen), 'request')}, more "
            f"than the limit of {max_requests} (--max-requests)"
        )
    if timeout != timeout or timeout <= 0:
        raise InvalidInput(f"invalid timeout {timeout!r}: must be a positive number of seconds")
    code = _challenge.check_challenge(challenge) if challenge else _challenge.new_challenge()
    record = registry.engine(engine)
    base = base_url or record.base_url
    if not base:
        raise InvalidInput(f"engine {engine!r} has no base URL: give --base-url")
    if urlsplit(base).scheme not in ("http", "https"):
        raise InvalidInput(f"invalid base URL {endpoint_of(base)!r}: must be http or https")
    api = API[wire]
    url = base.rstrip("/") + api.path(model)
    headers = {"content-type": "application/json", **api.headers(api_key)}
    results = []
    with httpx.Client(timeout=timeout, follow_redirects=False) as client:
        for scenario in chosen:
            body = api.body(model, _turn(scenario, wire, code, record.response_tag))
            payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
            status, latency, text, reply = _send(client, url, headers, payload.encode("utf-8"))
            outcome = classify(status, None if reply is None else api.reply_text(reply), code)
            shown = _error_message(text) if reply is None else api.reply_text(reply) or "(no text)"
            excerpt = redact(shown, key=api_key, sent=payload)
            with registry.batch() as writer:
                observation = record_observation(
                    writer,
                    engine=engine,
                    model=model,
                    wire=wire,
                    scenario=scenario,
                    outcome=outcome,
                    recorded_by=recorded_by,
                    endpoint=endpoint_of(base),
                    http_status=status,
                    latency_ms=latency,
                    excerpt=excerpt,
                    request_sha256=hashlib.sha256(payload.encode("utf-8")).hexdigest(),
                    challenge=code,
                )
                claim = claim_from_observation(writer, observation) if record_claims else None
            results.append(
                ProbeResult(scenario, outcome, status, latency, excerpt, observation, claim)
            )
    return ProbeReport(engine, model, wire, endpoint_of(base), code, tuple(results))


def _send(
    client: Any, url: str, headers: dict[str, str], content: bytes
) -> tuple[int | None, int, str, Any]:
    """Return (status, latency ms, body text or error, parsed 2xx JSON or None)."""
    import httpx

    started = time.monotonic()
    try:
        response = client.post(url, headers=headers, content=content)
    except httpx.TimeoutException:
        return None, _ms(started), f"timeout after {client.timeout.read}s", None
    except httpx.HTTPError as error:
        return None, _ms(started), f"{type(error).__name__}: {error}", None
    latency = _ms(started)
    reply = None
    if 200 <= response.status_code < 300:
        try:
            parsed = response.json()
        except ValueError:
            parsed = None
        reply = parsed if isinstance(parsed, dict) else None
    return response.status_code, latency, response.text, reply


def _error_message(text: str) -> str:
    """Return the message of a JSON error body, else the text.

    Most wires nest it in ``error``; Bedrock's is a top-level ``message``.
    """
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, dict):
        return text
    error = data.get("error", data)
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) else text


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
