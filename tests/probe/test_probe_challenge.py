"""The challenge, its PNG and PDF (legible to real OCR and text extraction), and the classifier."""

from __future__ import annotations

import re

import pytest
from providers import ocr_png, pdf_text
from toolwire.registry.errors import InvalidInput
from toolwire.registry.probe import (
    ALPHABET,
    LENGTH,
    check_challenge,
    classify,
    endpoint_of,
    new_challenge,
    redact,
    render_pdf,
    render_png,
)

#: Codes that together hold every character of the alphabet.
EVERY_CHARACTER = ("ACEFHJ", "KMNPRT", "WXY47A")


def test_the_alphabet_has_no_look_alikes() -> None:
    assert set(ALPHABET).isdisjoint("O0QDI1lLS5B8Z2G6UV")
    assert len(set(ALPHABET)) == len(ALPHABET)
    assert set("".join(EVERY_CHARACTER)) == set(ALPHABET)


def test_new_challenges_are_random_codes_of_the_alphabet() -> None:
    codes = {new_challenge() for _ in range(50)}
    assert len(codes) > 45
    for code in codes:
        assert len(code) == LENGTH and set(code) <= set(ALPHABET)
        assert check_challenge(code) == code


@pytest.mark.parametrize("bad", ["ACEFH", "ACEFHJK", "ACEF0J", "ACEFBJ", "ACEF J", ""])
def test_invalid_challenges_are_refused(bad: str) -> None:
    with pytest.raises(InvalidInput, match="invalid challenge"):
        check_challenge(bad)


def test_a_challenge_is_taken_in_any_case() -> None:
    assert check_challenge("acefhj") == "ACEFHJ"


@pytest.mark.usefixtures("ocr")
@pytest.mark.parametrize("code", EVERY_CHARACTER)
def test_the_png_is_legible_to_ocr(code: str) -> None:
    data = render_png(code)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert re.sub(r"[^A-Z0-9]", "", ocr_png(data).upper()) == code


@pytest.mark.usefixtures("ocr")
@pytest.mark.parametrize("code", EVERY_CHARACTER)
def test_the_pdf_text_extracts(code: str) -> None:
    data = render_pdf(code)
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert pdf_text(data).split() == ["The", "code", "is", code]


def test_the_pdf_xref_points_at_each_object() -> None:
    data = render_pdf("ACEFHJ")
    start = int(data.rsplit(b"startxref\n", 1)[1].split()[0])
    assert data[start:].startswith(b"xref\n0 6\n")
    offsets = [int(line[:10]) for line in data[start:].split(b"\n")[3:8]]
    for number, offset in enumerate(offsets, start=1):
        assert data[offset:].startswith(b"%d 0 obj" % number)


@pytest.mark.parametrize(
    ("status", "reply", "outcome"),
    [
        (200, "ACEFHJ", "read"),
        (200, "The code is a c e f h j.", "read"),
        (200, "I cannot see an image.", "ignored"),
        (200, "", "error"),  # no text at all: cut off, not evidence
        (200, " \n", "error"),
        (200, None, "error"),  # a 2xx that is not the wire's JSON
        (400, None, "rejected"),
        (422, None, "rejected"),
        (401, None, "error"),
        (403, None, "error"),
        (404, None, "error"),
        (429, None, "error"),
        (500, None, "error"),
        (529, None, "error"),
        (302, None, "error"),
        (None, None, "error"),
    ],
)
def test_classify(status: int | None, reply: str | None, outcome: str) -> None:
    assert classify(status, reply, "ACEFHJ") == outcome


def test_redact_keeps_keys_and_request_base64_out() -> None:
    key = "sk-live-7c1e9b44aa02f3d1"
    sent = '{"data":"iVBORw0KGgoAAAANSUhEUgAAAZAAAAB4CAAAAABh"}'
    text = (
        f"Incorrect API key provided: {key}. Also sk-live-7c1e9b4***f3d1 and a part "
        "iVBORw0KGgoAAAANSUhE of the image; "
        "plus QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9w\n\n  end"
    )
    shown = redact(text, key=key, sent=sent)
    assert key not in shown and "7c1e9b4" not in shown
    assert "iVBORw0KGgo" not in shown and "QUJDREVG" not in shown
    assert shown.startswith("Incorrect API key provided: [key].")
    assert shown.endswith("end") and "\n" not in shown
    assert len(redact("x " * 500, key=None, sent="")) == 200


def test_endpoint_drops_credentials_query_and_fragment() -> None:
    url = "https://user:secret@api.example.com:8443/v1/?key=abc#frag"
    assert endpoint_of(url) == "https://api.example.com:8443/v1"
    assert endpoint_of("http://127.0.0.1:11434") == "http://127.0.0.1:11434"
