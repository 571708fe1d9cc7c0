"""The public names of toolwire.registry.probe and toolwire.registry.observations."""

from __future__ import annotations
import __future__

import subprocess
import sys
import types

from toolwire.registry import observations, probe
from toolwire.registry.errors import RegistryError


def _ruff_order(name: str) -> tuple[int, str]:
    """The order ruff (RUF022) keeps ``__all__`` in: CONSTANTS, Classes, functions."""
    if name.isupper():
        return 0, name
    return (1 if name[0].isupper() else 2), name


def test_all_is_sorted_and_complete() -> None:
    for module in (probe, observations):
        assert list(module.__all__) == sorted(module.__all__, key=_ruff_order)
        assert all(hasattr(module, name) for name in module.__all__)
    public = {
        name
        for name, value in vars(probe).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and not isinstance(value, __future__._Feature)
    }
    assert set(probe.__all__) == public
    defined = {
        name
        for name, value in vars(observations).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == observations.__name__
    }
    assert defined <= set(observations.__all__)


def test_probe_unavailable_is_a_registry_error() -> None:
    assert issubclass(probe.ProbeUnavailable, RegistryError)
    assert issubclass(probe.ProbeUnavailable, RuntimeError)


def test_importing_the_registry_loads_neither_httpcore_nor_pillow() -> None:
    code = (
        "import sys, toolwire.registry, toolwire.registry.cli, toolwire.registry.probe; "
        "print(sorted(m for m in ('httpcore', 'PIL', 'botocore') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_without_httpcore_probe_says_which_extra_to_install(sqlite_url: str) -> None:
    code = (
        "import sys; sys.modules['httpcore'] = None\n"
        "from toolwire.registry.cli import main\n"
        "main(['--database-url', sys.argv[1], 'probe', 'anthropic', 'm', '--no-key'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, sqlite_url],
        capture_output=True,
        text=True,
        env={"TOOLWIRE_USER": "ops", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 1
    from toolwire.registry._paths import install_hint  # names the checkout installed from

    assert done.stderr.strip().splitlines()[-1] == (
        f"Error: probing needs httpcore, in the probe extra: {install_hint('probe')}"
    )
    assert install_hint("probe").startswith("pip install ") and "[probe]'" in install_hint("probe")
