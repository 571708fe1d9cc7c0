"""``toolwire serve`` as a user runs it: every route and every error status, over HTTP."""

from __future__ import annotations

import base64
import gzip
import json
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from openapi_spec_validator import validate
from served import LIMIT, TOKEN, Served, cli, start_server
from toolwire.registry.cli import main
from toolwire.registry.snapshot import schema_text

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + b"\0" * 64


def _text(call_id: str = "toolu_1", text: str = "hello") -> dict[str, object]:
    return {"id": call_id, "name": "lookup", "content": [{"type": "text", "text": text}]}


def _image() -> dict[str, object]:
    data = base64.b64encode(PNG).decode()
    return {
        "id": "toolu_2",
        "name": "shot",
        "content": [{"type": "image", "data": data, "mimeType": "image/png"}],
    }


@pytest.fixture
def served(shared_server: Served) -> Served:
    return shared_server


@pytest.fixture
def client(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=served.base, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    ) as opened:
        yield opened


def _error(response: httpx.Response, status: int, kind: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and body["error"]["type"] == kind, body
    message = body["error"]["message"]
    assert message and "\n" not in message and "Traceback" not in message
    return str(message)


# -- health, auth ------------------------------------------------------------------------


def test_health_and_readiness_answer_without_a_token(served: Served) -> None:
    health = httpx.get(served.base + "/healthz")
    assert health.status_code == 200 and health.json()["status"] == "ok"
    ready = httpx.get(served.base + "/readyz").json()
    assert ready["status"] == "ready" and ready["revision"] >= 1 and ready["schema"]


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x"])
def test_every_other_route_needs_the_token(served: Served, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    for method, path in [
        ("GET", "/v1/snapshot"),
        ("POST", "/v1/format"),
        ("GET", "/metrics"),
        ("GET", "/openapi.json"),
        ("GET", "/v1/resolve/anthropic/claude-sonnet-4-5"),
    ]:
        response = httpx.request(method, served.base + path, headers=headers, json={})
        _error(response, 401, "Unauthorized")
        assert response.headers["www-authenticate"] == "Bearer"


# -- format, reformat, convert -------------------------------------------------------------


def test_format_returns_the_messages_and_the_report(client: httpx.Client) -> None:
    body = {"engine": "anthropic", "model": "claude-sonnet-4-5", "results": [_text(), _image()]}
    answer = client.post("/v1/format", json=body).json()
    assert answer["wire"] == "anthropic"
    [message] = answer["messages"]
    first, second = message["content"]
    assert first == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [{"type": "text", "text": "hello"}],
    }
    assert second["content"][0]["type"] == "image"  # the model reads images: native
    assert [entry["id"] for entry in answer["report"]] == ["toolu_1", "toolu_2"]
    assert answer["report"][1]["items"][0]["outcome"] == "native"
    assert "ids" not in answer


def test_format_on_a_text_only_model_sends_the_placeholder(client: httpx.Client) -> None:
    body = {"engine": "anthropic", "model": "claude-2.1", "results": [_image()]}
    answer = client.post("/v1/format", json=body).json()
    block = answer["messages"][0]["content"][0]
    assert block["content"] == [{"type": "text", "text": f"[image] image/png ({len(PNG)} bytes)"}]
    assert answer["report"][0]["items"][0]["outcome"] == "placeholder"


def test_an_id_the_wire_refuses_is_422_unless_ids_are_mapped(client: httpx.Client) -> None:
    body = {"engine": "anthropic", "model": "claude-sonnet-4-5", "results": [_text("call.1/x")]}
    message = _error(client.post("/v1/format", json=body), 422, "InvalidId")
    assert "call.1/x" in message
    answer = client.post("/v1/format", json={**body, "ids": True}).json()
    sent = answer["messages"][0]["content"][0]["tool_use_id"]
    assert answer["ids"]["ids"] == {"call.1/x": sent} and sent != "call.1/x"


def test_reformat_retargets_blocks_of_another_wire(client: httpx.Client) -> None:
    block = {"role": "tool", "tool_call_id": "call_9", "content": "42"}
    body = {
        "engine": "anthropic",
        "model": "claude-sonnet-4-5",
        "source_wire": "openai",
        "blocks": [block],
        "names": {"call_9": "answer"},
    }
    answer = client.post("/v1/reformat", json=body).json()
    assert answer["wire"] == "anthropic"
    assert answer["messages"][0]["content"][0]["tool_use_id"] == "call_9"
    assert answer["report"][0]["name"] == "answer"
    bad = {**body, "blocks": [{"type": "nonsense"}]}
    _error(client.post("/v1/reformat", json=bad), 400, "InvalidBlock")


def test_convert_needs_no_registry(client: httpx.Client) -> None:
    answer = client.post(
        "/v1/convert", json={"target_wire": "openai", "results": [_text("call_1")]}
    ).json()
    assert answer == {
        "wire": "openai",
        "messages": [{"role": "tool", "tool_call_id": "call_1", "content": "hello"}],
    }
    block = {"role": "tool", "tool_call_id": "call_1", "content": "hi"}
    answer = client.post(
        "/v1/convert",
        json={
            "target_wire": "hermes",
            "source_wire": "openai",
            "blocks": [block],
            "names": {"call_1": "t"},
        },
    ).json()
    assert answer["messages"][0]["content"].startswith("<tool_response>")
    image = {"target_wire": "responses", "results": [_image()], "options": {"image_input": True}}
    parts = client.post("/v1/convert", json=image).json()["messages"][0]["output"]
    assert parts[0]["type"] == "input_image"


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ({"target_wire": "openai", "results": [_text()], "options": {"image_inptu": True}}, None),
        ({"target_wire": "smoke", "results": [_text()]}, "UnknownWire"),
        ({"target_wire": "hermes", "results": [_text()], "options": {"response_tag": 5}}, None),
    ],
)
def test_an_option_or_wire_the_converter_refuses_is_422(
    client: httpx.Client, body: dict[str, object], kind: str | None
) -> None:
    response = client.post("/v1/convert", json=body)
    assert response.status_code == 422, response.text
    if kind is not None:
        _error(response, 422, kind)


