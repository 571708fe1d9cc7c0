"""Which claim decides a capability for a model: the one home of the precedence order.

The most specific claim decides: the model's own claim, else the last matching rule
that claims it (among matching rules the last one wins), else the engine's claim. The
resolver walks this order under its evidence policy; a catalog import asks what
decides a model that has no claim of its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from .records import Claim, Rule

__all__ = ["claims_in_order", "rule_label"]


def rule_label(rule: Rule) -> str:
    """Return where a rule's claim sits, as traces show it: ``rule:ID MATCH 'PATTERN'``."""
    # The pattern as written (a repr would double every backslash of a regex).
    return f"rule:{rule.id} {rule.match} '{rule.pattern}'"


def claims_in_order(
    capability: str,
    model_id: str,
    *,
    model_claims: Mapping[str, Claim],
    rules: Sequence[Rule],
    engine_claims: Mapping[str, Claim],
) -> Iterator[tuple[Claim, str]]:
    """Yield each claim on ``capability`` that applies to ``model_id``, most specific first.

    Each comes with where it sits: ``model``, a rule's label or ``engine``. ``rules``
    are the engine's rules in order; only those that claim the capability are matched
    against the id (a model is checked against a few rules, not every regex).
    """
    if capability in model_claims:
        yield model_claims[capability], "model"
    for rule in reversed(rules):
        if capability in rule.claims and rule.matches(model_id):
            yield rule.claims[capability], rule_label(rule)
    if capability in engine_claims:
        yield engine_claims[capability], "engine"
