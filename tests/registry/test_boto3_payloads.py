"""``raw_bytes=True``: Bedrock payloads as boto3 takes them, through botocore's own serializer.

boto3 base64-encodes every blob itself, so the request body must carry each PNG
and PDF base64-encoded exactly once. The default (base64 strings, the HTTP API's
JSON form) passes botocore's validator too, and is then encoded a second time.
"""

from __future__ import annotations

import base64
import functools
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import failed, ops_runner, run
from lazy import LazyModule
from toolwire.convert import ToolResult
from toolwire.registry import Registry, Resolver, format_for, reformat_for

sys.path.insert(0, str(Path(__file__).parents[1] / "convert"))
from convert_samples import make_pdf, make_png

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"  # images and PDFs, documented
PNG = make_png(64, 64)
PDF = make_pdf("boto3")
CONTENT: list[dict[str, Any]] = [
    {"type": "text", "text": "two files"},
    {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"},
    {
        "type": "resource",
        "resource": {
            "uri": "file:///reports/q3.pdf",
            "mimeType": "application/pdf",
            "blob": base64.b64encode(PDF).decode(),
        },
    },
]
RESULT = ToolResult(name="fetch", id="tooluse_1", content=CONTENT)
botocore_session = LazyModule("botocore.session")
botocore_serialize = LazyModule("botocore.serialize")
botocore_validate = LazyModule("botocore.validate")


@functools.cache
def _converse() -> Any:
    """botocore's model of the Converse operation."""
    model = botocore_session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("Converse")


def _wire_payloads(messages: list[Any]) -> tuple[bytes, bytes]:
    """Return the image and document payloads of the request body botocore would send,
    each base64-decoded once (what Bedrock reads)."""
    request = {
        "modelId": MODEL,
        "messages": [
            {"role": "user", "content": [{"text": "fetch both"}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "fetch", "input": {}}}],
            },
            *messages,
        ],
    }
    converse = _converse()
    report = botocore_validate.ParamValidator().validate(request, converse.input_shape)
    assert not report.has_errors(), report.generate_report()
    serialized = botocore_serialize.create_serializer("rest-json").serialize_to_request(
        request, converse
    )
    body = json.loads(serialized["body"])
    parts = body["messages"][2]["content"][0]["toolResult"]["content"]
    assert [next(iter(part)) for part in parts] == ["text", "image", "document"]
    image = base64.b64decode(parts[1]["image"]["source"]["bytes"], validate=True)
    document = base64.b64decode(parts[2]["document"]["source"]["bytes"], validate=True)
    return image, document


def test_raw_bytes_reach_the_wire_encoded_once(shared_registry: Registry) -> None:
    messages = format_for("bedrock", MODEL, [RESULT], registry=shared_registry, raw_bytes=True)
    parts = messages[0]["content"][0]["toolResult"]["content"]
    assert type(parts[1]["image"]["source"]["bytes"]) is bytes
    assert type(parts[2]["document"]["source"]["bytes"]) is bytes
    assert _wire_payloads(messages) == (PNG, PDF)


def test_base64_strings_are_encoded_twice_by_botocore(shared_registry: Registry) -> None:
    messages = format_for("bedrock", MODEL, [RESULT], registry=shared_registry)
    image, document = _wire_payloads(messages)  # botocore's validator takes the strings
    # the model would read base64 text where the PNG and the PDF should be
    assert (image, document) == (base64.b64encode(PNG), base64.b64encode(PDF))
    assert base64.b64decode(image) == PNG and base64.b64decode(document) == PDF


def test_the_gateway_and_a_resolution_take_raw_bytes(shared_registry: Registry) -> None:
    blocks = format_for("bedrock", MODEL, [RESULT], registry=shared_registry)[0]["content"]
    regated = reformat_for(
        "bedrock", MODEL, "bedrock", blocks, registry=shared_registry, raw_bytes=True
    )
    assert _wire_payloads(regated) == (PNG, PDF)
    resolution = Resolver(shared_registry).resolve("bedrock", MODEL)
    assert _wire_payloads(resolution.format([RESULT], raw_bytes=True)) == (PNG, PDF)
    assert _wire_payloads(resolution.reformat("bedrock", blocks, raw_bytes=True)) == (PNG, PDF)
    anthropic = ToolResult.from_mcp(
        {
            "content": [
                {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
            ]
        },
        id="toolu_1",
    ).to("anthropic", image_input=True)
    mixed = resolution.reformat("anthropic", [anthropic], raw_bytes=True)
    payload = mixed[0]["content"][0]["toolResult"]["content"][0]["image"]["source"]["bytes"]
    assert payload == PNG


def test_raw_bytes_is_ignored_on_a_wire_without_blobs(shared_registry: Registry) -> None:
    plain = format_for("anthropic", "claude-sonnet-4-5", [RESULT], registry=shared_registry)
    raw = format_for(
        "anthropic", "claude-sonnet-4-5", [RESULT], registry=shared_registry, raw_bytes=True
    )
    assert raw == plain and json.dumps(raw)  # still JSON: base64 strings


def test_a_raw_bytes_value_that_is_not_a_flag_is_refused(shared_registry: Registry) -> None:
    with pytest.raises(ValueError, match="raw_bytes"):
        format_for(
            "bedrock",
            MODEL,
            [RESULT],
            registry=shared_registry,
            raw_bytes="yes",  # type: ignore[arg-type]
        )


def test_the_cli_refuses_raw_bytes_in_one_line(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    path = tmp_path / "registry.sqlite3"
    shutil.copyfile(request.getfixturevalue("seeded_templates").get(request, "sqlite"), path)
    file = tmp_path / "result.json"
    file.write_text(json.dumps({"id": "tooluse_1", "content": CONTENT}), encoding="utf-8")
    line = failed(
        run(
            ops_runner(), f"sqlite:///{path}", "format", "bedrock", MODEL, str(file), "--raw-bytes"
        ),
        "--raw-bytes",
        "JSON cannot hold bytes",
        "raw_bytes=True",
        code=2,
    )
    assert len(line) < 240
