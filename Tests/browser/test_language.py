"""The console's languages: Korean for a Korean browser and English for others, a switch remembered on the browser,
every string from the language's table, and prices, distances and dates in the language's way."""

import re

import pytest
from playwright.sync_api import expect

from conftest import CONSOLE_FILES, strings


def test_both_tables_have_every_key_the_page_and_the_modules_use():
    korean, english = strings("ko"), strings("en")
    plural_forms = {key for key in english if key.endswith(".one")}
    assert set(korean) | plural_forms == set(english), "the same keys in both tables (Korean needs no .one forms)"
    used = set()
    for path in CONSOLE_FILES.glob("*"):
        text = path.read_text()
        used |= set(re.findall(r'data-i18n(?:-[a-z]+)?="([^"]+)"', text))
        used |= set(re.findall(r'\b(?:t|plural|has|say)\("([a-zA-Z]+\.[a-zA-Z.]+)"', text))
    missing = {key for key in used if key not in english and f"{key}.other" not in english}
    assert missing == set(), f"keys used but in no table: {sorted(missing)}"


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_browsers_language_chooses_the_page_language(open_console, world, language):
    console = open_console(language=language)
    page = console.page
    assert page.evaluate("document.documentElement.lang") == language
    expect(page.locator("[data-tab=explore]")).to_have_text(console.say("nav.explore"))
    expect(page.locator("#search button[type=submit]")).to_have_text(console.say("search.submit"))
    expect(page.locator("#result-count")).to_contain_text(console.say("explore.within", distance="5km" if language == "ko" else "5 km"))
    first_distance = page.locator("#results .distance").first.text_content()
    assert re.fullmatch(r"\d+m" if language == "ko" else r"\d+ m", first_distance), first_distance
    price = page.locator("#results .result-meta").first.text_content()
    assert ("시간당 ₩20,000" if language == "ko" else "₩20,000 per hour") in price
    # No key shows instead of its words.
    body = page.locator("body").inner_text()
    assert not re.search(r"\b(nav|explore|search|map|detail|field|signIn|problem)\.[a-z]+[A-Z]?\w*\b", body), body
    console.screenshot(f"11-explore-{language}")


def test_the_switch_changes_every_string_and_is_remembered(open_console, world):
    console = open_console(world["student"])
    page = console.page
    console.open_class("기타", "기타 왕초보 레슨")
    assert "토" in page.locator("#class-detail").text_content()
    switch = page.locator("#language")
    expect(switch).to_have_text("English")
    assert switch.get_attribute("lang") == "en", "the switch's name is in the language it switches to"
    switch.click()

    console.language = "en"
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.evaluate("localStorage.getItem('classtoday.language')") == "en"
    expect(page.locator("[data-tab=explore]")).to_have_text("Explore")
    expect(page.locator("#class-detail [data-action=chat]")).to_have_text("Chat with the writer")
    detail = page.locator("#class-detail").text_content()
    assert "₩20,000 per hour" in detail and "Sat" in detail and "Hobbies" in detail, detail
    expect(page.locator("#result-count")).to_contain_text("1 class within 5 km")
    expect(page.locator("#search select[name=subjects] option[value=math]")).to_have_text("Maths")
    expect(switch).to_have_text("한국어")
    console.screenshot("12-class-detail-en")

    # Remembered on this browser: a reload (and a new tab) starts in English though the browser is Korean.
    page.reload()
    page.wait_for_selector("#result-count:not(:empty)")
    assert page.evaluate("document.documentElement.lang") == "en"
    expect(page.locator("[data-tab=explore]")).to_have_text("Explore")
    page.locator("#language").click()
    assert page.evaluate("localStorage.getItem('classtoday.language')") == "ko"
    expect(page.locator("[data-tab=explore]")).to_have_text("찾기")


def test_chat_times_and_receipts_follow_the_language(open_console, world, server):
    room = server.api("POST", "/v1/chat/rooms", {"classId": world["classes"]["yoga"]["id"]}, token=world["student"]["token"])
    server.api("POST", f"/v1/chat/rooms/{room['id']}/messages", {"clientId": "language-check", "text": "시간 확인"},
               token=world["student"]["token"])
    console = open_console(world["student"])
    page = console.page
    page.click("[data-tab=chat]")
    page.click(f"#rooms button[data-room-id='{room['id']}']")
    message = page.locator("#messages .message.mine", has_text="시간 확인")
    message.wait_for()
    korean_time = message.locator("time").text_content()
    assert re.search(r"(오전|오후) \d+:\d\d", korean_time), korean_time
    assert message.locator(".receipt").text_content() in ("보냄", "읽음")
    page.click("#language")
    expect(message.locator(".receipt")).to_have_text(re.compile(r"^(sent|read)$"))
    english_time = message.locator("time").text_content()
    assert re.search(r"\d+:\d\d (AM|PM)", english_time), english_time
    assert message.locator("time").get_attribute("datetime").endswith("Z"), "the machine-readable time stays RFC 3339"
