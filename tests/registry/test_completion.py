"""``toolwire completion``: the scripts, and words completed from the registry."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import ok, ops_runner
from click.shell_completion import ShellComplete
from toolwire.registry import Registry
from toolwire.registry.cli import main


def words(url: str | None, *args: str, incomplete: str = "") -> list[str]:
    """Return what completing ``incomplete`` after ``toolwire [--database-url URL] ARGS`` offers."""
    given = ["--database-url", url] if url is not None else []
    completer = ShellComplete(main, {}, "toolwire", "_TOOLWIRE_COMPLETE")
    return [item.value for item in completer.get_completions([*given, *args], incomplete)]


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "complete -o nosort -F _toolwire_completion toolwire"),
        ("zsh", "#compdef toolwire"),
        ("fish", "complete --no-files --command toolwire"),
    ],
)
def test_completion_prints_the_script_of_each_shell(shell: str, marker: str) -> None:
    script = ok(ops_runner().invoke(main, ["completion", shell]))
    assert marker in script and "_TOOLWIRE_COMPLETE" in script
    if shell == "bash" and shutil.which("bash"):
        checked = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
        assert checked.returncode == 0, checked.stderr


def test_names_complete_from_the_registry(url: str) -> None:
    with Registry(url) as registry:
        registry.add_model("anthropic", "claude-recorded-7", created_by="ops")
        engines = sorted(e.name for e in registry.engines())
    assert words(url, "resolve", incomplete="anth") == [e for e in engines if e.startswith("anth")]
    assert words(url, "engine", "show") == engines
    models = words(url, "resolve", "anthropic", incomplete="claude-")
    assert models == ["claude-2.1", "claude-instant-1.2", "claude-recorded-7"]  # rules, rows
    assert words(
        url, "claim", "set", "anthropic", "image_input", "true", "--model", incomplete="claude-r"
    ) == ["claude-recorded-7"]
    assert words(url, "claim", "set", "openai", incomplete="tool_result_") == [
        "tool_result_images",
        "tool_result_pdf",
        "tool_result_url_sources",
    ]
    assert words(url, "audit", "--capability", incomplete="image") == ["image_input", "image_mimes"]
    assert words(url, "audit", "--status", incomplete="") == [
        "live-verified",
        "documented",
        "inferred",
        "unverified",
    ]
    assert words(url, "resolve", "openai", "gpt-4o", "--wire", incomplete="o") == [
        "openai",
        "ollama",
    ]
    assert words(url, "resolve", "opneai", incomplete="") == []  # an unknown engine: nothing


def test_completion_never_creates_a_registry(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite3"
    assert words(f"sqlite:///{missing}", "resolve", incomplete="a") == []
    assert not missing.exists()


def test_bash_completes_through_the_script(url: str, tmp_path: Path) -> None:
    """The script bash sources, run by bash: COMPREPLY holds the registry's names."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = tmp_path / "toolwire.bash"
    script.write_text(ok(ops_runner().invoke(main, ["completion", "bash"])))
    program = (
        f"source {script}\n"
        "COMP_WORDS=(toolwire resolve anthropic claude-i); COMP_CWORD=3\n"
        "_toolwire_completion toolwire\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "TOOLWIRE_DATABASE_URL": url,
        },
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["claude-instant-1.2"]
