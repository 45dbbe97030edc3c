from __future__ import annotations

import pytest

from service import followups


@pytest.fixture(autouse=True)
def handlers():
    """The follow-up handlers of the web process and workers, in the test process too."""
    followups.connect_receivers()
    yield
    followups.disconnect_receivers()
