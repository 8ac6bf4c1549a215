// Moderate (operators only): the open report queue, oldest first with each report's age; a report's case with the
// reported content in context (the class, the user answerable, the messages around a reported message); the actions
// (dismiss, hide, remove, warn, suspend and their lifting), each with a required reason; and the audit log.

import { api } from "./api.js";
import { el, replace, notify, formatAge, formatTime, formatPrice } from "./dom.js";

/** One action button: its label, the API path for the case, and the target types it applies to. */
const actions = [
  { label: "Dismiss", path: (c) => `/v1/admin/reports/${c.report.id}/dismiss`, applies: () => true },
  { label: "Hide class", path: (c) => `/v1/admin/classes/${c.report.targetId}/hide`, applies: (c) => c.report.targetType === "class" },
  { label: "Unhide class", path: (c) => `/v1/admin/classes/${c.report.targetId}/unhide`, applies: (c) => c.report.targetType === "class" },
  { label: "Remove message", path: (c) => `/v1/admin/messages/${c.report.targetId}/remove`, applies: (c) => c.report.targetType === "message" },
  { label: "Warn user", path: (c) => `/v1/admin/users/${c.report.targetUserId}/warn`, applies: () => true },
  { label: "Suspend user", path: (c) => `/v1/admin/users/${c.report.targetUserId}/suspend`, applies: () => true, until: true },
  { label: "Lift suspension", path: (c) => `/v1/admin/users/${c.report.targetUserId}/unsuspend`, applies: () => true },
];

/** The Moderate section. */
export class Moderate {
  constructor() {
    this.queue = document.getElementById("queue");
    this.caseView = document.getElementById("case");
    this.audit = document.querySelector("#audit tbody");
    document.getElementById("reload-queue").addEventListener("click", () => this.refresh());
  }

  /** Reloads the queue and the audit log. */
  async refresh() {
    await Promise.all([this.loadQueue(), this.loadAudit()]);
  }

  async loadQueue() {
    try {
      const page = await api("/v1/admin/reports", { query: { status: "open", limit: 100 } });
      this.cases = page.items;
      if (page.items.length === 0) {
        replace(this.queue, el("li", { className: "muted" }, "No open reports."));
        this.caseView.hidden = true;
        return;
      }
      replace(this.queue, page.items.map((found) => el("li", { className: found.report.id === this.openId ? "selected" : "" },
        el("button", { type: "button", className: "link", dataset: { reportId: found.report.id }, onclick: () => this.showCase(found) },
          el("span", { className: `age${found.ageSeconds > 20 * 3600 ? " late" : ""}` }, formatAge(found.ageSeconds)), " ",
          el("span", { className: "badge" }, found.report.targetType), " ", found.report.reason, " · ", summary(found)))));
      const open = page.items.find((found) => found.report.id === this.openId);
      if (open) this.showCase(open);
      else this.caseView.hidden = true;
    } catch (error) {
      notify(`Queue: ${error.message}`, "error");
    }
  }

  async loadAudit() {
    try {
      const page = await api("/v1/admin/audit", { query: { limit: 50 } });
      replace(this.audit, page.items.map((entry) => el("tr", {},
        el("td", {}, formatTime(entry.createdAt)), el("td", { className: "action" }, entry.action),
        el("td", {}, `${entry.targetType} ${entry.targetId}`), el("td", {}, entry.reason, entry.until ? ` (until ${formatTime(entry.until)})` : ""),
        el("td", {}, entry.operatorId ?? "system"), el("td", {}, String(entry.resolvedReports)))));
    } catch (error) {
      notify(`Audit log: ${error.message}`, "error");
    }
  }

  /** Shows one report with its content in context and the actions that apply to it. */
  showCase(found) {
    this.openId = found.report.id;
    const report = found.report;
    const form = el("form", { className: "moderation-actions" },
      el("label", {}, "reason ", el("input", { name: "reason", required: true, maxLength: 1000, placeholder: "why (recorded in the audit log)" })),
      el("label", {}, "suspend until ", el("input", { name: "until", type: "datetime-local" }), el("span", { className: "muted" }, " (empty: for good)")),
      el("div", { className: "buttons" }, actions.filter((action) => action.applies(found)).map((action) =>
        el("button", { type: "submit", value: action.label }, action.label))));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const action = actions.find((candidate) => candidate.label === event.submitter?.value);
      if (action) this.act(found, action, form);
    });
    replace(this.caseView,
      el("h2", {}, `Report: ${report.targetType} for ${report.reason}`),
      el("p", {}, `filed ${formatTime(report.createdAt)}, ${formatAge(found.ageSeconds)} ago by user ${report.reporterId}`),
      report.detail ? el("blockquote", {}, report.detail) : null,
      this.context(found),
      form);
    this.caseView.hidden = false;
    for (const item of this.queue.children) item.classList.toggle("selected", item.querySelector("button")?.dataset.reportId === report.id);
  }

  context(found) {
    const parts = [];
    if (found.class) {
      const item = found.class;
      parts.push(el("section", { className: "reported-class" },
        el("h3", {}, item.name, item.hidden ? el("span", { className: "badge warn" }, "hidden") : null),
        el("p", { className: "muted" }, `${item.type} · ${item.status} · ${formatPrice(item.price, item.priceUnit)} · ${item.keywordLocation ?? ""}`),
        el("p", { className: "description" }, item.description),
        el("div", { className: "images" }, item.images.map((image) => el("img", { src: image.variants?.card ?? image.url, alt: item.name })))));
    }
    if (found.targetUser) {
      const user = found.targetUser;
      parts.push(el("p", {}, "answerable: ", el("strong", {}, user.nickname), ` (${user.id})`, user.description ? ` · ${user.description}` : ""));
    }
    if (found.messages.length > 0) {
      parts.push(el("ol", { className: "messages context" }, found.messages.map((message) =>
        el("li", { className: `message ${message.id === found.report.targetId ? "reported" : ""}${message.removed ? " removed" : ""}` },
          el("span", { className: "meta" }, `#${message.seq} ${message.senderId === found.report.targetUserId ? "reported user" : "other member"}`),
          " ", el("span", { className: "text" }, message.text ?? "")))));
    } else if (found.report.evidence) {
      parts.push(el("blockquote", {}, "message as reported: ", found.report.evidence.text ?? ""));
    }
    return el("div", { className: "context" }, parts);
  }

  async act(found, action, form) {
    const reason = form.reason.value.trim();
    if (!reason) {
      notify("Give a reason: it is recorded in the audit log.", "error");
      form.reason.focus();
      return;
    }
    const body = { reason, reportId: found.report.id };
    if (action.until && form.until.value) body.until = new Date(form.until.value).toISOString();
    try {
      await api(action.path(found), { method: "POST", body });
      notify(`${action.label}: done.`);
      await this.refresh();
    } catch (error) {
      notify(`${action.label}: ${error.message}`, "error");
    }
  }
}

/** A line naming what was reported. */
function summary(found) {
  if (found.class) return found.class.name;
  const message = found.messages.find((m) => m.id === found.report.targetId) ?? found.report.evidence;
  if (message) return message.text ?? "(image)";
  return found.targetUser?.nickname ?? found.report.targetId;
}
