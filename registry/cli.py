"""The ``toolwire`` command: a thin shell over the registry, the resolver and convert.

Commands are noun-then-verb (``toolwire claim set``). Only this module prints or
exits: expected failures become one line on stderr and exit 1 (bad usage exit 2),
never a traceback.
"""

from __future__ import annotations

import getpass
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from functools import update_wrapper
from importlib import metadata
from typing import Any, TypeVar

import click
from toolwire.convert import WIRES, ToolResult, ToolwireError

from . import db
from ._output import FORMATS, as_row, render
from .models import ENGINE_KINDS, EVIDENCE_STATUSES
from .resolver import Resolution, Resolver
from .seed import seed as seed_registry
from .store import Registry

F = TypeVar("F", bound=Callable[..., Any])

ENGINE_COLUMNS = ("name", "provider", "family", "default_wire", "kind", "base_url")
MODEL_COLUMNS = ("engine", "model_id", "wire", "note")
# "id" is what a rule's claims name as their subject (rule:<id>); --rule takes the position.
RULE_COLUMNS = ("engine", "position", "id", "match", "pattern", "wire", "claims", "note")
CLAIM_COLUMNS = (
    "engine",
    "subject_key",
    "capability",
    "value",
    "status",
    "evidence",
    "source",
    "verified_at",
    "recorded_by",
    "recorded_at",
)
EVENT_COLUMNS = (
    "occurred_at",
    "engine",
    "subject_key",
    "capability",
    "old_value",
    "old_status",
    "new_value",
    "new_status",
    "new_evidence",
    "actor",
    "reason",
)


def _version() -> str:
    try:
        return metadata.version("toolwire")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


class _Context:
    """What the group passes to every command: the database URL and a lazy registry."""

    def __init__(self, url: str | None, busy_timeout: float) -> None:
        self.url = url
        self.busy_timeout = busy_timeout
        self._registry: Registry | None = None

    def registry(self, *, setup: bool = True) -> Registry:
        if self._registry is None:
            self._registry = Registry(self.url, setup=setup, busy_timeout=self.busy_timeout)
        return self._registry

    def close(self) -> None:
        if self._registry is not None:
            self._registry.close()


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into one line and exit 1."""
    try:
        yield
    except ToolwireError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(
            f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
        ) from None


def _pass_ctx(fn: F) -> F:
    """Give the command the ``_Context`` and map user errors to one-line failures."""

    @click.pass_obj
    def wrapper(obj: _Context, /, *args: Any, **kwargs: Any) -> Any:
        with _user_errors():
            return fn(obj, *args, **kwargs)

    return update_wrapper(wrapper, fn)  # type: ignore[return-value]


def _format_option(fn: F) -> F:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Output format.",
    )(fn)


def _actor_option(fn: F) -> F:
    return click.option(
        "--by",
        "actor",
        default=None,
        metavar="NAME",
        help="Who records this (default: $TOOLWIRE_USER or the login name).",
    )(fn)


def _actor(actor: str | None) -> str:
    if actor or os.environ.get("TOOLWIRE_USER"):
        return actor or os.environ["TOOLWIRE_USER"]
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container user without a passwd entry)
        return f"uid:{os.getuid()}" if hasattr(os, "getuid") else "unknown"


def _emit(rows: Sequence[Any], fmt: str, columns: Sequence[str]) -> None:
    _echo(render([as_row(r) if not isinstance(r, dict) else r for r in rows], fmt, columns))


def _echo(text: str) -> None:
    """Print ``text``; a lone surrogate (not UTF-8) is printed as its escape, ``\\ud800``."""
    try:
        click.echo(text)
    except UnicodeEncodeError:
        click.echo(text.encode("utf-8", "backslashreplace").decode("utf-8"))


def _echo_json(data: Any) -> None:
    _echo(json.dumps(data, indent=2, ensure_ascii=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_version(), "--version", prog_name="toolwire")
@click.option(
    "--database-url",
    envvar="TOOLWIRE_DATABASE_URL",
    metavar="URL",
    default=None,
    help="SQLAlchemy URL of the registry (env TOOLWIRE_DATABASE_URL; default: an SQLite "
    "file in your data directory, created and seeded on first use).",
)
@click.option(
    "--busy-timeout",
    envvar="TOOLWIRE_BUSY_TIMEOUT",
    type=click.FloatRange(min=0, max=3600),
    default=5.0,
    show_default=True,
    metavar="SECONDS",
    help="How long an SQLite write waits for another writer (env TOOLWIRE_BUSY_TIMEOUT).",
)
@click.pass_context
def main(ctx: click.Context, database_url: str | None, busy_timeout: float) -> None:
    """Format tool results for LLM wires, and keep the registry of what each model reads."""
    if busy_timeout != busy_timeout:  # NaN passes every range check
        raise click.BadParameter("not a number", param_hint="--busy-timeout")
    ctx.obj = _Context(database_url, busy_timeout)
    ctx.call_on_close(ctx.obj.close)


# -- db ------------------------------------------------------------------------------


@main.group(name="db")
def db_group() -> None:
    """Create, migrate and seed the registry database."""


@db_group.command(name="upgrade")
@_pass_ctx
def db_upgrade(obj: _Context) -> None:
    """Migrate the database to the newest schema (seeding it when new)."""
    registry = obj.registry(setup=False)
    before = registry.schema_revision()
    db.ensure_ready(registry._engine)
    after = registry.schema_revision()
    click.echo(f"schema at {after}" + ("" if before == after else f" (was {before or 'empty'})"))


@db_group.command(name="current")
@_pass_ctx
def db_current(obj: _Context) -> None:
    """Show the database's schema revision, the newest one, and the data revision."""
    registry = obj.registry(setup=False)
    current = registry.schema_revision()
    head = db.head_revision()
    click.echo(f"database: {registry!r}")
    click.echo(
        f"schema:   {current or 'empty'} (head {head}{', up to date' if current == head else ''})"
    )
    if current == head:
        click.echo(f"data revision: {registry.revision()}")


