// The 404 page: nothing to load, only ways back.
import { h, setApp } from "/web/static/app.js";

setApp(h("p", {}, "There is nothing at this address. It may be a game that does not exist or a mistyped link."),
  h("p", {}, h("a", { href: "/" }, "Lobby"), " · ", h("a", { href: "/archive" }, "Archive"), " · ", h("a", { href: "/stats" }, "Statistics")));
