// A map of search results drawn in SVG around a centre point, without any tile server: a local flat projection
// (metres east and north of the centre), a scale grid, the search circle and one numbered dot per result.

const svgNS = "http://www.w3.org/2000/svg";
const size = 400;
const metersPerDegreeLat = 110_574;

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(svgNS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The SVG map: `show(center, radius, results)` redraws it; `onPick(point)` is called when the map is clicked. */
export class ResultMap {
  constructor(element, { onPick, onSelect }) {
    this.element = element;
    this.onPick = onPick;
    this.onSelect = onSelect;
    this.center = { lat: 0, lon: 0 };
    this.radius = 1000;
    this.halfSpan = 1200;
    this.results = [];
    element.addEventListener("click", (event) => {
      if (event.target.closest("[data-class-id]")) return;
      const box = element.getBoundingClientRect();
      const x = ((event.clientX - box.left) / box.width) * size;
      const y = ((event.clientY - box.top) / box.height) * size;
      this.onPick(this.toPoint(x, y));
    });
  }

  get metersPerDegreeLon() {
    return 111_320 * Math.cos((this.center.lat * Math.PI) / 180);
  }

  /** Pixel position of a point. */
  toPixel({ lat, lon }) {
    let dLon = lon - this.center.lon;
    if (dLon > 180) dLon -= 360;
    if (dLon < -180) dLon += 360;
    const scale = size / 2 / this.halfSpan;
    return { x: size / 2 + dLon * this.metersPerDegreeLon * scale, y: size / 2 - (lat - this.center.lat) * metersPerDegreeLat * scale };
  }

  /** The point under a pixel. */
  toPoint(x, y) {
    const metersPerPixel = this.halfSpan / (size / 2);
    const lat = this.center.lat - ((y - size / 2) * metersPerPixel) / metersPerDegreeLat;
    let lon = this.center.lon + ((x - size / 2) * metersPerPixel) / Math.max(this.metersPerDegreeLon, 1);
    if (lon > 180) lon -= 360;
    if (lon < -180) lon += 360;
    return { lat: Math.max(-90, Math.min(90, lat)), lon };
  }

  /** The visible area as the API's bbox (minLon,minLat,maxLon,maxLat). */
  get bbox() {
    const southWest = this.toPoint(0, size);
    const northEast = this.toPoint(size, 0);
    return [southWest.lon, southWest.lat, northEast.lon, northEast.lat].map((v) => v.toFixed(6)).join(",");
  }

  /** Redraws the map around `center`, showing the `radius` circle and `results` (classes with a location). */
  show(center, radius, results, selectedId) {
    Object.assign(this, { center, radius, results });
    this.halfSpan = radius * 1.2;
    const nodes = [svg("rect", { x: 0, y: 0, width: size, height: size, class: "map-ground" })];
    const step = gridStep(this.halfSpan);
    const scale = size / 2 / this.halfSpan;
    for (let offset = step; offset < this.halfSpan; offset += step) {
      for (const sign of [-1, 1]) {
        const p = size / 2 + sign * offset * scale;
        nodes.push(svg("line", { x1: p, y1: 0, x2: p, y2: size, class: "map-grid" }));
        nodes.push(svg("line", { x1: 0, y1: p, x2: size, y2: p, class: "map-grid" }));
      }
    }
    nodes.push(svg("circle", { cx: size / 2, cy: size / 2, r: radius * scale, class: "map-radius" }));
    nodes.push(svg("path", { d: `M${size / 2 - 6} ${size / 2}h12M${size / 2} ${size / 2 - 6}v12`, class: "map-centre" }));
    nodes.push(svg("text", { x: 8, y: size - 10, class: "map-scale" }, `grid ${step >= 1000 ? `${step / 1000} km` : `${step} m`}`));
    results.forEach((item, index) => {
      if (!item.location) return;
      const { x, y } = this.toPixel(item.location);
      const dot = svg("g", { "data-class-id": item.id, class: item.id === selectedId ? "map-dot selected" : "map-dot", tabindex: 0 });
      dot.append(svg("circle", { cx: x, cy: y, r: 9 }), svg("text", { x, y: y + 4 }, String(index + 1)), svg("title", {}, item.name));
      dot.addEventListener("click", () => this.onSelect(item.id));
      nodes.push(dot);
    });
    this.element.replaceChildren(...nodes);
  }

  /** Redraws the same results with `selectedId` highlighted. */
  select(selectedId) {
    this.show(this.center, this.radius, this.results, selectedId);
  }
}

/** A round grid spacing giving about four lines on each side of the centre. */
function gridStep(halfSpan) {
  const rough = halfSpan / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
}
