"""Decide the converter options for an engine and a model (the ADR 0039 rule).

For (engine, model, optional forced wire):

1. wire = the forced wire, else the model's wire override, else the wire of the
   last matching rule that sets one, else the engine's default wire;
2. every flag (``FLAGS``: ``image_input``, ``tool_result_images``,
   ``tool_result_pdf``, ``source_blocks``, ``pdf_input``,
   ``tool_result_url_sources``, ``hoist_media``) is decided by the most specific
   claim: the model's own claim, else the last matching rule that claims it, else
   the engine's claim, else absent (false). Under an evidence policy (``min_evidence``) a claim
   weaker than the policy counts as absent: the next, less specific claim decides; a claim
   past its status's age (``toolwire.registry.evidence``) counts one tier lower there;
3. ``tool_result_images`` survives only if the wire carries images natively
   (``carries_native``) and, where that form needs vision
   (``native_needs_vision``), the model has ``image_input``;
4. ``tool_result_pdf`` likewise for PDFs; on a wire that reads ``source_blocks``
   (anthropic) the PDF goes as a document source block, so it also needs
   ``source_blocks``;
5. converter options: ``image_input`` = tool_result_images, ``native_pdf`` =
   tool_result_pdf, ``source_blocks``, the engine's ``response_tag``, and
   ``call_ids`` when the engine's family is ``openai`` (an OpenAI-compatible chat
   endpoint, where a tool message needs its ``tool_call_id``) -- only those the
   wire reads (``toolwire.convert.wire_options``: ``call_ids`` on hermes);
6. ``tool_result_url_sources`` survives only on a wire with URL sources and when
   an image or PDF goes natively; it sets ``url_sources``;
7. ``hoist_media`` survives only on a wire that hoists (openai, ollama) and when
   the model reads images (``image_input``) or PDFs (``pdf_input``, openai) in a
   user turn; it sets ``hoist`` with ``image_input`` = image_input and
   ``native_pdf`` = pdf_input (none of the three otherwise);
8. every limit (``LIMITS``: ``max_image_bytes``, ``max_pdf_bytes``, ``max_image_side``,
   ``max_images``, ``many_images``, ``many_images_max_side``, ``max_pdf_pages``,
   ``max_pdf_request_bytes``, ``image_mimes``) is decided by the most specific claim
   the evidence policy accepts, as a flag is; a decided limit becomes the converter
   option of the same name where the wire reads it (on a wire that hoists, only with
   ``hoist``: its tool message carries no media). An absent limit is no option:
   the converter's default for the wire applies.

A model is known when the engine records it or a rule of the engine matches its id;
an unknown one gets the engine's claims alone, and its resolution says so
(``known``, ``suggestions``: the closest recorded ids and exact-rule ids, computed
only for an unknown model and cached with its resolution).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, cast

from sqlalchemy import select
from toolwire.convert import (
    KINDS,
    LIMIT_OPTIONS,
    Decision,
    IdMap,
    ToolResult,
    carries_native,
    convert_tool_results,
    format_tool_results,
    native_needs_vision,
    report_call,
    wire_options,
)

from . import _aging, _values
from . import _validate as check
from . import evidence as _evidence
from ._changes import ChangeWatch
from ._precedence import claims_in_order, rule_label
from ._public import shown_in_package
from .errors import InvalidInput, UnknownModel, closest_models, unnamed_model
from .records import Claim, EngineSnapshot, Model, Rule
from .store import Registry
from .tables import engine_table, model_table
from .vocab import evidence_rank

__all__ = [
    "FLAGS",
    "LIMITS",
    "FlagTrace",
    "LimitTrace",
    "Resolution",
    "Resolver",
    "format_for",
    "reformat_for",
    "resolve",
]

#: The flags the resolver decides, in the order it decides them.
FLAGS = (
    "image_input",
    "tool_result_images",
    "tool_result_pdf",
    "source_blocks",
    "pdf_input",
    "tool_result_url_sources",
    "hoist_media",
)
#: The limits the resolver decides (``int`` and ``mimes`` capabilities): the converter's
#: limit options (``toolwire.convert.LIMIT_OPTIONS``), each capability setting the
#: option of its name (sizes in decoded bytes, sides in pixels, counts per request;
#: ``image_mimes`` a tuple of MIME types).
LIMITS: tuple[str, ...] = LIMIT_OPTIONS
_KIND = {"tool_result_images": "image", "tool_result_pdf": "pdf"}
#: The engine family of an OpenAI-compatible chat endpoint: a hermes tool message
#: sent there carries its call id (``call_ids``).
CHAT_FAMILY = "openai"
_WIDTH = max(map(len, FLAGS))  # the flag column of ``explain``


class _Decided:
    """What a flag's and a limit's trace share: the deciding claim, where it sits, the
    claims the evidence policy set aside, and their JSON form (the one home of it: a
    trace gives its own value fields, :meth:`value_json`, and what changed the value
    after the claim, :meth:`after_json`)."""

    __slots__ = ()
    decided_by: str
    claim: Claim | None
    ignored: tuple[tuple[str, Claim], ...]
    stale: str | None
    ignored_stale: tuple[str | None, ...]

    @property
    def status(self) -> str | None:
        """The evidence status of the deciding claim."""
        return self.claim.status if self.claim is not None else None

    def value_json(self) -> dict[str, Any]:
        """The value fields of this trace's JSON form (first in it)."""
        raise NotImplementedError

    def after_json(self) -> dict[str, Any]:
        """What changed the value after the claim decided it (after the claim's fields)."""
        return {}

    def as_dict(self) -> dict[str, Any]:
        """Return the trace entry as JSON-ready data."""
        claim = self.claim
        return {
            **self.value_json(),
            "decided_by": self.decided_by,
            "status": self.status,
            "evidence": claim.evidence if claim else None,
            "source": claim.source if claim else None,
            **self.after_json(),
            "stale": self.stale,
            "ignored": [
                {
                    "decided_by": where,
                    "value": _values.json_value(c.value),  # MIME types as a list
                    "status": c.status,
                    "stale": stale,
                }
                for (where, c), stale in zip(self.ignored, self._ignored_stale(), strict=True)
            ],
        }

    def _ignored_stale(self) -> tuple[str | None, ...]:
        """Why each claim in ``ignored`` is stale, or None (one per claim)."""
        return self.ignored_stale or (None,) * len(self.ignored)


