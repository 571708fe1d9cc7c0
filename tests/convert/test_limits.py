"""Provider limits as options: per item (size, side, MIME type) and per request (the budget).

Images are real files made by Pillow; PDFs are Pillow's (one page per image) and the
samples' hand-written one. Whether an item went natively is read twice: from the
report (its reason names the limit) and from the output (its payload is there or not).
"""

from __future__ import annotations

import base64
import io
import json
from decimal import Decimal
from typing import Any

import pytest
from convert_samples import PDF, b64
from PIL import Image
from toolwire.convert import (
    OPTIONS,
    AlreadySent,
    InvalidOption,
    ToolResult,
    format_tool_results,
    report,
    report_call,
    wire_options,
)
from toolwire.convert.wires import TABLE, anthropic, bedrock, gemini

pytestmark = pytest.mark.usefixtures("strict_check")

IMAGE_WIRES = ("anthropic", "bedrock", "gemini", "responses", "gemini-interactions")
PDF_WIRES = ("anthropic", "bedrock", "gemini", "responses")
HOIST_WIRES = ("openai", "ollama")
LIMITS = {
    "max_image_bytes",
    "max_pdf_bytes",
    "max_image_side",
    "max_images",
    "many_images",
    "many_images_max_side",
    "max_pdf_pages",
    "max_pdf_request_bytes",
    "image_mimes",
}
PDF_LIMITS = {"max_pdf_bytes", "max_pdf_pages", "max_pdf_request_bytes"}


def image(width: int, height: int, fmt: str = "PNG", **save: Any) -> str:
    """Return the base64 of a real image of that size."""
    out = io.BytesIO()
    Image.new("RGB" if fmt != "GIF" else "P", (width, height)).save(out, fmt, **save)
    return b64(out.getvalue())


def pdf(pages: int) -> str:
    """Return the base64 of a real PDF of ``pages`` pages (Pillow's writer)."""
    out = io.BytesIO()
    sheets = [Image.new("RGB", (20, 20)) for _ in range(pages)]
    sheets[0].save(out, "PDF", save_all=True, append_images=sheets[1:])
    return b64(out.getvalue())


MIMES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def image_item(data: str, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def pdf_item(data: str, name: str = "doc") -> dict[str, Any]:
    resource = {"uri": f"file:///{name}.pdf", "mimeType": "application/pdf", "blob": data}
    return {"type": "resource", "resource": resource}


def result(*items: dict[str, Any], number: int = 0) -> ToolResult:
    return ToolResult(name="tool", id=f"call_{number}", content=list(items))


def sent(out: Any, payload: str) -> bool:
    """True when ``payload`` is in the output (as base64, or in a data: URL)."""
    return payload in json.dumps(out)


def reasons(wire: str, results: list[ToolResult], **options: Any) -> list[list[Any]]:
    return [[d.reason for d in ds] for ds in report_call(wire, results, **options)]


NATIVE = {"image_input": True, "native_pdf": True}


# --- the options themselves ------------------------------------------------------------


def test_the_limits_are_options_read_by_the_wires_with_media() -> None:
    assert LIMITS <= OPTIONS
    for wire in IMAGE_WIRES + HOIST_WIRES:
        images = LIMITS - PDF_LIMITS
        assert images <= wire_options(wire), wire
    for wire in (*PDF_WIRES, "openai"):
        assert wire_options(wire) >= PDF_LIMITS, wire
    for wire in ("hermes",):
        assert not LIMITS & wire_options(wire)
    assert not PDF_LIMITS & wire_options("gemini-interactions")  # images only there


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("max_image_bytes", True),
        ("max_image_bytes", 0),
        ("max_image_bytes", -1),
        ("max_image_bytes", 1.5),
        ("max_image_bytes", "5"),
        ("max_image_side", False),
        ("max_pdf_request_bytes", 0),
        ("many_images_max_side", 0),
        ("max_images", -1),
        ("max_images", True),
        ("many_images", Decimal(3)),
        ("max_pdf_pages", 2.0),
        ("image_mimes", "image/png"),
        ("image_mimes", b"image/png"),
        ("image_mimes", {"image/png": 1}),
        ("image_mimes", ["image/png", 3]),
        ("image_mimes", 5),
    ],
)
def test_a_bad_limit_value_is_one_clear_error(name: str, value: object) -> None:
    with pytest.raises(InvalidOption) as info:
        result(image_item(image(8, 8))).to("anthropic", **{name: value})
    message = str(info.value)
    assert "\n" not in message and repr(name) in message
    with pytest.raises(InvalidOption):  # read or not, a bad value is an error everywhere
        result().to("hermes", **{name: value})


