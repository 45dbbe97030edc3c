"""Game-affine connections: gunicorn's gevent worker, with each game's connections gathered in one
worker process.

Every web process that serves a stream of a game follows that game: its live reader reads each new
move from Redis (one ``XREAD`` share), decodes it and folds it into its cached state. With the
connections spread by the kernel, the four seats of a game sit in up to four processes, so a move
was read and folded up to four times, and every process named every game in every ``XREAD``.
``bench/http_bench.py`` measured what that costs: web CPU per move cycle 0.44 ms with one worker,
0.59 ms with two, 0.76 ms with four (and Redis 0.07, 0.11, 0.15 ms).

So a new connection whose first request names a game (``/v1/games/<id>/...``: a view or event
stream, a claim, a move) is passed to the game's *owner*, one worker chosen from the game id, before
anything of it is read: the worker peeks at the request line (``MSG_PEEK``, so the bytes stay in the
socket) and hands the socket itself to the owner over a Unix socket (``SCM_RIGHTS``). The owner
serves the connection exactly as if it had accepted it. A game's streams, and the moves of clients
that open a connection per game, then cost one process's work.

This is only a placement hint, never a condition of correctness: any worker can serve any request
(they share the store, and each follows what it serves). Whatever does not fit is served where it
was accepted: a first request not yet whole in the first segment, TLS, a connection whose later
requests name other games, an owner that is gone, restarting or too busy to take the socket at
once (the hand-off never waits). A first request that names no game is balanced (below).

Owners are slots ``0 .. workers-1``: each worker binds the first free slot's address in the abstract
Unix namespace (scoped by the master's pid, so two servers on one machine never mix), and a worker
that found none (old workers still draining after a reload) tries again every second. Only peers of
the same user may hand sockets over (``SO_PEERCRED``), and the client's address is read from the
socket itself, never taken from the sender. Connections handed to a worker are served in a pool of
their own, as large as gunicorn's (``worker_connections``): a client that names games of one slot
on purpose can give that worker at most twice gunicorn's limit of connections. Linux only; elsewhere this is
gunicorn's gevent worker.

New games are placed on the worker that serves the fewest connections (``Loads``): each worker
counts the connections it serves, in memory the master maps before it forks (one counter per slot),
and a create draws the new game's id until the id's slot is the least loaded one
(``placement``, ``service.ids.new_placed_game_id``). Owners drawn from the id alone were as uneven
as dice: with four games in play on two workers, one worker owns three or four of them five times
in eight, and the other's core idles (``bench/http_bench.py``, four clients: 1.76-1.87 of 2 cores
busy while games were played, 1.85-1.93 with this placement). Least connections is the usual
balancer's measure (nginx's ``least_conn``): a game's seats and watchers each hold one. A new
connection whose first request names no game (a lobby's, a health check's) is passed the same way
to the least loaded worker when this one serves more: the kernel hands accepted connections to
whichever worker wakes first, and with a few keep-alive clients one worker often held three of four
(in the bench's health phase: 1.80 of 2 cores busy, a health rate a fifth low). It is a hint like
the rest: a count read a moment before another create may place two games on one worker.

``GUNICORN_WORKER_CLASS=gevent`` turns it off (gunicorn.conf.py).
"""

from __future__ import annotations

import array
import contextlib
import mmap
import os
import random
import re
import socket
import struct
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any, cast

import gevent
import gevent.pool

from api.edge.move_worker import MoveAnsweringWorker

# The request line and a little more: a first request naming a game is routed on this much.
PEEK_BYTES = 256
FIRST_REQUEST = re.compile(rb"[A-Z]{3,7} /v1/games/([A-Za-z0-9_-]{1,64})[/? ]")
# After a failed connect to an owner, serve its games locally this long before trying again.
RETRY_SECONDS = 1.0
_CREDENTIALS = struct.Struct("3i")
# Slots past this many (a server grown with TTIN beyond it) are served but never chosen for a new game.
MAX_PLACED_SLOTS = 256
_COUNT = struct.Struct("q")


