from __future__ import annotations

import os
import tempfile

import pytest

# Many tests hammer the API on purpose (concurrency, soaks, simulations): rate limits are off unless
# a test turns them on in its app's config (tests/api/test_rate_limits.py). Set here, before any app
# or live server starts, so servers started as subprocesses inherit it too.
os.environ["RATE_LIMITS_ENABLED"] = "false"
# The analytical store's files (service.facts) of this test run, never the worktree's var/: every
# process the tests start inherits it.
os.environ.setdefault("FACTS_DIR", tempfile.mkdtemp(prefix="facts-tests-"))

from hypothesis import settings

from tests import hypothesis_profiles
from tests.redis_server import PrivateRedis

# Hypothesis profiles (tests/hypothesis_profiles.py): ci when CI=true (derandomised: a CI failure
# reproduces), dev otherwise; --hypothesis-profile=NAME (Hypothesis's pytest option) overrides.
hypothesis_profiles.register()
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")


def pytest_addoption(parser):
    parser.addoption(
        "--redis-topology",
        choices=("single", "cluster"),
        default="single",
        help="run the Redis tests against one private redis-server (default) or a private Redis "
        "Cluster of 3 masters and 3 replicas (tests that need a plain Redis, such as RQ's, skip)",
    )


def pytest_report_header(config):
    return [
        f"redis topology: {config.getoption('--redis-topology')}",
        f"hypothesis profile: {settings.get_current_profile_name()} ({settings.default.max_examples} examples"
        f"{', derandomised' if settings.default.derandomize else ''})",
    ]


@pytest.fixture(scope="session")
def redis_topology(request) -> str:
    return request.config.getoption("--redis-topology")


@pytest.fixture(scope="session")
def redis_server(redis_topology):
    """One private Redis for the whole test session (never the machine's default port): a single
    redis-server, or with ``--redis-topology=cluster`` a private Redis Cluster.

    On a cluster, RQ's queues need a plain Redis of their own (RQ cannot use a cluster): a second
    private redis-server (``queue_server``), named to every app, in-process job and worker
    subprocess of the session through ``RQ_REDIS_URL`` (and the cluster through ``REDIS_URL``), as a
    deployment names them."""
    if redis_topology == "cluster":
        from tests.redis_cluster import PrivateRedisCluster

        server = PrivateRedisCluster()
        server.rq_server = PrivateRedis()
        saved = {name: os.environ.get(name) for name in ("REDIS_URL", "RQ_REDIS_URL")}
        os.environ["REDIS_URL"] = server.url
        os.environ["RQ_REDIS_URL"] = server.rq_server.url
        yield server
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.rq_server.stop()
    else:
        server = PrivateRedis()
        yield server
    server.stop()


@pytest.fixture(scope="session")
def queue_server(redis_server):
    """RQ's Redis: the private server itself, or on a cluster the plain one beside it."""
    return getattr(redis_server, "rq_server", redis_server)


@pytest.fixture()
def redis_client(redis_server, queue_server):
    """A client on a freshly emptied database of the private server (RQ's emptied too)."""
    redis_server.flushall()
    if queue_server is not redis_server:
        queue_server.flushall()
    client = redis_server.client()
    yield client
    client.close()


@pytest.fixture()
def queue_client(redis_client, queue_server):
    """A client on RQ's Redis (emptied with ``redis_client``): for workers and queue checks."""
    client = queue_server.client()
    yield client
    client.close()


@pytest.fixture()
def jobs_store(redis_client, queue_client):
    """A store on the session's Redis whose jobs go to RQ's (what an app or a worker gets)."""
    from store import GameStore

    return GameStore(redis_client, queue=queue_client)
