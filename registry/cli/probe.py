"""``toolwire probe``: ask a model live whether it reads what the wire sends it.

The work is in ``toolwire.registry.probe`` (imported when the command runs: it needs
the ``probe`` extra); this module parses the options and prints the report.
"""

from __future__ import annotations

import os

import click

from .._output import as_row, plural
from ..vocab import OBSERVATION_SCENARIOS
from ._common import (
    Context,
    Seconds,
    actor_option,
    complete_engine,
    complete_model,
    echo,
    echo_json,
    emit,
    format_option,
    pass_ctx,
    who,
)

PROBE_COLUMNS = ("scenario", "outcome", "status", "latency", "observation", "excerpt")


@click.command(name="probe")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("model", required=False, shell_complete=complete_model)
@click.option("--all-models", is_flag=True, help="Probe every recorded model of ENGINE (no MODEL).")
@click.option(
    "--stale",
    is_flag=True,
    help="With --all-models: only models whose native-media flag that resolves on is "
    "unobserved or past its evidence policy.",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1, max=64),
    default=4,
    show_default=True,
    help="With --all-models: requests in flight at once.",
)
@click.option(
    "--scenario",
    "scenarios",
    multiple=True,
    type=click.Choice(OBSERVATION_SCENARIOS),
    help="Probe this scenario (repeatable; default: image_input and every native form "
    "of the wire).",
)
@click.option("--base-url", default=None, help="Endpoint URL (default: the engine's).")
@click.option(
    "--api-key-env",
    default=None,
    metavar="VAR",
    help="Environment variable holding the key (default per family, e.g. ANTHROPIC_API_KEY).",
)
@click.option(
    "--no-key",
    is_flag=True,
    help="Send no key (a local server that needs none); without it a missing key is refused.",
)
@click.option(
    "--allow-endpoint",
    "allow_endpoints",
    multiple=True,
    metavar="HOST",
    help="Let the key go to HOST (repeatable): needed for plain http to another machine "
    "and for a host other than the shipped engine's.",
)
@click.option("--challenge", default=None, metavar="CODE", help="Use this 6-character code.")
@click.option(
    "--record", is_flag=True, help="Also write the live-verified claims the outcomes support."
)
@click.option(
    "--max-requests",
    type=click.IntRange(min=1),
    default=None,
    help="Send no more requests than this, retries included (default: 10 for one model, "
    "at most 100; no limit with --all-models).",
)
@click.option(
    "--timeout",
    type=Seconds(min=0, min_open=True, max=600),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="How long each request may take in all, from connect to the reply's last byte.",
)
@click.option(
    "--report",
    "report_file",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    metavar="FILE",
    help="Write the drift report (each probed flag before and after, and the flips) to "
    "FILE as JSON; its table goes to stderr.",
)
@click.option(
    "--fail-on-flip",
    is_flag=True,
    help="Exit 1 when an observation contradicts the value its flag had (a flip).",
)
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
@format_option
@actor_option
@pass_ctx
def probe_command(
    obj: Context,
    engine: str,
    model: str | None,
    all_models: bool,
    stale: bool,
    jobs: int,
    scenarios: tuple[str, ...],
    base_url: str | None,
    api_key_env: str | None,
    no_key: bool,
    allow_endpoints: tuple[str, ...],
    challenge: str | None,
    record: bool,
    max_requests: int | None,
    timeout: float,
    report_file: str | None,
    fail_on_flip: bool,
    quiet: bool,
    fmt: str,
    actor: str | None,
) -> None:
    """Ask MODEL on ENGINE to read a code from an image, a PDF or source blocks.

    One request per scenario; each is recorded as an observation (read, ignored,
    rejected or error); 429 and 503 are sent again after Retry-After (3 times at most).
    A reply is read up to 1 MB and --timeout seconds, else it is an error. The key
    goes only to this machine, the shipped engine's host over https, or a host given
    with --allow-endpoint. A Bedrock engine without AWS_BEARER_TOKEN_BEDROCK signs
    with AWS SigV4 (credentials from the environment or profile, AWS_REGION).
    With --all-models, every recorded model of ENGINE, --jobs requests in flight.
    Progress goes to stderr. Exit 1 when a request ended in error, or on a flip with
    --fail-on-flip.
    """
    from ..probe import key_env, probe
    from ._probe_all import DriftWatch
    from ._progress import Progress

    if all_models == (model is not None):
        raise click.UsageError("give MODEL or --all-models")
    if not all_models and stale:
        raise click.UsageError("--stale goes with --all-models")
    if not all_models and max_requests is not None and max_requests > 100:
        raise click.BadParameter("at most 100 for one model", param_hint="--max-requests")
    for given, hint in ((base_url, "--base-url"), (api_key_env, "--api-key-env")):
        if given is not None and not given.strip():  # not the default: say so
            raise click.BadParameter("empty; leave it out for the engine's own", param_hint=hint)
    registry = obj.registry()
    record_engine = registry.engine(engine)
    variable = api_key_env or key_env(record_engine.family)
    key = None if no_key else os.environ.get(variable) or None
    # a Bedrock engine without its API key signs with SigV4 from the AWS chain
    sigv4 = key is None and not no_key and api_key_env is None and record_engine.family == "bedrock"
    if key is None and not no_key and not sigv4:
        raise click.ClickException(
            f"no key: ${variable} is not set (give --no-key to probe without one)"
        )
    watch = DriftWatch(registry, engine, report_file, fail_on_flip)
    progress = Progress(quiet=quiet)
    if all_models:
        from ._probe_all import probe_all

        probe_all(
            registry,
            engine,
            recorded_by=who(actor),
            stale=stale,
            jobs=jobs,
            max_requests=max_requests,
            scenarios=scenarios,
            base_url=base_url,
            api_key=key,
            sigv4=sigv4,
            allow_endpoints=allow_endpoints,
            challenge=challenge,
            record=record,
            timeout=timeout,
            progress=progress,
            fmt=fmt,
            watch=watch,
        )
        return
    assert model is not None
    watch.before([model])
    report = probe(
        registry,
        engine,
        model,
        recorded_by=who(actor),
        scenarios=scenarios,
        base_url=base_url,
        api_key=key,
        sigv4=sigv4,
        allow_endpoints=allow_endpoints,
        challenge=challenge,
        record_claims=record,
        max_requests=10 if max_requests is None else max_requests,
        timeout=timeout,
        progress=progress,
    )
    progress.finish()
    if fmt == "json":
        echo_json(
            {
                "engine": report.engine,
                "model": report.model,
                "wire": report.wire,
                "endpoint": report.endpoint,
                "challenge": report.challenge,
                "results": [
                    {
                        "scenario": r.scenario,
                        "outcome": r.outcome,
                        "http_status": r.http_status,
                        "latency_ms": r.latency_ms,
                        "excerpt": r.excerpt,
                        "observation_id": r.observation.id,
                        "claim": None if r.claim is None else as_row(r.claim),
                    }
                    for r in report.results
                ],
            }
        )
    else:
        if fmt == "table":
            echo(
                f"{report.engine} / {report.model} on the {report.wire} wire at "
                f"{report.endpoint}, challenge {report.challenge}"
            )
        rows = [
            {
                "scenario": r.scenario,
                "outcome": r.outcome,
                "status": r.http_status,
                "latency": None if r.latency_ms is None else f"{r.latency_ms} ms",
                "observation": f"#{r.observation.id}",
                "excerpt": r.excerpt,
            }
            for r in report.results
        ]
        emit(rows, fmt, PROBE_COLUMNS)
        for r in report.results:
            if r.claim is not None and fmt == "table":
                value = "true" if r.claim.value else "false"
                echo(f"recorded: {r.claim.capability}={value} on model {model} [live-verified]")
    flipped = watch.after(report.endpoint, [(model, r) for r in report.results])
    failed = [r for r in report.results if r.outcome == "error"]
    if flipped:
        raise SystemExit(1)
    if failed:
        echo(
            f"Error: {len(failed)} of {plural(len(report.results), 'request')} ended in error "
            "(that says nothing about the capability)",
            err=True,
        )
        raise SystemExit(1)


COMMANDS = [probe_command]
