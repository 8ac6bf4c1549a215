// Moderate (operators only): the open report queue, oldest first with each report's age; a report's case with the
// reported content in context (the class, the user answerable, the messages around a reported message); the actions
// (dismiss, hide, remove, warn, suspend and their lifting), each with a required reason; and the audit log.

import { api } from "./api.js";
import { el, replace, notify } from "./dom.js";
import { t, formatAge, formatTime, formatPrice, onLanguageChange } from "./i18n.js";
import { problemSummary } from "./problems.js";

/** One action button: its name (the table's `action.NAME` labels it), the API path for the case, and the cases it applies to. */
const actions = [
  { name: "dismiss", path: (c) => `/v1/admin/reports/${c.report.id}/dismiss`, applies: () => true },
  { name: "hideClass", path: (c) => `/v1/admin/classes/${c.report.targetId}/hide`, applies: (c) => c.report.targetType === "class" },
  { name: "unhideClass", path: (c) => `/v1/admin/classes/${c.report.targetId}/unhide`, applies: (c) => c.report.targetType === "class" },
  { name: "removeMessage", path: (c) => `/v1/admin/messages/${c.report.targetId}/remove`, applies: (c) => c.report.targetType === "message" },
  { name: "warnUser", path: (c) => `/v1/admin/users/${c.report.targetUserId}/warn`, applies: () => true },
  { name: "suspendUser", path: (c) => `/v1/admin/users/${c.report.targetUserId}/suspend`, applies: () => true, until: true },
  { name: "unsuspendUser", path: (c) => `/v1/admin/users/${c.report.targetUserId}/unsuspend`, applies: () => true },
];

/** The Moderate section. */
export class Moderate {
  constructor() {
    this.queue = document.getElementById("queue");
    this.caseView = document.getElementById("case");
    this.audit = document.querySelector("#audit tbody");
    document.getElementById("reload-queue").addEventListener("click", () => this.refresh());
    onLanguageChange(() => {
      if (!document.getElementById("moderate").hidden) this.refresh();
    });
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
        replace(this.queue, el("li", { className: "muted empty" }, t("moderate.empty")));
        this.caseView.hidden = true;
        return;
      }
      replace(this.queue, page.items.map((found) => el("li", { className: found.report.id === this.openId ? "selected" : "" },
        el("button", { type: "button", className: "link", dataset: { reportId: found.report.id }, onclick: () => this.showCase(found) },
          el("span", { className: `age${found.ageSeconds > 20 * 3600 ? " late" : ""}` }, formatAge(found.ageSeconds)), " ",
          el("span", { className: "badge" }, t(`target.${found.report.targetType}`)), " ", t(`reason.${found.report.reason}`), " · ", summary(found)))));
      const open = page.items.find((found) => found.report.id === this.openId);
      if (open) this.showCase(open);
      else this.caseView.hidden = true;
    } catch (error) {
      notify(t("error.queue", { detail: problemSummary(error) }), "error");
    }
  }

  async loadAudit() {
    try {
      const page = await api("/v1/admin/audit", { query: { limit: 50 } });
      replace(this.audit, page.items.map((entry) => el("tr", {},
        el("td", {}, formatTime(entry.createdAt)), el("td", { className: "action", dataset: { action: entry.action } }, t(`action.${entry.action}`)),
        el("td", {}, `${t(`target.${entry.targetType}`)} ${entry.targetId}`),
        el("td", {}, entry.reason, entry.until ? ` (${t("moderate.until", { time: formatTime(entry.until) })})` : ""),
        el("td", {}, entry.operatorId ?? t("audit.system")), el("td", {}, String(entry.resolvedReports)))));
    } catch (error) {
      notify(t("error.audit", { detail: problemSummary(error) }), "error");
    }
  }

  /** Shows one report with its content in context and the actions that apply to it. */
  showCase(found) {
    this.openId = found.report.id;
    const report = found.report;
    const form = el("form", { className: "moderation-actions stacked" },
      el("label", {}, t("moderate.reason"), " ", el("input", { name: "reason", required: true, maxLength: 1000, placeholder: t("moderate.reasonHint") })),
      el("label", {}, t("moderate.suspendUntil"), " ", el("input", { name: "until", type: "datetime-local" }),
        el("span", { className: "muted" }, ` ${t("moderate.forGood")}`)),
      el("div", { className: "buttons" }, actions.filter((action) => action.applies(found)).map((action) =>
        el("button", { type: "submit", value: action.name, dataset: { action: action.name } }, t(`action.${action.name}`)))));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const action = actions.find((candidate) => candidate.name === event.submitter?.value);
      if (action) this.act(found, action, form);
    });
    replace(this.caseView,
      el("h3", {}, t("moderate.caseTitle", { target: t(`target.${report.targetType}`), reason: t(`reason.${report.reason}`) })),
      el("p", {}, t("moderate.filed", { time: formatTime(report.createdAt), age: formatAge(found.ageSeconds), reporter: report.reporterId })),
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
        el("h4", {}, item.name, item.hidden ? el("span", { className: "badge warn" }, t("detail.hidden")) : null),
        el("p", { className: "muted" }, [t(`type.${item.type}`), t(`status.${item.status}`), formatPrice(item.price, item.priceUnit), item.keywordLocation ?? ""].join(" · ")),
        el("p", { className: "description" }, item.description),
        el("div", { className: "images" }, item.images.map((image, index) =>
          el("img", { src: image.variants?.card ?? image.url, alt: t("detail.photo", { name: item.name, number: index + 1 }) })))));
    }
    if (found.targetUser) {
      const user = found.targetUser;
      parts.push(el("p", {}, `${t("moderate.answerable")} `, el("strong", {}, user.nickname), ` (${user.id})`, user.description ? ` · ${user.description}` : ""));
    }
    if (found.messages.length > 0) {
      parts.push(el("ol", { className: "messages context" }, found.messages.map((message) =>
        el("li", { className: `message ${message.id === found.report.targetId ? "reported" : ""}${message.removed ? " removed" : ""}` },
          el("span", { className: "meta" }, `#${message.seq} ${t(message.senderId === found.report.targetUserId ? "moderate.reportedUser" : "moderate.otherMember")}`),
          " ", el("span", { className: "text" }, message.text ?? "")))));
    } else if (found.report.evidence) {
      parts.push(el("blockquote", {}, `${t("moderate.asReported")} `, found.report.evidence.text ?? ""));
    }
    return el("div", { className: "context" }, parts);
  }

  async act(found, action, form) {
    const reason = form.reason.value.trim();
    if (!reason) {
      notify(t("moderate.needReason"), "error");
      form.reason.focus();
      return;
    }
    const body = { reason, reportId: found.report.id };
    if (action.until && form.until.value) body.until = new Date(form.until.value).toISOString();
    try {
      await api(action.path(found), { method: "POST", body });
      notify(t("moderate.done", { action: t(`action.${action.name}`) }));
      await this.refresh();
    } catch (error) {
      notify(`${t(`action.${action.name}`)}: ${problemSummary(error)}`, "error");
    }
  }
}

/** A line naming what was reported. */
function summary(found) {
  if (found.class) return found.class.name;
  const message = found.messages.find((m) => m.id === found.report.targetId) ?? found.report.evidence;
  if (message) return message.text ?? t("chat.image");
  return found.targetUser?.nickname ?? found.report.targetId;
}
