// The page's language: Korean or English, Korean for a browser whose languages put Korean before English, a switch
// remembered in localStorage, every string looked up in one table per language (i18n-ko.js, i18n-en.js), and numbers,
// prices, distances, durations and dates formatted for the language with Intl.

import ko from "./i18n-ko.js";
import en from "./i18n-en.js";

const tables = { ko, en };
const storageKey = "classtoday.language";
const listeners = new EventTarget();

/** The languages the console speaks. */
export const languages = Object.keys(tables);

/**
 * The language to start in: the one chosen before on this browser, else the first of the browser's languages that the
 * console speaks (so a Korean browser gets Korean), else English.
 * @returns {"ko" | "en"}
 */
export function preferredLanguage() {
  const stored = localStorage.getItem(storageKey);
  if (languages.includes(stored)) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (languages.includes(base)) return base;
  }
  return "en";
}

let current = preferredLanguage();

/** The page's language now, "ko" or "en". */
export function language() {
  return current;
}

/**
 * The string `key` in the page's language (English when the Korean table lacks it, the key itself when both do),
 * with `{name}` placeholders replaced by `params.name`.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  const text = tables[current][key] ?? tables.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * The plural form of `key` for `count` (`key.one`, `key.other`, as Intl.PluralRules names them), `{count}` filled in
 * with the number formatted for the language.
 * @param {string} key
 * @param {number} count
 * @param {Record<string, unknown>} [params]
 */
export function plural(key, count, params = {}) {
  const form = new Intl.PluralRules(current).select(count);
  const chosen = `${key}.${form}` in tables[current] || `${key}.${form}` in tables.en ? `${key}.${form}` : `${key}.other`;
  return t(chosen, { ...params, count: formatNumber(count) });
}

/** Whether the table has `key` (in either language). */
export function has(key) {
  return key in tables[current] || key in tables.en;
}

/**
 * Switches the page to `lang`, remembers it on this browser, rewrites the page's fixed strings and tells every
 * listener (the sections re-render what they show).
 * @param {"ko" | "en"} lang
 */
export function setLanguage(lang) {
  if (!languages.includes(lang)) return;
  current = lang;
  localStorage.setItem(storageKey, lang);
  translatePage();
  listeners.dispatchEvent(new Event("change"));
}

/** Calls `listener()` after each change of language. */
export function onLanguageChange(listener) {
  listeners.addEventListener("change", () => listener());
}

/**
 * Writes the page's fixed strings: each element's `data-i18n` key becomes its text, and `data-i18n-placeholder`,
 * `data-i18n-label` (aria-label), `data-i18n-title` and `data-i18n-alt` its attributes; also the document's lang
 * and title.
 * @param {ParentNode} [root]
 */
export function translatePage(root = document) {
  document.documentElement.lang = current;
  document.title = t("page.title");
  const attributes = { i18nPlaceholder: "placeholder", i18nLabel: "aria-label", i18nTitle: "title", i18nAlt: "alt" };
  for (const node of root.querySelectorAll("[data-i18n], [data-i18n-placeholder], [data-i18n-label], [data-i18n-title], [data-i18n-alt]")) {
    if (node.dataset.i18n) node.textContent = t(node.dataset.i18n);
    for (const [data, attribute] of Object.entries(attributes)) {
      if (node.dataset[data]) node.setAttribute(attribute, t(node.dataset[data]));
    }
  }
}

/** A number for the language: 20,000. */
export function formatNumber(value) {
  return new Intl.NumberFormat(current).format(value);
}

/**
 * A price in won with its unit ("₩20,000/hour", "시간당 ₩20,000"), or "price on request".
 * @param {number | null | undefined} price
 * @param {string} [unit] perHour, perProblem or perClass
 */
export function formatPrice(price, unit) {
  if (price === null || price === undefined) return t("price.onRequest");
  const amount = new Intl.NumberFormat(current, { style: "currency", currency: "KRW" }).format(price);
  return has(`price.${unit}`) ? t(`price.${unit}`, { amount }) : amount;
}

/**
 * A distance for people: "850 m" or "3.2 km" ("850m", "3.2km" in Korean).
 * @param {number | null | undefined} meters
 */
export function formatDistance(meters) {
  if (meters === undefined || meters === null) return "";
  const kilometers = meters >= 1000;
  return new Intl.NumberFormat(current, {
    style: "unit", unit: kilometers ? "kilometer" : "meter", unitDisplay: "short", maximumFractionDigits: kilometers ? 1 : 0,
  }).format(kilometers ? meters / 1000 : meters);
}

/**
 * An age or duration in seconds for people, to two units at most: "45 sec", "2 hr 5 min", "1일 3시간".
 * @param {number} seconds
 */
export function formatAge(seconds) {
  const unit = (value, name) => new Intl.NumberFormat(current, { style: "unit", unit: name, unitDisplay: "short" }).format(value);
  if (seconds < 60) return unit(Math.max(0, Math.floor(seconds)), "second");
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return unit(minutes, "minute");
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${unit(hours, "hour")} ${unit(minutes % 60, "minute")}`;
  return `${unit(Math.floor(hours / 24), "day")} ${unit(hours % 24, "hour")}`;
}

/**
 * A moment in the language's way, short: "Nov 29, 2026, 4:29 AM", "2026. 11. 29. 오전 4:29".
 * @param {string | null | undefined} iso an RFC 3339 time
 */
export function formatTime(iso) {
  return iso ? new Intl.DateTimeFormat(current, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso)) : "";
}

/** A list in the language's way: "Mon, Sat" / "월, 토". */
export function formatList(items) {
  return new Intl.ListFormat(current, { style: "narrow", type: "unit" }).format(items);
}