@db_group.command(name="seed")
@_pass_ctx
def db_seed(obj: _Context) -> None:
    """Load the shipped seed data again; operator-recorded claims are never overwritten."""
    report = seed_registry(obj.registry())
    click.echo(
        f"seeded {len(report.engines)} engines: {report.added} added, {report.updated} updated, "
        f"{report.kept} unchanged, {report.operator_owned} operator claims left alone"
    )


# -- engine --------------------------------------------------------------------------


@main.group(name="engine")
def engine_group() -> None:
    """List, show and add engines (the endpoints a client talks to)."""


@engine_group.command(name="list")
@_format_option
@_pass_ctx
def engine_list(obj: _Context, fmt: str) -> None:
    """List every engine."""
    _emit(obj.registry().engines(), fmt, ENGINE_COLUMNS)


@engine_group.command(name="show")
@click.argument("name")
@_format_option
@_pass_ctx
def engine_show(obj: _Context, name: str, fmt: str) -> None:
    """Show an engine with its engine-level claims and rules."""
    snapshot = obj.registry().engine_snapshot(name)
    if fmt == "json":
        data = as_row(snapshot.engine)
        data["claims"] = [as_row(c) for c in snapshot.claims.values()]
        data["rules"] = [_rule_row(r) for r in snapshot.rules]
        data["models"] = sorted(snapshot.models)
        _echo_json(data)
        return
    _emit([snapshot.engine], fmt, [*ENGINE_COLUMNS, "response_tag", "note"])
    if fmt == "table":
        click.echo("\nengine claims:")
        _emit(list(snapshot.claims.values()), fmt, ("capability", "value", "status", "evidence"))
        click.echo("\nrules (the last matching rule wins):")
        _emit([_rule_row(r) for r in snapshot.rules], fmt, RULE_COLUMNS[1:])
        click.echo(f"\n{len(snapshot.models)} recorded models")


@engine_group.command(name="add")
@click.argument("name")
@click.option("--provider", required=True, help="Who runs it, e.g. 'Anthropic Messages'.")
@click.option("--family", required=True, help="API family, e.g. anthropic, openai.")
@click.option(
    "--wire", "default_wire", required=True, type=click.Choice(WIRES), help="Default wire."
)
@click.option("--kind", required=True, type=click.Choice(ENGINE_KINDS), help="Kind of endpoint.")
@click.option("--base-url", default=None, help="Endpoint URL.")
@click.option("--response-tag", default=None, help="Hermes response tag (hermes wire).")
@click.option("--note", default="", help="Free text.")
@_actor_option
@_format_option
@_pass_ctx
def engine_add(
    obj: _Context, name: str, default_wire: str, actor: str | None, fmt: str, **fields: Any
) -> None:
    """Add an engine."""
    engine = obj.registry().add_engine(
        name, default_wire=default_wire, created_by=_actor(actor), **fields
    )
    _emit([engine], fmt, ENGINE_COLUMNS)