# -- resolve, snapshot, matrix --------------------------------------------------------------


def test_resolve_matches_the_cli_explanation(client: httpx.Client, shared_sqlite: str) -> None:
    answer = client.get("/v1/resolve/anthropic/claude-2.1").json()
    assert answer["wire"] == "anthropic"
    assert (
        answer["options"]
        == json.loads(cli(shared_sqlite, "resolve", "anthropic", "claude-2.1", "--format", "json"))[
            "options"
        ]
    )
    image = answer["capabilities"]["image_input"]
    assert image["value"] is False and image["status"] == "documented"
    assert image["decided_by"].startswith("rule:") and image["source"]
    assert {"verified_at", "stale_after", "stale", "evidence"} <= set(image)
    resolved = json.loads(
        cli(shared_sqlite, "resolve", "anthropic", "claude-2.1", "--format", "json")
    )
    assert answer["limits"] == resolved["limits"] and answer["limits"]["max_images"] == 100
    text = cli(shared_sqlite, "resolve", "anthropic", "claude-2.1", "--explain")
    assert answer["explanation"] + "\n" == text
    assert answer["explain"]["flag_meanings"]["image_input"]


def test_resolve_takes_model_ids_with_slashes_and_a_forced_wire(client: httpx.Client) -> None:
    answer = client.get("/v1/resolve/ollama/library/llava:7b", params={"wire": "openai"}).json()
    assert answer["model"] == "library/llava:7b" and answer["wire"] == "openai"
    assert answer["wire_from"] == "forced"


def test_unknown_engine_is_404_with_the_closest_names(client: httpx.Client) -> None:
    message = _error(client.get("/v1/resolve/opneai/gpt-4o"), 404, "UnknownEngine")
    assert message.startswith("unknown engine 'opneai'; did you mean 'openai'")
    body = {"engine": "opneai", "model": "gpt-4o", "results": [_text()]}
    _error(client.post("/v1/format", json=body), 404, "UnknownEngine")


def test_a_bad_model_id_is_422(client: httpx.Client) -> None:
    body = {"engine": "openai", "model": "gpt 4o", "results": [_text()]}
    _error(client.post("/v1/format", json=body), 422, "InvalidModelId")
    for escaped in ("%0d", "%0a", "%20"):  # a trailing newline is not dropped either
        answer = client.get(f"/v1/resolve/openai/gpt-4o{escaped}")
        _error(answer, 422, "InvalidModelId")


