"""Public surface, wire facts, wire dispatch, options and errors of toolwire.convert."""

from __future__ import annotations
import __future__

import subprocess
import sys
import types
from decimal import Decimal
from fractions import Fraction

import pytest
import toolwire.convert as convert
from toolwire.convert import (
    ID_RULES,
    KINDS,
    OPTIONS,
    WIRES,
    ConvertError,
    IdMap,
    InvalidId,
    InvalidOption,
    InvalidToolResult,
    ToolResult,
    ToolwireError,
    UnknownKind,
    UnknownOption,
    UnknownWire,
    carries_native,
    format_tool_results,
    native_needs_vision,
    report,
)
from toolwire.convert.wires import TABLE

EXPECTED_WIRES = {
    "anthropic",
    "openai",
    "responses",
    "gemini",
    "ollama",
    "hermes",
    "bedrock",
    "gemini-interactions",
}
TEXT = ToolResult(name="get_weather", id="call_1", content=[{"type": "text", "text": "Sunny"}])


# --- public names ------------------------------------------------------------------


def _isort_key(name: str) -> tuple[int, str]:
    """The order ruff (RUF022) keeps ``__all__`` in: CONSTANTS, Classes, functions."""
    if name.isupper():
        return 0, name
    return (1 if name[0].isupper() else 2), name


def test_all_is_sorted() -> None:
    assert list(convert.__all__) == sorted(convert.__all__, key=_isort_key)
    assert len(set(convert.__all__)) == len(convert.__all__)


def test_all_is_complete() -> None:
    public = {
        name
        for name, value in vars(convert).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and not isinstance(value, __future__._Feature)
    }
    assert set(convert.__all__) == public
    for name in convert.__all__:
        assert hasattr(convert, name), name


def test_exported_names_show_their_public_home() -> None:
    for name in convert.__all__:
        value = getattr(convert, name)
        if isinstance(value, type) or callable(value):
            assert value.__module__ == "toolwire.convert", name
    assert convert.ToolResult.__module__ == "toolwire.convert"
    assert repr(convert.UnknownWire).startswith("<class 'toolwire.convert.UnknownWire'")


