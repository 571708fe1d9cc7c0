"""Run a probe: build each scenario's request, send it, classify the reply, record it."""

from __future__ import annotations

import base64
import email.utils
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from toolwire.convert import ToolResult, carries_native, wire_options

from .. import _validate as check
from .._output import plural
from .._paths import install_hint
from ..errors import InvalidInput
from ..observations import Observation, claim_from_observation, record_observation
from ..records import Claim
from ..resolver import Resolver
from ..store import Registry
from ..vocab import OBSERVATION_SCENARIOS
from . import _challenge
from ._endpoint import check_endpoint, check_proxied, join_url
from ._errors import ProbeUnavailable
from ._limits import MAX_REPLY
from ._proxy import Proxy, proxy_for
from ._wires import API, TOOL_NAME, Turn

if TYPE_CHECKING:
    from ._http import Client, Reply
    from ._sigv4 import Signer

__all__ = [
    "DEFAULT_KEY_ENV",
    "FRAMING",
    "RETRIES",
    "RETRY_STATUSES",
    "Budget",
    "ProbeReport",
    "ProbeResult",
    "ProbeUnavailable",
    "Target",
    "classify",
    "default_scenarios",
    "endpoint_of",
    "key_env",
    "prepare",
    "probe",
    "redact",
    "reply_cap",
    "retry_after",
    "send_scenario",
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
#: The most characters of a reply ``redact`` looks at: the excerpt is cut from these.
_SCANNED = 4 * _EXCERPT
_TOKEN = re.compile(r"[A-Za-z0-9+/=_\-.]{8,}")
_PROMPT = "Call the read_code tool and reply with the 6-character code it gives, and nothing else."
_IMAGE_PROMPT = "The image shows a 6-character code. Reply with the code only, nothing else."
_KIND = {"tool_result_images": "image", "tool_result_pdf": "pdf"}


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

    Only the first characters of ``text`` are looked at, however long it is.

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

    # a key that starts within the scanned part is replaced whole before the cut
    head = text[: _SCANNED + (len(key) if key else 0)]
    if key:
        head = head.replace(key, "[key]")
    line = " ".join(head[:_SCANNED].split())
    line = _TOKEN.sub(scrub, line)
    return line if len(line) <= _EXCERPT else line[: _EXCERPT - 1] + "…"


def _shares(token: str, key: str, size: int = 8) -> bool:
    return any(token[i : i + size] in key for i in range(len(token) - size + 1))


def _turn(scenario: str, wire: str, code: str, framing: Mapping[str, Any]) -> Turn:
    """Return what the request of ``scenario`` says, with the challenge in its media.

    The scenario's native form is forced on; ``framing`` (``Target.framing``) adds how
    the engine frames a tool message.
    """
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
    forced = {"image_input": True, "native_pdf": True, "source_blocks": True, **framing}
    options = {k: v for k, v in forced.items() if k in wire_options(wire)}
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
    sigv4: bool = False,
    allow_endpoints: Sequence[str] = (),
    challenge: str | None = None,
    record_claims: bool = False,
    max_requests: int = 10,
    timeout: float = 60.0,
    max_reply: int | None = None,
    progress: Callable[[int, int, str, ProbeResult], None] | None = None,
) -> ProbeReport:
    """Send one request per scenario to ``model`` on ``engine`` and record each outcome.

    The wire is the one ``resolve`` finds; scenarios default to ``default_scenarios``.
    Each request becomes an observation; with ``record_claims`` each informative
    outcome also becomes a live-verified claim on the model (same transaction). The key
    is sent, never stored: excerpts are redacted (``redact``). With ``sigv4`` and no
    key, a Bedrock request is signed with AWS SigV4 from the standard credential chain.
    Credentials go only where the endpoint rules allow (``check_endpoint``; a host of
    ``allow_endpoints`` is allowed too). Each request, retries apart, ends within
    ``timeout`` seconds and reads at most ``max_reply`` bytes of reply (default 1 MB,
    compressed and inflated both); past either it is an ``error``. A 429 or 503 is
    sent again after its ``Retry-After`` (at most 3 times, within ``max_requests``),
    then it is an ``error``. ``progress(done, total, model, result)`` is called as each
    request ends.

    :raises UnknownEngine: for an engine the registry does not know.
    :raises InvalidInput: for an unknown scenario, one the wire has no native form for,
        an invalid challenge, more scenarios than ``max_requests``, no or a bad base
        URL, a key that cannot go in a header, a bad ``max_reply``, no AWS
        credentials for ``sigv4``, or a proxy variable that is not an http(s) proxy URL.
    :raises EndpointRefused: when the endpoint rules keep the credentials from the host,
        or a proxy would carry them in clear text (an http target on another machine).
    :raises ProbeUnavailable: when httpcore or Pillow (or, to sign, botocore) is missing.
    """
    http = _http()
    cap = reply_cap(max_reply)
    target = prepare(
        registry,
        engine,
        model,
        scenarios=scenarios,
        base_url=base_url,
        api_key=api_key,
        sigv4=sigv4,
        allow_endpoints=allow_endpoints,
        challenge=challenge,
        timeout=timeout,
    )
    if len(target.scenarios) > max_requests:
        raise InvalidInput(
            f"{plural(len(target.scenarios), 'scenario')} need "
            f"{plural(len(target.scenarios), 'request')}, more "
            f"than the limit of {max_requests} (--max-requests)"
        )
    budget = Budget(max_requests)
    results = []
    with http.Client(max_reply=cap) as client:
        for scenario in target.scenarios:
            result = send_scenario(
                client, registry, target, scenario, recorded_by, record_claims, budget
            )
            assert result is not None  # the budget covers one request per scenario
            results.append(result)
            if progress is not None:
                progress(len(results), len(target.scenarios), model, result)
    return ProbeReport(engine, model, target.wire, target.endpoint, target.code, tuple(results))


