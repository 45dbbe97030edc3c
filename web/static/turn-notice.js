// Your turn, noticed: the tab's title and icon, a sound and a notification (each a preference of
// this browser, with its toggles).
import { h, prefs, toast } from "/web/static/app.js";

const baseTitle = document.title;

function setIcon(turn) {
  let link = document.querySelector("link[rel=icon]");
  if (!link) { link = h("link", { rel: "icon", type: "image/svg+xml" }); document.head.append(link); }
  link.href = `/web/static/${turn ? "favicon-turn" : "favicon"}.svg`;
}

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.35);
  } catch { /* no audio on this device: the title and icon still say it */ }
}

export function noticeTurn(turn, title, gameId) {
  document.title = turn ? `● Your turn · ${baseTitle}` : baseTitle;
  document.body.dataset.yourTurn = String(Boolean(turn));
  setIcon(turn);
  if (!turn) return;
  if (prefs.get("sound", false)) beep();
  if (prefs.get("notify", false) && document.hidden && "Notification" in window && Notification.permission === "granted") {
    try { new Notification("Your turn", { body: title, tag: `turn-${gameId}` }); } catch { /* not allowed here */ }
  }
}

export function noticeToggles() {
  const sound = h("input", { type: "checkbox", id: "pref-sound", checked: prefs.get("sound", false) });
  sound.addEventListener("change", () => { prefs.set("sound", sound.checked); if (sound.checked) beep(); });
  const notify = h("input", { type: "checkbox", id: "pref-notify", checked: prefs.get("notify", false) });
  notify.addEventListener("change", async () => {
    if (notify.checked && "Notification" in window && Notification.permission !== "granted") {
      const answer = await Notification.requestPermission();
      if (answer !== "granted") {
        notify.checked = false;
        toast("This browser does not allow notifications for this page.", { kind: "info" });
      }
    }
    prefs.set("notify", notify.checked);
  });
  return h("div", { class: "notice-prefs" },
    h("span", { class: "check" }, sound, h("label", { for: "pref-sound" }, "Sound on my turn")),
    h("span", { class: "check" }, notify, h("label", { for: "pref-notify" }, "Notify me when the tab is hidden")));
}
