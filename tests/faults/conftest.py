from __future__ import annotations

import pytest

from service import followups
from worker import bots, enqueue


@pytest.fixture(autouse=True)
def handlers():
    """The follow-up handlers of the web process and workers, in the test process too."""
    bots.connect_signals()
    enqueue.connect_signals()
    yield
    bots.disconnect_signals()
    followups.unregister("verify")
