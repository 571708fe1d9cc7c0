"""Sign Bedrock requests with AWS SigV4, from botocore's standard credential chain.

The credentials are what the AWS SDKs find: the environment (``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``), the profile (``AWS_PROFILE``, the
shared config and credentials files) and the providers after them. The region is
the one in the endpoint's host (``bedrock-runtime.REGION.amazonaws.com``), else
``AWS_REGION``, else the profile's (``AWS_DEFAULT_REGION``). Each request is signed
with botocore's own SigV4 signer, over the exact headers and body that are sent.
Needs botocore (the ``bedrock`` extra); a Bedrock API key
(``AWS_BEARER_TOKEN_BEDROCK``) needs no signing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from .._paths import install_hint
from ..errors import InvalidInput
from ._errors import ProbeUnavailable

__all__ = ["SERVICE", "Signer", "aws_signer"]

SERVICE = "bedrock"
#: ``sign(url, headers, body)`` returns the headers to send, signature included.
Signer = Callable[[str, Mapping[str, str], bytes], dict[str, str]]
_REGION_IN_HOST = re.compile(r"bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com")


def aws_signer(base_url: str) -> Signer | None:
    """Return a SigV4 signer for requests to ``base_url``, None when no credentials are found.

    :raises ProbeUnavailable: when botocore is not installed.
    :raises InvalidInput: when credentials are found but no region.
    """
    try:
        import botocore.session  # type: ignore[import-untyped]
        from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
        from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
        from botocore.exceptions import BotoCoreError  # type: ignore[import-untyped]
    except ImportError:
        raise ProbeUnavailable(
            f"signing Bedrock requests needs botocore, in the bedrock extra: "
            f"{install_hint('bedrock')}"
        ) from None
    session = botocore.session.Session()
    try:
        found = session.get_credentials()
        credentials = None if found is None else found.get_frozen_credentials()
        configured = session.get_config_variable("region")
    except BotoCoreError as error:  # a broken profile or config file
        raise InvalidInput(f"cannot read the AWS credentials: {error}") from None
    if credentials is None or not credentials.access_key:
        return None
    host = urlsplit(base_url).hostname or ""
    in_host = _REGION_IN_HOST.fullmatch(host)
    region = (in_host and in_host.group(1)) or os.environ.get("AWS_REGION") or configured
    if not region:
        raise InvalidInput(
            "AWS credentials found but no region: set AWS_REGION (or the profile's region)"
        )
    signer = SigV4Auth(credentials, SERVICE, region)

    def sign(url: str, headers: Mapping[str, str], body: bytes) -> dict[str, str]:
        request = AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
        signer.add_auth(request)
        return {name: str(value) for name, value in request.headers.items()}

    return sign
