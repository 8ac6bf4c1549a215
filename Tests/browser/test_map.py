"""The street map: tiles from the configured tile server (a stand-in on loopback here) asked for with the console's
origin as Referer and nothing more, the CSP widened to that origin only, OpenStreetMap's attribution, the radius drawn
to scale, markers that cluster where they would overlap and open their class by keyboard, pan, zoom by wheel, keys and
pinch, and the plain map without tiles when `console.tileUrl` is empty."""

import math
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import CITY_HALL, SILLIM, Server

EARTH_CIRCUMFERENCE = 40_075_016.686


def map_state(page):
    zoom = float(page.get_attribute("#map", "data-zoom"))
    lat, lon = (float(v) for v in page.get_attribute("#map", "data-center").split(","))
    return zoom, lat, lon


def wait_for_tiles(page):
    page.wait_for_function("""() => {
        const tiles = [...document.querySelectorAll('#map .map-tile')];
        return tiles.length > 0 && tiles.every(t => t.complete && t.naturalWidth === 256);
    }""")


def search_around(console, point, radius="5000"):
    page = console.page
    console.open_filters()
    page.fill("#search input[name=lat]", str(point[0]))
    page.fill("#search input[name=lon]", str(point[1]))
    page.select_option("#search select[name=radius]", radius)
    console.search("")
    page.wait_for_function(f"() => document.querySelector('#map').dataset.radius === '{radius}' && "
                           f"document.querySelector('#map').dataset.center === '{point[0]:.5f},{point[1]:.5f}'")


def test_tiles_come_from_the_tile_server_with_the_origin_as_referer_and_the_csp_allows_only_it(open_console, world, server, tiles):
    console = open_console()
    page = console.page
    wait_for_tiles(page)
    sources = page.locator("#map .map-tile").evaluate_all("tiles => tiles.map(t => [t.src, t.referrerPolicy, t.alt])")
    assert sources and all(src.startswith(tiles.origin + "/") and policy == "strict-origin" and alt == "" for src, policy, alt in sources)
    zoom = round(map_state(page)[0])
    assert all(re.search(rf"/{zoom}/\d+/\d+\.png$", src) for src, _, _ in sources), "tiles of the zoom shown"
    referers = {request["referer"] for request in tiles.seen()}
    assert referers == {server.base + "/"}, f"the console's origin only, never its path or hash: {referers}"

    with urllib.request.urlopen(server.base + "/console") as response:
        policy = response.headers["Content-Security-Policy"]
        assert response.headers["Referrer-Policy"] == "no-referrer"
        html = response.read().decode()
    assert f"img-src 'self' data: {tiles.origin};" in policy and policy.count("http") == 1, policy
    assert f'<meta name="classtoday-tile-url" content="{tiles.template}">' in html

    attribution = page.locator("#map .map-attribution")
    expect(attribution).to_be_visible()
    assert attribution.text_content().startswith("© OpenStreetMap")
    assert attribution.locator("a").get_attribute("href") == "https://www.openstreetmap.org/copyright"


def test_the_radius_is_drawn_to_scale(open_console, world):
    console = open_console()
    page = console.page
    for radius in ("2000", "10000"):
        search_around(console, SILLIM, radius)
        zoom, lat, _ = map_state(page)
        meters_per_pixel = EARTH_CIRCUMFERENCE * math.cos(math.radians(SILLIM[0])) / (256 * 2 ** zoom)
        drawn = float(page.get_attribute("#map .map-radius", "r"))
        assert drawn == pytest.approx(int(radius) / meters_per_pixel, rel=0.01), f"{radius} m drawn as {drawn} px at zoom {zoom}"
        box = page.locator("#map").bounding_box()
        assert 2 * drawn <= min(box["width"], box["height"]), "the whole circle is in view"
    # The scale bar says how long it is, and is as long as that.
    label = page.locator("#map .map-scale").text_content()
    number, unit = re.fullmatch(r"([\d.]+)\s?(m|km)", label).groups()
    bar_meters = float(number) * (1000 if unit == "km" else 1)
    bar_pixels = float(re.search(r"h([\d.]+)", page.get_attribute("#map .map-scale-bar", "d")).group(1))
    zoom = map_state(page)[0]
    assert bar_pixels * EARTH_CIRCUMFERENCE * math.cos(math.radians(SILLIM[0])) / (256 * 2 ** zoom) == pytest.approx(bar_meters, rel=0.01)


def test_overlapping_markers_cluster_and_split_when_zoomed(open_console, world):
    console = open_console()
    page = console.page
    search_around(console, CITY_HALL, "5000")
    expect(page.locator("#results li")).to_have_count(6)
    cluster = page.locator("#map .marker.cluster")
    expect(cluster).to_have_count(1)
    near = {world["classes"][key]["id"] for key in ("coding", "english", "photo")}
    assert set(cluster.get_attribute("data-class-ids").split()) == near, "the three classes a few metres apart"
    assert cluster.text_content() == "3"
    assert re.search(r"3", cluster.get_attribute("aria-label"))
    markers = page.locator("#map .marker").evaluate_all("ms => ms.map(m => m.getBoundingClientRect()).map(b => [b.x, b.y, b.width])")
    for i, (x1, y1, size) in enumerate(markers):
        for x2, y2, _ in markers[i + 1:]:
            assert math.hypot(x1 - x2, y1 - y2) >= size, "no two markers overlap"
    wait_for_tiles(page)
    console.screenshot("19-map-cluster")

    zoom_before = map_state(page)[0]
    cluster.click()
    page.wait_for_function(f"() => Number(document.querySelector('#map').dataset.zoom) > {zoom_before}")
    expect(page.locator("#map .marker.cluster")).to_have_count(0)
    for class_id in near:
        expect(page.locator(f"#map .marker[data-class-ids='{class_id}']")).to_be_visible()
    wait_for_tiles(page)
    console.screenshot("20-map-cluster-split")