def reply_cap(max_reply: int | None) -> int:
    """Return the reply cap in bytes (None: ``MAX_REPLY``).

    :raises InvalidInput: for anything but a positive integer.
    """
    if max_reply is None:
        return MAX_REPLY
    if type(max_reply) is not int or max_reply < 1:
        raise InvalidInput(f"invalid max_reply {max_reply!r}: a positive number of bytes")
    return max_reply


def _http() -> Any:
    """Return the HTTP module, once its packages are known to be installed."""
    try:
        import httpcore  # noqa: F401
        import PIL  # noqa: F401  (the renderer imports it lazily)
    except ImportError as error:
        raise ProbeUnavailable(
            f"probing needs {error.name}, in the probe extra: {install_hint('probe')}"
        ) from None
    from . import _http as http

    return http


@dataclass(frozen=True, slots=True)
class Target:
    """Everything the requests to one model need: wire, URL, headers, the challenge."""

    engine: str
    model: str
    wire: str
    scenarios: tuple[str, ...]
    url: str
    endpoint: str
    headers: Mapping[str, str]
    code: str
    #: the resolution's options that frame a tool message (``FRAMING``)
    framing: Mapping[str, Any]
    api_key: str | None
    #: signs each request (AWS SigV4), None when a key or nothing is sent
    signer: Signer | None = None
    #: seconds each request may take, from connect to the reply's last byte
    timeout: float = 60.0
    #: the proxy the requests go through (the proxy environment), None: direct
    proxy: Proxy | None = None


#: The converter options a probe takes from the resolution as they are: how the engine
#: frames a tool message (the hermes tag, and the call id an OpenAI-compatible chat
#: endpoint needs). The media options are the scenario's, forced on; limits and
#: hoisting are left out, so the probe sees the native form itself.
FRAMING = ("response_tag", "call_ids")
#: What a probe accepts back: the decoders the bounded client has.
_ACCEPT_ENCODING = "gzip, deflate"
_HEADER_TEXT = re.compile(r"[\x21-\x7e]+")


def prepare(
    registry: Registry,
    engine: str,
    model: str,
    *,
    scenarios: Sequence[str] = (),
    base_url: str | None = None,
    api_key: str | None = None,
    sigv4: bool = False,
    allow_endpoints: Sequence[str] = (),
    challenge: str | None = None,
    timeout: float = 60.0,
    resolver: Resolver | None = None,
) -> Target:
    """Check a probe of ``model`` and return what its requests need.

    :raises UnknownEngine: for an engine the registry does not know.
    :raises InvalidInput: as ``probe`` does.
    :raises EndpointRefused: as ``probe`` does.
    """
    resolution = (resolver or Resolver(registry)).resolve(engine, model)
    wire = resolution.wire
    if wire not in API:
        raise InvalidInput(f"the {wire} wire has no probe yet: nothing to send {model!r} on")
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
    if timeout != timeout or timeout <= 0:
        raise InvalidInput(f"invalid timeout {timeout!r}: must be a positive number of seconds")
    if api_key is not None and not _HEADER_TEXT.fullmatch(api_key):
        raise InvalidInput(
            "the key has a character that cannot go in an HTTP header (a space, a control "
            "or a non-ASCII character): check the key variable"
        )
    code = _challenge.check_challenge(challenge) if challenge else _challenge.new_challenge()
    record = registry.engine(engine)
    base = base_url or record.base_url
    if not base:
        raise InvalidInput(f"engine {engine!r} has no base URL: give --base-url")
    check.base_url(base)
    signer = None
    if sigv4 and api_key is None and wire == "bedrock":
        from ._sigv4 import aws_signer

        signer = aws_signer(base)
        if signer is None:
            raise InvalidInput(
                "no Bedrock credentials: set AWS_BEARER_TOKEN_BEDROCK, or AWS credentials "
                "(environment or profile) to sign with SigV4"
            )
    api = API[wire]
    url = join_url(base, api.path(model))
    proxy = proxy_for(url)
    if api_key is not None or signer is not None:
        check_endpoint(engine, base, allow_endpoints)
        if proxy is not None:
            check_proxied(base, str(proxy))
    return Target(
        engine,
        model,
        wire,
        chosen,
        url,
        endpoint_of(base),
        {
            "content-type": "application/json",
            "accept-encoding": _ACCEPT_ENCODING,
            **api.headers(api_key),
        },
        code,
        {k: v for k, v in resolution.options.items() if k in FRAMING},
        api_key,
        signer,
        timeout,
        proxy,
    )


