"""One composition root (service/composition.py) builds every service of the web process and the
workers from the configuration: a new service is wired there and nowhere else, nothing is set on a
service after it is built, and what a service does never depends on what else ran in its process."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from service import composition
from tests.test_import_cycles import PRODUCT_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
COMPOSITION = ROOT / "service" / "composition.py"
# The services the root builds (the fields of composition.Services, and the webhook loop's).
SERVICES = {
    "GameService",
    "JobService",
    "ArchiveService",
    "StatsService",
    "AccountService",
    "AccountTokens",
    "RatingService",
    "Compaction",
    "WebhookService",
    "Deliverer",
    "ChallengeService",
    "SeekService",
    "LobbyService",
    "ChatService",
    "AnalysisService",
    "TournamentService",
}
# What a service was once given after it was built (its identity resolver, its predictor...).
WIRED = {"identity", "predictor", "followups", "jobs", "ratings", "compaction", "handlers"}


def _violations(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in SERVICES:
                found.append(f"{node.lineno}: builds {name}")
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in WIRED:
                if not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                    found.append(f"{node.lineno}: sets {ast.unparse(target)}")
    return found


def test_the_composition_root_is_the_only_place_services_are_built():
    places = {}
    for package in PRODUCT_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == COMPOSITION:
                continue
            found = _violations(path.read_text(encoding="utf-8"))
            if found:
                places[str(path.relative_to(ROOT))] = found
    assert places == {}
    assert _violations(COMPOSITION.read_text(encoding="utf-8"))  # the root does build them


def test_the_scan_sees_a_service_built_or_wired_outside_the_root():
    source = textwrap.dedent(
        """
        jobs = JobService(store)
        archive = service.archive.ArchiveService(store, jobs, ratings)
        game_service.identity = accounts
        self.predictor = predictor
        store.index.engine_names = names
        """
    )
    assert sorted(line.split(":")[0] for line in _violations(source)) == ["2", "3", "4"]


def test_the_web_processes_services_are_wired_to_each_other_when_built(redis_server):
    settings = composition.Settings(redis_url=redis_server.url, password_parameters=None)
    services = composition.build(settings)
    try:
        games = services.games
        assert games.identity is not None and games.predictor is not None
        assert games.store is services.store and services.archive.jobs is services.jobs
        assert {"index", "archive", "accounts", "verify", "bot"} <= set(games.followups.handlers)
    finally:
        services.store.redis.close()


def test_a_service_built_without_the_receivers_leaves_their_work_whatever_else_ran(redis_server):
    """No process-wide registry: a service with the receivers built first gives none to the next."""
    with_them = composition.game_service_at(redis_server.url)
    without = composition.game_service_at(redis_server.url, receivers=False)
    try:
        assert {"verify", "bot"} <= set(with_them.followups.handlers)
        assert set(without.followups.handlers) == {"index", "lobby", "archive", "accounts", "rematch"}
    finally:
        with_them.store.redis.close()
        without.store.redis.close()
