"""``toolwire format --already-sent JSON``: the rest of the request counted against its limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli, failed, ok, run
from click.testing import CliRunner
from tiny_media import PDF, PNG

IMAGE = {"type": "image", "data": PNG, "mimeType": "image/png"}
DOCUMENT = {
    "type": "resource",
    "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": PDF},
}
EVIDENCE = "--status documented --evidence 'a test'"
MODEL = "claude-sonnet-4-5"


@pytest.fixture
def two_images(tmp_path: Path) -> str:
    """Return a file of one result with two images and a PDF, call id toolu_1."""
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"content": [IMAGE, IMAGE, DOCUMENT]}), encoding="utf-8")
    return str(path)


def _kinds(out: str) -> list[str]:
    """The block types of the one Anthropic tool_result in ``out``, a placeholder as its text."""
    (message,) = json.loads(out)
    (result,) = message["content"]
    return [b["text"] if b["type"] == "text" else b["type"] for b in result["content"]]


@pytest.mark.parametrize(
    ("sent", "kinds"),
    [
        (None, ["image", "image", "document"]),
        ('{"images": 0}', ["image", "image", "document"]),
        ('{"images": 99}', ["image", "[image] image/png (70 bytes)", "document"]),
        ('{"images": 100}', ["[image] image/png (70 bytes)"] * 2 + ["document"]),
        (
            '{"pdf_pages": 100}',
            ["image", "image", "[resource] application/pdf <file:///r.pdf> (45 bytes)"],
        ),
        ("{}", ["image", "image", "document"]),
    ],
)
def test_already_sent_counts_against_the_anthropic_defaults(
    runner: CliRunner, url: str, two_images: str, sent: str | None, kinds: list[str]
) -> None:
    flag = "" if sent is None else f" --already-sent '{sent}'"
    out = ok(cli(runner, url, f"format anthropic {MODEL} {two_images} --id toolu_1{flag}"))
    assert _kinds(out) == kinds


def test_without_the_flag_and_with_nothing_sent_the_output_is_the_same(
    runner: CliRunner, url: str, two_images: str
) -> None:
    base = f"format anthropic {MODEL} {two_images} --id toolu_1"
    plain = ok(cli(runner, url, base))
    zero = '{"images": 0, "pdf_pages": 0, "pdf_bytes": 0}'
    assert ok(cli(runner, url, f"{base} --already-sent '{zero}'")) == plain


def test_the_report_names_the_limit_with_an_engine_claim(
    runner: CliRunner, url: str, two_images: str
) -> None:
    ok(cli(runner, url, f"claim set anthropic max_pdf_request_bytes 50 {EVIDENCE}"))
    command = (
        f"format anthropic {MODEL} {two_images} --id toolu_1 --report --format json"
        """ --already-sent '{"images": 99, "pdf_bytes": 10}'"""
    )
    document = json.loads(ok(cli(runner, url, command)))
    items = document["report"][0]["items"]
    assert [(i["outcome"], i["reason"]) for i in items] == [
        ("native", None),
        ("placeholder", "max_images"),
        ("placeholder", "max_pdf_request_bytes"),  # 10 + 45 bytes > 50
    ]
    # the table on stderr says the same in words
    table = cli(runner, url, command.replace(" --format json", ""))
    assert table.exit_code == 0, table.output
    assert "past the number of images a request may hold (max_images)" in table.stderr


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ('{"images": 1', "--already-sent: not JSON (Expecting ',' delimiter at column 13)"),
        ("[1, 2]", "give a JSON object such as"),
        ('"images"', "not a string"),
        ("3", "not a number"),
        ('{"image": 1}', "no field 'image' (known: images, pdf_pages, pdf_bytes)"),
        ('{"images": -1}', "whole number of at least 0, not -1"),
        ('{"images": true}', "whole number of at least 0"),
        ('{"pdf_bytes": 1.5}', "whole number of at least 0, not 1.5"),
        ("[" * 100_000, "--already-sent: unusable JSON (RecursionError)"),
    ],
)
def test_a_bad_value_is_one_line_and_exit_2(
    runner: CliRunner, url: str, two_images: str, value: str, fragment: str
) -> None:
    args = ["format", "anthropic", MODEL, two_images, "--id", "toolu_1", "--already-sent"]
    line = failed(run(runner, url, *args, value), "--already-sent", fragment, code=2)
    assert len(line) < 240


def test_the_flag_is_in_the_help(runner: CliRunner, url: str) -> None:
    text = ok(cli(runner, url, "format --help"))
    assert "--already-sent JSON" in text
    assert "AlreadySent's fields" in " ".join(text.split())
