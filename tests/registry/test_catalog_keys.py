"""LiteLLM keys read as the ids the engines are called with: routing segments go."""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from toolwire.registry import Registry
from toolwire.registry.catalog import import_catalog, litellm_model

REGION = re.compile(r"(?:^|/)(?:[a-z]{2}(?:-gov)?-[a-z]+-[0-9]+|\*|invoke|converse)/")


@pytest.mark.parametrize(
    ("provider", "key", "expected"),
    [
        ("bedrock", "bedrock/ap-northeast-1/deepseek.v3.2", ("deepseek.v3.2", None)),
        ("bedrock", "bedrock/us-gov-west-1/amazon.nova-lite-v1:0", ("amazon.nova-lite-v1:0", None)),
        ("bedrock", "bedrock/invoke/anthropic.claude-3-5-sonnet-20240620-v1:0",
         ("anthropic.claude-3-5-sonnet-20240620-v1:0", None)),
        ("bedrock_converse", "bedrock/us-gov-east-1/moonshotai.kimi-k3",
         ("moonshotai.kimi-k3", None)),
        ("bedrock_converse", "bedrock/converse/x.y-v1", ("x.y-v1", None)),
        ("bedrock", "us.anthropic.claude-3-5-sonnet-20241022-v2:0",
         ("us.anthropic.claude-3-5-sonnet-20241022-v2:0", None)),
        ("bedrock", "bedrock/us-east-1/1-month-commitment/anthropic.claude-v1",
         ("us-east-1/1-month-commitment/anthropic.claude-v1", "provisioned")),
        ("bedrock", "bedrock/claude_platform/claude-fable-5",
         ("claude_platform/claude-fable-5", "deployment_path")),
        ("groq", "groq/openai/gpt-oss-120b", ("openai/gpt-oss-120b", None)),
        ("openrouter", "openrouter/anthropic/claude-3-haiku", ("anthropic/claude-3-haiku", None)),
        ("openai", "gpt-4o", ("gpt-4o", None)),
    ],
)  # fmt: skip
def test_a_key_reads_as_the_id_called(
    provider: str, key: str, expected: tuple[str, str | None]
) -> None:
    assert litellm_model(provider, key) == expected


def _bundled() -> dict[str, object]:
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        pytest.skip("litellm is not installed (the bench extra)")
    path = Path(spec.origin).parent / "model_prices_and_context_window_backup.json"
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_the_bundled_litellm_catalog_leaves_no_routed_id_on_any_engine(
    registry: Registry,
) -> None:
    data = _bundled()
    routed = [
        key
        for key, spec in data.items()
        if isinstance(spec, dict)
        and spec.get("litellm_provider") in ("bedrock", "bedrock_converse")
        and REGION.search(key.split("/", 1)[-1] if key.startswith("bedrock/") else key)
    ]
    assert len(routed) > 100  # the data has them: the check below is not empty-handed
    report = import_catalog(registry, "litellm", data, recorded_by="tests")
    models = registry.models()
    bad = sorted(f"{m.engine}:{m.model_id}" for m in models if REGION.search(m.model_id + "/"))
    assert bad == []
    assert not [m for m in models if m.model_id.startswith(("bedrock/", "invoke/"))]
    on_bedrock = {m.model_id for m in models if m.engine == "bedrock"}
    # the regional entries became the model they route to; profile ids stay ids
    assert "deepseek.v3.2" in on_bedrock
    assert any(re.match(r"(us|eu|apac|global)\.anthropic\.", m) for m in on_bedrock)
    skipped = report.skipped
    assert skipped["provisioned"] > 0
    counts = Counter(
        litellm_model(str(spec.get("litellm_provider")), key)[1]
        for key, spec in data.items()
        if isinstance(spec, dict)
        and spec.get("mode") == "chat"
        and spec.get("litellm_provider") in ("bedrock", "bedrock_converse")
    )
    assert skipped["provisioned"] == counts["provisioned"]
    assert skipped.get("deployment_path", 0) == counts["deployment_path"]
    print(f"routed keys {len(routed)}; skipped {dict(skipped)}")
