"""``Writer``: the registry's writes inside one transaction, composed of one part per noun.

``Registry.batch()`` (and first-use setup) opens the transaction and hands out a
``Writer``; its methods are those of the nouns in ``toolwire.registry._write``
(engines, models, rules, claims, capabilities, wire forms), each forwarded with its own
signature and docstring.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy.engine import Connection

from . import _validate as check
from ._public import shown_in_package
from ._write.capabilities import Capabilities
from ._write.claims import Claims
from ._write.engines import Engines
from ._write.models import Models
from ._write.rules import Rules
from ._write.transaction import Transaction
from ._write.wire_forms import WireForms
from .errors import InvalidInput

__all__ = ["Writer"]

P = ParamSpec("P")
R = TypeVar("R")
N = TypeVar("N")


def _to(part: str, method: Callable[Concatenate[N, P], R]) -> Callable[Concatenate[Writer, P], R]:
    """Return a ``Writer`` method that runs ``method`` of the writer's ``part`` (a noun)."""

    @functools.wraps(method)
    def forward(self: Writer, /, *args: P.args, **kwargs: P.kwargs) -> R:
        noun: N = getattr(self, part)
        return method(noun, *args, **kwargs)

    forward.__qualname__ = f"Writer.{method.__name__}"  # where callers find it
    return forward


class Writer(Transaction):
    """Apply registry writes on a connection that is inside a write transaction."""

    def __init__(self, connection: Connection) -> None:
        super().__init__(connection)
        self._capabilities = Capabilities(self)
        self._wire_forms = WireForms(self)
        self._models = Models(self)
        self._rules = Rules(self)
        self._claims = Claims(self, self._models, self._rules)
        self._engines = Engines(self, self._models, self._rules)

    # -- engines ------------------------------------------------------------------------
    add_engine = _to("_engines", Engines.add_engine)
    has_engine = _to("_engines", Engines.has_engine)
    remove_engine = _to("_engines", Engines.remove_engine)
    add_missing = _to("_engines", Engines.add_missing)
    snapshot = _to("_engines", Engines.snapshot)
    # -- models -------------------------------------------------------------------------
    add_model = _to("_models", Models.add_model)
    has_model = _to("_models", Models.has_model)
    remove_model = _to("_models", Models.remove_model)
    # -- rules --------------------------------------------------------------------------
    add_rule = _to("_rules", Rules.add_rule)
    rule_id = _to("_rules", Rules.rule_id)
    remove_rule = _to("_rules", Rules.remove_rule)
    move_rule = _to("_rules", Rules.move_rule)
    order_rules = _to("_rules", Rules.order_rules)
    # -- claims -------------------------------------------------------------------------
    claim = _to("_claims", Claims.claim)
    set_claim = _to("_claims", Claims.set_claim)
    set_claims = _to("_claims", Claims.set_claims)
    unset_claim = _to("_claims", Claims.unset_claim)
    remove_claim = _to("_claims", Claims.remove_claim)
    # -- capabilities -------------------------------------------------------------------
    add_capability = _to("_capabilities", Capabilities.add_capability)
    add_capabilities = _to("_capabilities", Capabilities.add_capabilities)
    # -- wire forms ---------------------------------------------------------------------
    set_wire_form = _to("_wire_forms", WireForms.set_wire_form)
    wire_form = _to("_wire_forms", WireForms.wire_form)
    seed_wire_forms = _to("_wire_forms", WireForms.seed_wire_forms)

    def update_fields(
        self,
        engine: str,
        entity: str,
        key: int | str,
        values: dict[str, Any],
        *,
        recorded_by: str,
        reason: str | None = None,
    ) -> bool:
        """Change fields of the engine, a model (``key``: its id) or a rule (its id).

        Only the fields that differ are written, with an ``update`` change event listing
        them (old, new); returns whether anything changed. Used by ``import``.

        :raises UnknownEngine, UnknownModel, UnknownRule: for a row that does not exist.
        :raises InvalidInput: for a field that cannot change this way.
        """
        if not isinstance(values, Mapping) or not all(type(k) is str for k in values):
            raise InvalidInput(
                f"invalid values {check.describe(values)}: a mapping of field names to values"
            )
        if not values:
            return False
        by, why = recorded_by, reason
        if entity == "engine":
            return self._engines.update_engine(engine, values, recorded_by=by, reason=why)
        if entity == "model":
            return self._models.update_model(engine, str(key), values, recorded_by=by, reason=why)
        if entity == "rule":
            return self._rules.update_rule(engine, key, values, recorded_by=by, reason=why)
        raise InvalidInput(f"cannot update {entity} field(s) {', '.join(sorted(values))}")


shown_in_package(Writer)