def test_snapshot_is_the_cli_document_with_an_etag(
    client: httpx.Client, shared_sqlite: str
) -> None:
    response = client.get("/v1/snapshot")
    assert response.status_code == 200
    written = CliRunner().invoke(main, ["--database-url", shared_sqlite, "snapshot"])
    assert response.content == written.stdout_bytes
    etag = response.headers["etag"]
    revision = response.json()["revision"]
    assert etag == f'"r{revision}-s1"'
    again = client.get("/v1/snapshot", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    listed = client.get("/v1/snapshot", headers={"If-None-Match": f'"x", W/{etag}'})
    assert listed.status_code == 304
    other = client.get("/v1/snapshot", headers={"If-None-Match": '"r0-s1"'})
    assert other.status_code == 200 and other.content == response.content
    schema = client.get("/v1/snapshot/schema")
    assert schema.headers["content-type"].startswith("application/schema+json")
    assert schema.text == schema_text()


def test_matrix_is_the_capability_page(client: httpx.Client) -> None:
    page = client.get("/v1/matrix")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "claude-sonnet-4-5" in page.text and "nousresearch" in page.text


def test_openapi_document_is_valid_and_names_every_route(client: httpx.Client) -> None:
    document = client.get("/openapi.json").json()
    validate(document)
    assert set(document["paths"]) == {
        "/v1/format",
        "/v1/reformat",
        "/v1/convert",
        "/v1/resolve/{engine}/{model}",
        "/v1/snapshot",
        "/v1/snapshot/schema",
        "/v1/matrix",
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
    }
    assert document["security"] == [{"bearer": []}]


# -- malformed requests ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (b"{not json", "InvalidJSON"),
        (b"\xff\xfe", "InvalidJSON"),
        (b"[1, 2]", "InvalidRequest"),
        (b"[" * 100_000, "InvalidJSON"),
        (b'{"engine": "anthropic", "model": "claude-sonnet-4-5"}', "InvalidRequest"),
        (b'{"engine": 7, "model": "m", "results": [{}]}', "InvalidRequest"),
        (
            b'{"engine": "anthropic", "model": "claude-sonnet-4-5", "results": '
            b'[{"id": "a", "content": "not a list"}]}',
            "InvalidToolResult",
        ),
        (
            b'{"engine": "anthropic", "model": "claude-sonnet-4-5", "results": [3]}',
            "InvalidToolResult",
        ),
        (
            b'{"engine": "anthropic", "model": "claude-sonnet-4-5", "ids": "yes", '
            b'"results": [{"id": "a", "content": []}]}',
            "InvalidRequest",
        ),
    ],
)
def test_malformed_bodies_are_400(client: httpx.Client, content: bytes, kind: str) -> None:
    response = client.post(
        "/v1/format", content=content, headers={"Content-Type": "application/json"}
    )
    _error(response, 400, kind)


def test_unknown_routes_and_methods_answer_json(client: httpx.Client) -> None:
    _error(client.get("/v2/format"), 404, "NotFound")
    _error(client.get("/v1/format"), 405, "MethodNotAllowed")


def test_a_body_over_the_limit_is_413_declared_or_streamed(client: httpx.Client) -> None:
    big = b'{"pad": "' + b"x" * LIMIT + b'"}'
    _error(client.post("/v1/format", content=big), 413, "BodyTooLarge")
    sent = [0]

    def chunks() -> Iterator[bytes]:  # no Content-Length: refused while it streams
        yield b'{"pad": "'
        for _ in range(64):
            sent[0] += 1
            yield b"x" * (64 * 1024)
        yield b'"}'

    response = client.post("/v1/convert", content=chunks())
    _error(response, 413, "BodyTooLarge")
    assert client.get("/healthz").status_code == 200  # still serving
    fits = {"target_wire": "openai", "results": [_text("c", "y" * (LIMIT - 200))]}
    assert client.post("/v1/convert", json=fits).status_code == 200


def test_metrics_count_requests_by_route_and_status(client: httpx.Client) -> None:
    client.get("/v1/resolve/opneai/x")
    body = {"engine": "openai", "model": "gpt-4o", "results": [_text("call_1")]}
    assert client.post("/v1/format", json=body).status_code == 200
    text = client.get("/metrics").text
    assert (
        'toolwire_http_requests_total{method="GET",route="/v1/resolve/{engine}/{model}",'
        'status="404"}' in text
    )
    assert 'toolwire_http_request_duration_seconds_bucket{le="0.001",method="POST"' in text
    assert "toolwire_registry_revision " in text


# -- readiness, binding, shutdown, the extra ------------------------------------------------


def test_a_server_beyond_loopback_warns_reports_readiness_and_drains_on_sigterm(
    shared_sqlite: str, tmp_path: Path
) -> None:
    """One server's life: the warning at start, readiness lost and regained, the drain."""
    from toolwire.registry.db import create_engine, downgrade, upgrade

    path = tmp_path / "own.sqlite3"
    path.write_bytes(Path(shared_sqlite.removeprefix("sqlite:///")).read_bytes())
    url = f"sqlite:///{path}"
    served = start_server(url, tmp_path, "--host", "0.0.0.0")
    try:
        [warning] = [line for line in served.output().splitlines() if "warning" in line]
        assert warning.startswith("warning: serving on 0.0.0.0 without a token")

        assert httpx.get(served.base + "/readyz").status_code == 200
        engine = create_engine(url)
        try:
            downgrade(engine, "-1")
            message = _error(httpx.get(served.base + "/readyz"), 503, "NotReady")
            assert "toolwire db upgrade" in message
            assert httpx.get(served.base + "/healthz").status_code == 200
            upgrade(engine)
        finally:
            engine.dispose()
        assert httpx.get(served.base + "/readyz").status_code == 200

        _drains_on_sigterm(served)
    finally:
        served.stop()