@dataclass(frozen=True, slots=True)
class FlagTrace(_Decided):
    """How one flag got its final value."""

    flag: str
    value: bool
    #: the claimed value before any wire fact or policy (None: nobody claimed it)
    claimed: bool | None
    #: where the deciding claim sits: "model", "rule:ID <match> <pattern>", "engine" or "none"
    decided_by: str
    claim: Claim | None
    #: why a claimed true ended up false (None when it was not cleared)
    cleared_by: str | None = None
    #: (where, claim) of the more specific claims the evidence policy set aside
    ignored: tuple[tuple[str, Claim], ...] = ()
    #: why the deciding claim is past its status's age ("verified …, policy N days")
    stale: str | None = None
    #: for each claim in ``ignored``: why it is stale, or None
    ignored_stale: tuple[str | None, ...] = ()

    def value_json(self) -> dict[str, Any]:
        """The final value and the claimed one."""
        return {"value": self.value, "claimed": self.claimed}

    def after_json(self) -> dict[str, Any]:
        """Why a claimed true ended up false."""
        return {"cleared_by": self.cleared_by}


@dataclass(frozen=True, slots=True)
class LimitTrace(_Decided):
    """How one limit got its value (or none: the converter's default for the wire)."""

    limit: str
    #: the deciding claim's value; None when no claim the policy accepts decides
    value: _values.ClaimValue | None
    #: where the deciding claim sits: "model", "rule:ID <match> <pattern>", "engine" or "none"
    decided_by: str
    claim: Claim | None
    #: (where, claim) of the more specific claims the evidence policy set aside
    ignored: tuple[tuple[str, Claim], ...] = ()
    #: why the deciding claim is past its status's age, or None
    stale: str | None = None
    #: for each claim in ``ignored``: why it is stale, or None
    ignored_stale: tuple[str | None, ...] = ()

    def value_json(self) -> dict[str, Any]:
        """The deciding claim's value (MIME types as a list)."""
        return {"value": _values.json_value(self.value)}


def _no_limits() -> Mapping[str, _values.ClaimValue]:
    return MappingProxyType({})


