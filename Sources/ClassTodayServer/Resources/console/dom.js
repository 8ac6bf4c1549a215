// Small helpers for building the page. Data is only ever placed as text nodes, never parsed as markup, so a class
// named <img src=x onerror=alert(1)> shows as those characters.

/**
 * Creates an element: `el("p", {className: "muted"}, "text", child)`. Strings become text nodes; `on…` properties
 * become listeners, `dataset` fills data attributes, other properties are set as DOM properties or attributes.
 * @param {string} tag
 * @param {Record<string, unknown>} [properties]
 * @param {...(Node | string | number | null | undefined | false | Array)} children
 * @returns {HTMLElement}
 */
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

/**
 * Shows a short message in the notice bar (a live region, so screen readers read it); `kind` is "error" or "info".
 * @param {string} text
 * @param {"error" | "info"} [kind]
 */
export function notify(text, kind = "info") {
  const notice = document.getElementById("notice");
  notice.textContent = text;
  notice.className = kind;
  notice.hidden = false;
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => { notice.hidden = true; }, kind === "error" ? 8000 : 4000);
}

/**
 * Shows the API's field problems on a form: each `[data-field=NAME]` error line gets the message for its field and its
 * input is marked invalid (and described by the line); fields without a problem are cleared. Returns the problems
 * that no field of the form shows.
 * @param {HTMLFormElement} form
 * @param {Record<string, string>} messages field name to message
 */
export function showFieldErrors(form, messages) {
  const unshown = { ...messages };
  for (const line of form.querySelectorAll(".field-error[data-field]")) {
    const field = line.dataset.field;
    const input = form.elements.namedItem(field);
    line.textContent = messages[field] ?? "";
    line.hidden = !messages[field];
    if (input instanceof HTMLElement) {
      if (messages[field]) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
    delete unshown[field];
  }
  const firstInvalid = form.querySelector("[aria-invalid=true]");
  if (firstInvalid) firstInvalid.focus();
  return unshown;
}
