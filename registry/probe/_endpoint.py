"""Where a probe may send a key: the endpoint rules, and joining a request path to a base.

A key goes with its request, so a base URL that an import file or a typo moved
elsewhere would take the key with it. A probe that sends credentials (a key or an
AWS signature) therefore sends them only:

- to this machine (``localhost``, ``127.0.0.0/8``, ``::1``), over http or https;
- over https to the host the shipped engine of that name has (``data/*.toml``; a
  Bedrock engine: the same service in any AWS region);
- to a host the caller names with ``allow_endpoints`` (``--allow-endpoint HOST``).

Everything else is refused before a byte is sent. Through a proxy (``_proxy``) the
same rules hold, and credentials never go in clear text through one: an https target
is reached through a CONNECT tunnel (TLS end to end, the proxy sees no request), but
a plain-http target on another machine is refused when a proxy would carry it, even
when ``allow_endpoints`` names it.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Sequence
from urllib.parse import urlsplit, urlunsplit

from .. import _validate as check
from ._errors import EndpointRefused

__all__ = [
    "EndpointRefused",
    "check_endpoint",
    "check_proxied",
    "is_loopback",
    "join_url",
    "shipped_host",
]

_BEDROCK = re.compile(r"bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com")


@functools.cache
def _shipped() -> dict[str, str]:
    from .._seed import load_seed

    return {
        table["name"]: host
        for table in load_seed().engines
        if (host := check.url_host(table.get("base_url"))) is not None
    }


def shipped_host(engine: str) -> str | None:
    """Return the host the shipped engine ``engine`` has, None when none is shipped."""
    return _shipped().get(engine)


def is_loopback(host: str) -> bool:
    """Return whether ``host`` names this machine (localhost, 127.0.0.0/8, ::1)."""
    if host == "localhost":  # (not *.localhost: a resolver may send those elsewhere)
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_endpoint(engine: str, base_url: str, allow_endpoints: Sequence[str] = ()) -> None:
    """Refuse, unless the endpoint rules let credentials go to ``base_url``.

    :raises EndpointRefused: for plain http to another machine, or a host other than
        the shipped engine's, unless the host is in ``allow_endpoints``.
    """
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if is_loopback(host) or host in {_host(h) for h in allow_endpoints}:
        return
    hint = f"give --allow-endpoint {host} if that host is meant"
    if parts.scheme != "https":
        raise EndpointRefused(
            f"refusing to send the key over plain http to {host} (not this machine); {hint}"
        )
    shipped = shipped_host(engine)
    if shipped == host or (
        shipped is not None and _BEDROCK.fullmatch(shipped) and _BEDROCK.fullmatch(host)
    ):
        return
    where = f"engine {engine} ships with {shipped}" if shipped else f"{engine} is not shipped"
    raise EndpointRefused(f"refusing to send the key to {host}: {where}; {hint}")


def check_proxied(base_url: str, proxy: str) -> None:
    """Refuse credentials for a plain-http ``base_url`` that would go through ``proxy``.

    :raises EndpointRefused: when ``base_url`` is http (the proxy would read the key).
    """
    parts = urlsplit(base_url)
    if parts.scheme == "https":
        return
    host = (parts.hostname or "").lower()
    raise EndpointRefused(
        f"refusing to send the key in clear text through the proxy {proxy} to http://{host}; "
        f"use https, or add {host} to NO_PROXY to connect directly"
    )


def _host(given: str) -> str:
    """Return the host of an ``--allow-endpoint`` value: a host, ``host:port`` or a URL."""
    given = given.strip().lower()
    if "://" in given:
        return check.url_host(given) or ""
    if given.startswith("["):  # [::1] or [::1]:8080
        return given[1:].partition("]")[0]
    return given.rpartition(":")[0] if given.count(":") == 1 else given


def join_url(base_url: str, path: str) -> str:
    """Return ``base_url`` with ``path`` after its path (its query kept after both)."""
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + path, parts.query, ""))
