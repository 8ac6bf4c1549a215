// Explore: search classes by keyword, around a point (the filters or a click on the map) or in the map's view, with
// filters; the results nearest first with their distances and thumbnails, on the street map; a class's detail, opened
// beside the result clicked (in the list itself on a phone), with its card images, a way to chat with its writer and to
// report it. On a phone the results come first, the filters fold away and the map is a second view.

import { api, session } from "./api.js";
import { el, replace, notify } from "./dom.js";
import { t, plural, has, formatDistance, formatPrice, formatList, onLanguageChange } from "./i18n.js";
import { problemSummary } from "./problems.js";
import { SlippyMap } from "./slippy-map.js";
import { reportForm } from "./report.js";

/** Where the layout is a phone's: one column, results first, the map a second view. */
const narrow = window.matchMedia("(max-width: 760px)");
const fallbackCenter = { lat: 37.5665, lon: 126.978 };

/** A subject's or target's name in the page's language (the API's own name when the table has none). */
function categoryName(kind, id, apiName) {
  return has(`${kind}.${id}`) ? t(`${kind}.${id}`) : apiName ?? id;
}

/** The thumbnail of a class's first image, or an empty frame of the same size. */
function thumbnail(item, className = "thumb") {
  const image = item.images?.[0];
  if (!image) return el("span", { className: `${className} empty`, "aria-hidden": "true" });
  return el("img", { className, src: image.variants?.thumb ?? image.url, alt: "", loading: "lazy", width: 64, height: 64 });
}