def test_import_pulls_in_no_database_or_cli_packages() -> None:
    code = (
        "import sys, toolwire.convert\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'sqlalchemy', 'click', 'alembic'} or m.startswith('toolwire.registry'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# --- wire dispatch -----------------------------------------------------------------


def test_wires_are_the_eight_wires() -> None:
    assert set(WIRES) == EXPECTED_WIRES
    assert len(WIRES) == len(EXPECTED_WIRES)


def test_dispatch_table_has_an_entry_for_every_wire() -> None:
    assert set(TABLE) == set(WIRES)
    for wire in WIRES:
        entry = TABLE[wire]
        assert entry.name == wire
        assert callable(entry.block)
        assert callable(entry.envelope)
        assert entry.options <= OPTIONS


def test_wire_options_say_which_options_each_wire_reads() -> None:
    images = {  # the provider limits of images (tests/convert/test_limits.py)
        "max_image_bytes",
        "max_image_side",
        "max_images",
        "many_images",
        "many_images_max_side",
        "image_mimes",
    }
    pdfs = {"max_pdf_bytes", "max_pdf_pages", "max_pdf_request_bytes"}
    assert {wire: convert.wire_options(wire) for wire in WIRES} == {
        "anthropic": {"image_input", "native_pdf", "source_blocks", "url_sources"} | images | pdfs,
        # media options only with hoist
        "openai": {"hoist", "image_input", "native_pdf"} | images | pdfs,
        "responses": {"image_input", "native_pdf", "url_sources"} | images | pdfs,
        "gemini": {"image_input", "native_pdf", "url_sources"} | images | pdfs,
        "ollama": {"hoist", "image_input"} | images,
        "hermes": {"call_ids", "response_tag"},
        "bedrock": {"image_input", "native_pdf", "raw_bytes"} | images | pdfs,
        "gemini-interactions": {"image_input"} | images,
    }
    with pytest.raises(convert.UnknownWire):
        convert.wire_options("chat")


@pytest.mark.parametrize("wire", ["Anthropic", "open-ai", "claude", "", " gemini"])
def test_unknown_wire_names_the_valid_wires(wire: str) -> None:
    with pytest.raises(UnknownWire) as info:
        TEXT.to(wire)
    message = str(info.value)
    assert repr(wire) in message
    for valid in WIRES:
        assert valid in message
    with pytest.raises(UnknownWire):
        format_tool_results(wire, [TEXT])


def test_unknown_wire_is_a_value_error_with_a_hint() -> None:
    with pytest.raises(ValueError, match=r"did you mean 'anthropic'"):
        TEXT.to("anthropik")


@pytest.mark.parametrize("wire", [None, 1, ["openai"], ("openai",)])
def test_non_string_wire_is_an_unknown_wire(wire: object) -> None:
    with pytest.raises(UnknownWire):
        TEXT.to(wire)  # type: ignore[arg-type]
    with pytest.raises(UnknownWire):
        format_tool_results(wire, [TEXT])  # type: ignore[arg-type]


# --- wire facts --------------------------------------------------------------------

CARRIES = {
    ("anthropic", "image"): True,
    ("anthropic", "pdf"): True,
    ("responses", "image"): True,
    ("responses", "pdf"): True,
    ("gemini", "image"): True,
    ("gemini", "pdf"): True,
    ("openai", "image"): False,
    ("openai", "pdf"): False,
    ("ollama", "image"): False,
    ("ollama", "pdf"): False,
    ("hermes", "image"): False,
    ("hermes", "pdf"): False,
    ("bedrock", "image"): True,
    ("bedrock", "pdf"): True,
    ("gemini-interactions", "image"): True,
    ("gemini-interactions", "pdf"): False,  # text and image items only
}
NEEDS_VISION = {
    ("anthropic", "image"): True,
    ("anthropic", "pdf"): False,  # a text-only model reads the extracted text
    ("responses", "image"): True,
    ("responses", "pdf"): True,
    ("gemini", "image"): True,
    ("gemini", "pdf"): True,
    ("openai", "image"): False,
    ("openai", "pdf"): False,
    ("ollama", "image"): False,
    ("ollama", "pdf"): False,
    ("hermes", "image"): False,
    ("hermes", "pdf"): False,
    ("bedrock", "image"): True,
    # Converse reads a PDF document by text extraction unless citations are enabled
    # (which toolwire never asks for): a text-only model reads it.
    ("bedrock", "pdf"): False,
    ("gemini-interactions", "image"): True,
    ("gemini-interactions", "pdf"): False,
}


def test_fact_tables_cover_every_wire_and_kind() -> None:
    pairs = {(wire, kind) for wire in WIRES for kind in KINDS}
    assert set(CARRIES) == pairs == set(NEEDS_VISION)
    assert set(KINDS) == {"image", "pdf"}


@pytest.mark.parametrize(("wire", "kind"), list(CARRIES))
def test_carries_native(wire: str, kind: str) -> None:
    assert carries_native(wire, kind) is CARRIES[wire, kind]


@pytest.mark.parametrize(("wire", "kind"), list(NEEDS_VISION))
def test_native_needs_vision(wire: str, kind: str) -> None:
    assert native_needs_vision(wire, kind) is NEEDS_VISION[wire, kind]


@pytest.mark.parametrize("wire", [None, "", "nope", "ANTHROPIC", 3])
@pytest.mark.parametrize("kind", ["image", "pdf"])
def test_facts_are_false_for_unknown_wires(wire: object, kind: str) -> None:
    assert carries_native(wire, kind) is False  # type: ignore[arg-type]
    assert native_needs_vision(wire, kind) is False  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["audio", "IMAGE", "", None, "images"])
@pytest.mark.parametrize("wire", ["anthropic", "openai", None, "nope"])
def test_unknown_kind_raises(wire: object, kind: object) -> None:
    with pytest.raises(UnknownKind):
        carries_native(wire, kind)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="valid kinds: image, pdf"):
        native_needs_vision(wire, kind)  # type: ignore[arg-type]


def test_needing_vision_implies_carrying() -> None:
    for wire in WIRES:
        for kind in KINDS:
            if native_needs_vision(wire, kind):
                assert carries_native(wire, kind)


# --- options -----------------------------------------------------------------------


def test_options_are_the_documented_ones() -> None:
    assert {
        "image_input",
        "native_pdf",
        "source_blocks",
        "response_tag",
        "raw_bytes",
        "url_sources",
        "audience",
        "hoist",
        "call_ids",
        "max_image_bytes",
        "max_pdf_bytes",
        "max_image_side",
        "max_images",
        "many_images",
        "many_images_max_side",
        "max_pdf_pages",
        "max_pdf_request_bytes",
        "image_mimes",
    } == OPTIONS


