// The API's problems (RFC 9457) in the page's language: the validation messages the server writes per field
// ("must be at least 8 characters") are matched and said in the language's words; a message not known here is shown
// as the server wrote it, so nothing the server says is lost.

import { t } from "./i18n.js";

/** The server's field messages, as patterns, with the table key that says each (named groups fill placeholders). */
const knownMessages = [
  [/^is required$/, "problem.required"],
  [/^must be a valid email address$/, "problem.email"],
  [/^must be at least (?<min>\d+) characters$/, "problem.minLength"],
  [/^must be at most (?<max>\d+) bytes$/, "problem.maxBytes"],
  [/^must not be blank$/, "problem.blank"],
  [/^must be (?<min>\d+) to (?<max>\d+) characters$/, "problem.length"],
  [/^contains a word that is not allowed$/, "problem.bannedWord"],
];

/**
 * One field message of the API in the page's language.
 * @param {string} message the server's message, such as "must be at least 8 characters"
 * @returns {string}
 */
export function fieldMessage(message) {
  for (const [pattern, key] of knownMessages) {
    const match = pattern.exec(message ?? "");
    if (match) return t(key, match.groups ?? {});
  }
  return message ?? "";
}

/**
 * The messages of an API error by field, in the page's language: each `errors` entry of a 422, a 400 naming a field
 * (a bad code names `token`), and, for statuses that `byStatus` names, that field and message (`{409: ["email",
 * "problem.emailTaken"]}`). A later message for the same field is added to the earlier one.
 * @param {import("./api.js").ApiError} error
 * @param {Record<number, [string, string]>} [byStatus]
 * @returns {Record<string, string>}
 */
export function fieldMessages(error, byStatus = {}) {
  const messages = {};
  const add = (field, text) => { messages[field] = messages[field] ? `${messages[field]} ${text}` : text; };
  for (const entry of error?.problem?.errors ?? []) {
    add(entry.field, entry.field === "token" ? t("problem.token") : fieldMessage(entry.message));
  }
  const special = byStatus[error?.status];
  if (special?.[0] && !messages[special[0]]) add(special[0], t(special[1]));
  return messages;
}

/**
 * A one-line message for an API error that no field shows: the rate limit, a network failure, or the server's own
 * words.
 * @param {unknown} error
 */
export function problemSummary(error) {
  if (error?.status === 429) return t("problem.rateLimited");
  if (error?.status === undefined) return t("problem.network");
  if (error.status >= 500) return t("problem.server");
  return error.problem?.detail ?? error.problem?.title ?? error.message;
}