/** The Explore section; `openChat(classId)` is called by a class's "Chat with the writer" button. */
export class Explore {
  constructor({ openChat }) {
    this.openChat = openChat;
    this.form = document.getElementById("search");
    this.filters = document.getElementById("filters");
    this.list = document.getElementById("results");
    this.count = document.getElementById("result-count");
    this.more = document.getElementById("more");
    this.detail = document.getElementById("class-detail");
    this.body = document.querySelector(".explore-body");
    this.sidePane = document.querySelector(".side-pane");
    this.results = [];
    this.subjects = [];
    this.selectedId = null;
    this.openItem = null;
    const tileUrl = document.querySelector('meta[name="classtoday-tile-url"]')?.content ?? "";
    document.querySelector(".map-attribution").hidden = !tileUrl;
    this.map = new SlippyMap(document.getElementById("map"), {
      tileUrl,
      onPick: (point) => {
        this.form.lat.value = point.lat.toFixed(5);
        this.form.lon.value = point.lon.toFixed(5);
        this.search();
      },
      onSelect: (id) => this.showClass(id),
    });
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.search();
    });
    document.getElementById("search-view").addEventListener("click", () => this.search({ inView: true }));
    this.more.addEventListener("click", () => this.load(this.nextQuery, { append: true }));
    for (const button of document.querySelectorAll(".view-switch [data-show]")) {
      button.addEventListener("click", () => this.showView(button.dataset.show));
    }
    // Filters open on a wide screen, folded away on a phone.
    this.filters.open = !narrow.matches;
    narrow.addEventListener("change", () => {
      this.filters.open = !narrow.matches;
      this.placeDetail();
    });
    onLanguageChange(() => this.relabel());
    this.labelRadii();
  }

  /** Fills the subject filter from the API's categories and runs a first search. */
  async start() {
    try {
      const { subjects } = await api("/v1/categories");
      this.subjects = subjects;
      this.labelSubjects();
    } catch (error) {
      notify(t("error.categories", { detail: problemSummary(error) }), "error");
    }
    await this.search();
  }

  /** Shows the list or the map (on a phone, where only one fits). */
  showView(view) {
    this.body.dataset.showing = view;
    for (const button of document.querySelectorAll(".view-switch [data-show]")) {
      button.setAttribute("aria-pressed", String(button.dataset.show === view));
    }
  }

  /** The centre typed in the form, or null when latitude or longitude is empty (a search everywhere). */
  get center() {
    const lat = this.form.lat.value.trim();
    const lon = this.form.lon.value.trim();
    if (lat === "" || lon === "") return null;
    return { lat: Number(lat), lon: Number(lon) };
  }

  /** Searches with the form's filters: around the centre (nearest first) or, `inView`, in the map's visible area. */
  async search({ inView = false } = {}) {
    const form = this.form;
    const query = { q: form.q.value.trim(), type: form.type.value, subjects: form.subjects.value, maxPrice: form.maxPrice.value, limit: 20 };
    const center = this.center;
    if (inView && center) {
      Object.assign(query, { bbox: this.map.bbox, sort: "recent" });
    } else if (center) {
      Object.assign(query, { lat: center.lat, lon: center.lon, radius: form.radius.value, sort: "distance" });
    }
    await this.load(query, { append: false });
  }

  async load(query, { append: adding }) {
    try {
      const page = await api("/v1/classes", { query });
      this.results = adding ? this.results.concat(page.items) : page.items;
      this.nextQuery = page.nextCursor ? { ...query, cursor: page.nextCursor } : null;
      this.query = query;
      this.render({ keepView: Boolean(query.bbox) || adding });
    } catch (error) {
      notify(t("error.search", { detail: problemSummary(error) }), "error");
    }
  }

  /** The line above the results: how many, and where. */
  countLine() {
    const query = this.query ?? {};
    const where = query.lat !== undefined ? t("explore.within", { distance: formatDistance(Number(query.radius)) })
      : query.bbox ? t("explore.inView") : t("explore.everywhere");
    const count = plural("explore.count", this.results.length, { more: this.nextQuery ? "+" : "" });
    return `${count} ${where}`;
  }

  render({ keepView = false } = {}) {
    this.renderList();
    this.more.hidden = !this.nextQuery;
    const center = this.center ?? this.results.find((item) => item.location)?.location ?? fallbackCenter;
    this.map.show(center, Number(this.query?.radius ?? this.form.radius.value), this.results, { selectedId: this.selectedId, keepView });
    if (this.openItem && this.results.some((item) => item.id === this.openItem.id)) this.renderDetail();
    else this.closeDetail({ restoreFocus: false });
  }

  /** The count line and the results (the detail first taken out of the list, where a phone shows it). */
  renderList() {
    this.count.textContent = this.countLine();
    if (this.detail.parentElement?.closest("#results")) this.sidePane.prepend(this.detail);
    replace(this.list, this.results.length === 0 ? el("li", { className: "muted empty" }, t("explore.none"))
      : this.results.map((item, index) => this.resultItem(item, index)));
  }

  resultItem(item, index) {
    return el("li", { className: item.id === this.selectedId ? "result selected" : "result", dataset: { classId: item.id } },
      el("button", { type: "button", className: "result-open", dataset: { classId: item.id }, onclick: () => this.showClass(item.id) },
        thumbnail(item),
        el("span", { className: "result-text" },
          el("span", { className: "result-title" },
            el("span", { className: "index" }, `${index + 1}.`), " ", el("span", { className: "name" }, item.name)),
          el("span", { className: "result-meta" },
            el("span", { className: `badge ${item.type}` }, t(`type.${item.type}`)), " ",
            formatPrice(item.price, item.priceUnit), item.keywordLocation ? ` · ${item.keywordLocation}` : "", ` · ${item.writer.nickname}`)),
        item.distance !== undefined ? el("span", { className: "distance", dataset: { meters: item.distance } }, formatDistance(item.distance)) : null));
  }

  /** Shows one class beside its result: its fields, card images, writer, and the chat and report actions. */
  async showClass(id) {
    let item;
    try {
      item = await api(`/v1/classes/${encodeURIComponent(id)}`);
    } catch (error) {
      notify(t("error.class", { detail: problemSummary(error) }), "error");
      return;
    }
    this.selectedId = id;
    this.openItem = item;
    for (const entry of this.list.children) entry.classList.toggle("selected", entry.dataset.classId === id);
    this.map.select(id);
    this.renderDetail();
    this.detail.hidden = false;
    if (narrow.matches) this.showView("list");
    this.detail.scrollIntoView({ block: "nearest" });
    this.detail.focus({ preventScroll: true });
  }

  /** Puts the detail beside its result: in the side column on a wide screen, under the result on a phone. */
  placeDetail() {
    const entry = [...this.list.children].find((child) => child.dataset.classId === this.selectedId);
    if (narrow.matches && entry) entry.append(this.detail);
    else if (this.detail.parentElement !== this.sidePane) this.sidePane.prepend(this.detail);
  }

  renderDetail() {
    const item = this.openItem;
    const listed = this.results.find((result) => result.id === item.id);
    const distance = listed?.distance;
    const days = formatList(item.days.map((d) => t(`day.${d}`)));
    const row = (key, ...value) => [el("dt", {}, t(key)), el("dd", {}, ...value)];
    replace(this.detail,
      el("button", { type: "button", className: "close", onclick: () => this.closeDetail({ restoreFocus: true }), "aria-label": t("detail.close") }, "×"),
      el("h3", { className: "class-name" }, item.name),
      el("p", {}, el("span", { className: `badge ${item.type}` }, t(`type.${item.type}`)), " ", el("span", { className: "badge" }, t(`status.${item.status}`)),
        item.hidden ? el("span", { className: "badge warn" }, t("detail.hidden")) : null),
      el("div", { className: "images" }, item.images.map((image, index) =>
        el("a", { href: image.variants?.full ?? image.url, target: "_blank", rel: "noopener" },
          el("img", { src: image.variants?.card ?? image.url, alt: t("detail.photo", { name: item.name, number: index + 1 }), loading: "lazy" })))),
      el("dl", {},
        row("detail.price", formatPrice(item.price, item.priceUnit)),
        row("detail.when", [days, item.time].filter(Boolean).join(" · ") || t("detail.toAgree")),
        row("detail.where", [item.keywordLocation, item.place].filter(Boolean).join(" · ") || t("detail.toAgree"),
          distance !== undefined ? ` (${t("detail.away", { distance: formatDistance(distance) })})` : ""),
        row("detail.subjects", formatList(item.subjects.map((s) => categoryName("subject", s)))),
        row("detail.targets", formatList(item.targets.map((s) => categoryName("target", s)))),
        row("detail.writer", item.writer.nickname, ` ★ ${item.writer.rating.average ?? "–"} (${item.writer.rating.count})`),
        row("detail.favorites", String(item.favoriteCount))),
      el("p", { className: "description" }, item.description),
      this.actions(item));
    this.placeDetail();
  }

  /** Closes the detail; the result it belongs to gets the focus back when `restoreFocus`. */
  closeDetail({ restoreFocus }) {
    const id = this.selectedId;
    this.detail.hidden = true;
    this.openItem = null;
    if (!restoreFocus) return;
    this.list.querySelector(`button[data-class-id="${CSS.escape(id ?? "")}"]`)?.focus();
  }

  actions(item) {
    if (!session.user) return el("p", { className: "muted" }, t("detail.signInToAct"));
    if (item.writer.id === session.user.id) return el("p", { className: "muted" }, t("detail.yours"));
    return el("div", { className: "actions" },
      el("button", { type: "button", dataset: { action: "chat" }, onclick: () => this.openChat(item.id) }, t("detail.chat")),
      reportForm("class", item.id));
  }

  labelSubjects() {
    const select = this.form.subjects;
    const chosen = select.value;
    replace(select, el("option", { value: "" }, t("search.subjectAny")),
      this.subjects.map((s) => el("option", { value: s.id }, categoryName("subject", s.id, s.name))));
    select.value = chosen;
  }

  labelRadii() {
    for (const option of this.form.radius.options) option.textContent = formatDistance(Number(option.value));
  }

  /** After a change of language: the options, the results, the open class and the map's labels. */
  relabel() {
    this.labelSubjects();
    this.labelRadii();
    if (!this.query) return;
    const focusedId = document.activeElement?.closest?.("#results button")?.dataset.classId;
    const detailOpen = !this.detail.hidden && this.openItem;
    this.renderList();
    if (detailOpen) this.renderDetail();
    if (focusedId) this.list.querySelector(`button[data-class-id="${CSS.escape(focusedId)}"]`)?.focus();
    this.map.relabel();
  }
}
