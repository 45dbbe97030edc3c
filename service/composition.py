"""The composition root: the one place that builds services, for the web process and every worker.

A process reads its configuration (:class:`Settings`: the app's config or the environment), then asks
this module for what it runs: :func:`build` (the web process and the janitor: every service, wired
to each other once, each given what it needs when it is made), :func:`job_handlers` (a job of the
``default`` queue), :func:`game_service_on` (a bot turn, on the store RQ hands the job) and
:func:`deliverer` (the webhook loop). A new service is wired here and nowhere else; nothing is set
on a service after it is built (tests/platform/test_composition_root.py checks both).

Every process carries out every follow-up action (``service.followups``): the ones that enqueue jobs
or tell other parties too (``receivers``), except that the web process leaves an archived game's
``facts`` (CPU work) to the janitor (``Settings.facts``); only a test builds a service without the
receivers, to leave that work to a sweeper.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bots.search import Budget
from service import followups, rematch
from service.account_tokens import AccountTokens, TokenUses
from service.accounts import FEED_POLL_SECONDS, AccountService
from service.analysis import AnalysisService
from service.archive import ArchiveService
from service.challenges import ChallengeService
from service.chat import ChatService
from service.compaction import Compaction
from service.games import GameService
from service.jobs import Handler, JobService
from service.ladder import DEFAULT_LADDERS, LadderService, LadderSettings, ladder_followup, ladders_from_text
from service.lobby import LobbyService
from service.ratings import RatingService
from service.seeks import SeekService
from service.stats import StatsService
from service.tournament.runner import tournament_followup
from service.tournament.service import TournamentService
from service.webhook_delivery import Deliverer, WebhookSettings
from service.webhooks import WebhookService
from store import GameStore, connect, parts, queue_connection, queue_url


@dataclass(frozen=True)
class Settings:
    """What a process's services are built from."""

    redis_url: str
    # RQ's Redis (store.queue_url of REDIS_URL and RQ_REDIS_URL); None or the store's own URL: the
    # store's Redis (on a cluster, anything that enqueues then fails with store.QueueRedisRequired).
    queue_url: str | None = None
    cache_size: int = 1024
    live_block_seconds: float = 5.0
    # Keyword arguments of store.connect (pool size, timeouts); the socket ones serve RQ's Redis too.
    redis_options: Mapping[str, Any] = field(default_factory=dict)
    password_parameters: Any = None
    account_stream_poll_seconds: float = FEED_POLL_SECONDS
    webhooks: WebhookSettings = field(default_factory=WebhookSettings)
    # The follow-up actions that enqueue jobs or tell other parties (verify, bot, challenge): every
    # process of the product has them.
    receivers: bool = True
    # The ``facts`` follow-up (folds an archived game's log: CPU work): every process but the web
    # process, which leaves it to the janitor after the grace period.
    facts: bool = True
    # The bot ladders (service.ladder): one per game, paired on the janitor's tick.
    ladders: tuple[LadderSettings, ...] = DEFAULT_LADDERS

    @classmethod
    def from_env(cls, *, enqueues: bool = True, **overrides: Any) -> Settings:
        """A worker's settings: ``REDIS_URL``, ``RQ_REDIS_URL`` and ``WEBHOOK_*`` from the
        environment. A process that ``enqueues`` fails here, at start-up, when ``REDIS_URL`` is a
        cluster and ``RQ_REDIS_URL`` is unset."""
        url = overrides.pop("redis_url", None) or os.environ["REDIS_URL"]
        values: dict[str, Any] = {"redis_url": url, "webhooks": WebhookSettings.from_env()}
        if enqueues:
            values["queue_url"] = queue_url(url, os.environ.get("RQ_REDIS_URL"))
        if os.environ.get("LADDERS") is not None:
            values["ladders"] = ladders_from_text(os.environ["LADDERS"])
        values.update(overrides)
        return cls(**values)


@dataclass(frozen=True)
class Services:
    """Every service of a process, built by :func:`build`."""

    store: GameStore
    games: GameService
    jobs: JobService
    archive: ArchiveService
    stats: StatsService
    accounts: AccountService
    ratings: RatingService
    compaction: Compaction
    webhooks: WebhookService
    challenges: ChallengeService
    seeks: SeekService
    lobby: LobbyService
    chat: ChatService
    analysis: AnalysisService
    tournaments: TournamentService
    ladder: LadderService


def connect_store(settings: Settings) -> GameStore:
    """The event store at ``settings.redis_url``, its jobs going to ``settings.queue_url``."""
    url, options = settings.redis_url, dict(settings.redis_options)
    queue = None
    if settings.queue_url and settings.queue_url != url:
        socket_options = {k: v for k, v in options.items() if k.startswith("socket_")}
        queue = queue_connection(settings.queue_url, **socket_options)
    return GameStore(connect(url, **options), queue=queue)


