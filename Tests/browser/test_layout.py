"""Phones first: on a 390 x 844 phone the results come first, the filters fold away, the map is a second view, nothing
scrolls sideways and every control is at least 44 px; on a desktop a class opens beside the result clicked. Every page
is checked with axe-core in both languages at both sizes, and the keyboard's focus order follows the page."""

import pytest
from playwright.sync_api import expect

PAGES = ["#explore", "#sign-in", "#sign-up", "#forgot-password", "#reset-password", "#verify-email"]
SIGNED_IN_PAGES = ["#chat"]
OPERATOR_PAGES = ["#moderate"]

# Controls a finger must hit: everything interactive, less links inside a sentence (the map's attribution).
TARGETS = "button, input, select, summary, nav a, .button-link, .links a"


def no_sideways_scrolling(page):
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.evaluate("innerWidth")
    assert width <= viewport, f"the page is {width} px wide on a {viewport} px screen"


def small_targets(page):
    """Visible controls smaller than 44 x 44 px, described."""
    return page.locator(TARGETS).evaluate_all("""controls => controls
        .filter(c => c.getClientRects().length > 0 && getComputedStyle(c).visibility !== 'hidden')
        .map(c => [c, c.getBoundingClientRect()])
        .filter(([c, box]) => box.width < 43.5 || box.height < 43.5)
        .map(([c, box]) => `${c.tagName.toLowerCase()}${c.name ? '[name=' + c.name + ']' : ''} '${(c.textContent || '').trim().slice(0, 20)}' ${Math.round(box.width)}x${Math.round(box.height)}`)""")


def test_on_a_phone_the_results_come_first_and_the_map_is_a_second_view(open_console, world):
    console = open_console(world["student"], phone=True)
    page = console.page
    expect(page.locator("#filters")).not_to_have_attribute("open", "")
    first = page.locator("#results li").first
    box = first.bounding_box()
    assert box["y"] + 40 < 844, f"the first result starts {box['y']} px down, on the first screen"
    assert page.locator("#map").is_hidden(), "the map waits behind its tab"
    no_sideways_scrolling(page)
    assert small_targets(page) == []
    console.screenshot("16-phone-results", full_page=False)
    console.audit("explore on a phone")

    # The filters unfold, and fold again.
    page.click("#filters summary")
    expect(page.locator("#search select[name=radius]")).to_be_visible()
    no_sideways_scrolling(page)
    assert small_targets(page) == []
    page.click("#filters summary")

    # The map's tab: the map fills the screen's width, with its markers; the list waits.
    page.get_by_role("button", name=console.say("explore.map")).click()
    expect(page.locator("#map")).to_be_visible()
    assert page.locator("#results").is_hidden()
    map_box = page.locator("#map").bounding_box()
    assert map_box["width"] >= 350 and map_box["y"] + map_box["height"] <= 844, map_box
    page.wait_for_function("() => document.querySelectorAll('#map .map-tile').length > 0 && [...document.querySelectorAll('#map .map-tile')].every(t => t.complete)")
    no_sideways_scrolling(page)
    assert small_targets(page) == [], "markers, zoom buttons and the tabs are big enough for a finger"
    console.screenshot("17-phone-map", full_page=False)
    console.audit("the map on a phone")

    # A marker opens its class under its result in the list (a cluster first zooms in until its markers part).
    for _ in range(5):
        single = page.locator("#map .marker:not(.cluster)")
        if single.count() > 0:
            single.first.click()
            break
        page.locator("#map .marker.cluster").first.click()
    expect(page.locator("#class-detail")).to_be_visible()
    assert page.locator("#results li #class-detail").count() == 1, "the detail opens inside the list, under its result"
    expect(page.locator("#results")).to_be_visible()
    no_sideways_scrolling(page)
    console.screenshot("18-phone-class-detail", full_page=False)
    console.audit("a class on a phone")


@pytest.mark.parametrize("language", ["ko", "en"])
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_every_page_is_accessible_fits_the_screen_and_has_big_enough_controls(open_console, world, language, phone):
    pages = [(None, PAGES), (world["student"], SIGNED_IN_PAGES), (world["operator"], OPERATOR_PAGES)]
    for user, hashes in pages:
        console = open_console(user, language=language, phone=phone)
        for hash in hashes:
            console.go(hash)
            console.page.wait_for_selector(f"[data-view='{hash[1:]}']:not([hidden])")
            if hash == "#moderate":
                console.page.locator("#queue li").first.wait_for()
            no_sideways_scrolling(console.page)
            if phone:
                assert small_targets(console.page) == [], f"{hash}: controls under 44 px"
            console.audit(hash)


def test_on_a_desktop_a_class_opens_beside_the_result_clicked(open_console, world):
    console = open_console(world["student"])
    page = console.page
    console.search("")
    result = page.locator("#results li", has_text="아침 요가 소모임")
    result.locator("button").click()
    detail = page.locator("#class-detail")
    detail.locator("h3").filter(has_text="아침 요가 소모임").wait_for()
    result_box, detail_box = result.bounding_box(), detail.bounding_box()
    assert detail_box["x"] >= result_box["x"] + result_box["width"], "to the right of the result"
    assert detail_box["y"] < result_box["y"] + result_box["height"] and detail_box["y"] + detail_box["height"] > result_box["y"] - 400, \
        "level with the result, not under the list"
    assert page.evaluate("document.activeElement.id") == "class-detail", "the focus moves to the class"
    # Closing it gives the focus back to the result.
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(detail).to_be_hidden()
    assert page.evaluate("document.activeElement.dataset.classId") == world["classes"]["yoga"]["id"]


def test_the_focus_follows_the_page_and_shows(open_console, world):
    console = open_console()
    page = console.page
    order = []
    for _ in range(40):
        page.keyboard.press("Tab")
        order.append(page.evaluate("""() => {
            const e = document.activeElement;
            const style = getComputedStyle(e);
            return {id: e.id || e.className || e.tagName, area: e.closest('header') ? 'header' : e.closest('#search') ? 'search' : e.closest('.view-switch') ? 'switch'
                      : e.closest('#results') ? 'results' : e.closest('#map') || e.closest('.map-box') ? 'map' : 'other',
                    outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2};
        }"""))
    order = order[:next((i for i, step in enumerate(order) if step["id"] == "BODY"), len(order))]
    areas = [step["area"] for step in order]
    seen = list(dict.fromkeys(areas))
    assert seen[:4] == ["header", "search", "results", "map"], f"header, search, results, then the map: {seen}"
    assert [step["id"] for step in order if not step["outline"]] == [], "every focused control shows a focus ring"
