"""toolwire inside LiteLLM: tool results the routed model reads, and call ids that pair.

``ToolwireCallback`` is a LiteLLM ``CustomLogger``. LiteLLM runs its
``async_pre_call_deployment_hook(kwargs, call_type)`` after the deployment is chosen
and before the request is sent (``litellm.utils.async_pre_call_deployment_hook``,
called by the wrapper of every async call, so on the SDK's ``litellm.acompletion`` and
on the proxy's routed calls alike). For a chat completion with tool turns it:

- maps LiteLLM's provider (``litellm.get_llm_provider``: ``anthropic``, ``bedrock``,
  ``gemini``, ``openai``, ``mistral``, ...) to a registry engine through the table the
  catalog import reads (``toolwire.registry.providers``), and the model to that
  engine's id (Bedrock's LiteLLM route words ``converse/`` and ``invoke/`` dropped);
- resolves it with the registry's cached resolver (``toolwire.registry.resolve``);
- rewrites the conversation's tool turns (``toolwire.integrations._chat``): media
  kept where the model reads them in a tool result, the metadata-only placeholder
  where it does not, hoisted where ``hoist_media`` is claimed; call ids and names
  mapped to the target's rule with one ``IdMap``; the request limits counted over the
  whole request (the images and PDF bytes of the other messages as ``already_sent``);
- records the decision report under ``metadata["toolwire"]``.

A request without tool turns is returned as it came (the hook returns None) without
touching the registry. A provider without an engine, an engine the registry does not
hold, or a conversation toolwire cannot read is passed on unchanged, with the reason
recorded under ``metadata["toolwire"]["skipped"]``.

Importing this module imports LiteLLM; importing ``toolwire`` never does.
"""

from __future__ import annotations

import functools
from typing import Any

import litellm
from litellm.integrations.custom_logger import CustomLogger
from litellm.types.utils import CallTypes
from toolwire.convert import ToolwireError
from toolwire.registry import Registry, resolve
from toolwire.registry.errors import RegistryError
from toolwire.registry.providers import engine_for

from ._chat import has_tool_turns, rewrite

__all__ = ["SOURCE", "ToolwireCallback", "handler", "route"]

#: The catalog source whose provider names LiteLLM uses (``data/catalog/engines.toml``).
SOURCE = "litellm"
#: The metadata key the decision report is recorded under.
METADATA_KEY = "toolwire"
#: LiteLLM route words that prefix a model id without being part of it, per provider.
_ROUTE_WORDS = {"bedrock": ("converse/", "invoke/")}
#: The call types whose ``messages`` are a Chat Completions conversation.
_CHAT = frozenset({CallTypes.acompletion, CallTypes.completion})


@functools.lru_cache(maxsize=1024)
def route(model: str, provider: str | None = None, api_base: str | None = None) -> tuple[str, str]:
    """Return (engine, model id) for a LiteLLM ``model`` (``PROVIDER/MODEL``).

    :raises LookupError: when LiteLLM knows no provider for it, or the table maps the
        provider to no engine.
    """
    try:
        model_id, found, _, _ = litellm.get_llm_provider(
            model=model, custom_llm_provider=provider, api_base=api_base
        )
    except Exception as exc:  # LiteLLM raises its BadRequestError for an unknown provider
        raise LookupError(f"LiteLLM finds no provider for {model!r}") from exc
    engine = engine_for(SOURCE, found)
    if engine is None:
        raise LookupError(f"no engine for the LiteLLM provider {found!r} (catalog/engines.toml)")
    for word in _ROUTE_WORDS.get(found, ()):
        if model_id.startswith(word):
            model_id = model_id[len(word) :]
    return engine, model_id


class ToolwireCallback(CustomLogger):
    """Rewrite each request's tool results and call ids for the model it is routed to.

    ``registry``: the registry to resolve against (default: the default registry,
    ``TOOLWIRE_DATABASE_URL`` or the embedded file); ``min_evidence``: the evidence
    policy of ``toolwire.registry.resolve``.
    """

    def __init__(
        self,
        *,
        registry: Registry | None = None,
        min_evidence: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.registry = registry
        self.min_evidence = min_evidence

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: CallTypes | None
    ) -> dict[str, Any] | None:
        """Return the request with its tool turns rewritten (None: leave it as it is)."""
        if call_type not in _CHAT:
            return None
        messages = kwargs.get("messages")
        if not has_tool_turns(messages):
            return None
        return self.rewrite_request(kwargs)

    def rewrite_request(self, kwargs: dict[str, Any]) -> dict[str, Any] | None:
        """Return ``kwargs`` (a LiteLLM chat request) rewritten, or None when unchanged."""
        model = kwargs.get("model")
        if not isinstance(model, str):
            return None
        try:
            engine, model_id = route(
                model, _string(kwargs.get("custom_llm_provider")), _string(kwargs.get("api_base"))
            )
            resolution = resolve(
                engine, model_id, registry=self.registry, min_evidence=self.min_evidence
            )
            done = rewrite(kwargs["messages"], resolution, tools=kwargs.get("tools"))
        except (LookupError, RegistryError, ToolwireError) as exc:
            return _recorded(dict(kwargs), {"model": model, "skipped": str(exc)})
        if done is None:
            return None
        new = dict(kwargs)
        new["messages"] = done.messages
        if done.tools is not None:
            new["tools"] = done.tools
        return _recorded(new, done.report)


def _string(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _recorded(kwargs: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    """Return ``kwargs`` with ``report`` in its metadata and in the call's logged metadata."""
    metadata = kwargs.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    metadata[METADATA_KEY] = report
    kwargs["metadata"] = metadata
    # The logging object read the request's parameters before this hook ran: its own
    # copy of the metadata is what LiteLLM's loggers are handed.
    logging_obj = kwargs.get("litellm_logging_obj")
    params = getattr(logging_obj, "litellm_params", None)
    if isinstance(params, dict):
        logged = params.get("metadata")
        if isinstance(logged, dict):
            logged[METADATA_KEY] = report
        else:
            params["metadata"] = {METADATA_KEY: report}
    return kwargs


#: The ready instance a proxy config names: ``callbacks: toolwire.integrations.litellm.handler``.
handler = ToolwireCallback()