def _no_limit_trace() -> Mapping[str, LimitTrace]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Resolution:
    """The wire and converter options for one engine and model, with the reasons."""

    engine: str
    model: str
    wire: str
    #: where the wire came from: "forced", "model", "rule:ID <match> <pattern>" or "engine"
    wire_from: str
    options: Mapping[str, Any]
    capabilities: Mapping[str, bool]
    trace: Mapping[str, FlagTrace]
    min_evidence: str | None
    revision: int
    #: evidence status of each native form the wire in force has (kind -> status)
    native_forms: Mapping[str, str]
    #: the engine's call-id rule (``toolwire.convert.ID_RULES``); None: the wire's own
    id_rule: str | None = None
    #: whether a recorded model or a rule of the engine names the model
    known: bool = True
    #: for an unknown model: the closest recorded ids and exact-rule ids, best first
    suggestions: tuple[str, ...] = ()
    #: the limits claims decide (``LIMITS``; an absent one is the wire's default)
    limits: Mapping[str, _values.ClaimValue] = field(default_factory=_no_limits)
    #: how each limit with a claim (accepted or set aside) got its value
    limit_trace: Mapping[str, LimitTrace] = field(default_factory=_no_limit_trace)

    @property
    def notice(self) -> str | None:
        """Return the one line saying the model is unknown here (None for a known one)."""
        if self.known:
            return None
        return unnamed_model(self.engine, self.model, self.suggestions)

    def format(
        self,
        results: Iterable[ToolResult],
        *,
        ids: IdMap | None = None,
        raw_bytes: bool = False,
        already_sent: object = None,
    ) -> list[Any]:
        """Return ``results`` formatted for this resolution's wire and options.

        Ids and names are checked under the engine's id rule (else the wire's), or
        mapped by ``ids``. ``raw_bytes``: payloads as ``bytes`` where the wire carries
        blobs (bedrock, for boto3, which base64-encodes them itself); other wires
        ignore it. ``already_sent``: the images and PDF pages and bytes the rest of
        the request already holds (``toolwire.convert.AlreadySent`` or a mapping),
        counted against the request limits.

        :raises InvalidId: for an id or name the rule refuses (without ``ids``).
        :raises InvalidOption: for a bad ``already_sent`` or ``raw_bytes``.
        """
        if ids is None and self.id_rule is None and raw_bytes is False and already_sent is None:
            return format_tool_results(self.wire, results, **self.options)
        return format_tool_results(
            self.wire,
            results,
            already_sent=already_sent,
            **self.options,
            **self._ids(ids),
            **_raw(raw_bytes),
        )

    def reformat(
        self,
        source_wire: str,
        blocks: Iterable[Any],
        *,
        names: Mapping[str, str] | None = None,
        ids: IdMap | None = None,
        raw_bytes: bool = False,
        already_sent: object = None,
    ) -> list[Any]:
        """Return tool-result ``blocks`` of ``source_wire`` re-targeted to this resolution.

        See ``toolwire.convert.convert_tool_results`` (``names``: call id -> tool name;
        ``ids``: an ``IdMap``, used when the wire changes or the engine has a rule of
        its own; ``raw_bytes`` and ``already_sent`` as in :meth:`format`).

        :raises InvalidBlock: for a block that is not of ``source_wire``.
        :raises UnknownWire: for a source wire not in ``WIRES``.
        :raises InvalidId: for an id or name the rule refuses (without ``ids``).
        """
        return convert_tool_results(
            source_wire,
            self.wire,
            blocks,
            names=names,
            already_sent=already_sent,
            **self.options,
            **self._ids(ids),
            **_raw(raw_bytes),
        )

    def _ids(self, ids: IdMap | None) -> dict[str, Any]:
        extra: dict[str, Any] = {} if ids is None else {"ids": ids}
        if self.id_rule is not None:
            extra["id_rule"] = self.id_rule
        return extra

    def report(
        self, results: Iterable[ToolResult], *, already_sent: object = None
    ) -> list[tuple[Decision, ...]]:
        """Return, per result, what each content item becomes here and why.

        ``convert.report_call``: what :meth:`format` with the same ``results`` and
        ``already_sent`` sends, request limits included. The reasons say what would
        change the outcome where the registry knows it (``_why``): ``unknown_model``,
        ``hoist_off``, ``not_in_tool_result``.
        """
        found = report_call(self.wire, results, already_sent=already_sent, **self.options)
        return [tuple(self._why(d) for d in decisions) for decisions in found]

    def report_json(
        self, results: Sequence[ToolResult], *, already_sent: object = None
    ) -> list[dict[str, Any]]:
        """Return :meth:`report` as JSON-ready data, one entry per result:
        ``{"result": index, "id", "name", "items": [decision, ...]}`` (what ``toolwire
        format --report`` prints and the service's ``report`` holds)."""
        found = self.report(results, already_sent=already_sent)
        return [
            {
                "result": index,
                "id": result.id,
                "name": result.name,
                "items": [decision.as_dict() for decision in decisions],
            }
            for index, (result, decisions) in enumerate(zip(results, found, strict=True))
        ]

    def _why(self, decision: Decision) -> Decision:
        """Return ``decision`` with its reason saying what would change the outcome.

        A placeholder for an image on a wire whose tool message has no form for it
        (openai, ollama) names hoisting (``hoist_off``) when hoisting is off; one the
        model "does not read" is ``unknown_model`` for an unknown model, and
        ``not_in_tool_result`` when the model reads that kind in a user turn (its
        ``image_input`` or ``pdf_input``) but the wire's tool result cannot carry it
        for this model (Gemini 2.x on the gemini wire).
        """
        reason = decision.reason
        if decision.outcome != "placeholder" or reason not in ("no_form", "not_read"):
            return decision
        kind = "image" if decision.mime.startswith("image/") else None
        if decision.mime == "application/pdf":
            kind = "pdf"
        if reason == "no_form":
            if kind != "image" or "hoist" not in wire_options(self.wire):
                return decision
            if self.options.get("hoist"):
                return decision
            reason = _HOIST_OFF
        elif not self.known:
            reason = _UNKNOWN_MODEL
        elif kind is not None and carries_native(self.wire, kind):
            if not self.capabilities.get("image_input" if kind == "image" else "pdf_input"):
                return decision
            reason = _NOT_IN_TOOL_RESULT
        else:
            return decision
        index, type_, outcome, _, mime, size = decision.as_tuple()
        return Decision(index, type_, outcome, reason, mime, size)

    def as_dict(self) -> dict[str, Any]:
        """Return the resolution as JSON-ready data (wire, options, capabilities, trace)."""
        return {
            "engine": self.engine,
            "model": self.model,
            "known": self.known,
            "suggestions": list(self.suggestions),
            "wire": self.wire,
            "wire_from": self.wire_from,
            "options": {k: _values.json_value(v) for k, v in self.options.items()},
            "capabilities": dict(self.capabilities),
            "limits": {k: _values.json_value(v) for k, v in self.limits.items()},
            "min_evidence": self.min_evidence,
            "native_forms": dict(self.native_forms),
            "trace": {flag: entry.as_dict() for flag, entry in self.trace.items()},
            "limit_trace": {name: entry.as_dict() for name, entry in self.limit_trace.items()},
        }

    def explain(self) -> str:
        """Return the trace as readable text: each flag, its claim, what cleared it."""
        lines = [
            f"{self.engine} / {self.model}: wire {self.wire} (from {self.wire_from})",
        ]
        if self.notice is not None:
            lines.append(f"{self.notice} (the engine's claims alone decide)")
        if self.min_evidence:
            lines.append(f"evidence policy: claims weaker than {self.min_evidence} count as absent")
        for entry in self.trace.values():
            state = "on " if entry.value else "off"
            if entry.claim is None:
                why = "no claim" if not entry.ignored else "no claim meets the evidence policy"
                why += " (absent = off)"
            else:
                claim = entry.claim
                why = f"{entry.decided_by} claims {str(claim.value).lower()} [{claim.status}]"
                if claim.evidence:
                    why += f": {claim.evidence}"
            lines.append(f"  {entry.flag:<{_WIDTH}} {state}  {why}")
            if entry.stale:
                lines.append(f"  {'':<{_WIDTH}}      stale: {entry.stale}")
            for (where, claim), stale in zip(entry.ignored, entry._ignored_stale(), strict=True):
                aged = f", stale: {stale}" if stale else ""
                lines.append(
                    f"  {'':<{_WIDTH}}      ignored: {where} claims {str(claim.value).lower()} "
                    f"[{claim.status}{aged}], weaker than {self.min_evidence}"
                )
            if entry.cleared_by:
                lines.append(f"  {'':<{_WIDTH}}      cleared: {entry.cleared_by}")
        if self.limit_trace:
            lines.append("limits (no claim: the converter's default for the wire):")
        for limit in self.limit_trace.values():
            shown = "-" if limit.value is None else _values.show_value(limit.value)
            if limit.claim is None:
                why = "no claim meets the evidence policy"
            else:
                why = f"{limit.decided_by} claims {shown} [{limit.claim.status}]"
                if limit.claim.evidence:
                    why += f": {limit.claim.evidence}"
            lines.append(f"  {limit.limit:<{_WIDTH}} {shown}  {why}")
            if limit.stale:
                lines.append(f"  {'':<{_WIDTH}}      stale: {limit.stale}")
            stales = limit.ignored_stale or (None,) * len(limit.ignored)
            for (where, claim), stale in zip(limit.ignored, stales, strict=True):
                aged = f", stale: {stale}" if stale else ""
                value = _values.show_value(claim.value)
                lines.append(
                    f"  {'':<{_WIDTH}}      ignored: {where} claims {value} [{claim.status}"
                    f"{aged}], weaker than {self.min_evidence}"
                )
        if self.native_forms:
            forms = ", ".join(f"{kind} {status}" for kind, status in self.native_forms.items())
            lines.append(f"native forms on the {self.wire} wire: {forms}")
        options = ", ".join(f"{k}={_show(v)}" for k, v in self.options.items()) or "(none)"
        lines.append(f"converter options: {options}")
        return "\n".join(lines)