def game_of_request(head: bytes) -> str | None:
    """The game named by the request line at the start of ``head``, if any."""
    match = FIRST_REQUEST.match(head)
    return match.group(1).decode("ascii") if match else None


def owner_slot(game_id: str, slots: int) -> int:
    """The slot of the worker that owns ``game_id``: stable across processes (unlike ``hash``)."""
    return zlib.crc32(game_id.encode("ascii")) % slots


def slot_address(master_pid: int, slot: int) -> bytes:
    """Slot ``slot``'s address in Linux's abstract namespace (a leading NUL: no file to clean up)."""
    return b"\0condottiere-affinity/%d/%d" % (master_pid, slot)


class Loads:
    """The connections each slot's worker serves now: one counter per slot in an anonymous shared
    mapping, made by the master before it forks so that every worker (a replacement too) maps the
    same memory. A worker writes its own count whenever it changes (an aligned 8-byte store: a
    reader sees the old count or the new one); a worker that hands a connection over adds one to
    the owner's meanwhile, so that connections handed over together see each other, until the
    owner writes its own count again. Any worker reads them all: a hint, never exact."""

    def __init__(self, slots: int = MAX_PLACED_SLOTS):
        self.slots = slots
        self._memory = mmap.mmap(-1, _COUNT.size * slots)

    def set(self, slot: int, count: int) -> None:
        if 0 <= slot < self.slots:
            _COUNT.pack_into(self._memory, _COUNT.size * slot, count)

    def add(self, slot: int, count: int) -> None:
        if 0 <= slot < self.slots:
            self.set(slot, self.get(slot) + count)

    def get(self, slot: int) -> int:
        return int(_COUNT.unpack_from(self._memory, _COUNT.size * slot)[0])

    def least_loaded(self, slots: int, rng: random.Random | None = None) -> int:
        """The slot of ``0 .. slots-1`` serving the fewest connections (ties drawn at random, so
        idle workers share the first games)."""
        counts = [self.get(slot) for slot in range(min(slots, self.slots))]
        least = min(counts)
        return (rng or random).choice([slot for slot, count in enumerate(counts) if count == least])


_placement: Callable[[], Callable[[str], bool] | None] | None = None


def placement() -> Callable[[str], bool] | None:
    """Where this process would place a new game, as a test of its id (``owner_slot`` is the least
    loaded worker's slot); None outside a game-affine gunicorn worker, where any id serves as well."""
    return _placement() if _placement is not None else None