def test_counts_may_be_zero_and_none_is_the_default() -> None:
    one = result(image_item(image(8, 8)))
    assert reasons("anthropic", [one], image_input=True, max_images=0) == [["max_images"]]
    assert report("anthropic", one, image_input=True, max_images=None)[0].outcome == "native"
    assert one.to("anthropic", image_input=True, max_image_bytes=None) == one.to(
        "anthropic", image_input=True
    )


def test_defaults_per_wire() -> None:
    defaults = {wire: TABLE[wire].defaults for wire in TABLE}
    first_party = defaults["anthropic"]
    assert (first_party.max_images, first_party.many_images) == (100, 20)
    assert (first_party.many_images_max_side, first_party.max_pdf_pages) == (2000, 100)
    assert first_party.max_pdf_request_bytes == 32 * 1024 * 1024 // 4 * 3  # 32 MB of base64
    for wire in set(TABLE) - {"anthropic"}:  # no request limit documented elsewhere
        options = defaults[wire]
        assert options.max_images is options.max_pdf_pages is options.many_images is None
    for options in defaults.values():  # per-item defaults live in the wires' forms
        assert options.max_image_bytes is options.max_image_side is options.image_mimes is None
    # Anthropic's first-party image limit: 10 MB of base64, 7864320 bytes decoded
    assert anthropic.IMAGE_FORM.max_base64 == 10_485_760
    assert anthropic.IMAGE_FORM.decoded_limit == 7_864_320
    assert anthropic.IMAGE_FORM.max_side == bedrock.IMAGE_FORM.max_side == 8000
    assert bedrock.IMAGE_FORM.max_bytes == 3_750_000
    assert gemini.IMAGE_FORM.max_side is None


# --- per item: size, side, MIME type ----------------------------------------------------


@pytest.mark.parametrize("wire", IMAGE_WIRES)
def test_max_image_bytes_replaces_the_wire_limit(wire: str) -> None:
    data = image(16, 16)
    size = len(base64.b64decode(data))
    one = result(image_item(data))
    fits = one.to(wire, image_input=True, max_image_bytes=size)
    assert sent(fits, data)
    over = one.to(wire, image_input=True, max_image_bytes=size - 1)
    assert not sent(over, data) and f"({size} bytes)" in json.dumps(over)
    assert report(wire, one, image_input=True, max_image_bytes=size - 1)[0].reason == "too_large"


@pytest.mark.parametrize("wire", PDF_WIRES)
def test_max_pdf_bytes_replaces_the_wire_limit(wire: str) -> None:
    data = b64(PDF)
    one = result(pdf_item(data))
    assert sent(one.to(wire, native_pdf=True, max_pdf_bytes=len(PDF)), data)
    assert not sent(one.to(wire, native_pdf=True, max_pdf_bytes=len(PDF) - 1), data)
    decision = report(wire, one, native_pdf=True, max_pdf_bytes=len(PDF) - 1)[0]
    assert (decision.outcome, decision.reason) == ("placeholder", "too_large")


def test_the_anthropic_default_takes_an_image_between_5_and_10_mb_of_base64() -> None:
    # PNG signature and header, then filler: 6 MiB decoded, 8 MiB of base64
    raw = base64.b64decode(image(4, 4)) + b"\0" * (6 * 1024 * 1024)
    data = b64(raw)
    assert 5 * 1024 * 1024 < len(data) <= 10 * 1024 * 1024
    one = result(image_item(data))
    assert report("anthropic", one, image_input=True)[0].outcome == "native"
    # a deployment that keeps 5 MB (Bedrock, Vertex) states it as max_image_bytes
    assert report("anthropic", one, image_input=True, max_image_bytes=3_932_160)[0].reason == (
        "too_large"
    )


@pytest.mark.parametrize("wire", IMAGE_WIRES)
@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_max_image_side_reads_the_header(wire: str, fmt: str) -> None:
    data = image(120, 45, fmt)
    one = result(image_item(data, MIMES[fmt]))
    assert sent(one.to(wire, image_input=True, max_image_side=120), data)
    over = one.to(wire, image_input=True, max_image_side=119)
    assert not sent(over, data)
    assert report(wire, one, image_input=True, max_image_side=119)[0].reason == "max_image_side"
    # the height counts too
    assert report(wire, result(image_item(image(45, 120, fmt), MIMES[fmt])), image_input=True,
                  max_image_side=119)[0].reason == "max_image_side"  # fmt: skip


