"""The registry's fixed vocabularies and limits, importable without the database layer.

The schema (``toolwire.registry.tables``) checks them in the database; the CLI reads
them from here to build its option choices without importing SQLAlchemy. The rules
that read only these (an evidence status's rank, whether an outcome agrees with a
claim, a number of days) live here too, once, for the library and the CLI alike.
"""

from __future__ import annotations

from datetime import date

from toolwire.convert import KINDS
from toolwire.convert.errors import describe

from ._public import shown_in_package
from .errors import InvalidInput, InvalidStatus

__all__ = [
    "CATALOG_SOURCES",
    "CATALOG_STATUSES",
    "CHANGE_ACTIONS",
    "CHANGE_ENTITIES",
    "CLAIM_ACTIONS",
    "DEFAULT_EVIDENCE_POLICY",
    "ENGINE_KINDS",
    "EVIDENCE_OUTCOMES",
    "EVIDENCE_STATUSES",
    "MATCH_KINDS",
    "MEDIA_KINDS",
    "OBSERVATION_OUTCOMES",
    "OBSERVATION_SCENARIOS",
    "POLICY_MAX_DAYS",
    "VALUE_KINDS",
    "agrees",
    "check_day",
    "check_days",
    "evidence_rank",
]

#: Evidence statuses, strongest first.
EVIDENCE_STATUSES: tuple[str, ...] = ("live-verified", "documented", "inferred", "unverified")
MATCH_KINDS: tuple[str, ...] = ("exact", "regex")
ENGINE_KINDS: tuple[str, ...] = ("first-party", "shim", "gateway", "self-hosted")
MEDIA_KINDS: tuple[str, ...] = KINDS  # the media kinds toolwire.convert knows
#: What a capability's claims hold: true or false (``bool``), a whole number of bytes,
#: pixels, images or pages (``int``, a limit), or a sorted list of MIME types (``mimes``).
VALUE_KINDS: tuple[str, ...] = ("bool", "int", "mimes")
#: What a claim event records: a value set, a claim retracted, or removed with its subject.
CLAIM_ACTIONS: tuple[str, ...] = ("set", "retract", "remove")
#: What a change event is about, and what happened to it.
CHANGE_ENTITIES: tuple[str, ...] = ("engine", "model", "rule", "capability")
CHANGE_ACTIONS: tuple[str, ...] = ("add", "remove", "move", "update")

#: What a probe sends (each scenario is also the capability it is evidence for).
OBSERVATION_SCENARIOS: tuple[str, ...] = (
    "image_input",
    "tool_result_images",
    "tool_result_pdf",
    "source_blocks",
)
#: How a probe ended: the model read the challenge, ignored the media, the endpoint
#: rejected the request shape (4xx), or an error that says nothing about the capability.
OBSERVATION_OUTCOMES: tuple[str, ...] = ("read", "ignored", "rejected", "error")
#: The outcomes that are evidence about a capability (``error`` is not).
EVIDENCE_OUTCOMES: tuple[str, ...] = ("read", "ignored", "rejected")

#: The public catalogs ``toolwire catalog import`` reads, and the statuses it may claim
#: (a catalog is never a live check).
CATALOG_SOURCES: tuple[str, ...] = ("models.dev", "litellm", "openrouter")
CATALOG_STATUSES: tuple[str, ...] = ("inferred", "documented", "unverified")

#: How many days a claim of each status stays fresh (None: it never ages); a claim past
#: its status's age counts one tier lower for ``min_evidence``. A new registry starts here.
DEFAULT_EVIDENCE_POLICY: dict[str, int | None] = {
    "live-verified": 90,
    "documented": None,
    "inferred": None,
    "unverified": None,
}
#: The longest age a policy may give, and the longest ``stale_days`` (100 years).
POLICY_MAX_DAYS = 36500
#: The largest whole number the database holds (a signed 64-bit integer): row ids, limits.
DB_INT_MAX = 2**63 - 1


def evidence_rank(status: str) -> int:
    """Return the strength of an evidence status: 3 live-verified … 0 unverified.

    :raises InvalidStatus: for a string that is not an evidence status.
    """
    try:
        return len(EVIDENCE_STATUSES) - 1 - EVIDENCE_STATUSES.index(status)
    except ValueError:
        raise InvalidStatus(
            f"unknown evidence status {describe(status)}; valid: {', '.join(EVIDENCE_STATUSES)}"
        ) from None


def agrees(value: object, outcome: str) -> bool:
    """Return whether a claimed ``value`` agrees with an informative ``outcome``.

    ``read`` agrees with true; ``ignored`` and ``rejected`` agree with false (probes
    observe flags: a limit's value agrees with neither).
    """
    return value is (outcome == "read")


def check_days(value: object, what: str, *, alternative: str = "") -> int:
    """Return ``value`` when it is a whole number of days, 0 to ``POLICY_MAX_DAYS``.

    ``what`` names the value in the message (``stale_days``, ``--stale-days``, ``policy
    age``); ``alternative`` adds what else the caller takes (``or 'never'``).

    :raises InvalidInput: for anything else: a bool, a float, a string, out of range.
    """
    if type(value) is not int or not 0 <= value <= POLICY_MAX_DAYS:
        also = f" {alternative}" if alternative else ""
        shown = describe(value)
        raise InvalidInput(
            f"invalid {what} {shown}: a whole number of days, 0 to {POLICY_MAX_DAYS}{also}"
        )
    return value


def check_day(value: object, what: str) -> date | None:
    """Return ``value`` when it is a date (or None: the caller's today).

    :raises InvalidInput: for anything else.
    """
    if value is not None and not isinstance(value, date):
        raise InvalidInput(f"invalid {what} {describe(value)}: a date")
    return value


shown_in_package(evidence_rank)