# -- model ---------------------------------------------------------------------------


@main.group(name="model")
def model_group() -> None:
    """List, show and add recorded models (unrecorded ids still resolve by rules)."""


@model_group.command(name="list")
@click.option("--engine", default=None, help="Only this engine's models.")
@_format_option
@_pass_ctx
def model_list(obj: _Context, engine: str | None, fmt: str) -> None:
    """List recorded models."""
    _emit(obj.registry().models(engine), fmt, MODEL_COLUMNS)


@model_group.command(name="show")
@click.argument("engine")
@click.argument("model")
@_format_option
@_pass_ctx
def model_show(obj: _Context, engine: str, model: str, fmt: str) -> None:
    """Show a model: its row, its own claims and the rules that match it."""
    registry = obj.registry()
    snapshot = registry.engine_snapshot(engine, models=(model,))
    row = snapshot.models.get(model)
    rules = [_rule_row(r) for r in snapshot.matching_rules(model)]
    claims = list(row.claims.values()) if row else []
    if fmt == "json":
        data = {
            "engine": engine,
            "model": model,
            "recorded": row is not None,
            "wire": row.wire if row else None,
            "claims": [as_row(c) for c in claims],
            "matching_rules": rules,
        }
        _echo_json(data)
        return
    click.echo(
        f"{engine} / {model}: " + ("recorded" if row else "not recorded (resolves by rules)")
    )
    if row and row.wire:
        click.echo(f"wire override: {row.wire}")
    click.echo("\nmodel claims:")
    _emit(claims, fmt, ("capability", "value", "status", "evidence"))
    click.echo("\nmatching rules (the last one wins):")
    _emit(rules, fmt, RULE_COLUMNS[1:])


@model_group.command(name="add")
@click.argument("engine")
@click.argument("model")
@click.option(
    "--wire", type=click.Choice(WIRES), default=None, help="Wire override for this model."
)
@click.option("--note", default="", help="Free text.")
@_actor_option
@_format_option
@_pass_ctx
def model_add(
    obj: _Context, engine: str, model: str, wire: str | None, note: str, actor: str | None, fmt: str
) -> None:
    """Record a model id on an engine."""
    row = obj.registry().add_model(engine, model, wire=wire, note=note, created_by=_actor(actor))
    _emit([row], fmt, MODEL_COLUMNS)


# -- rule ----------------------------------------------------------------------------


def _rule_row(rule: Any) -> dict[str, Any]:
    row = as_row(rule)
    row["claims"] = ", ".join(
        f"{c.capability}={'true' if c.value else 'false'}" for c in rule.claims.values()
    )
    return row


@main.group(name="rule")
def rule_group() -> None:
    """Ordered model-id rules per engine (exact id or regex; the last match wins)."""


@rule_group.command(name="list")
@click.argument("engine")
@_format_option
@_pass_ctx
def rule_list(obj: _Context, engine: str, fmt: str) -> None:
    """List an engine's rules in order."""
    _emit([_rule_row(r) for r in obj.registry().rules(engine)], fmt, RULE_COLUMNS)


@rule_group.command(name="add")
@click.argument("engine")
@click.argument("pattern")
@click.option(
    "--regex/--exact",
    default=False,
    show_default=True,
    help="PATTERN is a regex matched against the whole id (re.fullmatch), or an exact id.",
)
@click.option("--wire", type=click.Choice(WIRES), default=None, help="Wire override for matches.")
@click.option("--position", type=int, default=None, help="1-based position (default: last).")
@click.option("--note", default="", help="Free text.")
@_actor_option
@_format_option
@_pass_ctx
def rule_add(
    obj: _Context,
    engine: str,
    pattern: str,
    regex: bool,
    wire: str | None,
    position: int | None,
    note: str,
    actor: str | None,
    fmt: str,
) -> None:
    """Add a rule; give it claims with `toolwire claim set ENGINE CAP VALUE --rule N`."""
    rule = obj.registry().add_rule(
        engine,
        pattern,
        regex=regex,
        wire=wire,
        position=position,
        note=note,
        created_by=_actor(actor),
    )
    _emit([_rule_row(rule)], fmt, RULE_COLUMNS)


