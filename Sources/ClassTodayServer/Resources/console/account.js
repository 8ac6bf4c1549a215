// The account pages: sign in, sign up, "forgot password" (a mailed code), setting a new password with that code, and
// the landing page of the email-verification link. Each form shows the API's problems beside the field they name, in
// the page's language; mailed links carry their code after the `#` (`#reset-password?token=…`), so it never reaches a
// server's log.

import { api, signIn, signUp, startSession } from "./api.js";
import { showFieldErrors } from "./dom.js";
import { t } from "./i18n.js";
import { fieldMessages, problemSummary } from "./problems.js";

/**
 * Runs `action(form)` when `form` is submitted: says which required fields are empty without asking the server, else
 * clears the earlier problems and shows the API's field problems beside their fields and any other problem in the form's status line, and keeps the submit button disabled meanwhile.
 * @param {HTMLFormElement} form
 * @param {(form: HTMLFormElement) => Promise<void>} action
 * @param {Record<number, [string | null, string]>} [byStatus] a status said at a field (see fieldMessages), or with a
 *   null field in the status line: `{401: [null, "signIn.wrong"]}`
 */
function handleSubmit(form, action, byStatus = {}) {
  form.noValidate = true;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    setStatus(form, "");
    // Empty required fields are said here, in the page's language, without asking the server.
    const empty = [...form.querySelectorAll("input[required]")].filter((input) => input.value === "");
    showFieldErrors(form, Object.fromEntries(empty.map((input) => [input.name, t("problem.required")])));
    if (empty.length > 0) return;
    button.disabled = true;
    try {
      await action(form);
    } catch (error) {
      const [field, key] = byStatus[error?.status] ?? [];
      if (key && !field) {
        setStatus(form, t(key), "error");
        return;
      }
      const messages = fieldMessages(error, byStatus);
      const unshown = Object.values(showFieldErrors(form, messages));
      if (unshown.length > 0 || Object.keys(messages).length === 0) setStatus(form, unshown.join(" ") || problemSummary(error), "error");
    } finally {
      button.disabled = false;
    }
  });
}

/**
 * Writes a form's status line (its `.form-status`, a live region): `kind` "error" or "done".
 * @param {HTMLFormElement} form
 * @param {string} text
 * @param {"error" | "done"} [kind]
 */
function setStatus(form, text, kind = "done") {
  const line = form.querySelector(".form-status");
  line.textContent = text;
  line.dataset.kind = kind;
  line.hidden = !text;
}

/** The account pages. `signedIn()` is called once a form started a session (sign-in, sign-up, a new password). */
export class Account {
  constructor({ signedIn }) {
    this.signedIn = signedIn;
    this.forms = {
      signIn: document.getElementById("sign-in"),
      signUp: document.getElementById("sign-up"),
      forgot: document.getElementById("forgot-password-form"),
      reset: document.getElementById("reset-password-form"),
      verify: document.getElementById("verify-email-form"),
    };
    const { signIn: signInForm, signUp: signUpForm, forgot, reset, verify } = this.forms;

    handleSubmit(signInForm, async (form) => {
      await signIn(form.email.value.trim(), form.password.value);
      form.reset();
      await this.signedIn();
    }, { 401: [null, "signIn.wrong"] });

    handleSubmit(signUpForm, async (form) => {
      await signUp(form.email.value.trim(), form.password.value, form.nickname.value);
      form.reset();
      await this.signedIn(t("signUp.done"));
    }, { 409: ["email", "problem.emailTaken"] });

    handleSubmit(forgot, async (form) => {
      await api("/v1/auth/password-reset", { method: "POST", body: { email: form.email.value.trim() } });
      setStatus(form, t("forgot.sent"));
    });

    handleSubmit(reset, async (form) => {
      const answer = await api("/v1/auth/password-reset/confirm", {
        method: "POST", body: { token: form.token.value.trim(), newPassword: form.newPassword.value },
      });
      startSession(answer);
      form.reset();
      await this.signedIn(t("reset.done"));
    }, { 400: ["token", "problem.token"] });

    handleSubmit(verify, async (form) => {
      await api("/v1/auth/verify-email", { method: "POST", body: { token: form.token.value.trim() } });
      setStatus(form, t("verify.done"));
    }, { 400: ["token", "problem.token"], 409: ["token", "problem.emailTakenMeanwhile"] });
  }

  /**
   * Prepares the page `view` when it is shown: the code of a mailed link goes into its form, and the verification
   * page confirms a link's code at once (once per code).
   * @param {string} view sign-in, sign-up, forgot-password, reset-password or verify-email
   * @param {URLSearchParams} params the query after the page's name in the hash
   */
  show(view, params) {
    const token = params.get("token");
    if (view === "reset-password" && token) this.forms.reset.token.value = token;
    if (view === "verify-email" && token) {
      this.forms.verify.token.value = token;
      if (this.submittedToken !== token) {
        this.submittedToken = token;
        this.forms.verify.requestSubmit();
      }
    }
  }
}
