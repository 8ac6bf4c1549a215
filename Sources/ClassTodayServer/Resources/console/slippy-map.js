// The street map of search results, written for the console: raster tiles from the configured tile server (or, with
// none, a plain ground with a scale grid), panned by dragging or the arrow keys, zoomed by the wheel, a pinch, the + and
// - keys or buttons; the search radius drawn to scale; one marker button per result, grouped into one numbered
// cluster where markers would overlap. A click that is not a drag searches around the clicked point.

import { el, replace } from "./dom.js";
import { t, plural, formatDistance } from "./i18n.js";
import { tileSize, project, unproject, metersPerPixel, zoomForSpan, roundLength, cluster } from "./mercator.js";

const svgNS = "http://www.w3.org/2000/svg";
const minimumZoom = 2;
const maximumZoom = 21;
const maximumTileZoom = 19;
/** Markers nearer than their size (the style's --marker-size, 44 px on a phone) and this many pixels are one cluster. */
const clusterGap = 6;
/** A pointer that moved less than this many pixels between down and up clicked. */
const clickSlop = 6;

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(svgNS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

const clampZoom = (zoom) => Math.max(minimumZoom, Math.min(maximumZoom, zoom));

/** The map. `show()` places the search and its results; `bbox` is the visible area for a "search this view". */
export class SlippyMap {
  /**
   * @param {HTMLElement} element the map's box, holding `.map-tiles`, `.map-overlay`, `.map-markers`
   * @param {{tileUrl: string, onPick: (point: {lat: number, lon: number}) => void, onSelect: (id: string) => void}} options
   *   `tileUrl` with {z}, {x}, {y}, empty for the plain map
   */
  constructor(element, { tileUrl, onPick, onSelect }) {
    Object.assign(this, { element, tileUrl, onPick, onSelect });
    this.tileLayer = element.querySelector(".map-tiles");
    this.overlay = element.querySelector(".map-overlay");
    this.markerLayer = element.querySelector(".map-markers");
    this.tiles = new Map();
    this.markers = new Map();
    this.pointers = new Map();
    this.center = { lat: 37.5665, lon: 126.978 };
    this.zoom = 13;
    this.search = { center: this.center, radius: 5000 };
    this.results = [];
    this.selectedId = null;
    element.classList.toggle("plain", !tileUrl);
    this.listen();
    new ResizeObserver(() => this.resized()).observe(element);
  }

  /** The box's size; a hidden map (the phone's list tab) is taken as 360 px square until it is shown. */
  get size() {
    const { clientWidth: width, clientHeight: height } = this.element;
    return width > 0 && height > 0 ? { width, height } : { width: 360, height: 360 };
  }

  /** World pixel coordinates (at the current zoom) of the box's top-left corner. */
  get origin() {
    const { width, height } = this.size;
    const center = project(this.center, this.zoom);
    return { x: center.x - width / 2, y: center.y - height / 2 };
  }

  /** The point under the box's pixel `x`, `y`. */
  pointAt(x, y) {
    const origin = this.origin;
    return unproject({ x: origin.x + x, y: origin.y + y }, this.zoom);
  }

  /** The box's pixel of a point. */
  pixelOf(point) {
    const origin = this.origin;
    const world = project(point, this.zoom);
    return { x: world.x - origin.x, y: world.y - origin.y };
  }

  /** The visible area as the API's bbox: minLon,minLat,maxLon,maxLat. */
  get bbox() {
    const { width, height } = this.size;
    const southWest = this.pointAt(0, height);
    const northEast = this.pointAt(width, 0);
    return [southWest.lon, southWest.lat, northEast.lon, northEast.lat].map((v) => v.toFixed(6)).join(",");
  }

  /**
   * Shows a search: its centre and radius (drawn to scale) and its results; the view fits the radius unless `keepView`
   * (a search of the view itself).
   * @param {{lat: number, lon: number}} center
   * @param {number} radius metres
   * @param {Array<{id: string, name: string, location?: {lat: number, lon: number}}>} results in list order
   * @param {{selectedId?: string | null, keepView?: boolean}} [options]
   */
  show(center, radius, results, { selectedId = null, keepView = false } = {}) {
    this.search = { center, radius };
    this.results = results;
    this.selectedId = selectedId;
    if (!keepView) this.fit();
    this.render();
  }

  /** Marks the result `id` as the one open. */
  select(id) {
    this.selectedId = id;
    this.renderMarkers();
  }

  /** Centres the search and zooms so that its radius fills most of the box. */
  fit() {
    const { width, height } = this.size;
    this.center = this.search.center;
    this.zoom = clampZoom(zoomForSpan(this.search.radius * 1.15, this.search.center.lat, Math.min(width, height) / 2));
    this.fitWhenShown = this.element.clientWidth === 0;
  }

  resized() {
    if (this.fitWhenShown && this.element.clientWidth > 0) this.fit();
    this.render();
  }

  /** Redraws tiles, overlay and markers for the current centre and zoom. */
  render() {
    this.element.dataset.zoom = this.zoom.toFixed(2);
    this.element.dataset.center = `${this.center.lat.toFixed(5)},${this.center.lon.toFixed(5)}`;
    this.element.dataset.radius = String(this.search.radius);
    if (this.tileUrl) this.renderTiles();
    this.renderOverlay();
    this.renderMarkers();
  }

  renderTiles() {
    const { width, height } = this.size;
    const tileZoom = Math.max(0, Math.min(maximumTileZoom, Math.round(this.zoom)));
    const scale = 2 ** (this.zoom - tileZoom);
    const center = project(this.center, tileZoom);
    const left = center.x - width / 2 / scale;
    const top = center.y - height / 2 / scale;
    const count = 2 ** tileZoom;
    const wanted = new Set();
    for (let column = Math.floor(left / tileSize); column <= Math.floor((left + width / scale) / tileSize); column++) {
      for (let row = Math.max(0, Math.floor(top / tileSize)); row <= Math.min(count - 1, Math.floor((top + height / scale) / tileSize)); row++) {
        const key = `${tileZoom}/${column}/${row}`;
        wanted.add(key);
        let image = this.tiles.get(key);
        if (!image) {
          const wrapped = ((column % count) + count) % count;
          const src = this.tileUrl.replaceAll("{z}", tileZoom).replaceAll("{x}", wrapped).replaceAll("{y}", row);
          // OpenStreetMap's tile policy asks for a Referer: the tiles alone send the console's origin.
          image = el("img", { className: "map-tile", src, alt: "", referrerPolicy: "strict-origin", draggable: false, decoding: "async" });
          this.tiles.set(key, image);
          this.tileLayer.append(image);
        }
        const side = tileSize * scale;
        image.style.left = `${(column * tileSize - left) * scale}px`;
        image.style.top = `${(row * tileSize - top) * scale}px`;
        image.style.width = image.style.height = `${side + 0.5}px`;
      }
    }
    for (const [key, image] of this.tiles) {
      if (wanted.has(key)) continue;
      image.remove();
      this.tiles.delete(key);
    }
  }

  renderOverlay() {
    const { width, height } = this.size;
    const { center, radius } = this.search;
    const perPixel = metersPerPixel(center.lat, this.zoom);
    const middle = this.pixelOf(center);
    const nodes = [];
    if (!this.tileUrl) {
      // The plain map: a ground and a grid of round steps around the search's centre.
      nodes.push(svg("rect", { x: 0, y: 0, width, height, class: "map-ground" }));
      const step = roundLength((Math.max(width, height) / 8) * perPixel) / perPixel;
      for (let x = middle.x % step; x < width; x += step) nodes.push(svg("line", { x1: x, y1: 0, x2: x, y2: height, class: "map-grid" }));
      for (let y = middle.y % step; y < height; y += step) nodes.push(svg("line", { x1: 0, y1: y, x2: width, y2: y, class: "map-grid" }));
    }
    nodes.push(svg("circle", { cx: middle.x, cy: middle.y, r: radius / perPixel, class: "map-radius" }));
    nodes.push(svg("path", { d: `M${middle.x - 7} ${middle.y}h14M${middle.x} ${middle.y - 7}v14`, class: "map-centre" }));
    const barMeters = roundLength(perPixel * 100);
    const barPixels = barMeters / perPixel;
    nodes.push(svg("path", { d: `M10 ${height - 14}v6h${barPixels}v-6`, class: "map-scale-bar" }));
    nodes.push(svg("text", { x: 12, y: height - 20, class: "map-scale" }, formatDistance(barMeters)));
    this.overlay.setAttribute("width", width);
    this.overlay.setAttribute("height", height);
    this.overlay.setAttribute("viewBox", `0 0 ${width} ${height}`);
    this.overlay.replaceChildren(...nodes);
  }

  /**
   * One button per group of results that would overlap, kept (and so keeping focus) while its group is the same: a
   * result's number, or a cluster's size.
   */
  renderMarkers() {
    const { width, height } = this.size;
    const points = this.results.flatMap((item, index) => {
      if (!item.location) return [];
      const { x, y } = this.pixelOf(item.location);
      return x < -20 || y < -20 || x > width + 20 || y > height + 20 ? [] : [{ x, y, item: { item, number: index + 1 } }];
    });
    const groups = cluster(points, this.clusterDistance);
    const kept = new Set();
    for (const group of groups) {
      const key = group.items.map(({ item }) => item.id).join(" ");
      kept.add(key);
      let marker = this.markers.get(key);
      if (!marker) {
        marker = el("button", { type: "button", className: "marker", onclick: (event) => this.markerClicked(event, group.items) });
        this.markers.set(key, marker);
      }
      marker.items = group.items;
      this.labelMarker(marker);
      marker.style.left = `${group.x}px`;
      marker.style.top = `${group.y}px`;
    }
    for (const [key, marker] of this.markers) {
      if (kept.has(key)) continue;
      marker.remove();
      this.markers.delete(key);
    }
    // In list order, so that Tab goes through the markers as through the results.
    const ordered = [...this.markers.values()].sort((a, b) => a.items[0].number - b.items[0].number);
    ordered.forEach((marker, index) => {
      if (this.markerLayer.children[index] !== marker) this.markerLayer.insertBefore(marker, this.markerLayer.children[index] ?? null);
    });
  }

  labelMarker(marker) {
    const items = marker.items;
    const single = items.length === 1;
    marker.classList.toggle("cluster", !single);
    marker.classList.toggle("selected", items.some(({ item }) => item.id === this.selectedId));
    if (marker.classList.contains("selected")) marker.setAttribute("aria-current", "true");
    else marker.removeAttribute("aria-current");
    marker.dataset.classIds = items.map(({ item }) => item.id).join(" ");
    replace(marker, String(single ? items[0].number : items.length));
    marker.setAttribute("aria-label", single
      ? t("map.marker", { number: items[0].number, name: items[0].item.name })
      : plural("map.cluster", items.length, { numbers: items.map(({ number }) => number).join(", ") }));
  }

  /** A result's marker opens it; a cluster's zooms in on its results (at the deepest zoom: opens the first). */
  markerClicked(event, items) {
    event.stopPropagation();
    if (items.length === 1 || this.zoom >= maximumZoom) {
      this.onSelect(items[0].item.id);
      return;
    }
    const pixels = items.map(({ item }) => this.pixelOf(item.location));
    const spread = Math.max(...pixels.map((p) => Math.hypot(p.x - pixels[0].x, p.y - pixels[0].y)), 1);
    const middle = { x: pixels.reduce((sum, p) => sum + p.x, 0) / pixels.length, y: pixels.reduce((sum, p) => sum + p.y, 0) / pixels.length };
    this.center = this.pointAt(middle.x, middle.y);
    // Enough zoom to pull the cluster's markers apart, at least one level.
    this.zoom = clampZoom(this.zoom + Math.max(1, Math.log2((this.clusterDistance * 1.5) / spread)));
    this.render();
  }

  /** How near two markers may be before they overlap: their size and a gap. */
  get clusterDistance() {
    return (parseFloat(getComputedStyle(this.element).getPropertyValue("--marker-size")) || 36) + clusterGap;
  }

  /** Moves the view by `dx`, `dy` pixels (the ground follows the pointer). */
  panBy(dx, dy) {
    const center = project(this.center, this.zoom);
    this.center = unproject({ x: center.x - dx, y: center.y - dy }, this.zoom);
    this.render();
  }

  /** Zooms by `delta` levels keeping the point under the box's pixel `x`, `y` where it is. */
  zoomAround(delta, x, y) {
    const anchor = this.pointAt(x, y);
    this.zoom = clampZoom(this.zoom + delta);
    const { width, height } = this.size;
    const world = project(anchor, this.zoom);
    this.center = unproject({ x: world.x - x + width / 2, y: world.y - y + height / 2 }, this.zoom);
    this.render();
  }

  /** Zooms by `delta` levels about the box's middle (the buttons and the keys). */
  zoomBy(delta) {
    const { width, height } = this.size;
    this.zoomAround(delta, width / 2, height / 2);
  }

  listen() {
    const element = this.element;
    for (const button of element.querySelectorAll("[data-zoom-step]")) {
      button.addEventListener("click", () => this.zoomBy(Number(button.dataset.zoomStep)));
    }
    const local = (event) => {
      const box = element.getBoundingClientRect();
      return { x: event.clientX - box.left, y: event.clientY - box.top };
    };
    element.addEventListener("pointerdown", (event) => {
      if (event.target.closest("button, a")) return;
      try {
        element.setPointerCapture(event.pointerId);
      } catch {
        // A pointer the browser no longer knows (a synthetic one): the gesture still works without capture.
      }
      this.pointers.set(event.pointerId, local(event));
      this.gesture = this.pointers.size === 1 ? { moved: 0, pinched: false, start: local(event) } : { ...this.gesture, pinched: true };
    });
    element.addEventListener("pointermove", (event) => {
      const previous = this.pointers.get(event.pointerId);
      if (!previous) return;
      const now = local(event);
      if (this.pointers.size === 1) {
        this.gesture.moved += Math.abs(now.x - previous.x) + Math.abs(now.y - previous.y);
        this.pointers.set(event.pointerId, now);
        if (this.gesture.moved >= clickSlop) this.panBy(now.x - previous.x, now.y - previous.y);
        return;
      }
      // A pinch: the zoom follows the fingers' distance, the view their middle.
      const [other] = [...this.pointers].filter(([id]) => id !== event.pointerId).map(([, point]) => point);
      const before = { mid: { x: (previous.x + other.x) / 2, y: (previous.y + other.y) / 2 }, distance: Math.hypot(previous.x - other.x, previous.y - other.y) };
      const after = { mid: { x: (now.x + other.x) / 2, y: (now.y + other.y) / 2 }, distance: Math.hypot(now.x - other.x, now.y - other.y) };
      this.pointers.set(event.pointerId, now);
      if (before.distance > 0 && after.distance > 0) this.zoomAround(Math.log2(after.distance / before.distance), before.mid.x, before.mid.y);
      this.panBy(after.mid.x - before.mid.x, after.mid.y - before.mid.y);
    });
    const end = (event) => {
      if (!this.pointers.delete(event.pointerId)) return;
      const gesture = this.gesture;
      if (this.pointers.size === 0 && event.type === "pointerup" && gesture && !gesture.pinched && gesture.moved < clickSlop) {
        const { x, y } = local(event);
        this.onPick(this.pointAt(x, y));
      }
    };
    element.addEventListener("pointerup", end);
    element.addEventListener("pointercancel", end);
    element.addEventListener("wheel", (event) => {
      event.preventDefault();
      const { x, y } = local(event);
      const notches = event.deltaMode === 0 ? event.deltaY / 100 : event.deltaY / 3;
      this.zoomAround(-Math.max(-1, Math.min(1, notches)) / 2, x, y);
    }, { passive: false });
    element.addEventListener("keydown", (event) => {
      if (event.target !== element || event.altKey || event.ctrlKey || event.metaKey) return;
      const step = 80;
      const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      if (moves[event.key]) this.panBy(...moves[event.key]);
      else if (event.key === "+" || event.key === "=") this.zoomBy(1);
      else if (event.key === "-" || event.key === "_") this.zoomBy(-1);
      else return;
      event.preventDefault();
    });
  }

  /** Rewrites the markers' names after a change of language. */
  relabel() {
    for (const marker of this.markers.values()) this.labelMarker(marker);
    this.renderOverlay();
  }
}