@pytest.mark.parametrize("wire", sorted(EXPECTED_WIRES))
@pytest.mark.parametrize("name", ["imageinput", "image_inputs", "nativePdf", "tag", "vision"])
def test_misspelled_option_is_an_error(wire: str, name: str) -> None:
    with pytest.raises(UnknownOption) as info:
        TEXT.to(wire, **{name: True})
    assert isinstance(info.value, TypeError)
    assert repr(name) in str(info.value)
    with pytest.raises(UnknownOption):
        format_tool_results(wire, [TEXT], **{name: True})


def test_misspelled_option_suggests_the_right_one() -> None:
    with pytest.raises(UnknownOption, match="did you mean 'image_input'"):
        TEXT.to("anthropic", image_imput=True)


@pytest.mark.parametrize(
    ("wire", "options"),
    [
        ("openai", {"image_input": True, "native_pdf": True, "source_blocks": False}),
        ("ollama", {"response_tag": "fn_response", "image_input": True}),
        ("anthropic", {"response_tag": "fn_response"}),
        ("gemini", {"source_blocks": False, "response_tag": "x"}),
        ("responses", {"source_blocks": False}),
        ("hermes", {"image_input": True, "native_pdf": True, "source_blocks": False}),
    ],
)
def test_options_known_to_another_wire_are_ignored(wire: str, options: dict[str, object]) -> None:
    assert TEXT.to(wire, **options) == TEXT.to(wire)
    assert format_tool_results(wire, [TEXT], **options) == format_tool_results(wire, [TEXT])


@pytest.mark.parametrize(
    ("wire", "name", "value"),
    [
        ("anthropic", "image_input", "yes"),
        ("anthropic", "native_pdf", 2),
        ("anthropic", "source_blocks", "false"),
        ("responses", "image_input", []),
        ("gemini", "native_pdf", "1"),
        ("hermes", "response_tag", "tool response"),
        ("hermes", "response_tag", "</tool_response><x"),
        ("hermes", "response_tag", ""),
        ("hermes", "response_tag", 5),
        ("hermes", "response_tag", "9tag"),
        ("anthropic", "image_input", 2),
        ("gemini", "native_pdf", 0.5),
    ],
)
def test_bad_option_values_are_invalid(wire: str, name: str, value: object) -> None:
    with pytest.raises(InvalidOption) as info:
        TEXT.to(wire, **{name: value})
    assert isinstance(info.value, ValueError)
    with pytest.raises(InvalidOption):
        format_tool_results(wire, [TEXT], **{name: value})


@pytest.mark.parametrize("value", [Decimal(1), Decimal(0), Fraction(1), 1j])
def test_a_refused_value_stays_refused_after_an_equal_one_was_used(value: object) -> None:
    # Decimal(1) == True and hashes alike: the plan cache must not take one for the other
    for _ in range(2):
        with pytest.raises(InvalidOption):
            TEXT.to("openai", image_input=value)
        with pytest.raises(InvalidOption):
            format_tool_results("openai", [TEXT], image_input=value)
        with pytest.raises(InvalidOption):
            format_tool_results("openai", [TEXT], hoist=value)
        with pytest.raises(InvalidOption):
            report("openai", TEXT, image_input=value)
        TEXT.to("openai", image_input=True)
        TEXT.to("openai", image_input=False)
        format_tool_results("openai", [TEXT], image_input=True, hoist=True)
        format_tool_results("openai", [TEXT], image_input=False, hoist=False)


def test_results_that_are_not_a_list_are_refused() -> None:
    for results in (None, 5, TEXT):
        with pytest.raises(InvalidToolResult):
            format_tool_results("openai", results)  # type: ignore[arg-type]


def test_an_id_map_refuses_a_value_that_is_not_a_string() -> None:
    for value in ([], {}, None, 5):
        with pytest.raises(InvalidId):
            IdMap().original("openai", value)  # type: ignore[arg-type]
        with pytest.raises(InvalidId):
            IdMap().original_name("gemini", value)  # type: ignore[arg-type]


def test_flags_accept_zero_and_one() -> None:
    pdf = ToolResult(id="call_1", name="tool", content=[_pdf_resource()])
    assert pdf.to("responses", native_pdf=1) == pdf.to("responses", native_pdf=True)
    assert pdf.to("anthropic", native_pdf=0) == pdf.to("anthropic", native_pdf=False)
    assert pdf.to("anthropic", native_pdf=0) != pdf.to("anthropic")