# -- claim ---------------------------------------------------------------------------


@main.group(name="claim")
def claim_group() -> None:
    """Record capability claims with their evidence, and read their history."""


@claim_group.command(name="set")
@click.argument("engine")
@click.argument("capability")
@click.argument("value", type=click.Choice(["true", "false"], case_sensitive=False))
@click.option("--model", default=None, help="Claim for this model id (recorded if new).")
@click.option(
    "--rule",
    default=None,
    metavar="N|PATTERN",
    help="Claim for this rule: its position (as `rule list` shows it) or its pattern.",
)
@click.option(
    "--status",
    required=True,
    type=click.Choice(EVIDENCE_STATUSES),
    help="Strength of the evidence.",
)
@click.option("--evidence", required=True, help="What supports the claim, one sentence.")
@click.option("--source", default=None, help="URL, test name or ticket behind the evidence.")
@click.option(
    "--verified-at",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="When the evidence was checked (YYYY-MM-DD).",
)
@click.option("--reason", default=None, help="Why this changes (kept in the history).")
@_actor_option
@_format_option
@_pass_ctx
def claim_set(
    obj: _Context,
    engine: str,
    capability: str,
    value: str,
    model: str | None,
    rule: str | None,
    status: str,
    evidence: str,
    source: str | None,
    verified_at: Any,
    reason: str | None,
    actor: str | None,
    fmt: str,
) -> None:
    """Set CAPABILITY to true or false on ENGINE (or one of its models or rules)."""
    if model is not None and rule is not None:
        raise click.UsageError("give --model or --rule, not both")
    when: date | None = verified_at.date() if verified_at is not None else None
    registry = obj.registry()
    claim = registry.set_claim(
        engine,
        capability,
        value.lower() == "true",
        model=model,
        rule=_rule_ref(registry, engine, rule),
        status=status,
        evidence=evidence,
        source=source,
        verified_at=when,
        recorded_by=_actor(actor),
        reason=reason,
    )
    _emit([claim], fmt, CLAIM_COLUMNS)


def _rule_ref(registry: Registry, engine: str, rule: str | None) -> int | str | None:
    """Return the rule id of a position given on the command line, else the pattern.

    The store takes a rule id or a pattern; operators see positions (``rule list``).
    """
    if rule is None or not (rule.isascii() and rule.isdigit()):
        return rule
    position = int(rule)
    for found in registry.rules(engine):
        if found.position == position:
            return found.id
    raise click.ClickException(f"engine {engine!r} has no rule at position {position}")


@claim_group.command(name="history")
@click.argument("engine")
@click.option("--model", default=None, help="Only this model's claims.")
@click.option("--capability", default=None, help="Only this capability.")
@_format_option
@_pass_ctx
def claim_history(
    obj: _Context, engine: str, model: str | None, capability: str | None, fmt: str
) -> None:
    """Show every change to an engine's claims, oldest first."""
    events = obj.registry().claim_history(engine, model=model, capability=capability)
    _emit(events, fmt, EVENT_COLUMNS)


# -- audit ---------------------------------------------------------------------------


@main.command(name="audit")
@click.option(
    "--status",
    type=click.Choice(EVIDENCE_STATUSES),
    default=None,
    help="Only claims with this evidence status.",
)
@click.option("--capability", default=None, help="Only this capability.")
@click.option("--engine", default=None, help="Only this engine.")
@click.option(
    "--enabling",
    is_flag=True,
    help="Only native-media claims that enable something on evidence weaker than live-verified.",
)
@click.option(
    "--stale-days",
    type=click.IntRange(min=0, max=36500),
    default=None,
    metavar="N",
    help="Only claims not checked in the last N days (or never): a model's claim counts "
    "from its latest observation where there is one, else from verified_at.",
)
@click.option(
    "--conflicts",
    is_flag=True,
    help="Claims the latest observation of the same engine, model and capability contradicts.",
)
@click.option(
    "--unobserved",
    is_flag=True,
    help="Native-media flags that resolve to on with no observation behind them.",
)
@_format_option
@_pass_ctx
def audit(obj: _Context, **options: Any) -> None:
    """List claims by evidence: what is live-verified, what rests on weaker evidence."""
    from ._probe_cli import audit_rows

    audit_rows(obj, **options)


