"""The observation export as a streamed download, for any number of games: the games matching the
filters are read from the analytical store (``service.fact_queries``: the one filter grammar,
keyset pages of :data:`PAGE` ids, newest first), each one's log is loaded and folded into its
observations (``replays.observations``) and the compressed lines are sent as they come. Nothing is
held but one page of ids and one game: no Redis value caps it (the export job's result is one
value, hence its 1,000 games)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from games import get_game
from replays.observations import GzipNdjson, NoDecisions, observations
from service.fact_queries import FactQueries
from service.filters import Filters
from store.game_logs import GameLog

PAGE = 500


def matching_ids(queries: FactQueries, game: str, filters: Filters, limit: int | None) -> Iterator[str]:
    """The ids of ``game``'s archived games ``filters`` match, newest first, at most ``limit``."""
    after = None
    sent = 0
    while limit is None or sent < limit:
        size = PAGE if limit is None else min(PAGE, limit - sent)
        page = queries.search(game, filters, after, size)
        for _, game_id in page:
            yield game_id
        sent += len(page)
        if len(page) < size:
            return
        after = page[-1]


def observation_stream(ids: Iterator[str], load: Callable[[str], GameLog | None]) -> Iterator[bytes]:
    """Gzipped NDJSON observations of the games ``ids`` (``load``: a game's log, None when gone),
    in chunks; one gzip member from the first chunk to the last."""
    out = GzipNdjson()
    for game_id in ids:
        log = load(game_id)
        if log is None or not log.finished:
            continue
        try:
            out.write(observations(get_game(log.name), log.events, game_id=game_id, result=log.result))
        except NoDecisions:
            continue  # an engine that does not say where its decisions are has none to give
        chunk = out.drain()
        if chunk:
            yield chunk
    yield out.finish()
