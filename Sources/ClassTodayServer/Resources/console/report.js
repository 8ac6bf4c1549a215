// The report form shown beside a class and beside another member's chat message: a reason, an optional detail,
// POST /v1/reports, and "Reported." in its place once the server took it.

import { api } from "./api.js";
import { el, notify } from "./dom.js";
import { t } from "./i18n.js";
import { problemSummary } from "./problems.js";

const reasons = ["spam", "fraud", "inappropriate", "harassment", "offPlatformPayment", "other"];

/**
 * A form reporting the class, user or message `targetId`.
 * @param {"class" | "user" | "message"} targetType
 * @param {string} targetId
 * @returns {HTMLFormElement}
 */
export function reportForm(targetType, targetId) {
  const form = el("form", { className: "inline report" },
    el("label", {}, el("span", { className: "visually-hidden" }, t("report.reason")),
      el("select", { name: "reason" }, reasons.map((reason) => el("option", { value: reason }, t(`reason.${reason}`))))),
    el("label", { className: "grow" }, el("span", { className: "visually-hidden" }, t("report.detail")),
      el("input", { name: "detail", placeholder: t("report.detailHint"), maxLength: 1000 })),
    el("button", { type: "submit", dataset: { action: "report" } }, t("report.submit")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { targetType, targetId, reason: form.reason.value };
    if (form.detail.value.trim()) body.detail = form.detail.value.trim();
    try {
      await api("/v1/reports", { method: "POST", body });
      notify(t("report.sent"));
      form.replaceChildren(el("span", { className: "muted reported" }, t("report.done")));
    } catch (error) {
      notify(t("error.report", { detail: problemSummary(error) }), "error");
    }
  });
  return form;
}
