"""Probe every recorded model of an engine, several requests in flight at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .. import evidence
from ..evidence import agreeing_days, read_policy, staleness
from ..observations import latest_observations
from ..resolver import Resolver
from ..store import Registry
from ..vocab import OBSERVATION_SCENARIOS
from ._runner import Budget, ProbeResult, Target, _http, prepare, reply_cap, send_scenario

__all__ = ["EngineProbeReport", "probe_engine", "stale_models"]


@dataclass(frozen=True, slots=True)
class EngineProbeReport:
    """What ``probe_engine`` sent: each model's results, and what the cap left unsent."""

    engine: str
    endpoint: str
    challenge: str
    #: (model, result) in model and scenario order
    results: tuple[tuple[str, ProbeResult], ...]
    #: (model, scenario) of the requests ``max_requests`` left unsent
    not_sent: tuple[tuple[str, str], ...]
    #: HTTP requests sent, retries included
    requests: int

    @property
    def models(self) -> tuple[str, ...]:
        """Return the models with at least one result, in order."""
        return tuple(dict.fromkeys(model for model, _ in self.results))


def stale_models(registry: Registry, engine: str) -> list[str]:
    """Return the recorded models of ``engine`` whose native-media decision needs a probe.

    A model is listed when a flag of a probe scenario resolves *on* and has no
    informative observation, or the claim deciding it is past its status's policy.

    :raises UnknownEngine: when the engine does not exist.
    """
    models = [m.model_id for m in registry.models(engine)]
    latest = latest_observations(registry, engine=engine)
    resolver = Resolver(registry)
    with registry.reading("cannot read the evidence policy") as connection:
        policy = read_policy(connection)
        agreeing = agreeing_days(connection, engine)
    day = evidence.today()  # through the module: the one clock tests replace
    wanted = []
    for model in models:
        trace = resolver.resolve(engine, model).trace
        for flag in OBSERVATION_SCENARIOS:
            entry = trace[flag]
            if not entry.value or entry.claim is None:
                continue
            unobserved = (engine, model, flag) not in latest
            if unobserved or staleness(entry.claim, policy, agreeing, day) is not None:
                wanted.append(model)
                break
    return wanted


def probe_engine(
    registry: Registry,
    engine: str,
    *,
    recorded_by: str,
    stale: bool = False,
    jobs: int = 4,
    max_requests: int | None = None,
    scenarios: Sequence[str] = (),
    base_url: str | None = None,
    api_key: str | None = None,
    sigv4: bool = False,
    allow_endpoints: Sequence[str] = (),
    challenge: str | None = None,
    record_claims: bool = False,
    timeout: float = 60.0,
    max_reply: int | None = None,
    progress: Callable[[int, int, str, ProbeResult], None] | None = None,
) -> EngineProbeReport:
    """Probe every recorded model of ``engine`` (``stale``: only ``stale_models``).

    ``jobs`` requests are in flight at most; ``max_requests`` caps the HTTP requests of
    the whole run, retries included (what it leaves unsent is listed, not recorded).
    Each request is sent, bounded and recorded as ``probe`` does it; ``progress(done,
    total, model, result)`` is called as each one ends (from the worker threads).

    :raises UnknownEngine: for an engine the registry does not know.
    :raises InvalidInput: for a bad ``jobs``, ``max_requests``, ``max_reply``, scenario,
        base URL or key.
    :raises EndpointRefused: when the endpoint rules keep the credentials from the host.
    :raises ProbeUnavailable: when httpcore or Pillow (or, to sign, botocore) is missing.
    """
    from ..errors import InvalidInput

    if type(jobs) is not int or not 1 <= jobs <= 64:
        raise InvalidInput(f"invalid jobs {jobs!r}: 1 to 64 requests in flight")
    if max_requests is not None and (type(max_requests) is not int or max_requests < 1):
        raise InvalidInput(f"invalid max_requests {max_requests!r}: a positive integer")
    http = _http()
    cap = reply_cap(max_reply)
    models = (
        stale_models(registry, engine) if stale else [m.model_id for m in registry.models(engine)]
    )
    resolver = Resolver(registry)
    targets: list[Target] = []
    code = challenge
    for model in models:
        target = prepare(
            registry,
            engine,
            model,
            scenarios=scenarios,
            base_url=base_url,
            api_key=api_key,
            sigv4=sigv4,
            allow_endpoints=allow_endpoints,
            challenge=code,
            timeout=timeout,
            resolver=resolver,
        )
        code = target.code  # one challenge for the run
        targets.append(target)
    work = [(target, scenario) for target in targets for scenario in target.scenarios]
    budget = Budget(max_requests)
    done = 0
    total = len(work)

    def run(item: tuple[Target, str]) -> ProbeResult | None:
        nonlocal done
        target, scenario = item
        result = send_scenario(
            client, registry, target, scenario, recorded_by, record_claims, budget
        )
        if result is not None and progress is not None:
            with lock:
                done += 1
                progress(done, total, target.model, result)
        return result

    import threading

    lock = threading.Lock()
    with (
        http.Client(connections=jobs, max_reply=cap) as client,
        ThreadPoolExecutor(max_workers=jobs) as pool,
    ):
        outcomes = list(pool.map(run, work))
    results = tuple(
        (target.model, result)
        for (target, _), result in zip(work, outcomes, strict=True)
        if result is not None
    )
    skipped = tuple(
        (target.model, scenario)
        for (target, scenario), result in zip(work, outcomes, strict=True)
        if result is None
    )
    endpoint = targets[0].endpoint if targets else ""
    return EngineProbeReport(engine, endpoint, code or "", results, skipped, budget.sent)
