"""The probe's own errors (a leaf module: every other probe module may import it)."""

from __future__ import annotations

from ..errors import InvalidInput, RegistryError

__all__ = ["EndpointRefused", "ProbeUnavailable"]


class ProbeUnavailable(RegistryError, RuntimeError):
    """The optional packages a probe needs (httpcore, Pillow; botocore) are not installed."""


class EndpointRefused(InvalidInput):
    """A probe would send credentials to a host the endpoint rules do not allow."""
