// The console's entry point: sign-in and sign-out, the tabs (Explore for anyone, Chat for signed-in users, Moderate
// for operators), and the wiring between the sections.

import { session, signIn, signOut, restoreSession, probeOperator } from "./api.js";
import { notify } from "./dom.js";
import { Explore } from "./explore.js";
import { Chat } from "./chat.js";
import { Moderate } from "./moderate.js";

const chat = new Chat();
const moderate = new Moderate();
const explore = new Explore({
  openChat: async (classId) => {
    location.hash = "#chat";
    await chat.openForClass(classId);
  },
});

const signInForm = document.getElementById("sign-in");
const signedIn = document.getElementById("signed-in");

/** Shows the section named by the URL's hash; sections the user may not use fall back to Explore. */
function route() {
  let tab = location.hash.slice(1) || "explore";
  if ((tab === "chat" && !session.user) || (tab === "moderate" && !session.isOperator)) tab = "explore";
  for (const section of document.querySelectorAll("[data-view]")) section.hidden = section.dataset.view !== tab;
  for (const link of document.querySelectorAll("[data-tab]")) link.classList.toggle("active", link.dataset.tab === tab);
  if (tab === "moderate") moderate.refresh();
  if (tab === "chat") chat.loadRooms();
}

/** Updates the header and starts or stops what needs a session. */
async function sessionChanged() {
  const user = session.user;
  signInForm.hidden = Boolean(user);
  signedIn.hidden = !user;
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

signInForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    await signIn(signInForm.email.value.trim(), signInForm.password.value);
    signInForm.reset();
    await sessionChanged();
  } catch (error) {
    notify(`Sign-in: ${error.message}`, "error");
  }
});

document.getElementById("sign-out").addEventListener("click", async () => {
  await signOut().catch(() => {});
  await sessionChanged();
  location.hash = "#explore";
});

window.addEventListener("hashchange", route);

await restoreSession();
await sessionChanged();
await explore.start();
