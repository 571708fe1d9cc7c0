"""``toolwire resolve`` and ``toolwire format``: what a model gets, and the payload itself."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click
from toolwire.convert import (
    ID_RULES,
    NAMED_WIRES,
    REASONS,
    WIRES,
    AlreadySent,
    IdMap,
    InvalidId,
    InvalidOption,
    ToolResult,
    ToolwireError,
)

from .._output import plural, render
from .._values import show_value
from ..explain import explain_sections, explain_text
from ..vocab import EVIDENCE_STATUSES
from ._common import (
    Context,
    complete_engine,
    complete_model,
    echo,
    echo_json,
    pass_ctx,
    text_or_json_option,
)

if TYPE_CHECKING:
    from ..resolver import Resolution


def _resolution(
    obj: Context,
    engine: str,
    model: str,
    wire: str | None,
    min_evidence: str | None,
    strict: bool,
) -> Resolution:
    """Resolve (``strict``: a MODEL no recorded model nor rule names is an error)."""
    from ..resolver import Resolver

    return Resolver(obj.registry()).resolve(
        engine, model, wire=wire, min_evidence=min_evidence, strict=strict
    )


def _say_unknown(resolution: Resolution) -> None:
    """Say on stderr, in one line, that no recorded model nor rule names the model."""
    if resolution.notice is not None:
        echo(resolution.notice, err=True)


_wire_option = click.option(
    "--wire",
    type=click.Choice(WIRES),
    default=None,
    help="Force this wire instead of the engine's/model's.",
)
_evidence_option = click.option(
    "--min-evidence",
    type=click.Choice(EVIDENCE_STATUSES),
    default=None,
    help="Treat claims weaker than this as absent (e.g. live-verified).",
)
_strict_option = click.option(
    "--strict-models",
    "strict",
    is_flag=True,
    help="Fail (exit 1) when no recorded model nor rule of ENGINE names MODEL, instead "
    "of resolving it from the engine's claims alone.",
)


@click.command(name="resolve")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("model", shell_complete=complete_model)
@_wire_option
@_evidence_option
@_strict_option
@click.option("--explain", is_flag=True, help="Show which claim decided each flag and why.")
@text_or_json_option
@pass_ctx
def resolve_command(
    obj: Context,
    engine: str,
    model: str,
    wire: str | None,
    min_evidence: str | None,
    strict: bool,
    explain: bool,
    fmt: str,
) -> None:
    """Show the wire and converter options MODEL on ENGINE gets.

    A MODEL that no recorded model nor rule of ENGINE names gets the engine's claims
    alone; a line on stderr says so, with the closest recorded ids.
    """
    resolution = _resolution(obj, engine, model, wire, min_evidence, strict)
    _say_unknown(resolution)
    if fmt == "json":
        data = resolution.as_dict()
        if not explain:
            del data["trace"], data["limit_trace"]
        else:
            data.update(explain_sections(obj.registry(), resolution))
        echo_json(data)
    elif explain:
        echo(explain_text(obj.registry(), resolution))
    else:
        echo(f"wire: {resolution.wire}")
        for flag, value in resolution.capabilities.items():
            echo(f"{flag}: {'true' if value else 'false'}")
        for limit, amount in resolution.limits.items():
            echo(f"{limit}: {show_value(amount)}")
        opts = ", ".join(f"{k}={json.dumps(v)}" for k, v in resolution.options.items())
        echo(f"options: {opts or '(none)'}")


@click.command(name="format")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("model", shell_complete=complete_model)
@click.argument("file", type=click.File("r", encoding="utf-8"))
@_wire_option
@_evidence_option
@_strict_option
@click.option(
    "--id",
    "call_id",
    default="",
    help="Call id of a single result (overrides the file's; with --from, fills in one).",
)
@click.option(
    "--name",
    "names",
    multiple=True,
    metavar="NAME|ID=NAME",
    help="Tool name of a single result (overrides the file's; with --from, fills in one); "
    "ID=NAME (repeatable) names the tool of the result with call id ID, where the file "
    "does not (a tool name holds no '=': ID is what comes before the last one).",
)
@click.option(
    "--from",
    "source",
    type=click.Choice(WIRES),
    default=None,
    help="FILE holds tool-result blocks of this wire instead of MCP results.",
)
@click.option(
    "--report",
    is_flag=True,
    help="Also say what each content item became and why (native, placeholder, ...): "
    "a table on stderr, or with --format json beside the messages.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="With --report: json prints one document {messages, report} on stdout "
    "(table: the messages on stdout, the report as a table on stderr).",
)
@click.option(
    "--map-ids",
    is_flag=True,
    help="Map call ids and tool names the target refuses (IdMap); the mapping goes to stderr.",
)
@click.option(
    "--raw-bytes",
    is_flag=True,
    help="Refused: the output is JSON, which holds payloads as base64 (the Bedrock HTTP "
    "API's and the AWS CLI's form); bytes for boto3 come from format_for(..., "
    "raw_bytes=True) in Python.",
)
@click.option(
    "--already-sent",
    "already_sent",
    metavar="JSON",
    default=None,
    help="What the rest of the request already holds, counted against the request limits: "
    'a JSON object of AlreadySent\'s fields, e.g. \'{"images": 3, "pdf_pages": 40, '
    '"pdf_bytes": 1000000}\' (a missing field is 0; pdf_bytes are decoded bytes).',
)
@pass_ctx
def format_command(
    obj: Context,
    engine: str,
    model: str,
    file: Any,
    wire: str | None,
    min_evidence: str | None,
    strict: bool,
    call_id: str,
    names: tuple[str, ...],
    source: str | None,
    report: bool,
    fmt: str,
    map_ids: bool,
    raw_bytes: bool,
    already_sent: str | None,
) -> None:
    """Print FILE as the wire payload MODEL on ENGINE gets (FILE: JSON, - for stdin).

    FILE holds an MCP CallToolResult, or a list of them. A bare CallToolResult
    carries no call id: give one with --id, except for a wire with no id rule
    (gemini, ollama, hermes), which sends the result without one.

    A list holds objects of the form {"id": ..., "name": ..., "result": CallToolResult}
    (or CallToolResults with "id"/"name" keys beside "content").

    A JSON-RPC response ({"jsonrpc": "2.0", "id": ..., "result" or "error"}) is read as
    its result (an error as a failed one); its id is a request id, never a call id.

    With --from WIRE, FILE holds one tool-result block of that wire, or a list of
    them (hermes: JSON strings); --id and --name fill in what a block does not carry.

    An id or name the target refuses is an error; with --map-ids it is mapped, and
    the mapping used is printed on stderr as JSON ({"ids": {ORIGINAL: SENT},
    "names": {...}}), so the tool calls can be rewritten the same way (none when
    --from names the wire the model gets: its ids go back as they came).

    A MODEL that no recorded model nor rule of ENGINE names is formatted from the
    engine's claims alone: a line on stderr says so (--strict-models: exit 1).

    Payloads are base64 strings, as JSON holds them: the form of the HTTP APIs (and of
    the AWS CLI for Bedrock). boto3 base64-encodes blobs itself, so it needs bytes:
    --raw-bytes is refused here (exit 2); call format_for(..., raw_bytes=True) instead.

    The request limits an engine states (max_images, max_pdf_pages,
    max_pdf_request_bytes, many_images) count the media of every result in FILE; with
    --already-sent they also count what the rest of the conversation holds, and a
    medium past a limit goes as its placeholder (--report names the limit).
    """
    if raw_bytes:
        raise click.UsageError(RAW_BYTES_REFUSED)
    sent = _already_sent(already_sent)
    name, by_id = _names(names)
    if source is None:
        results = _read_results(file, call_id, name, by_id)
    else:
        results = _read_blocks(file, source, call_id, name, by_id)
    unused = sorted(set(by_id) - {r.id for r in results})
    if unused:
        raise click.ClickException(
            f"--name {unused[0]}=...: no result has call id {unused[0]!r}"
            f" (the call ids: {', '.join(repr(r.id) for r in results[:12]) or 'none'})"
        )
    resolution = _resolution(obj, engine, model, wire, min_evidence, strict)
    for index, result in enumerate(results):
        where = f"result {index}" if len(results) > 1 else "the result"
        # a wire with no id rule (gemini, ollama, hermes) pairs results without ids
        if not result.id and ID_RULES.get(resolution.id_rule or resolution.wire) is not None:
            fix = (
                "give one with --id"
                if len(results) == 1
                else 'give each entry its call id: {"id": CALL_ID, "name": NAME, "result": ...}'
            )
            raise click.ClickException(f"{where} has no id: {fix}")
        if resolution.wire in NAMED_WIRES and not result.name:
            fix = (
                "give one with --name NAME"
                if len(results) == 1
                else f"give it with --name {result.id or 'ID'}=NAME (repeatable, one per call)"
            )
            raise click.ClickException(
                f"{where} has no tool name, which the {resolution.wire} wire needs: {fix}"
            )
    ids = IdMap() if map_ids else None
    try:
        # blocks back on the wire they came from keep their ids, unless the engine has
        # a rule of its own (another provider on that wire: Mistral's on openai)
        own = source == resolution.wire and resolution.id_rule in (None, resolution.wire)
        payload = resolution.format(results, ids=None if own else ids, already_sent=sent)
    except InvalidId as exc:  # the library's fix names its keyword; here it is the flag
        head = str(exc).rsplit("; pass ids=IdMap()", 1)[0]
        raise click.ClickException(
            head if map_ids else f"{head}; pass --map-ids to map it (the mapping goes to stderr)"
        ) from None
    _say_unknown(resolution)  # once the payload is made: a failure stays one line
    if ids is not None:
        mapping: dict[str, dict[str, str]] = {"ids": {}, "names": {}}
        for entry in ids.items():
            kind = "ids" if entry["kind"] == "id" else "names"
            mapping[kind][entry["original"]] = entry["mapped"]
        echo(json.dumps(mapping, ensure_ascii=False), err=True)
    if not report:
        echo_json(payload)
        return
    decisions = resolution.report_json(results, already_sent=sent)
    if fmt == "json":
        echo_json({"messages": payload, "report": decisions})
        return
    echo_json(payload)
    rows = [
        {
            "result": entry["id"] or entry["result"],
            "item": item["index"],
            "type": item["type"],
            "mime": item["mime"],
            "size": plural(item["size"], "byte") if item["size"] else "",
            "outcome": item["outcome"],
            "reason": REASONS.get(item["reason"], "") if item["reason"] else "",
        }
        for entry in decisions
        for item in entry["items"]
    ]
    columns = ("result", "item", "type", "mime", "size", "outcome", "reason")
    echo(render(rows, "table", columns), err=True)


#: why ``format --raw-bytes`` is refused (one line)
RAW_BYTES_REFUSED = (
    "--raw-bytes: JSON cannot hold bytes, so payloads stay base64 strings (the Bedrock HTTP"
    " API's and the AWS CLI's form); for boto3 call format_for(..., raw_bytes=True) in Python"
)


#: JSON's names for the types ``json`` reads (for "give an object, not ...")
_JSON_TYPES = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


def _already_sent(value: str | None) -> dict[str, Any] | None:
    """Return ``--already-sent``'s JSON object, checked by the converter (None: not given).

    :raises click.UsageError: for text that is not JSON, JSON that is not an object, or
        a field ``AlreadySent`` does not have or cannot take.
    """
    if value is None:
        return None
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise click.UsageError(
            f"--already-sent: not JSON ({exc.msg} at column {exc.colno})"
        ) from None
    except (RecursionError, ValueError) as exc:  # nested too deep, a number too long
        raise click.UsageError(f"--already-sent: unusable JSON ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise click.UsageError(
            '--already-sent: give a JSON object such as {"images": 3, "pdf_bytes": 1000000},'
            f" not {_JSON_TYPES.get(type(data), type(data).__name__)}"
        )
    try:
        AlreadySent.of(data)  # the converter's own check
    except InvalidOption as exc:
        raise click.UsageError(f"--already-sent: {exc}") from None
    return data


def _load_json(file: Any) -> tuple[Any, str]:
    """Return FILE's JSON document and the label naming FILE in messages."""
    label = "stdin" if file.name == "<stdin>" else file.name
    try:
        return json.load(file), label
    except json.JSONDecodeError as exc:
        raise click.ClickException(f"{label}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise click.ClickException(f"{label}: not UTF-8 text") from None
    except (RecursionError, ValueError) as exc:  # nested too deep, a number too long
        raise click.ClickException(f"{label}: unusable JSON ({type(exc).__name__})") from None


def _names(given: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """Return ``--name``'s single NAME ("" if none) and its ID=NAME pairs.

    :raises click.UsageError: for two plain names, or an ID=NAME with an empty part.
    """
    plain = [value for value in given if "=" not in value]
    if len(plain) > 1:
        raise click.UsageError(
            "--name NAME names a single result; give ID=NAME for each call of a list"
        )
    by_id: dict[str, str] = {}
    for value in given:
        if "=" in value:
            call, _, tool = value.rpartition("=")
            if not call or not tool:
                raise click.UsageError(f"--name {value!r}: give ID=NAME, both non-empty")
            by_id[call] = tool
    return (plain[0] if plain else ""), by_id


def _read_blocks(
    file: Any, source: str, call_id: str, name: str, by_id: dict[str, str]
) -> list[ToolResult]:
    """Return the results the tool-result blocks of ``source`` in FILE hold (``from_wire``).

    A block without a tool name whose call id ``by_id`` holds gets that name.
    """
    data, label = _load_json(file)
    entries = data if isinstance(data, list) else [data]
    if not entries:
        raise click.ClickException(f"{label}: no tool-result blocks")
    results = []
    for index, entry in enumerate(entries):
        try:
            result = ToolResult.from_wire(source, entry, id=call_id, name=name)
            if not result.name and result.id in by_id:
                result = ToolResult.from_wire(source, entry, id=call_id, name=by_id[result.id])
            results.append(result)
        except ToolwireError as exc:
            where = f"{label}[{index}]" if isinstance(data, list) else label
            raise click.ClickException(f"{where}: {exc}") from None
    return results


def _read_results(file: Any, call_id: str, name: str, by_id: dict[str, str]) -> list[ToolResult]:
    data, label = _load_json(file)
    entries = data if isinstance(data, list) else [data]
    if not entries:
        raise click.ClickException(f"{label}: no tool results")
    results = []
    for index, entry in enumerate(entries):
        where = f"{label}[{index}]" if isinstance(data, list) else label
        if not isinstance(entry, dict):
            raise click.ClickException(f"{where}: expected an object, not {type(entry).__name__}")
        rpc = "jsonrpc" in entry  # a JSON-RPC response: its id is the request's
        body = entry if rpc else entry.get("result", entry)
        # --id / --name override a single result's values, and fill in a list's gaps
        single = not isinstance(data, list) or len(entries) == 1
        if rpc:  # its id is the request's: the call id is --id's, for one result only
            given_id = call_id if single else ""
        else:
            given_id = call_id if call_id and single else entry.get("id") or call_id
        given_name = name if name and single else entry.get("name") or name
        if not given_name and given_id is not None:
            given_name = by_id.get(str(given_id), "")
        for what, value in (("id", given_id), ("name", given_name)):
            if value is not None and not isinstance(value, (str, int)):
                raise click.ClickException(f"{where}: {what} must be a string")
        try:
            results.append(
                ToolResult.from_mcp(body, id=str(given_id or ""), name=str(given_name or ""))
            )
        except ToolwireError as exc:
            raise click.ClickException(f"{where}: {exc}") from None
    return results


COMMANDS = [resolve_command, format_command]