def _show(value: object) -> str:
    return _values.show_value(value)


_UNKNOWN_MODEL = "unknown_model"  # keys of REASONS the resolver sets
_HOIST_OFF = "hoist_off"
_NOT_IN_TOOL_RESULT = "not_in_tool_result"


class Resolver:
    """Resolve engines and models against one registry, with an in-process cache.

    Resolutions (and the registry rows behind them) are cached. Before each use the
    registry's change watch is asked whether anything was committed since (see
    ``_changes``: on SQLite one ``PRAGMA data_version``, on PostgreSQL the
    notifications already received), so a change made anywhere -- another process,
    the CLI -- is seen by the next call. Where the watch is not exact, or there is
    none, the revision counter is also read at most every ``max_age`` seconds.
    """

    def __init__(self, registry: Registry, *, max_age: float = 0.5) -> None:
        """Resolve against ``registry``.

        :raises InvalidInput: for a ``registry`` that is not a ``Registry``, or a
            ``max_age`` that is not a number of seconds from 0.
        """
        self.registry = _registry(registry)
        self.max_age = check.seconds(max_age, "max_age", _MAX_AGE_MOST)
        self._lock = threading.Lock()
        self._revision: int | None = None
        self._checked = 0.0
        self._watch: ChangeWatch | None = None
        self._watch_opened = False
        self._snapshots: dict[tuple[str, str], EngineSnapshot] = {}
        self._resolutions: dict[tuple[str, str, str | None, str | None], Resolution] = {}
        self._forms: dict[tuple[str, str], str] | None = None
        self._policy: Mapping[str, int | None] | None = None
        self._ages: dict[tuple[str, str], Mapping[tuple[str, str, bool], Any]] = {}
        self._ids: dict[str, tuple[str, ...]] = {}
        self._day = _epoch_day()

    def clear(self) -> None:
        """Forget every cached snapshot and resolution."""
        with self._lock:
            self._snapshots.clear()
            self._resolutions.clear()
            self._forms = None
            self._policy = None
            self._ages.clear()
            self._ids.clear()
            self._revision = None

    def resolve(
        self,
        engine: str,
        model: str,
        *,
        wire: str | None = None,
        min_evidence: str | None = None,
        strict: bool = False,
    ) -> Resolution:
        """Return the resolution of ``model`` on ``engine`` (see the module docstring).

        ``strict``: a model no recorded model nor rule names is an error.

        :raises UnknownEngine: for an engine the registry does not know.
        :raises UnknownModel: with ``strict``, for a model the engine does not know.
        :raises InvalidModelId: for a malformed model id.
        :raises InvalidWire: for a forced wire that is not a wire.
        :raises InvalidStatus: for an unknown ``min_evidence``.
        :raises DatabaseError: when the registry cannot be read.
        """
        key = (engine, model, wire, min_evidence)
        self._refresh()
        try:
            found = self._resolutions.get(key)
        except TypeError:  # an unhashable argument: the checks below say which
            found = None
        if found is not None:
            if strict and not found.known:
                raise UnknownModel(engine, model, suggestions=found.suggestions)
            return found
        if not isinstance(engine, str):
            raise InvalidInput(f"invalid engine {check.describe(engine)}: must be a string")
        check.model_id(model)
        if wire is not None:
            check.wire(wire)
        if min_evidence is not None:
            check.status(min_evidence)
        snapshot = self._snapshot(engine, model)
        ages = self._policy_and_ages(engine, model)
        resolution = _decide(snapshot, model, wire, min_evidence, self._wire_forms(), ages)
        if not resolution.known:  # the only path that reads every recorded id
            ids = self._recorded_ids(engine, snapshot)
            resolution = replace(resolution, suggestions=_suggest(model, ids, snapshot))
        with self._lock:
            if self._revision == snapshot.revision:
                _bounded_put(self._resolutions, key, resolution)
        if strict and not resolution.known:
            raise UnknownModel(engine, model, suggestions=resolution.suggestions)
        return resolution

    def resolve_many(
        self,
        engine: str,
        models: Iterable[str] | None = None,
        *,
        min_evidence: str | None = None,
    ) -> tuple[Resolution, ...]:
        """Return the resolutions of many models of ``engine``, read in one snapshot.

        ``models`` None: every recorded model, by id. For listings (the capability
        matrix): the engine, its evidence policy and observations are read once whatever
        the number of models, and nothing is cached. Stale claims count as ``resolve``
        counts them.

        :raises UnknownEngine: for an engine the registry does not know.
        :raises InvalidModelId: for a malformed model id.
        :raises InvalidStatus: for an unknown ``min_evidence``.
        """
        if min_evidence is not None:
            check.status(min_evidence)
        if models is None:
            snapshot = self.registry.engine_snapshot(engine)
            ids = sorted(snapshot.models)
        else:
            ids = check.model_ids(models)
            snapshot = self.registry.engine_snapshot(engine, models=ids)
        forms = self._wire_forms()
        with self.registry.reading("cannot read the evidence policy") as connection:
            policy = _aging.read_policy(connection)
            agreeing = _aging.agreeing_days(connection, engine)  # every model's, one query
        ages = _Ages(policy, agreeing, _evidence.today())
        found = [_decide(snapshot, model, None, min_evidence, forms, ages) for model in ids]
        recorded: tuple[str, ...] | None = None
        for index, resolution in enumerate(found):
            if not resolution.known:
                if recorded is None:
                    recorded = _read_ids(self.registry, engine)
                suggestions = _suggest(resolution.model, recorded, snapshot)
                found[index] = replace(resolution, suggestions=suggestions)
        return tuple(found)

    def format_for(
        self,
        engine: str,
        model: str,
        results: Iterable[ToolResult],
        *,
        wire: str | None = None,
        min_evidence: str | None = None,
        ids: IdMap | None = None,
        strict: bool = False,
        raw_bytes: bool = False,
        already_sent: object = None,
    ) -> list[Any]:
        """Resolve, then return ``results`` formatted for the wire and options found."""
        resolution = self.resolve(
            engine, model, wire=wire, min_evidence=min_evidence, strict=strict
        )
        return resolution.format(results, ids=ids, raw_bytes=raw_bytes, already_sent=already_sent)

    # -- cache ----------------------------------------------------------------------

    def _refresh(self) -> None:
        if not self._watch_opened:
            self._open_watch()
        watch = self._watch
        now = 0.0
        due = False
        if watch is None or not watch.exact:
            now = time.monotonic()
            due = now - self._checked >= self.max_age
        if watch is not None and watch.changed():
            due = True
        day = _epoch_day()
        if day != self._day:  # ages grow at midnight (UTC): decide afresh
            with self._lock:
                self._day = day
                self._resolutions.clear()
        if not due and self._revision is not None:
            return
        revision = self.registry.revision()
        with self._lock:
            self._checked = now
            if revision != self._revision:
                self._snapshots.clear()
                self._resolutions.clear()
                self._forms = None
                self._policy = None
                self._ages.clear()
                self._ids.clear()
                self._revision = revision

    def _open_watch(self) -> None:
        with self._lock:
            if not self._watch_opened:
                watch = self._watch = self.registry.watch_changes()
                self._watch_opened = True
                if watch is not None:
                    weakref.finalize(self, watch.close)

    def _snapshot(self, engine: str, model: str) -> EngineSnapshot:
        """Return the engine with its rules and only this model's row (cached).

        A cold resolve so costs the same few queries whether the engine has ten
        recorded models or ten thousand.
        """
        snapshot = self._snapshots.get((engine, model))
        if snapshot is None:
            snapshot = self.registry.engine_snapshot(engine, models=(model,))
            with self._lock:
                if snapshot.revision == self._revision:
                    _bounded_put(self._snapshots, (engine, model), snapshot)
        return snapshot

    def _policy_and_ages(self, engine: str, model: str) -> _Ages:
        """Return the evidence policy and the model's agreeing observation days (cached)."""
        policy, ages = self._policy, self._ages.get((engine, model))
        if policy is None or ages is None:
            with self.registry.reading("cannot read the evidence policy") as connection:
                if policy is None:
                    policy = self._policy = _aging.read_policy(connection)
                if ages is None:
                    ages = _aging.agreeing_days(connection, engine, model)
                    _bounded_put(self._ages, (engine, model), ages)
        return _Ages(policy, ages, _evidence.today())

    def _recorded_ids(self, engine: str, snapshot: EngineSnapshot) -> tuple[str, ...]:
        """Return the ids of every model ``engine`` records (cached until a change)."""
        ids = self._ids.get(engine)
        if ids is None:
            ids = _read_ids(self.registry, engine)
            with self._lock:
                if snapshot.revision == self._revision:
                    _bounded_put(self._ids, engine, ids)
        return ids

    def _wire_forms(self) -> Mapping[tuple[str, str], str]:
        forms = self._forms
        if forms is None:
            forms = {(f.wire, f.kind): f.status for f in self.registry.wire_forms()}
            self._forms = forms
        return forms


