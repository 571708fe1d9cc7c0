"""Which proxy a probe request goes through: the standard proxy environment.

The choice is the one curl, requests and httpx users expect, read through the
standard library (``urllib.request.getproxies`` and ``proxy_bypass``, which on
Linux read the environment and elsewhere also the system's proxy settings):

- an https URL goes through ``https_proxy`` / ``HTTPS_PROXY``, an http URL through
  ``http_proxy`` / ``HTTP_PROXY``; ``all_proxy`` / ``ALL_PROXY`` serves either when
  the scheme's own is unset; the lowercase name wins when both are set (and, as the
  library does for CGI, ``HTTP_PROXY`` is ignored when ``REQUEST_METHOD`` is set);
- ``no_proxy`` / ``NO_PROXY`` lists hosts that go direct: a name also matches its
  subdomains (``corp.example`` and ``.corp.example`` both match
  ``gpu.corp.example``), ``host:port`` matches that port only, ``*`` matches all;
- this machine (``localhost``, ``127.0.0.0/8``, ``::1``) always goes direct;
- a proxy URL is ``http://`` or ``https://`` (a bare ``host:port`` is taken as
  ``http://``, as curl does), with an optional ``user:password@`` sent to the proxy
  as ``Proxy-Authorization``. An https target goes through a CONNECT tunnel, so TLS
  runs end to end and the proxy never sees the request; an http target is sent to
  the proxy in absolute form.

Any other scheme (``socks5://``) or a malformed URL is refused in one line that names
the variable, before a byte is sent. A proxy's credentials are never printed.
"""

from __future__ import annotations

import os
import urllib.request
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from ..errors import InvalidInput
from ._endpoint import is_loopback

__all__ = ["Proxy", "proxy_for"]

_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Proxy:
    """A proxy a request goes through: its URL without credentials, and where it was set."""

    #: ``scheme://host:port``, never with credentials
    url: str
    #: the environment variable that set it (or "the system proxy settings")
    variable: str
    #: (user, password) sent to the proxy, None when none is given
    auth: tuple[str, str] | None = None

    def __str__(self) -> str:
        return f"{self.url} (from {self.variable})"


def proxy_for(url: str) -> Proxy | None:
    """Return the proxy a request to ``url`` goes through, None for a direct connection.

    :raises InvalidInput: for a proxy URL with another scheme than http or https, or
        one that is not a URL; the message names the variable and hides credentials.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not host or is_loopback(host):
        return None
    proxies = urllib.request.getproxies()
    key = scheme if proxies.get(scheme) else "all"
    value = proxies.get(key)
    if not value:
        return None
    port = parts.port or _DEFAULT_PORTS.get(scheme, 0)
    if urllib.request.proxy_bypass(f"{host}:{port}"):
        return None
    return _parse(value, _variable(key, value))


def _variable(key: str, value: str) -> str:
    """Return the name of the variable holding ``value`` for ``key``, lowercase first."""
    lower = f"{key}_proxy"
    if os.environ.get(lower) == value:
        return lower
    for name, held in os.environ.items():
        if name.lower() == lower and held == value:
            return name
    return "the system proxy settings"


def _parse(value: str, variable: str) -> Proxy:
    """Return the proxy ``value`` names.

    :raises InvalidInput: for an unsupported scheme or a malformed URL.
    """
    given = value.strip()
    if "://" not in given:
        given = f"http://{given}"
    parts = urlsplit(given)
    scheme = parts.scheme.lower()
    shown = _without_credentials(given)
    if scheme not in _SCHEMES:
        raise InvalidInput(
            f"unsupported proxy in {variable}: {shown} (the probe speaks to http:// and "
            "https:// proxies; set the variable to one, or add the host to NO_PROXY)"
        )
    try:
        port = parts.port
    except ValueError:
        raise InvalidInput(f"invalid proxy in {variable}: {shown} (bad port)") from None
    host = parts.hostname
    if not host or any(c.isspace() for c in given):
        raise InvalidInput(f"invalid proxy in {variable}: {shown} (not a URL with a host)")
    if ":" in host:
        host = f"[{host}]"
    auth = None
    if parts.username is not None:
        auth = (unquote(parts.username), unquote(parts.password or ""))
    return Proxy(f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}", variable, auth)


def _without_credentials(url: str) -> str:
    """Return ``url`` with any ``user:password@`` replaced by ``***@``, cut to 80 chars."""
    scheme, sep, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        authority = "***@" + authority.rpartition("@")[2]
    shown = f"{scheme}{sep}{authority}{slash}{path}"
    return shown if len(shown) <= 80 else shown[:79] + "…"