def test_every_marker_is_reached_by_keyboard_after_the_results_and_enter_opens_its_class(open_console, world):
    console = open_console(language="en")
    page = console.page
    search_around(console, SILLIM, "2000")
    names = page.locator("#results .name").all_text_contents()
    page.locator("#map").focus()
    seen = []
    for _ in range(len(names) + 3):
        page.keyboard.press("Tab")
        label = page.evaluate("document.activeElement.classList.contains('marker') ? document.activeElement.getAttribute('aria-label') : null")
        if label:
            seen.append(label)
    assert seen, "markers take the focus after the map"
    assert re.match(r"1\. |.*\(1\b", seen[0]), f"in the results' order, result 1 (or its cluster) first: {seen}"
    page.locator("#map .marker:not(.cluster)").first.focus()
    name = page.evaluate("document.activeElement.getAttribute('aria-label')").split(". ", 1)[1]
    page.keyboard.press("Enter")
    expect(page.locator("#class-detail h3")).to_have_text(name)
    expect(page.locator("#map .marker.selected")).to_have_count(1)


def test_the_map_pans_and_zooms_by_mouse_keys_and_pinch(open_console, world):
    console = open_console()
    page = console.page
    wait_for_tiles(page)
    zoom, lat, lon = map_state(page)
    box = page.locator("#map").bounding_box()
    # Off the search's centre, where the markers are.
    middle = (box["x"] + box["width"] / 2 - 150, box["y"] + box["height"] / 2 + 80)

    # A drag moves the ground with the pointer: dragging right shows what lies west; no search starts.
    count = page.locator("#result-count").text_content()
    page.mouse.move(*middle)
    page.mouse.down()
    page.mouse.move(middle[0] + 120, middle[1], steps=6)
    page.mouse.up()
    _, lat2, lon2 = map_state(page)
    assert lon2 < lon and lat2 == pytest.approx(lat, abs=1e-4)
    assert page.input_value("#search input[name=lat]") == f"{SILLIM[0]}", "a drag is not a click"
    assert page.locator("#result-count").text_content() == count

    # The wheel zooms about the pointer.
    page.mouse.move(*middle)
    page.mouse.wheel(0, -300)
    page.wait_for_function(f"() => Number(document.querySelector('#map').dataset.zoom) > {zoom}")
    zoomed = map_state(page)[0]

    # Keys: the map takes the focus, + and - zoom by a level, the arrows pan.
    page.locator("#map").focus()
    page.keyboard.press("-")
    assert map_state(page)[0] == pytest.approx(zoomed - 1, abs=0.01)
    before = map_state(page)
    page.keyboard.press("ArrowUp")
    assert map_state(page)[1] > before[1], "up shows what lies north"
    page.get_by_role("button", name=console.say("map.zoomIn"), exact=True).click()
    assert map_state(page)[0] == pytest.approx(zoomed, abs=0.01)


def test_a_pinch_zooms_on_a_phone(open_console, world):
    console = open_console(phone=True)
    page = console.page
    page.get_by_role("button", name=console.say("explore.map")).click()
    wait_for_tiles(page)
    zoom = map_state(page)[0]
    box = page.locator("#map").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    session = page.context.new_cdp_session(page)

    def touch(kind, spread):
        points = [] if kind == "touchEnd" else [{"x": cx - spread, "y": cy, "id": 1}, {"x": cx + spread, "y": cy, "id": 2}]
        session.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", 40)
    for spread in range(50, 170, 10):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    page.wait_for_function(f"() => Number(document.querySelector('#map').dataset.zoom) > {zoom + 1}")
    assert map_state(page)[0] == pytest.approx(zoom + 2, abs=0.3), "fingers four times as far apart: two levels"
    assert page.input_value("#search input[name=lat]") == f"{SILLIM[0]}", "a pinch is not a click"


def test_without_a_tile_server_the_map_is_plain_and_asks_no_one(browser, open_console, world, tiles):
    plain = Server("")
    plain.start()
    try:
        before = len(tiles.seen())
        console = open_console(on=plain)
        page = console.page
        expect(page.locator("#map .map-ground")).to_have_count(1)
        assert page.locator("#map .map-tile").count() == 0
        assert page.locator("#map .map-grid").count() > 4, "a scale grid, as the plain map always had"
        expect(page.locator("#map .map-attribution")).to_be_hidden()
        with urllib.request.urlopen(plain.base + "/console") as response:
            assert "img-src 'self' data:;" in response.headers["Content-Security-Policy"]
        page.wait_for_timeout(300)
        assert len(tiles.seen()) == before, "no tile was asked for"
        console.screenshot("21-plain-map")
        console.audit("the plain map")
    finally:
        plain.close()
