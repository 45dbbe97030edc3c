// /continue/<id>#<code>: the other end of a device link. The code is read from the fragment (never
// sent to the server in a URL), removed from the address bar, and exchanged for the seat's token.
import { api, h, pageData, seats, setApp, showError } from "/web/static/app.js";

const gameId = pageData.data.game_id;

async function main() {
  const code = decodeURIComponent(location.hash.slice(1));
  history.replaceState(null, "", location.pathname); // the code is spent: keep it out of history
  if (!code) {
    setApp(h("p", {}, "This link holds no code. Ask for a new link on the device that plays the seat."));
    return;
  }
  setApp(h("p", {}, "Taking over the seat…"));
  try {
    const { data } = await api(`/v1/games/${gameId}/device-links/redeem`, { method: "POST", body: { code } });
    seats.set(gameId, data);
    location.replace(`/play/${gameId}`);
  } catch (error) {
    setApp(h("p", {}, "This link cannot be used (it was used already, it expired, or it belongs to another game). ",
      "Make a new one on the device that plays the seat."), h("p", {}, h("a", { href: `/watch/${gameId}` }, "Watch the game"), " · ",
      h("a", { href: "/" }, "Lobby")));
    showError(error);
  }
}

main().catch(showError);
