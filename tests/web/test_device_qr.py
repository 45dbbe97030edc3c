"""The "continue on another device" link as a QR code (issue 30, item 4): the play page draws the
one-time link it made as a QR code (the vendored qrcode-generator, web/static/vendor/qrcode-generator/
README.md), the code as drawn decodes (the test-only jsQR, tests/web/vendor/jsqr/README.md) to
exactly that link, and the decoded link carries the seat to another browser. Both vendored files
are checked against the hashes their READMEs record."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
import requests

from tests.web.axe import assert_accessible, assert_no_sideways_scroll
from tests.web.conftest import ROOT, open_play_page, screenshot
from tests.web.test_table import TURN_OR_OVER, token_in

ENCODER = ROOT / "web" / "static" / "vendor" / "qrcode-generator" / "qrcode.js"
ENCODER_SHA256 = "ea91d7118a5395289170da848b7c6758b996163bfbccf312591ab65a4911b7c0"
DECODER = Path(__file__).parent / "vendor" / "jsqr" / "jsQR.js"
DECODER_SHA256 = "bc40c8a15196236b2314db0856f72ca0b49980cd5413b8c852a7349f5fee0859"

DECODE = """async (png) => {
  const image = new Image();
  image.src = "data:image/png;base64," + png;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height);
  const found = jsQR(pixels.data, image.width, image.height);
  return found ? found.data : null;
}"""


def _checked(path: Path, sha256: str) -> bytes:
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == sha256, f"{path} is not the vendored file its README names"
    return data


def test_the_vendored_qr_encoder_is_the_one_recorded_and_is_served(live):
    _checked(ENCODER, ENCODER_SHA256)
    served = requests.get(f"{live.url}/web/static/vendor/qrcode-generator/qrcode.js", timeout=10)
    assert served.status_code == 200 and "javascript" in served.headers["Content-Type"]
    assert hashlib.sha256(served.content).hexdigest() == ENCODER_SHA256
    for name in ("LICENSE", "README.md"):
        assert (ENCODER.parent / name).is_file(), name


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_device_links_qr_code_decodes_to_the_link_and_carries_the_seat(live, context_for, size):
    """The QR code is the one-time link, no token in it; a camera's reading of it (the decoded
    screenshot) opened in another browser takes the seat there, and this page says so."""
    created = requests.post(
        f"{live.url}/v1/games",
        json={"game": "condottiere", "config": {"players": 2}, "bots": {"1": "random"}},
        timeout=10,
    ).json()
    game_id = created["id"]
    claim = requests.post(f"{live.url}/v1/games/{game_id}/seats", json={"name": "Ann"}, timeout=10).json()
    page, errors = open_play_page(context_for(size), live.url, game_id, claim)
    page.wait_for_function(TURN_OR_OVER)
    page.get_by_text("Continue on another device").click()
    page.get_by_role("button", name="Make a link").click()
    qr = page.locator("svg.device-qr")
    qr.wait_for()
    link = page.locator("#device-url").input_value()
    assert f"/continue/{game_id}#" in link and claim["token"] not in link
    box = qr.bounding_box()
    assert box and box["width"] >= 150, f"big enough for a camera: {box}"
    qr.scroll_into_view_if_needed()
    screenshot(page, f"play-device-qr-{size}")
    assert_no_sideways_scroll(page, f"play-device-qr-{size}")
    assert_accessible(page, f"play-device-qr-{size}")

    # Read as a camera would: the code's pixels as drawn, decoded in a page of its own.
    png = base64.b64encode(qr.screenshot()).decode()
    reader = context_for("desktop").new_page()
    reader.add_script_tag(content=_checked(DECODER, DECODER_SHA256).decode("utf-8"))
    decoded = reader.evaluate(DECODE, png)
    assert decoded == link, f"the QR code reads {decoded!r}, the link is {link!r}"

    other = context_for("phone" if size == "desktop" else "desktop").new_page()
    other.goto(decoded)
    other.wait_for_url(f"**/play/{game_id}")
    other.wait_for_function(TURN_OR_OVER)
    moved = token_in(other, game_id)
    assert moved and moved["seat"] == claim["seat"] and moved["token"] != claim["token"]
    page.wait_for_selector(".seat-notice[data-lost='token_rotated']")
    assert not errors, errors
