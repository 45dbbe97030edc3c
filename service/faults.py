"""Named points where the fault-injection tests (tests/faults/) kill the running process.

``FAULT_POINT=<name>`` in the environment makes the process SIGKILL itself the first time it passes
``fault_point(<name>)`` (``FAULT_POINT=<name>:<n>``: the n-th time). Unset, a call costs one
comparison with a module constant: production never sets it.
"""

from __future__ import annotations

import os
import signal

_SPEC = os.environ.get("FAULT_POINT") or ""
_NAME, _, _NTH = _SPEC.partition(":")
_passed: dict[str, int] = {}


def fault_point(name: str) -> None:
    if not _NAME or name != _NAME:
        return
    _passed[name] = _passed.get(name, 0) + 1
    if _passed[name] >= int(_NTH or 1):
        os.kill(os.getpid(), signal.SIGKILL)
