"""What every command module shares: the context, error mapping, options and output.

Nothing here imports SQLAlchemy, alembic or the store at module level: ``toolwire
--help`` loads click and these modules only; a command imports what it needs when
it runs.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import update_wrapper
from typing import TYPE_CHECKING, Any, TypeVar

import click
from toolwire.convert import ToolwireError

from .._output import FORMATS, as_row, render, safe_json, shown, table

if TYPE_CHECKING:
    from ..records import Rule
    from ..store import Registry

F = TypeVar("F", bound=Callable[..., Any])

ENGINE_COLUMNS = ("name", "provider", "family", "default_wire", "kind", "base_url")
MODEL_COLUMNS = ("engine", "model_id", "wire", "note")
RULE_COLUMNS = ("engine", "position", "ref", "match", "pattern", "wire", "claims", "note")
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


class Context:
    """What the group passes to every command: the database URL and a lazy registry."""

    def __init__(
        self,
        url: str | None,
        busy_timeout: float,
        *,
        explicit: bool = False,
        origin: str | None = None,
    ) -> None:
        self.url = url
        self.busy_timeout = busy_timeout
        #: the URL came from --database-url or TOOLWIRE_DATABASE_URL
        self.explicit = explicit
        #: where the URL came from, as error messages name it (None: the default file)
        self.origin = origin if origin is not None else ("--database-url" if explicit else None)
        self._registry: Registry | None = None

    def registry(self, *, setup: bool = True, create: bool = False) -> Registry:
        """Return the registry, opened on first use.

        Only the default database is created (and seeded) on first use; a database
        named with ``--database-url``/``TOOLWIRE_DATABASE_URL`` must hold a registry
        already (``toolwire db upgrade`` creates one), so a mistyped URL creates
        nothing; ``create`` (``db upgrade``) lifts that.
        """
        if self._registry is None:
            from ..errors import DatabaseError
            from ..store import Registry

            try:
                self._registry = Registry(
                    self.url,
                    setup=setup,
                    create=create or not self.explicit,
                    busy_timeout=self.busy_timeout,
                )
            except DatabaseError as error:
                if self.origin is None:
                    raise
                raise click.ClickException(f"{error} (the URL came from {self.origin})") from None
        return self._registry

    def close(self) -> None:
        """Close the registry if a command opened it."""
        if self._registry is not None:
            self._registry.close()


class _Trouble(click.ClickException):
    """A one-line failure that exits 2 (``diff``: the two could not be compared)."""

    exit_code = 2


@contextmanager
def user_errors(*, exit_code: int = 1) -> Iterator[None]:
    """Turn the errors a user can cause into one line and exit ``exit_code`` (1 or 2)."""
    failure = _Trouble if exit_code == 2 else click.ClickException
    try:
        yield
    except ToolwireError as exc:
        raise failure(shown(str(exc))) from None
    except BrokenPipeError:  # the reader went away (`| head`): click ends quietly
        raise
    except OSError as exc:
        message = f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
        raise failure(message) from None


def pass_ctx(fn: F) -> F:
    """Give the command the ``Context`` and map user errors to one-line failures."""

    @click.pass_obj
    def wrapper(obj: Context, /, *args: Any, **kwargs: Any) -> Any:
        with user_errors():
            return fn(obj, *args, **kwargs)

    return update_wrapper(wrapper, fn)  # type: ignore[return-value]


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    ctx.meta[f"toolwire.{param.name}"] = value
    return value


def format_option(fn: F) -> F:
    """Add ``--format table|json|csv``, ``--wide``, ``--columns`` and ``--csv-raw``.

    ``emit`` reads them (docs/tables.md says what each does).
    """
    fn = click.option(
        "--csv-raw",
        is_flag=True,
        expose_value=False,
        callback=_remember,
        help="With --format csv: write cells exactly as stored, without the leading ' "
        "that keeps a spreadsheet from running a cell starting with = + - @ as a "
        "formula, and with control characters as they are.",
    )(fn)
    fn = click.option(
        "--columns",
        default=None,
        metavar="A,B,...",
        expose_value=False,
        callback=_remember,
        help="Only these columns, in this order (comma-separated, any case).",
    )(fn)
    fn = click.option(
        "--wide",
        is_flag=True,
        expose_value=False,
        callback=_remember,
        help="Do not fit the table to the terminal width: every column, every cell whole "
        "(into a pipe or a file they always are).",
    )(fn)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Output format.",
    )(fn)


#: ``--format table|json``, for commands whose output is no table (resolve, diff,
#: db current): no ``--wide`` or ``--columns`` there.
text_or_json_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)


def actor_option(fn: F) -> F:
    """Add ``--by NAME``."""
    return click.option(
        "--by",
        "actor",
        default=None,
        metavar="NAME",
        help="Who records this (default: $TOOLWIRE_USER or the login name).",
    )(fn)


def who(given: str | None) -> str:
    """Return who records a write: ``--by``, else $TOOLWIRE_USER, else the login name.

    An empty ``--by`` is refused (the registry refuses blank actors).
    """
    if given is not None:
        return given
    if os.environ.get("TOOLWIRE_USER"):
        return os.environ["TOOLWIRE_USER"]
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container user without a passwd entry)
        return f"uid:{os.getuid()}" if hasattr(os, "getuid") else "unknown"


def unknown_name(kind: str, value: str, known: Iterable[str]) -> click.ClickException:
    """Return the one-line error for a ``kind`` name nothing knows, with the closest names.

    The same words as the registry's own errors: ``unknown engine 'opneai'; did you
    mean 'openai'?``; with nothing close, the known names (up to twelve of them).
    """
    from ..errors import _closest

    names = sorted(set(known))
    _, hint = _closest(value, names)
    if not hint and names:
        shown = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
        hint = f"; known: {shown}"
    elif not hint:
        hint = f"; no {kind} is known here"
    return click.ClickException(f"unknown {kind} {value!r}{hint}")


def check_known(
    kind: str, value: str | None, known: Iterable[str] | Callable[[], Iterable[str]]
) -> None:
    """Refuse (exit 1, did-you-mean) a ``value`` that is not among the ``known`` names.

    ``known`` may be a function, called only when needed. None passes (no filter).
    """
    if value is None:
        return
    names = known() if callable(known) else known
    names = names if isinstance(names, (set, frozenset, dict)) else set(names)
    if value not in names:
        raise unknown_name(kind, value, names)


def check_filters(
    obj: Context,
    *,
    engine: str | None = None,
    model: str | None = None,
    capability: str | None = None,
) -> None:
    """Refuse filters that name no engine, model or capability the registry knows.

    Call it when a listing came back empty, so that a typo (``opneai``) is an error
    with the closest names instead of ``(none)``. Engines and models are known when
    they are recorded, or have history or observations under that name (both are
    kept by name and outlive a removal); capabilities when they are in the vocabulary.
    """
    registry = obj.registry()

    def engines() -> set[str]:
        names = {e.name for e in registry.engines()}
        if engine not in names and (
            registry.log(engine=engine, limit=1) or _observations(obj, engine)
        ):
            names.add(str(engine))
        return names

    check_known("engine", engine, engines)
    check_known("capability", capability, lambda: {c.name for c in registry.capabilities()})
    if model is not None:
        recorded = engine is None or engine in {e.name for e in registry.engines()}

        def models() -> set[str]:
            names = {m.model_id for m in registry.models(engine)} if recorded else set()
            names |= {o.model for o in _observations(obj, engine)}
            if engine is not None and registry.claim_history(engine, model=model):
                names.add(model)
            return names

        check_known("model", model, models)


def _observations(obj: Context, engine: str | None) -> tuple[Any, ...]:
    from .. import observations

    return observations.list_observations(obj.registry(), engine)


class NameChoice(click.Choice):  # type: ignore[type-arg]
    """A fixed vocabulary (status, scenario, outcome) refused like the registry's names.

    A value outside it fails with the did-you-mean line of ``unknown_name`` and exit 1,
    as an unknown engine or capability does; completion offers the choices.
    """

    def __init__(self, kind: str, choices: Sequence[str]) -> None:
        super().__init__(choices)
        self.kind = kind

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """Return ``value`` when it is one of the choices."""
        if value in self.choices:
            return value
        raise unknown_name(self.kind, str(value), map(str, self.choices))


class Seconds(click.FloatRange):
    """A number of seconds within a range; NaN, which passes every comparison, is refused."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """Return the number of seconds, or fail as bad usage naming the option."""
        number = super().convert(value, param, ctx)
        if number != number:
            self.fail("not a number", param, ctx)
        return number


class Days(click.IntRange):
    """A whole number of days, refused by the registry's one check (``vocab.check_days``).

    An ``IntRange`` over the same limit only so the help shows the range.
    """

    def __init__(self) -> None:
        from ..vocab import POLICY_MAX_DAYS

        super().__init__(min=0, max=POLICY_MAX_DAYS)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """Return the number of days, or fail as bad usage naming the option."""
        from ..errors import InvalidInput
        from ..vocab import check_days

        number = click.INT.convert(value, param, ctx)
        what = param.opts[0] if param is not None and param.opts else "days"
        try:
            return check_days(number, what)
        except InvalidInput as error:  # the check's own line, as bad usage (exit 2)
            raise click.UsageError(str(error), ctx) from None


def _completion_registry(ctx: click.Context) -> Registry | None:
    """Open the registry the command line names, for completion (None: there is none).

    Nothing is created or migrated: completing a word must not set a database up.
    """
    from ..store import Registry

    url = ctx.find_root().params.get("database_url")
    try:
        return Registry(url, setup=False, create=False)
    except Exception:  # no registry there, or it cannot be read: nothing to offer
        return None


def _offer(
    ctx: click.Context, incomplete: str, names: Callable[[Registry], Iterable[str]]
) -> list[Any]:
    from click.shell_completion import CompletionItem

    registry = _completion_registry(ctx)
    if registry is None:
        return []
    try:
        found = sorted(set(names(registry)))
    except Exception:  # an unknown engine typed before, a database error: offer nothing
        return []
    finally:
        registry.close()
    return [CompletionItem(name) for name in found if name.startswith(incomplete)]


def complete_engine(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete an engine name from the registry."""
    return _offer(ctx, incomplete, lambda r: (e.name for e in r.engines()))


