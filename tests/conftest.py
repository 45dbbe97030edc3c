from __future__ import annotations

import os

import pytest

# Many tests hammer the API on purpose (concurrency, soaks, simulations): rate limits are off unless
# a test turns them on in its app's config (tests/api/test_rate_limits.py). Set here, before any app
# or live server starts, so servers started as subprocesses inherit it too.
os.environ["RATE_LIMITS_ENABLED"] = "false"

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
    redis-server, or with ``--redis-topology=cluster`` a private Redis Cluster."""
    if redis_topology == "cluster":
        from tests.redis_cluster import PrivateRedisCluster

        server = PrivateRedisCluster()
    else:
        server = PrivateRedis()
    yield server
    server.stop()


@pytest.fixture()
def redis_client(redis_server):
    """A client on a freshly emptied database of the private server."""
    redis_server.flushall()
    client = redis_server.client()
    yield client
    client.close()
