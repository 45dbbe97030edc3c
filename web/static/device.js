// "Continue on another device": a one-time link that carries this seat to another browser. The
// link's code sits in the URL's fragment (#...), which browsers never send to a server, and the
// other device exchanges it for a fresh token (POST .../device-links/redeem); no token is ever in a
// link, and this device is signed out of the seat once the link is used.
//
// The link is also drawn as a QR code, for a phone's camera: encoded here by the vendored
// qrcode-generator (web/static/vendor/qrcode-generator/README.md: version, licence, hash), drawn as
// one SVG path (no markup parsed), so the code never leaves this page either.
import { api, h, showError } from "/web/static/app.js";
import { svgEl } from "/web/static/dom.js";
import qrcode from "/web/static/vendor/qrcode-generator/qrcode.js";

const QUIET = 4; // the blank margin, in modules, that a QR code needs around it to be read

export function qrSvg(text) {
  const qr = qrcode(0, "M"); // the smallest version that holds it; medium error correction
  qr.addData(text, "Byte");
  qr.make();
  const n = qr.getModuleCount();
  let d = "";
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) if (qr.isDark(row, col)) d += `M${col + QUIET} ${row + QUIET}h1v1h-1z`;
  }
  const size = n + 2 * QUIET;
  const svg = svgEl("svg", { viewBox: `0 0 ${size} ${size}`, class: "device-qr", role: "img",
    "aria-label": "QR code of the link above: scan it with the other device's camera", "shape-rendering": "crispEdges" });
  svg.append(svgEl("rect", { width: size, height: size, fill: "#fff" }), svgEl("path", { d, fill: "#000" }));
  return svg;
}

export function deviceLinkBox(gameId, getToken) {
  const out = h("div", { class: "device-out", "aria-live": "polite" });
  const make = h("button", { type: "button", onclick: async () => {
    make.disabled = true;
    try {
      const { data } = await api(`/v1/games/${gameId}/device-links`, { method: "POST", token: getToken() });
      const url = `${location.origin}${data.page}`;
      const field = h("input", { id: "device-url", readonly: true, value: url, class: "device-url" });
      const copy = h("button", { type: "button", onclick: async () => {
        try { await navigator.clipboard.writeText(url); copy.textContent = "Copied"; } catch { field.select(); }
      } }, "Copy");
      out.replaceChildren(h("label", { for: "device-url" }, "Open this link on the other device (once, within "
        + `${Math.round(data.expires_in / 60)} minutes); this page then stops playing the seat:`), h("div", { class: "device-row" }, field, copy),
        h("p", { class: "muted" }, "Or scan this code with the other device's camera:"), qrSvg(url));
    } catch (error) {
      showError(error, make);
    } finally {
      make.disabled = false;
    }
  } }, "Make a link");
  return h("details", { class: "device-link" }, h("summary", {}, "Continue on another device"),
    h("p", { class: "muted" }, "Your seat lives in this browser. To play it on your phone or another computer, make a one-time link."),
    make, out);
}