def _read_ids(registry: Registry, engine: str) -> tuple[str, ...]:
    """Return the ids of the models ``engine`` records, in one query."""
    query = (
        select(model_table.c.model_id)
        .join(engine_table, engine_table.c.id == model_table.c.engine_id)
        .where(engine_table.c.name == engine)
    )
    with registry.reading("cannot read models") as connection:
        return tuple(connection.scalars(query))


def _suggest(model_id: str, recorded: Iterable[str], snapshot: EngineSnapshot) -> tuple[str, ...]:
    """Return the recorded ids and exact-rule ids closest to ``model_id``."""
    exact = (rule.pattern for rule in snapshot.rules if rule.match == "exact")
    return closest_models(model_id, {*recorded, *exact})


def _epoch_day() -> int:
    return int(time.time() // 86400)


@dataclass(frozen=True, slots=True)
class _Ages:
    """What decides whether a claim is stale: the policy, observation days, today."""

    policy: Mapping[str, int | None]
    agreeing: Mapping[tuple[str, str, bool], Any]
    today: Any

    def stale(self, claim: Claim) -> str | None:
        found = _aging.staleness(claim, self.policy, self.agreeing, self.today)
        return None if found is None else found.why


_NO_AGES = _Ages(MappingProxyType({}), MappingProxyType({}), None)


#: At most this many resolutions (and model snapshots) are cached per resolver: model
#: ids come from clients, and a gateway must not grow without bound between writes.
CACHE_SIZE = 10_000


def _bounded_put(cache: dict[Any, Any], key: object, value: object) -> None:
    """Store ``value``, starting the cache afresh when it is full (cheap, and bounded)."""
    if len(cache) >= CACHE_SIZE:
        cache.clear()
    cache[key] = value


def _decide(
    snapshot: EngineSnapshot,
    model_id: str,
    forced: str | None,
    min_evidence: str | None,
    forms: Mapping[tuple[str, str], str],
    ages: _Ages = _NO_AGES,
) -> Resolution:
    model = snapshot.models.get(model_id)
    rules = snapshot.matching_rules(model_id)
    known = model is not None or bool(rules)
    wire, wire_from = _wire(snapshot, model, rules, forced)
    policy = _Policy(min_evidence)

    trace: dict[str, FlagTrace] = {}
    for flag in FLAGS:  # the most specific claim the policy accepts decides
        claim, decided_by, ignored = _claim(flag, snapshot, model_id, model, policy, ages)
        claimed = None if claim is None else bool(claim.value)
        stale = None if claim is None else ages.stale(claim)
        aged = tuple(ages.stale(c) for _, c in ignored)
        trace[flag] = FlagTrace(
            flag,
            bool(claimed),
            claimed,
            decided_by,
            claim,
            None,
            ignored,
            stale,
            aged if any(aged) else (),
        )
    facts = (trace["image_input"].value, trace["source_blocks"].value)
    for flag, kind in _KIND.items():  # then the wire in force clears native media
        entry = trace[flag]
        if entry.value and (cleared := _wire_clears(wire, kind, *facts)) is not None:
            trace[flag] = _cleared(entry, cleared)
    for flag, clears in (("tool_result_url_sources", _url_clears), ("hoist_media", _hoist_clears)):
        entry = trace[flag]
        if entry.value and (cleared := clears(wire, trace)) is not None:
            trace[flag] = _cleared(entry, cleared)
    capabilities = {flag: entry.value for flag, entry in trace.items()}
    limit_trace: dict[str, LimitTrace] = {}
    for name in LIMITS:  # the same precedence and policy; no claim at all: no entry
        claim, decided_by, ignored = _claim(name, snapshot, model_id, model, policy, ages)
        if claim is not None and isinstance(claim.value, bool):
            claim, decided_by = None, "none"  # a flag on a limit's name is not a limit
        if claim is None and not ignored:
            continue
        aged = tuple(ages.stale(c) for _, c in ignored)
        limit_trace[name] = LimitTrace(
            name,
            None if claim is None else claim.value,
            decided_by,
            claim,
            ignored,
            None if claim is None else ages.stale(claim),
            aged if any(aged) else (),
        )
    limits = {n: e.value for n, e in limit_trace.items() if e.value is not None}
    return Resolution(
        engine=snapshot.engine.name,
        model=model_id,
        wire=wire,
        wire_from=wire_from,
        options=MappingProxyType(_options(wire, capabilities, snapshot, limits)),
        capabilities=MappingProxyType(capabilities),
        trace=MappingProxyType(trace),
        min_evidence=min_evidence,
        revision=snapshot.revision,
        id_rule=snapshot.engine.id_rule,
        known=known,
        native_forms=MappingProxyType(
            {
                kind: forms.get((wire, kind), "unverified")
                for kind in KINDS
                if carries_native(wire, kind)
            }
        ),
        limits=MappingProxyType(limits),
        limit_trace=MappingProxyType(limit_trace),
    )


def _wire(
    snapshot: EngineSnapshot, model: Model | None, rules: tuple[Rule, ...], forced: str | None
) -> tuple[str, str]:
    if forced is not None:
        return forced, "forced"
    if model is not None and model.wire:
        return model.wire, "model"
    for rule in reversed(rules):
        if rule.wire:
            return rule.wire, rule_label(rule)
    return snapshot.engine.default_wire, "engine"


def _claim(
    flag: str,
    snapshot: EngineSnapshot,
    model_id: str,
    model: Model | None,
    policy: _Policy,
    ages: _Ages,
) -> tuple[Claim | None, str, tuple[tuple[str, Claim], ...]]:
    """Return the deciding claim, where it sits, and the claims the policy set aside."""
    ignored: list[tuple[str, Claim]] = []
    for claim, where in claims_in_order(
        flag,
        model_id,
        model_claims=model.claims if model is not None else {},
        rules=snapshot.rules,
        engine_claims=snapshot.claims,
    ):
        if policy.min_evidence is None or not policy.rejects(
            claim.status, stale=ages.stale(claim) is not None
        ):
            return claim, where, tuple(ignored)
        ignored.append((where, claim))
    return None, "none", tuple(ignored)


@dataclass(frozen=True, slots=True)
class _Policy:
    """The evidence policy: claims weaker than ``min_evidence`` count as absent.

    A stale claim (past its status's age) counts one tier lower.

    The native forms' own evidence (``wire_form``) is not part of it: a claim that
    an endpoint carries images or PDFs is itself evidence about that form there.
    """

    min_evidence: str | None

    def rejects(self, status: str, *, stale: bool = False) -> bool:
        """Return True when evidence of ``status`` (stale: one tier lower) is too weak."""
        if self.min_evidence is None:
            return False
        rank = max(evidence_rank(status) - 1, 0) if stale else evidence_rank(status)
        return rank < evidence_rank(self.min_evidence)


def _wire_clears(wire: str, kind: str, image_input: bool, source_blocks: bool) -> str | None:
    """Return why the wire in force clears a native-media flag, or None."""
    if not carries_native(wire, kind):
        return f"the {wire} wire has no native {kind} form (carries_native is false)"
    if native_needs_vision(wire, kind) and not image_input:
        return f"a native {kind} on the {wire} wire needs image_input (native_needs_vision)"
    if kind == "pdf" and not source_blocks and "source_blocks" in wire_options(wire):
        return f"a PDF on the {wire} wire is a document source block: needs source_blocks"
    return None


def _cleared(entry: FlagTrace, why: str) -> FlagTrace:
    return FlagTrace(
        entry.flag,
        False,
        entry.claimed,
        entry.decided_by,
        entry.claim,
        why,
        entry.ignored,
        entry.stale,
        entry.ignored_stale,
    )


def _url_clears(wire: str, trace: Mapping[str, FlagTrace]) -> str | None:
    """Return why the wire in force clears ``tool_result_url_sources``, or None."""
    if "url_sources" not in wire_options(wire):
        return f"the {wire} wire has no URL source form"
    if not (trace["tool_result_images"].value or trace["tool_result_pdf"].value):
        return "no image or PDF goes natively here (tool_result_images, tool_result_pdf)"
    return None


def _hoist_clears(wire: str, trace: Mapping[str, FlagTrace]) -> str | None:
    """Return why the wire in force clears ``hoist_media``, or None."""
    reads = wire_options(wire)
    if "hoist" not in reads:
        return f"the {wire} wire does not hoist media (it has a native form, or no user turn)"
    pdfs = trace["pdf_input"].value and "native_pdf" in reads
    if not (trace["image_input"].value or pdfs):
        return "hoisting needs a model that reads images (image_input) or PDFs (pdf_input)"
    return None


def _options(
    wire: str,
    capabilities: Mapping[str, bool],
    snapshot: EngineSnapshot,
    limits: Mapping[str, Any],
) -> dict[str, Any]:
    """Return the converter options, those the wire reads only (limits by their own names)."""
    reads = wire_options(wire)
    candidates: dict[str, Any] = {
        "image_input": capabilities["tool_result_images"],
        "native_pdf": capabilities["tool_result_pdf"],
        "source_blocks": capabilities["source_blocks"],
    }
    if "hoist" in reads:  # the media options mean what goes in the user turn here
        del candidates["image_input"], candidates["native_pdf"]
        if capabilities["hoist_media"]:
            candidates["hoist"] = True
            candidates["image_input"] = capabilities["image_input"]
            candidates["native_pdf"] = capabilities["pdf_input"]
    if capabilities["tool_result_url_sources"]:
        candidates["url_sources"] = True
    if snapshot.engine.response_tag:
        candidates["response_tag"] = snapshot.engine.response_tag
    if snapshot.engine.family == CHAT_FAMILY:  # its tool messages need tool_call_id
        candidates["call_ids"] = True
    if "hoist" not in reads or candidates.get("hoist"):  # a tool message with no media
        candidates.update(limits)  # form carries nothing a limit counts, unless hoisting
    return {name: value for name, value in candidates.items() if name in reads}


# -- module-level convenience: one default registry and resolver per process ---------

_default: Resolver | None = None
_resolvers: weakref.WeakKeyDictionary[Registry, Resolver] = weakref.WeakKeyDictionary()
_resolvers_lock = threading.Lock()


def _registry(registry: object) -> Registry:
    """Return ``registry`` when it is a ``Registry``.

    :raises InvalidInput: for anything else.
    """
    if not isinstance(registry, Registry):
        raise InvalidInput(
            f"invalid registry {check.describe(registry)}: pass a Registry (e.g. "
            f"Registry(url)), not a {type(registry).__name__}"
        )
    return registry


_MAX_AGE_MOST = 86_400  # a day: a resolver reads the revision at least that often


def _resolver_for(registry: Registry | None) -> Resolver:
    """Return the resolver (and its cache) kept for ``registry`` or the default one."""
    global _default
    if registry is not None:
        _registry(registry)
    found = _default if registry is None else _resolvers.get(registry)
    if found is not None:  # the hot path takes no lock
        return found
    with _resolvers_lock:
        if registry is not None:
            resolver = _resolvers.get(registry)
            if resolver is None:
                # The resolver holds the registry through a weak proxy: a strong
                # reference from the value would keep the weak key alive forever.
                proxy = cast(Registry, weakref.proxy(registry))
                resolver = _resolvers[registry] = Resolver(proxy)
            return resolver
        if _default is None:
            _default = Resolver(Registry())
        return _default


def resolve(
    engine: str,
    model: str,
    *,
    wire: str | None = None,
    registry: Registry | None = None,
    min_evidence: str | None = None,
    strict: bool = False,
) -> Resolution:
    """Return the resolution of ``model`` on ``engine``.

    Uses ``registry``, or the default registry (``TOOLWIRE_DATABASE_URL`` or the
    embedded SQLite file, created and seeded on first use). Results are cached
    in-process; a change committed anywhere is seen by the next call.

    ``strict``: a model that no recorded model nor rule names raises ``UnknownModel``
    (else its resolution says so: ``known``, ``suggestions``, ``notice``).

    :raises UnknownEngine: for an engine the registry does not know (a LookupError).
    :raises UnknownModel: with ``strict``, for a model the engine does not know (a LookupError).
    :raises InvalidModelId: for a malformed model id (a ValueError).
    :raises InvalidWire: for a forced wire that is not a wire.
    """
    return _resolver_for(registry).resolve(
        engine, model, wire=wire, min_evidence=min_evidence, strict=strict
    )


def format_for(
    engine: str,
    model: str,
    results: Iterable[ToolResult],
    *,
    wire: str | None = None,
    registry: Registry | None = None,
    min_evidence: str | None = None,
    ids: IdMap | None = None,
    strict: bool = False,
    raw_bytes: bool = False,
    already_sent: object = None,
) -> list[Any]:
    """Return ``results`` as the messages ``model`` on ``engine`` should receive.

    Resolve (cached), then ``format_tool_results`` with the wire and options found.
    Call ids are checked under the engine's id rule (``mistral``: 9 letters and
    digits), else the wire's; ``ids`` (an ``IdMap``) maps them instead. ``strict``: a
    model that no recorded model nor rule names is an error, not a guess from the
    engine's claims. ``raw_bytes``: image and document payloads as ``bytes`` on the
    bedrock wire, as boto3 takes them (it base64-encodes blobs itself; the default
    base64 strings are the HTTP API's JSON form, which boto3 would encode again).
    The engine's limits (docs/limits.md) count the media of every result, plus
    ``already_sent`` (``AlreadySent`` or a mapping: the images, PDF pages and PDF
    bytes the rest of the request already holds).

    :raises UnknownEngine: for an engine the registry does not know (a LookupError).
    :raises UnknownModel: with ``strict``, for a model the engine does not know (a LookupError).
    :raises InvalidModelId: for a malformed model id (a ValueError).
    :raises InvalidId: for an id or name the rule refuses, without ``ids`` (a ValueError).
    """
    resolver = _resolver_for(registry)
    return resolver.format_for(
        engine,
        model,
        results,
        wire=wire,
        min_evidence=min_evidence,
        ids=ids,
        strict=strict,
        raw_bytes=raw_bytes,
        already_sent=already_sent,
    )


def reformat_for(
    engine: str,
    model: str,
    source_wire: str,
    blocks: Iterable[Any],
    *,
    names: Mapping[str, str] | None = None,
    wire: str | None = None,
    registry: Registry | None = None,
    min_evidence: str | None = None,
    ids: IdMap | None = None,
    strict: bool = False,
    raw_bytes: bool = False,
    already_sent: object = None,
) -> list[Any]:
    """Return tool-result ``blocks`` of ``source_wire`` as the messages ``model`` should receive.

    The gateway form of :func:`format_for`: the blocks are read back
    (``ToolResult.from_wire``), then formatted for the wire and options the
    registry resolves for ``engine`` and ``model`` (cached, as in ``format_for``).
    ``names`` maps call ids to tool names for blocks that carry none; ``ids`` (an
    ``IdMap``) maps call ids and names to the engine's rule (else the wire's) when
    the wire changes or the engine has a rule of its own, as in ``format_for``;
    ``strict``, ``raw_bytes`` and ``already_sent`` as in ``format_for``.

    :raises UnknownEngine: for an engine the registry does not know (a LookupError).
    :raises UnknownModel: with ``strict``, for a model the engine does not know (a LookupError).
    :raises InvalidModelId: for a malformed model id (a ValueError).
    :raises InvalidBlock: for a block that is not of ``source_wire`` (a ValueError).
    :raises UnknownWire: for a source wire not in ``WIRES`` (a ValueError).
    """
    resolution = _resolver_for(registry).resolve(
        engine, model, wire=wire, min_evidence=min_evidence, strict=strict
    )
    return resolution.reformat(
        source_wire, blocks, names=names, ids=ids, raw_bytes=raw_bytes, already_sent=already_sent
    )


def _raw(raw_bytes: object) -> dict[str, Any]:
    """Return the converter option for ``raw_bytes`` (none when False: the default);
    any other value goes to the converter, which checks it (``InvalidOption``)."""
    return {} if raw_bytes is False else {"raw_bytes": raw_bytes}


shown_in_package(FlagTrace, LimitTrace, Resolution, Resolver, format_for, reformat_for, resolve)
