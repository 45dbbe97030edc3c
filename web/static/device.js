// "Continue on another device": a one-time link that carries this seat to another browser. The
// link's code sits in the URL's fragment (#...), which browsers never send to a server, and the
// other device exchanges it for a fresh token (POST .../device-links/redeem); no token is ever in a
// link, and this device is signed out of the seat once the link is used.
import { api, h, showError } from "/web/static/app.js";

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
        + `${Math.round(data.expires_in / 60)} minutes); this page then stops playing the seat:`), h("div", { class: "device-row" }, field, copy));
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
