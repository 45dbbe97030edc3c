"""The browser client: lobby, play table, spectator, archive, replay viewer, statistics, ratings,
tournaments, sign-in and "my games" pages.

A blueprint of its own, outside ``/v1``: it serves pages and static files only. Everything a page
shows comes from the public API (``/v1``), fetched by the page's own script, so the client is a
proof that the API suffices. The shell (``web/static/``) knows no game; each game supplies its
board (``board_template`` hook: the same SVG its HTML export draws, from the game's render module)
and an ES module that draws its views and labels its moves (``web_module`` hook). Nothing is
loaded from another origin (see the Content-Security-Policy below).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, render_template, send_file

from bots import levels as bot_levels
from games import game_names, get_game
from games.base import Game, archive_hooks, outcome_names, web_hooks
from replays.export import SEAT_COLOURS
from service.errors import GameNotFound
from service.tournament.service import TournamentNotFound

HERE = Path(__file__).parent

blp = Blueprint(
    "web",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/web/static",
)

# Only our own origin; inline style attributes are needed by the SVG boards (fill: var(--seat-n)).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


def _games() -> list[dict[str, Any]]:
    found = []
    for name in game_names():
        game = get_game(name)
        if _web_module(game) is None:
            continue
        found.append(
            {"name": name, "title": game.title, "bots": bot_levels(name), "outcomes": outcome_names(game)}
        )
    return found


def _page(page: str, title: str, status: int = 200, **data: Any) -> Response:
    body = render_template(
        "page.html", page=page, title=title, data=data, games=_games(), seat_colours=SEAT_COLOURS
    )
    response = Response(body, status=status, mimetype="text/html")
    response.headers["Content-Security-Policy"] = CSP
    # A page URL holds a game id at most, never a token; still, send no referrer to anyone.
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@blp.get("/")
def lobby() -> Response:
    return _page("lobby", "Lobby")


def not_found_page() -> Response:
    """The HTML 404 a browser gets for a page that does not exist (API clients under /v1 get a
    problem document: api/problems.py chooses)."""
    return _page("notfound", "Page not found", status=404)


def _game_page(page: str, title: str, game_id: str, **data: Any) -> Response:
    """A page about one game; a game id that names no game is the 404 page, not a page that loads
    forever (one read of the game's summary, the page's own first request)."""
    try:
        current_app.extensions["game_service"].get_summary(game_id)
    except GameNotFound:
        return not_found_page()
    return _page(page, title, game_id=game_id, **data)


@blp.get("/play/<string:game_id>")
def play(game_id: str) -> Response:
    return _game_page("play", "Play", game_id, mode="play")


@blp.get("/watch/<string:game_id>")
def watch(game_id: str) -> Response:
    return _game_page("play", "Watch", game_id, mode="watch")


@blp.get("/continue/<string:game_id>")
def continue_on_this_device(game_id: str) -> Response:
    return _game_page("continue", "Continue on this device", game_id)


@blp.get("/archive")
def archive() -> Response:
    return _page("archive", "Archive")


@blp.get("/replay/<string:game_id>")
def replay(game_id: str) -> Response:
    return _game_page("replay", "Replay", game_id)


@blp.get("/stats")
def stats() -> Response:
    return _page("stats", "Statistics")


@blp.get("/stats/players/<string:name>")
def player_stats(name: str) -> Response:
    return _page("stats", f"Statistics of {name}", player=name)


# Ratings: a game's leaderboard and a player's rating history (an account's handle or
# ``bot:<level>``), both read from /v1/ratings by web/static/ratings.js.
@blp.get("/ratings")
def ratings() -> Response:
    return _page("ratings", "Ratings")


@blp.get("/ratings/players/<string:name>")
def player_rating(name: str) -> Response:
    return _page("ratings", f"Rating of {name}", player=name)


# The bot ladder of a game, read from /v1/ladder by web/static/ladder.js.
@blp.get("/ladder")
def ladder() -> Response:
    return _page("ladder", "Bot ladder")


# Tournaments: the list, the create form and one tournament's page (standings, rounds, "your
# table"), all read from and acted on through /v1/tournaments by web/static/tournaments.js.
@blp.get("/tournaments")
def tournaments() -> Response:
    return _page("tournaments", "Tournaments", mode="list")


@blp.get("/tournaments/new")
def new_tournament() -> Response:
    return _page("tournaments", "Organise a tournament", mode="new")


@blp.get("/tournaments/<string:tournament_id>")
def tournament(tournament_id: str) -> Response:
    try:
        current_app.extensions["tournament_service"].view(tournament_id)
    except TournamentNotFound:
        return not_found_page()
    return _page("tournaments", "Tournament", mode="one", tournament_id=tournament_id)


# Accounts: the pages only hold forms and lists; the session token they get from
# POST /v1/sessions is kept in this browser's localStorage (web/static/app.js, ``account``).
@blp.get("/sign-in")
def sign_in() -> Response:
    return _page("account", "Sign in", mode="sign-in")


@blp.get("/sign-up")
def sign_up() -> Response:
    return _page("account", "Create an account", mode="sign-up")


@blp.get("/my-games")
def my_games() -> Response:
    return _page("mygames", "My games")


def _game_or_404(name: str) -> Game[Any]:
    if name not in game_names():
        abort(404)
    return get_game(name)


# A game without a page module of its own still gets pages: the generic module shows its views as
# the API sends them and its legal moves as buttons (the lobby's creation form still lists only
# games with a module, since only those describe their options).
GENERIC_MODULE = HERE / "static" / "generic.js"


def _web_module(game: Game[Any]) -> Any:
    """The path of the game's own browser module (:class:`games.base.WebHooks`), None without."""
    web = web_hooks(game)
    return web.web_module if web is not None else None


EMPTY_BOARD = '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg>'


@blp.get("/web/games/<string:name>/renderer.js")
def game_module(name: str) -> Response:
    path = _web_module(_game_or_404(name)) or GENERIC_MODULE
    response = send_file(Path(path), mimetype="text/javascript", max_age=300)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


# A game's page module may import modules of its own beside it (its rules for players, say): any
# ``<lowercase-name>.js`` in the module's own folder, nothing outside it.
@blp.get("/web/games/<string:name>/<string:module>.js")
def game_sibling_module(name: str, module: str) -> Response:
    main = _web_module(_game_or_404(name))
    if main is None or not module.replace("-", "").isalpha() or not module.islower():
        abort(404)
    path = Path(main).parent / f"{module}.js"
    if not path.is_file():
        abort(404)
    response = send_file(path, mimetype="text/javascript", max_age=300)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@blp.get("/web/games/<string:name>/board.svg")
def board(name: str) -> Response:
    web = web_hooks(_game_or_404(name))
    response = Response(web.board_template() if web is not None else EMPTY_BOARD, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@blp.get("/web/games/<string:name>/render.css")
def game_css(name: str) -> Response:
    archive = archive_hooks(_game_or_404(name))
    css = (archive.render_css if archive is not None else "") or ""
    response = Response(css, mimetype="text/css")
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


def register(app: Flask) -> None:
    app.register_blueprint(blp)
