// /sign-in and /sign-up: a handle and a password. Sign-up creates the account
// (POST /v1/accounts) and signs in at once (POST /v1/sessions); the session token is kept in this
// browser (app.js, `account`). A problem is shown next to the control it is about: the API's
// field errors beside their field, a wrong handle or password (one answer for both) beside the
// password, anything else beside the button.
import { account, api, describe, drawAccountNav, h, pageData, setApp, signOut } from "/web/static/app.js";

const signUp = pageData.data.mode === "sign-up";

function fieldError(control, text) {
  const id = `${control.id}-error`;
  control.setAttribute("aria-invalid", "true");
  control.setAttribute("aria-describedby", id);
  control.closest(".field, .actions").after(h("p", { class: "inline-error", id, role: "alert" }, text));
}

function clearErrors(form) {
  for (const old of form.querySelectorAll(".inline-error")) old.remove();
  for (const control of form.querySelectorAll("[aria-invalid]")) {
    control.removeAttribute("aria-invalid");
    control.removeAttribute("aria-describedby");
  }
}

function signedIn(session) {
  setApp(h("section", { class: "account-box" },
    h("p", {}, "You are signed in as ", h("strong", {}, session.handle), " in this browser."),
    h("p", {}, h("a", { class: "button primary", href: "/my-games" }, "My games"), h("a", { class: "button", href: "/" }, "Lobby"),
      h("button", { type: "button", onclick: async () => { await signOut(); main(); } }, "Sign out"))));
}

function main() {
  const session = account.get();
  if (session) { signedIn(session); return; }
  const handle = h("input", { id: "handle", name: "handle", required: true, maxlength: 40, autocomplete: "username",
    autocapitalize: "none", spellcheck: "false" });
  const password = h("input", { id: "password", name: "password", type: "password", required: true, minlength: signUp ? 8 : null,
    maxlength: 256, autocomplete: signUp ? "new-password" : "current-password" });
  const submit = h("button", { type: "submit", class: "primary" }, signUp ? "Create the account" : "Sign in");
  const form = h("form", { class: "account-form", "aria-labelledby": "title", novalidate: true },
    h("div", { class: "field stacked" }, h("label", { for: "handle" }, signUp ? "Handle (your public name, 1 to 40 characters)" : "Handle"), handle),
    h("div", { class: "field stacked" }, h("label", { for: "password" }, signUp ? "Password (8 to 256 characters)" : "Password"), password),
    h("div", { class: "actions" }, submit),
    h("p", { class: "muted" }, signUp
      ? ["Already have an account? ", h("a", { href: "/sign-in" }, "Sign in")]
      : ["No account yet? ", h("a", { href: "/sign-up" }, "Create one"), ". Without one you can still play: seats need only a name."]));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    submit.disabled = true;
    const body = { handle: handle.value.trim(), password: password.value };
    try {
      if (signUp) await api("/v1/accounts", { method: "POST", body });
      const { data } = await api("/v1/sessions", { method: "POST", body });
      account.set(data);
      drawAccountNav();
      location.assign("/my-games");
    } catch (error) {
      submit.disabled = false;
      const fields = (error.problem && error.problem.errors && error.problem.errors.json) || {};
      let placed = false;
      for (const [name, control] of [["handle", handle], ["password", password]]) {
        if (fields[name]) { fieldError(control, [].concat(fields[name]).join(" ")); placed = true; }
      }
      if (placed) return;
      if (error.code === "HANDLE_TAKEN") fieldError(handle, describe(error));
      else if (error.code === "INVALID_CREDENTIALS") fieldError(password, describe(error));
      else fieldError(submit, describe(error));
      const first = form.querySelector("[aria-invalid]");
      if (first) first.focus();
    }
  });
  setApp(form);
  handle.focus();
}

main();
