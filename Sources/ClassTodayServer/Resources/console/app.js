// The console's entry point: the language, the pages named by the URL's hash (Explore for anyone, Chat for signed-in
// users, Moderate for operators, and the account pages: #sign-in, #sign-up, #forgot-password, #reset-password?token=…,
// #verify-email?token=…), the header's session state, and the wiring between the sections.

import { session, signOut, restoreSession, probeOperator } from "./api.js";
import { notify } from "./dom.js";
import { t, language, setLanguage, translatePage, onLanguageChange } from "./i18n.js";
import { Account } from "./account.js";
import { Explore } from "./explore.js";
import { Chat } from "./chat.js";
import { Moderate } from "./moderate.js";

const accountPages = new Set(["sign-in", "sign-up", "forgot-password", "reset-password", "verify-email"]);
const signedOutOnly = new Set(["sign-in", "sign-up"]);

const chat = new Chat();
const moderate = new Moderate();
const explore = new Explore({
  openChat: async (classId) => {
    location.hash = "#chat";
    await chat.openForClass(classId);
  },
});
const account = new Account({
  signedIn: async (message) => {
    await sessionChanged();
    location.hash = "#explore";
    if (message) notify(message);
  },
});

/** The page and its parameters from the hash: `#reset-password?token=abc` is reset-password with token abc. */
function currentPage() {
  const [name, query = ""] = location.hash.slice(1).split("?");
  return { name: name || "explore", params: new URLSearchParams(query) };
}

/** Shows the page the hash names; pages the user may not use fall back to Explore. */
function route() {
  let { name, params } = currentPage();
  const known = name === "explore" || name === "chat" || name === "moderate" || accountPages.has(name);
  if (!known || (name === "chat" && !session.user) || (name === "moderate" && !session.isOperator)
      || (signedOutOnly.has(name) && session.user)) name = "explore";
  for (const section of document.querySelectorAll("[data-view]")) section.hidden = section.dataset.view !== name;
  for (const link of document.querySelectorAll("[data-tab]")) {
    const active = link.dataset.tab === name;
    link.classList.toggle("active", active);
    if (active) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (name === "moderate") moderate.refresh();
  if (name === "chat") chat.loadRooms();
  if (accountPages.has(name)) account.show(name, params);
}

/** Updates the header and starts or stops what needs a session. */
async function sessionChanged() {
  const user = session.user;
  document.getElementById("signed-out").hidden = Boolean(user);
  document.getElementById("signed-in").hidden = !user;
  document.querySelector('[data-tab="chat"]').hidden = !user;
  if (user) {
    document.getElementById("who").textContent = user.nickname;
    session.isOperator = await probeOperator().catch(() => false);
    await chat.start();
  } else {
    chat.stop();
  }
  document.querySelector('[data-tab="moderate"]').hidden = !session.isOperator;
  route();
}

/** The language button names the other language, in that language. */
function labelLanguageButton() {
  const button = document.getElementById("language");
  const other = language() === "ko" ? "en" : "ko";
  button.textContent = t(`language.${other}`);
  button.lang = other;
  button.dataset.language = other;
  button.title = t("language.switch");
}

document.getElementById("language").addEventListener("click", (event) => setLanguage(event.currentTarget.dataset.language));
onLanguageChange(labelLanguageButton);

document.getElementById("sign-out").addEventListener("click", async () => {
  await signOut().catch(() => {});
  await sessionChanged();
  location.hash = "#explore";
});

window.addEventListener("hashchange", route);

translatePage();
labelLanguageButton();
await restoreSession();
await sessionChanged();
await explore.start();
