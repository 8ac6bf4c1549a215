// Small helpers for building the page. Data is only ever placed as text nodes, never parsed as markup, so a class
// named <img src=x onerror=alert(1)> shows as those characters.

/** Creates an element: `el("p", {className: "muted"}, "text", child)`. Strings become text nodes. */
export function el(tag, properties = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(properties)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node) node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, ...children);
  return node;
}

/** Appends children; strings and numbers become text nodes, null and false are skipped. */
export function append(node, ...children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces every child of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, ...children);
}

/** Shows a short message in the notice bar; `kind` is "error" or "info". */
export function notify(text, kind = "info") {
  const notice = document.getElementById("notice");
  notice.textContent = text;
  notice.className = kind;
  notice.hidden = false;
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => { notice.hidden = true; }, kind === "error" ? 8000 : 4000);
}

/** "850 m" or "3.2 km". */
export function formatDistance(meters) {
  if (meters === undefined || meters === null) return "";
  return meters < 1000 ? `${Math.round(meters)} m` : `${(meters / 1000).toFixed(1)} km`;
}

/** "20,000 KRW per hour", or "price on request". */
export function formatPrice(price, unit) {
  if (price === null || price === undefined) return "price on request";
  const units = { perHour: "per hour", perProblem: "per problem", perClass: "per class" };
  return `${price.toLocaleString("en-US")} KRW ${units[unit] ?? ""}`.trim();
}

/** "2 h 5 min", "45 s": an age in seconds for people. */
export function formatAge(seconds) {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** A date in the viewer's locale, short. */
export function formatTime(iso) {
  return iso ? new Date(iso).toLocaleString() : "";
}