@pytest.mark.parametrize("wire", ["anthropic", "bedrock"])
def test_the_8000_pixel_default(wire: str) -> None:
    wide = result(image_item(image(8001, 1)))
    assert report(wire, wide, image_input=True)[0].reason == "max_image_side"
    assert report(wire, result(image_item(image(8000, 1))), image_input=True)[0].reason is None
    # an engine that takes more says so
    assert report(wire, wide, image_input=True, max_image_side=9000)[0].outcome == "native"


def test_an_unreadable_header_is_an_unknown_size_and_no_side_limit_applies() -> None:
    # a JPEG whose bytes end right after its first segment: no frame header to read
    data = b64(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    one = result(image_item(data, "image/jpeg"))
    assert report("anthropic", one, image_input=True, max_image_side=1)[0].outcome == "native"


@pytest.mark.parametrize("wire", IMAGE_WIRES)
def test_image_mimes_narrows_the_wire_set(wire: str) -> None:
    png, jpeg = image(8, 8), image(8, 8, "JPEG")
    both = result(image_item(png), image_item(jpeg, "image/jpeg"))
    out = both.to(wire, image_input=True, image_mimes=["image/jpeg"])
    assert sent(out, jpeg) and not sent(out, png)
    assert [d.reason for d in report(wire, both, image_input=True, image_mimes={"IMAGE/JPEG"})] == [
        "unsupported_mime",
        None,
    ]


def test_image_mimes_never_widens_the_wire_set() -> None:
    gif = image(8, 8, "GIF")
    one = result(image_item(gif, "image/gif"))
    assert report("gemini", one, image_input=True, image_mimes=["image/gif"])[0].reason == (
        "unsupported_mime"
    )
    assert not sent(one.to("gemini", image_input=True, image_mimes=["image/gif"]), gif)
    # and no image at all: an empty collection
    png = result(image_item(image(8, 8)))
    assert report("anthropic", png, image_input=True, image_mimes=())[0].reason == (
        "unsupported_mime"
    )


@pytest.mark.parametrize("wire", HOIST_WIRES)
def test_the_limits_reach_hoisted_media(wire: str) -> None:
    png, jpeg = image(8, 8), image(30, 8, "JPEG")
    one = result(image_item(png), image_item(jpeg, "image/jpeg"))
    options: dict[str, Any] = {"image_input": True, "hoist": True}
    out = format_tool_results(wire, [one], **options, image_mimes=["image/png"])
    assert sent(out, png) and not sent(out, jpeg)
    out = format_tool_results(wire, [one], **options, max_image_side=20)
    assert sent(out, png) and not sent(out, jpeg)
    out = format_tool_results(wire, [one, one], **options, max_images=3)
    assert json.dumps(out).count(png) == 2 and json.dumps(out).count(jpeg) == 1
    assert reasons(wire, [one, one], **options, max_images=3) == [
        [None, None],
        [None, "max_images"],
    ]


# --- per request: the budget ------------------------------------------------------------


@pytest.mark.parametrize("wire", IMAGE_WIRES)
def test_max_images_counts_the_call_first_come_first_served(wire: str) -> None:
    datas = [image(8, 8 + n) for n in range(5)]
    results = [result(image_item(data), number=n) for n, data in enumerate(datas)]
    out = format_tool_results(wire, results, image_input=True, max_images=3)
    assert [sent(out, data) for data in datas] == [True, True, True, False, False]
    assert reasons(wire, results, image_input=True, max_images=3) == [
        [None],
        [None],
        [None],
        ["max_images"],
        ["max_images"],
    ]
    # with what the conversation holds already
    out = format_tool_results(
        wire, results, image_input=True, max_images=3, already_sent={"images": 2}
    )
    assert [sent(out, data) for data in datas] == [True, False, False, False, False]
    assert (
        reasons(wire, results, image_input=True, max_images=3, already_sent=AlreadySent(3))
        == [["max_images"]] * 5
    )


def test_one_result_is_its_own_budget_in_to_and_report() -> None:
    datas = [image(8, 8 + n) for n in range(4)]
    one = result(*(image_item(data) for data in datas))
    out = one.to("anthropic", image_input=True, max_images=2)
    assert [sent(out, data) for data in datas] == [True, True, False, False]
    assert [d.reason for d in report("anthropic", one, image_input=True, max_images=2)] == [
        None,
        None,
        "max_images",
        "max_images",
    ]


def test_the_anthropic_default_of_100_images() -> None:
    data = image(8, 8)
    results = [result(image_item(data), number=n) for n in range(101)]
    found = reasons("anthropic", results, image_input=True)
    assert found[:100] == [[None]] * 100 and found[100] == ["max_images"]


def test_many_images_keeps_the_small_ones_and_the_first_large_ones() -> None:
    small, large = image(10, 10), image(30, 10)
    # 6 images, 3 of them larger than 20 px a side; over 4 images each must be <= 20
    kinds = [large, small, large, small, large, small]
    results = [result(image_item(data), number=n) for n, data in enumerate(kinds)]
    options = {"image_input": True, "many_images": 4, "many_images_max_side": 20}
    found = reasons("anthropic", results, **options)
    # the 3 small stay; one large keeps the total at 4
    assert found == [[None], [None], ["many_images_max_side"], [None], ["many_images_max_side"],
                     [None]]  # fmt: skip
    out = format_tool_results("anthropic", results, **options)
    assert json.dumps(out).count(large) == 1 and json.dumps(out).count(small) == 3
    # at or under many_images, any size goes
    assert reasons("anthropic", results[:4], **options) == [[None]] * 4
    # images already sent count toward "many": then no large one fits
    found = reasons("anthropic", results, **options, already_sent={"images": 1})
    assert [r[0] for r in found] == [
        "many_images_max_side", None, "many_images_max_side", None, "many_images_max_side", None
    ]  # fmt: skip


def test_the_anthropic_many_images_default_is_20_and_2000_px() -> None:
    large, small = image(2001, 2), image(2000, 2)
    results = [result(image_item(large if n == 0 else small), number=n) for n in range(21)]
    found = reasons("anthropic", results, image_input=True)
    assert found[0] == ["many_images_max_side"] and found[1:] == [[None]] * 20
    assert reasons("anthropic", results[:20], image_input=True) == [[None]] * 20


@pytest.mark.parametrize("wire", PDF_WIRES)
def test_max_pdf_pages_counts_real_pages(wire: str) -> None:
    three, five, one = pdf(3), pdf(5), b64(PDF)
    results = [result(pdf_item(d, f"d{n}"), number=n) for n, d in enumerate([three, five, one])]
    options = {"native_pdf": True, "max_pdf_pages": 4}
    # 3 pages fit, 5 more do not, the 1-page one still does (greedy, in call order)
    assert reasons(wire, results, **options) == [[None], ["max_pdf_pages"], [None]]
    out = format_tool_results(wire, results, **options)
    assert [sent(out, d) for d in (three, five, one)] == [True, False, True]
    found = reasons(wire, results, **options, already_sent={"pdf_pages": 2})
    assert found == [["max_pdf_pages"], ["max_pdf_pages"], [None]]


@pytest.mark.parametrize("wire", PDF_WIRES)
def test_max_pdf_request_bytes(wire: str) -> None:
    data = b64(PDF)
    results = [result(pdf_item(data, f"d{n}"), number=n) for n in range(3)]
    options = {"native_pdf": True, "max_pdf_request_bytes": 2 * len(PDF)}
    assert reasons(wire, results, **options) == [[None], [None], ["max_pdf_request_bytes"]]
    assert json.dumps(format_tool_results(wire, results, **options)).count(data) == 2
    found = reasons(wire, results, **options, already_sent={"pdf_bytes": 1})
    assert found == [[None], ["max_pdf_request_bytes"], ["max_pdf_request_bytes"]]


def test_the_anthropic_default_of_100_pdf_pages() -> None:
    many = result(pdf_item(pdf(101)))
    assert report("anthropic", many)[0].reason == "max_pdf_pages"
    assert report("anthropic", result(pdf_item(pdf(100))))[0].outcome == "native"
    assert report("anthropic", many, max_pdf_pages=600)[0].outcome == "native"


def test_audience_left_out_media_do_not_count() -> None:
    user_only = {**image_item(image(8, 9)), "annotations": {"audience": ["user"]}}
    data = image(8, 8)
    results = [result(user_only, image_item(data))]
    options = {"image_input": True, "audience": True, "max_images": 1}
    assert reasons("anthropic", results, **options) == [["audience", None]]
    assert sent(format_tool_results("anthropic", results, **options), data)


@pytest.mark.parametrize(
    "value",
    [
        {"images": -1},
        {"images": True},
        {"pictures": 1},
        {"pdf_pages": 1.5},
        [("images", 1)],
        "images=1",
        3,
    ],
)
def test_a_bad_already_sent_is_one_clear_error(value: object) -> None:
    with pytest.raises(InvalidOption) as info:
        format_tool_results("anthropic", [result()], already_sent=value)
    assert "\n" not in str(info.value) and "already_sent" in str(info.value)
    with pytest.raises(InvalidOption):
        report_call("anthropic", [result()], already_sent=value)
    with pytest.raises(InvalidOption):
        AlreadySent.of(value)


def test_already_sent_of_takes_what_already_sent_takes() -> None:
    assert AlreadySent.of(None) == AlreadySent()
    assert AlreadySent.of({"images": 3}) == AlreadySent(images=3)
    given = AlreadySent(pdf_pages=2, pdf_bytes=10)
    assert AlreadySent.of(given) == given


def test_within_every_limit_the_output_is_the_same_as_without_limits() -> None:
    content = [image_item(image(40, 30)), pdf_item(pdf(2)), {"type": "text", "text": "t"}]
    results = [result(*content, number=n) for n in range(3)]
    generous = {
        "max_images": 10,
        "many_images": 10,
        "many_images_max_side": 40,
        "max_pdf_pages": 6,
        "max_pdf_request_bytes": 10**9,
        "max_image_side": 40,
        "image_mimes": ["image/png"],
    }
    for wire in IMAGE_WIRES + HOIST_WIRES:
        plain = format_tool_results(wire, results, **NATIVE, hoist=wire in HOIST_WIRES)
        limited = format_tool_results(
            wire, results, **NATIVE, hoist=wire in HOIST_WIRES, **generous, already_sent={}
        )
        assert limited == plain, wire


# --- the plan cache ----------------------------------------------------------------------


def test_the_plan_cache_keeps_true_and_1_apart() -> None:
    one = result(image_item(image(8, 8)))
    assert report("anthropic", one, image_input=True, max_images=1)[0].outcome == "native"
    for _ in range(2):  # the second call would find a cached plan
        with pytest.raises(InvalidOption):
            one.to("anthropic", image_input=True, max_images=True)
        with pytest.raises(InvalidOption):
            one.to("anthropic", image_input=True, max_images=Decimal(1))
    assert report("anthropic", one, image_input=True, max_images=0)[0].reason == "max_images"


def test_the_plan_cache_takes_int_and_mime_options() -> None:
    from toolwire.convert.wires import _PLANS, plan

    first = plan("anthropic", True, unknown={"max_images": 7, "image_mimes": ["image/png"]})
    again = plan("anthropic", True, unknown={"max_images": 7, "image_mimes": ("image/png",)})
    assert again is first  # one cached plan: a list and a tuple of the same types
    assert first[1].image_mimes == frozenset({"image/png"}) and first[1].max_images == 7
    other = plan("anthropic", True, unknown={"max_images": 8, "image_mimes": ["image/png"]})
    assert other is not first and other[1].max_images == 8
    assert any(("max_images", int, 7) in key for key in _PLANS)


def test_a_pdf_without_a_trailer_counts_as_one_page_unscanned() -> None:
    # pages named in the body, but no trailer: the budget does not scan it
    raw = b"%PDF-1.4\n" + b"<< /Type /Page >>\n" * 3 + b"%" + b"x" * 5000 + b"\n"
    results = [result(pdf_item(b64(raw), f"d{n}"), number=n) for n in range(3)]
    assert reasons("anthropic", results, max_pdf_pages=2) == [[None], [None], ["max_pdf_pages"]]


def test_images_by_url_count_toward_max_images() -> None:
    link = {"type": "resource_link", "uri": "https://x.test/a.png", "mimeType": "image/png",
            "name": "a"}  # fmt: skip
    native = {"type": "image", "source": {"type": "url", "url": "https://x.test/b.png"}}
    data = image(8, 8)
    one = result(link, native, image_item(data))
    options = {"image_input": True, "url_sources": True, "max_images": 2}
    assert [d.reason for d in report("anthropic", one, **options)] == [None, None, "max_images"]
    out = one.to("anthropic", **options)
    assert not sent(out, data)
    assert [block["type"] for block in out["content"]] == ["image", "image", "text"]


def test_the_exported_limit_options_are_the_limits_each_once() -> None:
    from toolwire.convert import LIMIT_OPTIONS, OPTIONS
    from toolwire.convert._options import LIMITS

    assert len(set(LIMIT_OPTIONS)) == len(LIMIT_OPTIONS)
    assert set(LIMIT_OPTIONS) == LIMITS and LIMITS <= OPTIONS
