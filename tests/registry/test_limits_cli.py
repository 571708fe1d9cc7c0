"""``toolwire claim set``, ``resolve`` and ``--explain`` with limits and MIME types."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli, failed, noted, ok
from click.testing import CliRunner

EVIDENCE = "--status documented --evidence 'a test'"


def test_claim_set_takes_an_int_as_value_or_as_option(runner: CliRunner, url: str) -> None:
    out = json.loads(
        ok(cli(runner, url, f"claim set xai max_images --value 600 {EVIDENCE} --format json"))
    )
    assert out[0]["value"] == 600
    ok(cli(runner, url, f"claim set xai many_images 20 {EVIDENCE}"))
    shown = json.loads(ok(cli(runner, url, "resolve xai grok-4 --format json")))
    assert shown["limits"]["max_images"] == 600
    assert shown["limits"]["many_images"] == 20
    assert "limit_trace" not in shown  # the trace comes with --explain
    traced = json.loads(ok(cli(runner, url, "resolve xai grok-4 --explain --format json")))
    assert traced["limit_trace"]["max_images"]["decided_by"] == "engine"
    plain = ok(cli(runner, url, "resolve xai grok-4"))
    assert "max_images: 600\nmany_images: 20\n" in plain
    assert "image_mimes: image/jpeg,image/png\n" in plain


def test_claim_set_takes_mime_types(runner: CliRunner, url: str) -> None:
    out = noted(
        cli(
            runner,
            url,
            f"claim set xai image_mimes image/PNG,image/webp --model grok-9 {EVIDENCE}"
            " --format json",
        )
    )
    assert json.loads(out)[0]["value"] == ["image/png", "image/webp"]
    history = json.loads(
        ok(cli(runner, url, "claim history xai --capability image_mimes --format json"))
    )
    assert history[-1]["new_value"] == ["image/png", "image/webp"]
    assert history[-1]["subject_key"] == "model:grok-9"
    text = ok(cli(runner, url, "resolve xai grok-9 --explain"))
    assert "limits (no claim: the converter's default for the wire):" in text
    assert (
        "image_mimes             image/png,image/webp  model claims image/png,image/webp"
        " [documented]: a test"
    ) in text
    assert "max_image_bytes         20971520  engine claims 20971520 [inferred]" in text
    # the vocabulary's meaning of each limit is listed with the flags'
    assert "the image MIME types the wire's tool result takes here" in text


def test_retracting_a_limit_says_its_value(runner: CliRunner, url: str) -> None:
    ok(cli(runner, url, f"claim set xai max_images 7 {EVIDENCE}"))
    result = cli(runner, url, "claim unset xai max_images --reason 'wrong'")
    assert result.exit_code == 0, result.output
    assert "retracted the max_images claim (7, documented) on engine xai" in result.stderr


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        (f"claim set xai max_images 0 {EVIDENCE}", "invalid max_images value 0"),
        (f"claim set xai max_images 1e3 {EVIDENCE}", "invalid max_images value '1e3'"),
        (f"claim set xai max_images true {EVIDENCE}", "must be a whole number"),
        (f"claim set xai image_input 600 {EVIDENCE}", "must be true or false"),
        (f"claim set xai image_mimes png {EVIDENCE}", "'png' is not a MIME type"),
        (f"claim set xai image_mimes , {EVIDENCE}", "at least one MIME type"),
        (f"claim set xai max_imagez 5 {EVIDENCE}", "max_imagez"),
        (f"claim set xai max_images 5 --value 6 {EVIDENCE}", "give the value once"),
        (f"claim set xai max_images {EVIDENCE}", "give the value once"),
    ],
)
def test_a_bad_value_is_one_line(runner: CliRunner, url: str, command: str, fragment: str) -> None:
    before = ok(cli(runner, url, "claim history xai --format json"))
    failed(cli(runner, url, command), fragment)
    assert ok(cli(runner, url, "claim history xai --format json")) == before


def test_capability_list_shows_the_value_kinds(runner: CliRunner, url: str) -> None:
    rows = json.loads(ok(cli(runner, url, "capability list --format json")))
    kinds = {row["name"]: row["value_kind"] for row in rows}
    assert kinds["max_image_bytes"] == "int"
    assert kinds["image_mimes"] == "mimes"
    assert kinds["image_input"] == "bool"


def test_capability_add_takes_a_value_kind(runner: CliRunner, url: str) -> None:
    added = json.loads(
        ok(
            cli(
                runner,
                url,
                "capability add max_audio_seconds --description 'longest audio clip'"
                " --value-kind int --format json",
            )
        )
    )
    assert added[0]["value_kind"] == "int"
    ok(cli(runner, url, f"claim set openai max_audio_seconds 30 {EVIDENCE}"))
    failed(cli(runner, url, f"claim set openai max_audio_seconds yes {EVIDENCE}"), "whole number")
    failed(
        cli(runner, url, "capability add odd --description d --value-kind float"), "float", code=2
    )
