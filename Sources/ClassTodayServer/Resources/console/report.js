// The report form shown beside a class and beside another member's chat message: a reason, an optional detail,
// POST /v1/reports, and "Reported." in its place once the server took it.

import { api } from "./api.js";
import { el, notify } from "./dom.js";

const reasons = ["spam", "fraud", "inappropriate", "harassment", "offPlatformPayment", "other"];

/** A form reporting the class, user or message `targetId`. */
export function reportForm(targetType, targetId) {
  const form = el("form", { className: "inline report" },
    el("select", { name: "reason", "aria-label": "report reason" }, reasons.map((reason) => el("option", { value: reason }, reason))),
    el("input", { name: "detail", placeholder: "what is wrong (optional)", maxLength: 1000, "aria-label": "report detail" }),
    el("button", { type: "submit" }, "Report"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { targetType, targetId, reason: form.reason.value };
    if (form.detail.value.trim()) body.detail = form.detail.value.trim();
    try {
      await api("/v1/reports", { method: "POST", body });
      notify("Reported: an operator will look at it within 24 hours.");
      form.replaceChildren(el("span", { className: "muted" }, "Reported."));
    } catch (error) {
      notify(`Report: ${error.message}`, "error");
    }
  });
  return form;
}