def game_service_on(
    store: GameStore,
    *,
    cache_size: int = 1024,
    live_block_seconds: float = 5.0,
    receivers: bool = True,
    facts: bool = True,
    jobs: JobService | None = None,
    compaction: Compaction | None = None,
    identity: Any = None,
    predictor: Any = None,
) -> GameService:
    """The game service on ``store`` (a bot worker's, a test's: without accounts or ratings)."""
    jobs = JobService(store) if jobs is None else jobs
    compaction = Compaction(store) if compaction is None else compaction
    # These start games (service.bound_start imports service.followups): added here, not there.
    handlers = {
        **followups.handlers(compaction, jobs if receivers else None, facts=facts),
        "rematch": rematch.rematch_followup,
    }
    if receivers:
        handlers["tournament"] = tournament_followup
        handlers["ladder"] = ladder_followup
    return GameService(
        store,
        handlers,
        cache_size=cache_size,
        live_block_seconds=live_block_seconds,
        identity=identity,
        predictor=predictor,
    )


def game_service(settings: Settings) -> GameService:
    """The game service alone, on a new connection (the clock enforcer's, a test's)."""
    return game_service_on(
        connect_store(settings),
        cache_size=settings.cache_size,
        live_block_seconds=settings.live_block_seconds,
        receivers=settings.receivers,
        facts=settings.facts,
    )


def game_service_at(
    url: str,
    *,
    queue_url: str | None = None,
    receivers: bool = True,
    facts: bool = True,
    **redis_options: Any,
) -> GameService:
    """The game service alone on a new connection to ``url`` (a test's, a benchmark's)."""
    settings = Settings(
        redis_url=url, queue_url=queue_url, redis_options=redis_options, receivers=receivers, facts=facts
    )
    return game_service(settings)


def build(settings: Settings, store: GameStore | None = None) -> Services:
    """Every service, on ``store`` (default: a new connection, :func:`connect_store`). Opens no
    connection itself (redis-py connects lazily)."""
    store = connect_store(settings) if store is None else store
    jobs = JobService(store)
    compaction = Compaction(store)
    # Ratings: a running or open game's summary carries each seat's chance to win.
    ratings = RatingService(parts.archive(store))
    # Who an account token names (service.identity), for the game service; the account service
    # shares its buffer of last uses, so a token used on either path is written back once.
    uses = TokenUses()
    games = game_service_on(
        store,
        cache_size=settings.cache_size,
        live_block_seconds=settings.live_block_seconds,
        receivers=settings.receivers,
        facts=settings.facts,
        jobs=jobs,
        compaction=compaction,
        identity=AccountTokens(parts.accounts(store), uses),
        predictor=ratings.predict_for_meta,
    )
    accounts = AccountService(
        games,
        uses,
        password_parameters=settings.password_parameters,
        stream_poll_seconds=settings.account_stream_poll_seconds,
    )
    challenges = ChallengeService(games, accounts)
    seeks = SeekService(games, accounts)
    return Services(
        store=store,
        games=games,
        jobs=jobs,
        archive=ArchiveService(store, jobs, ratings),
        stats=StatsService(store, jobs),
        accounts=accounts,
        ratings=ratings,
        compaction=compaction,
        webhooks=WebhookService(parts.webhooks(store), settings.webhooks),
        challenges=challenges,
        seeks=seeks,
        lobby=LobbyService(games, challenges, seeks),
        chat=ChatService(games, accounts),
        analysis=AnalysisService(store, jobs),
        tournaments=TournamentService(store, games),
        ladder=LadderService(games, settings.ladders),
    )


def archive_service(store: GameStore, jobs: JobService | None = None) -> ArchiveService:
    """The archive's service on ``store`` (a job's, a benchmark's)."""
    return ArchiveService(
        store, JobService(store) if jobs is None else jobs, RatingService(parts.archive(store))
    )


def stats_service(store: GameStore, jobs: JobService | None = None) -> StatsService:
    """The statistics' service on ``store`` (a job's, a benchmark's)."""
    return StatsService(store, JobService(store) if jobs is None else jobs)


def analysis_service(store: GameStore, budget: Budget | None = None) -> AnalysisService:
    """The analysis' service on ``store`` (an analysis worker's idle scan, a benchmark's)."""
    return AnalysisService(store, JobService(store), budget=budget)


def job_handlers(
    store: GameStore, analysis_budget: Budget | None = None
) -> tuple[JobService, dict[str, Handler]]:
    """The jobs of ``store`` and every job kind's computation on it (a ``default`` or ``analysis``
    queue job; ``analysis_budget``: the operator's search budget per decision, else the default)."""
    jobs = JobService(store)
    archive, stats = archive_service(store, jobs), stats_service(store, jobs)
    return jobs, {
        "verify": archive.verify,
        "export": archive.export,
        "bulk-export": archive.bulk_export,
        "observations": archive.observation_export,
        "import": archive.import_job,
        "game-stats": stats.compute_game,
        "player-stats": stats.compute_player,
        "global-stats": stats.compute_global,
        "analysis": AnalysisService(store, jobs, budget=analysis_budget).compute,
    }


def deliverer(settings: Settings) -> Deliverer:
    """The webhook loop's deliverer, on a new connection to the store."""
    return Deliverer(parts.webhooks(connect_store(settings)), settings.webhooks)