class HandOff:
    """The sending side: one lazily opened ``SOCK_SEQPACKET`` connection per owner slot."""

    def __init__(self, master_pid: int):
        self.master_pid = master_pid
        self._channels: dict[int, socket.socket] = {}
        self._down_until: dict[int, float] = {}

    def send(self, slot: int, client: socket.socket, listener_index: int) -> bool:
        """Pass ``client`` to slot ``slot``; False (the caller serves it) unless it was taken at once.
        The caller then closes its own descriptor: the connection lives on in the owner's."""
        fds = array.array("i", [client.fileno()])
        message = [bytes([listener_index])]
        # A channel kept from before may lead to a worker that has since died: its replacement may
        # already hold the slot, so one failure on an old channel is followed by one new connect.
        for _attempt in range(2):
            channel = self._channel(slot)
            if channel is None:
                return False
            try:
                channel.sendmsg(message, [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
            except BlockingIOError:  # the owner is behind on its hand-offs: never wait on a sibling
                return False
            except OSError:  # the owner is gone
                self._channels.pop(slot, None)
                channel.close()
                continue
            return True
        self._down_until[slot] = time.monotonic() + RETRY_SECONDS
        return False

    def _channel(self, slot: int) -> socket.socket | None:
        channel = self._channels.get(slot)
        if channel is not None:
            return channel
        if time.monotonic() < self._down_until.get(slot, 0.0):
            return None
        channel = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            channel.setblocking(False)
            channel.connect(slot_address(self.master_pid, slot))
        except OSError:
            channel.close()
            self._down_until[slot] = time.monotonic() + RETRY_SECONDS
            return None
        self._channels[slot] = channel
        return channel


class Receiver:
    """The receiving side: holds the first free slot of ``0 .. slots-1`` and hands every socket it
    receives to ``serve(listener_index, client)`` on a greenlet of ``group`` (waiting while a
    bounded group is full)."""

    def __init__(self, master_pid: int, slots: int, serve: Any, group: gevent.pool.Group):
        self.master_pid = master_pid
        self.slots = slots
        self.serve = serve
        self.group = group
        self.slot: int | None = None
        self._listener: socket.socket | None = None
        self._channels: set[socket.socket] = set()
        self._closed = False

    def bind(self) -> int | None:
        """Take the first free slot unless one is held; the slot held (None: all taken for now)."""
        if self.slot is not None or self._closed:
            return self.slot
        for slot in range(self.slots):
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                listener.bind(slot_address(self.master_pid, slot))
            except OSError:  # held by a sibling (or by an old worker still draining)
                listener.close()
                continue
            listener.listen(64)
            self._listener, self.slot = listener, slot
            gevent.spawn(self._accept, listener)
            return slot
        return None

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                channel, _ = listener.accept()
            except OSError:  # closed
                return
            try:
                _pid, uid, _gid = _CREDENTIALS.unpack(
                    channel.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _CREDENTIALS.size)
                )
            except OSError:  # the peer is already gone
                uid = -1
            if uid != os.geteuid():  # only a sibling worker (same user) may hand sockets over
                channel.close()
                continue
            self._channels.add(channel)
            gevent.spawn(self._receive, channel)

    def _receive(self, channel: socket.socket) -> None:
        try:
            while self._take_next(channel):
                pass
        finally:
            self._channels.discard(channel)
            channel.close()

    def _take_next(self, channel: socket.socket) -> bool:
        """Receive one hand-off and serve it; False once the sender closed its end (or, on a
        non-blocking channel, once nothing more is queued)."""
        try:
            message, fds, _flags, _ = socket.recv_fds(channel, 16, 1)
        except OSError:
            return False
        if not message and not fds:
            return False
        self._take(message, fds)
        return True

    def _take(self, message: bytes, fds: list[int]) -> None:
        if len(fds) != 1 or len(message) != 1:
            for fd in fds:
                os.close(fd)
            return
        try:
            client = socket.socket(fileno=fds[0])
        except OSError:  # not a socket
            os.close(fds[0])
            return
        if client.type != socket.SOCK_STREAM:
            client.close()
            return
        self.group.spawn(self.serve, message[0], client)

    def close(self) -> None:
        """Stop taking hand-offs; the ones already queued are still served (closing with them queued
        would close their connections unanswered)."""
        self._closed = True
        listener, self._listener, self.slot = self._listener, None, None
        if listener is not None:
            listener.close()
        for channel in list(self._channels):
            channel.setblocking(False)
            while self._take_next(channel):
                pass
            self._channels.discard(channel)
            channel.close()


class GameAffineWorker(MoveAnsweringWorker):
    """Gunicorn's gevent worker (answering ordinary moves itself, ``api.edge.move_worker``), passing each
    new connection whose first request names a game to that game's owner worker, and one that names
    no game to the least loaded worker when it serves more itself; new games are placed on the
    least loaded worker (module docstring)."""

    _handed: gevent.pool.Pool | None = None
    _receiver: Receiver | None = None
    _hand_off: HandOff | None = None
    # Made in the master by the first worker object (gunicorn makes each before forking it), so
    # every worker of this master, replacements included, inherits the one mapping.
    _loads: Loads | None = None
    _serving = 0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        if GameAffineWorker._loads is None:
            GameAffineWorker._loads = Loads()

    def run(self) -> None:
        global _placement
        # Made here, after the fork and gevent's hub.reinit: nothing of it belongs to the master.
        if sys.platform.startswith("linux") and self.cfg.workers > 1 and not self.cfg.is_ssl:
            # Bounded like gunicorn's own pool: a full one stops this worker's reading of its
            # channels, their buffers fill, and the senders serve their connections themselves.
            self._handed = gevent.pool.Pool(self.worker_connections)
            self._hand_off = HandOff(self.ppid)
            self._receiver = Receiver(self.ppid, self.cfg.workers, self._serve_handed, self._handed)
            self._bind()
            _placement = self._placement
        try:
            super().run()
        finally:
            if self._receiver is not None and self._handed is not None:
                self._receiver.close()
                self._handed.join(timeout=self.cfg.graceful_timeout)
                self._handed.kill(block=False)

    def notify(self) -> None:
        super().notify()
        if self._receiver is None:
            return
        if self.alive:
            self._bind()  # a slot freed by an old worker after a reload
        else:
            self._receiver.close()  # shutting down: siblings serve this slot's games meanwhile

    def _bind(self) -> None:
        assert self._receiver is not None
        had = self._receiver.slot
        if self._receiver.bind() is not None and had is None:
            self._publish()  # the slot's counter may still hold a dead predecessor's count

    def _placement(self) -> Callable[[str], bool] | None:
        if self._loads is None:
            return None
        slots = self.cfg.workers
        target = self._loads.least_loaded(slots)
        return lambda game_id: owner_slot(game_id, slots) == target

    def _publish(self) -> None:
        slot = self._receiver.slot if self._receiver is not None else None
        if slot is not None and self._loads is not None:
            self._loads.set(slot, self._serving)

    @contextlib.contextmanager
    def _counting(self) -> Iterator[None]:
        """Count a connection while it is served (and, for one just accepted, while it is decided
        where: gevent accepts a burst of connections at once, and each must see the others)."""
        self._serving += 1
        self._publish()
        try:
            yield
        finally:
            self._serving -= 1
            self._publish()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        with self._counting():
            handing = self._hand_off is not None and self._receiver is not None
            if handing and self._handed_off(listener, client):
                return  # gevent's server closes this process's descriptor; the owner holds its own
            super().handle(listener, client, addr)

    def _handed_off(self, listener: Any, client: Any) -> bool:
        client.setblocking(1)
        head = b""
        # gevent documents Timeout(seconds, False) as a silent timeout; typeshed's stub omits False.
        with gevent.Timeout(self.cfg.keepalive or 5, False):  # type: ignore[arg-type]
            try:
                head = client.recv(PEEK_BYTES, socket.MSG_PEEK)
            except OSError:
                return False  # gunicorn's own read sees the same error
        game_id = game_of_request(head)
        if game_id is not None:
            owner = owner_slot(game_id, self.cfg.workers)
        elif head and self._loads is not None:
            owner = self._loads.least_loaded(self.cfg.workers)
            if self._serving - 1 <= self._loads.get(owner):
                return False  # no sibling serves fewer than this worker does without it: keep it
        else:
            return False
        # Called only once handle() saw both set (init_process sets them, nothing unsets them).
        if owner == cast(Receiver, self._receiver).slot:
            return False
        if not cast(HandOff, self._hand_off).send(owner, client, self.sockets.index(listener)):
            return False
        if self._loads is not None:
            self._loads.add(owner, 1)  # until the owner counts it itself
        return True

    def _serve_handed(self, listener_index: int, client: Any) -> None:
        try:
            if listener_index >= len(self.sockets):
                return
            try:
                addr = client.getpeername()
            except OSError:  # the client is already gone
                return
            with self._counting():
                super().handle(self.sockets[listener_index], client, addr)
        finally:
            client.close()