def complete_capability(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete a capability name from the registry's vocabulary."""
    return _offer(ctx, incomplete, lambda r: (c.name for c in r.capabilities()))


def complete_model(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete a model id of the engine already typed: recorded ones and exact rules."""
    engine = ctx.params.get("engine")
    if not isinstance(engine, str):
        # Completing an option's value (--model), click stops parsing at the option that
        # lacks it and leaves the words before it in ctx.args; ENGINE is the first one in
        # every command that takes a model.
        given = [word for word in ctx.args if not word.startswith("-")]
        if not given:
            return []
        engine = given[0]

    def models(registry: Registry) -> Iterable[str]:
        snapshot = registry.engine_snapshot(engine)
        yield from snapshot.models
        yield from (r.pattern for r in snapshot.rules if r.match == "exact")

    return _offer(ctx, incomplete, models)


def emit(rows: Sequence[Any], fmt: str, columns: Sequence[str]) -> None:
    """Print records (dataclasses or dicts) as a table, JSON or CSV.

    ``--columns`` picks and orders the columns (any field of the rows, in any case:
    the table's header shows them in capitals); a table is fitted to the terminal
    width unless ``--wide``, and the columns it had to leave out are named on stderr.
    """
    data = [r if isinstance(r, dict) else as_row(r) for r in rows]
    meta = click.get_current_context().meta
    chosen = meta.get("toolwire.columns")
    if chosen is not None:  # given, even empty (which names no column)
        known = list(dict.fromkeys([*columns, *(k for row in data for k in row)]))
        by_case = {name.lower(): name for name in known}
        asked = [c.strip() for c in chosen.split(",") if c.strip()]
        unknown = [c for c in asked if c.lower() not in by_case]
        if unknown or not asked:
            what = f"unknown column(s) {shown(', '.join(unknown))}" if unknown else "no column"
            raise click.BadParameter(
                f"{what}; available: {', '.join(known)}", param_hint="--columns"
            )
        columns = list(dict.fromkeys(by_case[c.lower()] for c in asked))  # each once
    meta["toolwire.rows"] = meta.get("toolwire.rows", 0) + len(data)
    if fmt != "table":
        raw = fmt == "csv" and bool(meta.get("toolwire.csv_raw"))
        echo(render(data, fmt, columns, csv_raw=raw), raw=raw)
        return
    limit = width()
    fitted = table(data, columns, width=limit)
    echo(fitted.text)
    if fitted.hidden:
        echo(
            f"(left out to fit {limit} columns: {', '.join(fitted.hidden)}; "
            "--wide or --columns shows them)",
            err=True,
        )


def rows_emitted() -> int:
    """Return how many rows ``emit`` printed in this command so far (``--exit-code``)."""
    return int(click.get_current_context().meta.get("toolwire.rows", 0))


def width() -> int | None:
    """Return the terminal width tables are cut to; None (whole cells) with ``--wide``.

    Only a terminal gets cut cells: into a pipe or a file every cell goes whole, so
    ``toolwire audit | grep NAME`` finds what the table holds.
    """
    if click.get_current_context().meta.get("toolwire.wide") or not to_terminal():
        return None
    return shutil.get_terminal_size((100, 24)).columns


def to_terminal() -> bool:
    """Return whether stdout is a terminal (a table is fitted, a legend shown)."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # no stdout, or a closed one
        return False


def cut(line: str, limit: int | None) -> str:
    """Return ``line`` cut to ``limit`` characters with ``…`` (None: as it is)."""
    return line if limit is None or len(line) <= limit else line[: limit - 1] + "…"


def echo(text: str, *, err: bool = False, raw: bool = False) -> None:
    """Print ``text`` with its control characters shown (``_output.shown``: ESC as ``^[``).

    Newlines and tabs stay; ``raw`` (``--csv-raw``) prints them all as they are. A lone
    surrogate (not UTF-8) is printed as its escape, ``\\ud800``.
    """
    if not raw:
        text = shown(text, newlines=True)
    try:
        click.echo(text, err=err)
    except UnicodeEncodeError:
        click.echo(text.encode("utf-8", "backslashreplace").decode("utf-8"), err=err)


def echo_json(data: Any) -> None:
    """Print one JSON document."""
    echo(safe_json(json.dumps(data, indent=2, ensure_ascii=False)))


def rule_row(rule: Rule) -> dict[str, Any]:
    """Return a rule as an output row: its ``rule:N`` reference and its claims in one cell."""
    row = as_row(rule)
    row["ref"] = f"rule:{rule.id}"
    from .._values import show_value

    row["claims"] = ", ".join(f"{c.capability}={show_value(c.value)}" for c in rule.claims.values())
    return row
