// The arithmetic of a "slippy" street map: Web Mercator (EPSG:3857) as tile servers use it, world pixels at a zoom
// level (256 x 2^zoom pixels around the equator), ground metres per pixel, round scale lengths, and the grouping of
// markers that would overlap on screen. Pure functions, no DOM.

/** The side of a tile, in pixels. */
export const tileSize = 256;

/** Ground metres per pixel on the equator at zoom 0: the equator's length over 256 pixels. */
const equatorMetersPerPixel = 40_075_016.686 / tileSize;

/** The latitude where Web Mercator stops (the square world). */
const maximumLatitude = 85.05112878;

/**
 * World pixel coordinates of a point at `zoom` (x east from 180° W, y south from the top of the square world).
 * @param {{lat: number, lon: number}} point
 * @param {number} zoom may be fractional
 * @returns {{x: number, y: number}}
 */
export function project({ lat, lon }, zoom) {
  const size = tileSize * 2 ** zoom;
  const clamped = Math.max(-maximumLatitude, Math.min(maximumLatitude, lat));
  const sin = Math.sin((clamped * Math.PI) / 180);
  return {
    x: ((lon + 180) / 360) * size,
    y: (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * size,
  };
}

/**
 * The point at world pixel coordinates `x`, `y` at `zoom`; longitudes wrap into -180…180.
 * @param {{x: number, y: number}} pixel
 * @param {number} zoom
 * @returns {{lat: number, lon: number}}
 */
export function unproject({ x, y }, zoom) {
  const size = tileSize * 2 ** zoom;
  const lon = ((((x / size) * 360) % 360) + 360) % 360 - 180;
  const n = Math.PI - (2 * Math.PI * y) / size;
  const lat = (180 / Math.PI) * Math.atan(Math.sinh(n));
  return { lat: Math.max(-maximumLatitude, Math.min(maximumLatitude, lat)), lon };
}

/**
 * Ground metres one pixel spans at latitude `lat` and `zoom`.
 * @param {number} lat
 * @param {number} zoom
 */
export function metersPerPixel(lat, zoom) {
  return (equatorMetersPerPixel * Math.cos((lat * Math.PI) / 180)) / 2 ** zoom;
}

/**
 * The zoom at which `meters` span `pixels` at latitude `lat`.
 * @param {number} meters
 * @param {number} lat
 * @param {number} pixels
 */
export function zoomForSpan(meters, lat, pixels) {
  return Math.log2((equatorMetersPerPixel * Math.cos((lat * Math.PI) / 180) * pixels) / Math.max(meters, 1));
}

/**
 * The longest round length (1, 2 or 5 times a power of ten) not above `meters`: a scale bar's or a grid's step.
 * @param {number} meters
 */
export function roundLength(meters) {
  const power = 10 ** Math.floor(Math.log10(Math.max(meters, 1)));
  return [5, 2, 1].map((m) => m * power).find((length) => length <= meters) ?? power;
}

/**
 * Groups points that would overlap on screen: in order, each point joins the first group whose first point lies within
 * `distance` pixels of it, or starts a group. A group's position is its first point's, so markers stay where their
 * first (nearest) result is.
 * @template T
 * @param {Array<{x: number, y: number, item: T}>} points
 * @param {number} distance
 * @returns {Array<{x: number, y: number, items: T[]}>}
 */
export function cluster(points, distance) {
  const groups = [];
  for (const point of points) {
    const near = groups.find((group) => Math.hypot(group.x - point.x, group.y - point.y) < distance);
    if (near) near.items.push(point.item);
    else groups.push({ x: point.x, y: point.y, items: [point.item] });
  }
  return groups;
}