class Budget:
    """The requests a run may still send (None: no limit), shared by its threads."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.sent = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Count one request and return True, or False when the limit is reached."""
        with self._lock:
            if self.limit is not None and self.sent >= self.limit:
                return False
            self.sent += 1
            return True


def send_scenario(
    client: Client,
    registry: Registry,
    target: Target,
    scenario: str,
    recorded_by: str,
    record_claims: bool,
    budget: Budget,
) -> ProbeResult | None:
    """Send one scenario's request (retrying 429/503), record it; None when not sent."""
    api = API[target.wire]
    body = api.body(target.model, _turn(scenario, target.wire, target.code, target.framing))
    payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    content = payload.encode("utf-8")
    sent = _send_retrying(client, target, content, budget)
    if sent is None:
        return None
    latency, reply = sent
    status = reply.status
    parsed = None if reply.failure else _json_object(reply)
    if reply.failure is not None:
        outcome = "error"
        shown = f"{reply.failure}: {_error_message(_text(reply.body))}".rstrip(": ")
    else:
        outcome = classify(status, None if parsed is None else api.reply_text(parsed), target.code)
        text = _error_message(_text(reply.body)) if parsed is None else api.reply_text(parsed)
        shown = text or "(no text)"
    excerpt = redact(shown, key=target.api_key, sent=payload)
    with registry.batch() as writer:
        observation = record_observation(
            writer,
            engine=target.engine,
            model=target.model,
            wire=target.wire,
            scenario=scenario,
            outcome=outcome,
            recorded_by=recorded_by,
            endpoint=target.endpoint,
            http_status=status,
            latency_ms=latency,
            excerpt=excerpt,
            request_sha256=hashlib.sha256(content).hexdigest(),
            challenge=target.code,
        )
        claim = claim_from_observation(writer, observation) if record_claims else None
    return ProbeResult(scenario, outcome, status, latency, excerpt, observation, claim)


def _json_object(reply: Reply) -> Any:
    """Return a 2xx reply's JSON object, else None."""
    if reply.status is None or not 200 <= reply.status < 300:
        return None
    try:
        parsed = json.loads(reply.body)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _text(body: bytes) -> str:
    """Return a body (at most the client's cap) as text."""
    return body.decode("utf-8", "replace")


#: Statuses sent again after their Retry-After, and how often at most.
RETRY_STATUSES = frozenset({429, 503})
RETRIES = 3
_RETRY_CAP = 60.0  # seconds: a Retry-After longer than this is waited this long


def retry_after(value: str | None, attempt: int) -> float:
    """Return the seconds to wait before retry ``attempt`` (1-based) per ``Retry-After``.

    Seconds or an HTTP date; absent or unreadable: 1, 2, 4 seconds. At most 60 seconds.
    """
    wait: float | None = None
    if value is not None:
        value = value.strip()
        if value.isdigit():
            wait = float(value)
        else:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                when = None
            if when is not None and when.tzinfo is not None:
                wait = max(0.0, (when - datetime.now(UTC)).total_seconds())
    if wait is None:
        wait = float(2 ** (attempt - 1))
    return min(wait, _RETRY_CAP)


def _send_retrying(
    client: Client, target: Target, content: bytes, budget: Budget
) -> tuple[int, Reply] | None:
    """Send, retrying 429 and 503 within the budget; None when nothing could be sent."""
    if not budget.take():
        return None
    for attempt in range(1, RETRIES + 2):
        headers = dict(target.headers)
        if target.signer is not None:  # signed anew each time: the date is signed
            headers = target.signer(target.url, headers, content)
        started = time.monotonic()
        reply = client.post(target.url, headers, content, target.timeout, target.proxy)
        latency = _ms(started)
        retry = reply.failure is None and reply.status in RETRY_STATUSES
        if not retry or attempt > RETRIES or not budget.take():
            return latency, reply
        time.sleep(retry_after(reply.headers.get("retry-after"), attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def _error_message(text: str) -> str:
    """Return the message of a JSON error body, else the text.

    Most wires nest it in ``error``; Bedrock's is a top-level ``message``.
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if not isinstance(data, dict):
        return text
    error = data.get("error", data)
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) else text


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