# -- resolve and format ----------------------------------------------------------------


def _resolution(
    obj: _Context, engine: str, model: str, wire: str | None, min_evidence: str | None
) -> Resolution:
    return Resolver(obj.registry()).resolve(engine, model, wire=wire, min_evidence=min_evidence)


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


@main.command(name="resolve")
@click.argument("engine")
@click.argument("model")
@_wire_option
@_evidence_option
@click.option("--explain", is_flag=True, help="Show which claim decided each flag and why.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)
@_pass_ctx
def resolve_command(
    obj: _Context,
    engine: str,
    model: str,
    wire: str | None,
    min_evidence: str | None,
    explain: bool,
    fmt: str,
) -> None:
    """Show the wire and converter options MODEL on ENGINE gets."""
    resolution = _resolution(obj, engine, model, wire, min_evidence)
    if fmt == "json":
        data = resolution.as_dict()
        if not explain:
            del data["trace"]
        else:
            from ._probe_cli import explain_observations

            observed = explain_observations(obj, engine, model)
            data["observations"] = {flag: as_row(o) for flag, o in observed.items()}
        _echo_json(data)
    elif explain:
        from ._probe_cli import explain_observations

        click.echo(resolution.explain(observations=explain_observations(obj, engine, model)))
    else:
        click.echo(f"wire: {resolution.wire}")
        for flag, value in resolution.capabilities.items():
            click.echo(f"{flag}: {'true' if value else 'false'}")
        opts = ", ".join(f"{k}={json.dumps(v)}" for k, v in resolution.options.items())
        click.echo(f"options: {opts or '(none)'}")


@main.command(name="format")
@click.argument("engine")
@click.argument("model")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@_wire_option
@_evidence_option
@click.option("--id", "call_id", default="", help="Call id for a single result without one.")
@click.option("--name", default="", help="Tool name for a single result without one.")
@_pass_ctx
def format_command(
    obj: _Context,
    engine: str,
    model: str,
    file: Any,
    wire: str | None,
    min_evidence: str | None,
    call_id: str,
    name: str,
) -> None:
    """Print FILE as the wire payload MODEL on ENGINE gets (FILE: JSON, - for stdin).

    FILE holds an MCP CallToolResult, or a list of them.

    A list holds objects of the form {"id": ..., "name": ..., "result": CallToolResult}
    (or CallToolResults with "id"/"name" keys beside "content").
    """
    results = _read_results(file, call_id, name)
    resolution = _resolution(obj, engine, model, wire, min_evidence)
    payload = resolution.format(results)
    _echo_json(payload)


def _read_results(file: Any, call_id: str, name: str) -> list[ToolResult]:
    label = "stdin" if file.name == "<stdin>" else file.name
    try:
        data = json.load(file)
    except json.JSONDecodeError as exc:
        raise click.ClickException(f"{label}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise click.ClickException(f"{label}: not UTF-8 text") from None
    except (RecursionError, ValueError) as exc:  # nested too deep, a number too long
        raise click.ClickException(f"{label}: unusable JSON ({type(exc).__name__})") from None
    entries = data if isinstance(data, list) else [data]
    if not entries:
        raise click.ClickException(f"{label}: no tool results")
    results = []
    for index, entry in enumerate(entries):
        where = f"{label}[{index}]" if isinstance(data, list) else label
        if not isinstance(entry, dict):
            raise click.ClickException(f"{where}: expected an object, not {type(entry).__name__}")
        body = entry.get("result", entry)
        try:
            results.append(
                ToolResult.from_mcp(
                    body,
                    id=str(entry.get("id", call_id) or ""),
                    name=str(entry.get("name", name) or ""),
                )
            )
        except ToolwireError as exc:
            raise click.ClickException(f"{where}: {exc}") from None
    return results


if __name__ != "__main__":  # run as a script, the imported module below registers them
    from ._probe_cli import register as _register_probe_commands  # imports this module

    _register_probe_commands(main)


def run() -> None:  # pragma: no cover - console entry point wrapper
    """Run the CLI (the console script)."""
    main(prog_name="toolwire")


if __name__ == "__main__":  # pragma: no cover
    from toolwire.registry.cli import main as _main  # the module, with every command

    sys.exit(_main())