def _drains_on_sigterm(served: Served) -> None:
    body = json.dumps({"engine": "openai", "model": "gpt-4o", "results": [_text("call_1")]})
    started = threading.Event()

    def slow() -> Iterator[bytes]:  # the request is in flight when SIGTERM lands
        yield body[:10].encode()
        started.set()
        time.sleep(1.0)
        yield body[10:].encode()

    found: dict[str, object] = {}

    def send() -> None:
        try:
            found["response"] = httpx.post(served.base + "/v1/format", content=slow(), timeout=30)
        except Exception as exc:  # reported by the assertion below
            found["error"] = exc

    sender = threading.Thread(target=send)
    sender.start()
    assert started.wait(10)
    time.sleep(0.2)
    served.process.send_signal(signal.SIGTERM)
    sender.join(30)
    response = found.get("response")
    assert isinstance(response, httpx.Response), found
    assert response.status_code == 200
    assert response.json()["messages"][0]["content"] == "hello"
    assert served.process.wait(30) == 0
    with pytest.raises(httpx.TransportError):
        httpx.get(served.base + "/healthz", timeout=2)


def test_serve_without_the_extra_names_it_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    done = CliRunner().invoke(main, ["serve"])
    assert done.exit_code == 1
    assert done.output.strip().splitlines() == [
        "Error: toolwire serve needs uvicorn: pip install 'toolwire[server]'"
    ]


def test_a_bad_token_file_fails_before_serving(tmp_path: Path, shared_sqlite: str) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n")
    done = CliRunner().invoke(
        main, ["--database-url", shared_sqlite, "serve", "--token-file", str(empty)]
    )
    assert done.exit_code == 1
    assert done.output.strip() == f"Error: the token file {empty} is empty"


def test_reformat_reads_odd_names_and_formats_back_without_an_internal_error(
    client: httpx.Client,
) -> None:
    """A name holding a lone surrogate (JSON can spell one) and a format that is not a
    string are read back as the converter reads any such block: 200, no 500."""
    documents = [
        {"document": {"format": "pdf", "name": "scan\ud800", "source": {"bytes": "JVBERi0="}}},
        {"document": {"format": ["pdf"], "name": "a", "source": {"bytes": "JVBERi0="}}},
    ]
    block = {"toolResult": {"toolUseId": "call_1", "content": documents}}
    body = {
        "engine": "anthropic",
        "model": "claude-sonnet-4-5",
        "source_wire": "bedrock",
        "blocks": [block],
        "names": {"call_1": "scan"},
    }
    answer = client.post(
        "/v1/reformat",
        content=json.dumps(body),  # ASCII JSON: the surrogate travels as \ud800
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 200, answer.text
    blocks = answer.json()["messages"][0]["content"][0]["content"]
    assert blocks[0]["type"] == "document" and blocks[0]["title"] == "scan\ufffd"
    assert blocks[1]["type"] == "text" and blocks[1]["text"].startswith("[document]")


def _count(metrics: str, route: str, status: str) -> float:
    prefix = f'toolwire_http_requests_total{{method="POST",route="{route}",status="{status}"}} '
    found = [line for line in metrics.splitlines() if line.startswith(prefix)]
    return float(found[0].rsplit(" ", 1)[1]) if found else 0.0


@pytest.mark.parametrize("route", ["/v1/format", "/v1/reformat", "/v1/convert"])
def test_a_client_gone_before_its_body_ends_is_no_server_error(
    served: Served, client: httpx.Client, route: str
) -> None:
    """A gateway that times out mid-upload closes the connection: that is counted as
    499 (client closed request), not as a 500 with a traceback in the log."""
    before = client.get("/metrics").text
    head = (
        f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", served.port)) as raw:
        raw.sendall(head.encode() + b'{"engine":')
        time.sleep(0.3)  # the server is reading the body when the client goes
    deadline = time.monotonic() + 10
    while _count(client.get("/metrics").text, route, "499") == _count(before, route, "499"):
        assert time.monotonic() < deadline, "the closed request was never counted"
        time.sleep(0.05)
    after = client.get("/metrics").text
    assert _count(after, route, "500") == _count(before, route, "500")
    assert "Traceback" not in served.output()


def test_a_compressed_body_is_415_not_called_unreadable(client: httpx.Client) -> None:
    body = {"engine": "openai", "model": "gpt-4o", "results": [_text("call_1")]}
    packed = gzip.compress(json.dumps(body).encode())
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    message = _error(
        client.post("/v1/format", content=packed, headers=headers), 415, "UnsupportedEncoding"
    )
    assert "gzip" in message and "uncompressed" in message
    plain = {"Content-Type": "application/json", "Content-Encoding": "identity"}
    answer = client.post("/v1/format", content=json.dumps(body), headers=plain)
    assert answer.status_code == 200
