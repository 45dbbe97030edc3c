"""schemathesis hooks of tests/platform/test_schemathesis.py's full run (``SCHEMATHESIS_HOOKS``).

schemathesis.toml lets a few operations answer a well-formed request with 422 where only the rules
or the state can refuse it; this check keeps that honest: a request generated from the schema
(positive mode) must never be refused by the schema's own validation (``VALIDATION_ERROR``),
anywhere. A refusal by the rules or the state has a code of its own."""

from __future__ import annotations

import json

import schemathesis
from hypothesis import strategies as st
from schemathesis.core.failures import Failure

from schemas.common import DISPLAY_NAME_FORMAT, display_name_problem

# The document's own format for a player's name (schemas.common.DisplayName): the names the server
# takes, so positive cases are names and not any string.
schemathesis.openapi.format(
    DISPLAY_NAME_FORMAT,
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=40).filter(
        lambda name: display_name_problem(name) is None
    ),
)


class SchemaValidRefusedAsInvalid(Failure):
    pass


@schemathesis.check
def schema_valid_is_never_a_validation_error(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    try:
        code = json.loads(response.content).get("code")
    except (ValueError, AttributeError):
        return None
    if code == "VALIDATION_ERROR":
        raise SchemaValidRefusedAsInvalid(
            operation=case.operation.label,
            title="Schema-valid request refused as invalid",
            message=f"VALIDATION_ERROR for a request the schema allows: {response.content[:500]!r}",
        )
    return None
