// Explore: search classes by keyword, around a point (the map) or in the map's view, with filters; the results
// nearest first with their distances; a class's detail with its images, a way to chat with its writer and to report it.

import { api, session } from "./api.js";
import { el, append, replace, notify, formatDistance, formatPrice } from "./dom.js";
import { ResultMap } from "./map.js";
import { reportForm } from "./report.js";

const dayNames = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };

/** The Explore section; `openChat(classId)` is called by a class's "Chat with the writer" button. */
export class Explore {
  constructor({ openChat }) {
    this.openChat = openChat;
    this.form = document.getElementById("search");
    this.list = document.getElementById("results");
    this.count = document.getElementById("result-count");
    this.more = document.getElementById("more");
    this.detail = document.getElementById("class-detail");
    this.results = [];
    this.selectedId = null;
    this.map = new ResultMap(document.getElementById("map"), {
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
  }

  /** Fills the subject filter from the API's categories and runs a first search. */
  async start() {
    try {
      const { subjects } = await api("/v1/categories");
      append(this.form.subjects, subjects.map((s) => el("option", { value: s.id }, `${s.name} (${s.id})`)));
    } catch (error) {
      notify(`Categories: ${error.message}`, "error");
    }
    await this.search();
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
      this.render(query);
    } catch (error) {
      notify(`Search: ${error.message}`, "error");
    }
  }

  render(query) {
    const where = query.lat !== undefined ? `within ${formatDistance(Number(query.radius))}, nearest first`
      : query.bbox ? "in the map's view" : "everywhere";
    this.count.textContent = `${this.results.length}${this.nextQuery ? "+" : ""} classes ${where}`;
    replace(this.list, this.results.map((item, index) => el("li", {},
      el("button", { type: "button", className: "link", dataset: { classId: item.id }, onclick: () => this.showClass(item.id) },
        el("span", { className: "index" }, `${index + 1}.`), " ", el("span", { className: "name" }, item.name)),
      " ", el("span", { className: `badge ${item.type}` }, item.type),
      item.distance !== undefined ? el("span", { className: "distance" }, formatDistance(item.distance)) : null,
      el("div", { className: "muted" }, formatPrice(item.price, item.priceUnit), " · ", item.keywordLocation ?? "", " · ", item.writer.nickname))));
    this.more.hidden = !this.nextQuery;
    const center = this.center ?? this.results.find((item) => item.location)?.location ?? { lat: 37.5665, lon: 126.978 };
    this.map.show(center, Number(query.radius ?? this.form.radius.value), this.results, this.selectedId);
  }

  /** Shows one class: its fields, images, writer, and the chat and report actions for signed-in users. */
  async showClass(id) {
    this.selectedId = id;
    let item;
    try {
      item = await api(`/v1/classes/${encodeURIComponent(id)}`);
    } catch (error) {
      notify(`Class: ${error.message}`, "error");
      return;
    }
    const listed = this.results.find((result) => result.id === id);
    const distance = listed?.distance;
    const days = item.days.map((d) => dayNames[d] ?? d).join(", ");
    replace(this.detail,
      el("button", { type: "button", className: "close", onclick: () => { this.detail.hidden = true; }, "aria-label": "close" }, "×"),
      el("h2", { className: "class-name" }, item.name),
      el("p", {}, el("span", { className: `badge ${item.type}` }, item.type), " ", el("span", { className: "badge" }, item.status),
        item.hidden ? el("span", { className: "badge warn" }, "hidden") : null),
      el("dl", {},
        el("dt", {}, "price"), el("dd", {}, formatPrice(item.price, item.priceUnit)),
        el("dt", {}, "when"), el("dd", {}, [days, item.time].filter(Boolean).join(" · ") || "to agree"),
        el("dt", {}, "where"), el("dd", {}, [item.keywordLocation, item.place].filter(Boolean).join(" · ") || "to agree",
          distance !== undefined ? ` (${formatDistance(distance)} away)` : ""),
        el("dt", {}, "subjects"), el("dd", {}, item.subjects.join(", ")),
        el("dt", {}, "for"), el("dd", {}, item.targets.join(", ")),
        el("dt", {}, "writer"), el("dd", {}, item.writer.nickname, ` ★ ${item.writer.rating.average ?? "–"} (${item.writer.rating.count})`),
        el("dt", {}, "favourites"), el("dd", {}, String(item.favoriteCount))),
      el("p", { className: "description" }, item.description),
      el("div", { className: "images" }, item.images.map((image) =>
        el("a", { href: image.variants?.full ?? image.url, target: "_blank", rel: "noopener" },
          el("img", { src: image.variants?.card ?? image.url, alt: item.name, loading: "lazy" })))),
      this.actions(item));
    this.detail.hidden = false;
    this.map.select(id);
    this.detail.scrollIntoView({ block: "nearest" });
  }

  actions(item) {
    if (!session.user) return el("p", { className: "muted" }, "Sign in to chat with the writer or report this class.");
    if (item.writer.id === session.user.id) return el("p", { className: "muted" }, "This is your class.");
    return el("div", { className: "actions" },
      el("button", { type: "button", onclick: () => this.openChat(item.id) }, "Chat with the writer"), reportForm("class", item.id));
  }
}
