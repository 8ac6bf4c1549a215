// The JSON API client: the bearer token lives in sessionStorage (this tab only, gone when it closes, never a cookie),
// every call sends it, and a problem+json answer becomes an ApiError carrying the server's detail and field errors.

import { language } from "./i18n.js";

const tokenKey = "classtoday.token";

/** An error answer of the API (RFC 9457 problem): `status`, the `problem` document, a message for logs. */
export class ApiError extends Error {
  constructor(status, problem) {
    const fields = (problem?.errors ?? []).map((e) => `${e.field} ${e.message}`).join("; ");
    super([problem?.detail ?? problem?.title ?? `HTTP ${status}`, fields].filter(Boolean).join(": "));
    this.status = status;
    this.problem = problem;
  }
}

/** The signed-in session: token and user, or nulls. */
export const session = {
  get token() { return sessionStorage.getItem(tokenKey); },
  set token(value) {
    if (value) sessionStorage.setItem(tokenKey, value);
    else sessionStorage.removeItem(tokenKey);
  },
  user: null,
  isOperator: false,
};

/**
 * Calls the API: `api("/v1/classes", {query: {q: "요가"}})`, `api("/v1/reports", {method: "POST", body: {...}})`.
 * Returns the parsed JSON (null for 204) or throws ApiError.
 */
export async function api(path, { method = "GET", body, query } = {}) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, value);
  }
  const headers = { Accept: "application/json", "Accept-Language": language() };
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** Signs in; stores the token and returns the user. */
export async function signIn(email, password) {
  return startSession(await api("/v1/auth/login", { method: "POST", body: { email, password } }));
}

/** Creates an account and signs in with it; throws ApiError with the API's field problems. */
export async function signUp(email, password, nickname) {
  return startSession(await api("/v1/auth/signup", { method: "POST", body: { email, password, nickname } }));
}

/**
 * Keeps the session of a `{token, user}` answer (login, signup, a password reset) and returns its user.
 * @param {{token: string, user: object}} answer
 */
export function startSession({ token, user }) {
  session.token = token;
  session.user = user;
  return user;
}

/** Restores the session of this tab (after a reload); false when there is none or the token no longer works. */
export async function restoreSession() {
  if (!session.token) return false;
  try {
    session.user = await api("/v1/me");
    return true;
  } catch (error) {
    if (error.status === 401) session.token = null;
    return false;
  }
}

/** Whether the signed-in user may use /v1/admin (the API tells by answering 403 to others). */
export async function probeOperator() {
  try {
    await api("/v1/admin/audit", { query: { limit: 1 } });
    return true;
  } catch (error) {
    if (error.status === 403 || error.status === 401) return false;
    throw error;
  }
}

/** Signs out: the server revokes the token, the tab forgets it. */
export async function signOut() {
  try {
    await api("/v1/auth/logout", { method: "POST" });
  } finally {
    session.token = null;
    session.user = null;
    session.isOperator = false;
  }
}