def test_options_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        TEXT.to("anthropic", True)  # type: ignore[misc]


def _pdf_resource() -> dict[str, object]:
    from convert_samples import PDF_B64

    return {
        "type": "resource",
        "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": PDF_B64},
    }


# --- errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (UnknownWire, ValueError),
        (UnknownKind, ValueError),
        (UnknownOption, TypeError),
        (InvalidOption, ValueError),
        (InvalidToolResult, ValueError),
    ],
)
def test_error_hierarchy(error: type[Exception], builtin: type[Exception]) -> None:
    assert issubclass(error, ConvertError)
    assert issubclass(error, ToolwireError)
    assert issubclass(error, builtin)
    assert issubclass(ConvertError, ToolwireError)


# --- envelopes -----------------------------------------------------------------------

A = ToolResult(name="a", id="call_a", content=[{"type": "text", "text": "one"}])
B = ToolResult(name="b", id="", content=[{"type": "text", "text": "two"}], is_error=True)
#: B with an id, for the wires that require one (an empty id is refused there)
B_ID = ToolResult(name="b", id="call_b", content=[{"type": "text", "text": "two"}], is_error=True)


def test_envelope_anthropic() -> None:
    assert format_tool_results("anthropic", [A, B_ID]) == [
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_a",
                    "content": [{"type": "text", "text": "one"}],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "call_b",
                    "content": [{"type": "text", "text": "two"}],
                    "is_error": True,
                },
            ],
        }
    ]


def test_envelope_gemini() -> None:
    assert format_tool_results("gemini", [A, B]) == [
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "a", "id": "call_a", "response": {"result": "one"}}},
                {"functionResponse": {"name": "b", "response": {"result": "two"}}},
            ],
        }
    ]


def test_envelope_openai() -> None:
    assert format_tool_results("openai", [A, B_ID]) == [
        {"role": "tool", "tool_call_id": "call_a", "content": "one"},
        {"role": "tool", "tool_call_id": "call_b", "content": "two"},
    ]


def test_envelope_ollama() -> None:
    assert format_tool_results("ollama", [A, B]) == [
        {"role": "tool", "content": "one", "tool_name": "a", "tool_call_id": "call_a"},
        {"role": "tool", "content": "two", "tool_name": "b"},
    ]


def test_envelope_responses() -> None:
    assert format_tool_results("responses", [A, B_ID]) == [
        {"type": "function_call_output", "call_id": "call_a", "output": "one"},
        {"type": "function_call_output", "call_id": "call_b", "output": "two"},
    ]


def test_envelope_hermes() -> None:
    assert format_tool_results("hermes", [A, B], response_tag="fn_response") == [
        {"role": "tool", "content": '<fn_response>\n{"content":"one","name":"a"}\n</fn_response>'},
        {"role": "tool", "content": '<fn_response>\n{"content":"two","name":"b"}\n</fn_response>'},
    ]


@pytest.mark.parametrize("wire", sorted(EXPECTED_WIRES))
def test_envelope_of_no_results(wire: str) -> None:
    expected = {
        "anthropic": [{"role": "user", "content": []}],
        "gemini": [{"role": "user", "parts": []}],
        "bedrock": [{"role": "user", "content": []}],
    }
    assert format_tool_results(wire, []) == expected.get(wire, [])


@pytest.mark.parametrize("wire", sorted(EXPECTED_WIRES))
def test_envelope_takes_any_iterable_and_matches_to(wire: str) -> None:
    b = B_ID if wire in ID_RULES else B
    messages = format_tool_results(wire, iter([A, b]), image_input=True)
    blocks = [A.to(wire, image_input=True), b.to(wire, image_input=True)]
    if wire in ("anthropic", "bedrock"):
        assert messages[0]["content"] == blocks
    elif wire == "gemini":
        assert messages[0]["parts"] == blocks
    elif wire == "hermes":
        assert [m["content"] for m in messages] == blocks
    else:
        assert messages == blocks


@pytest.mark.parametrize("bad", [{"type": "text", "text": "x"}, "text", None, A.to("openai")])
def test_envelope_rejects_things_that_are_not_results(bad: object) -> None:
    with pytest.raises(InvalidToolResult):
        format_tool_results("openai", [A, bad])  # type: ignore[list-item]
