"""Photos: each result and each chat room shows its class's thumbnail variant (the room list carries it, so no request
per room), and a class's detail its card variants."""

from playwright.sync_api import expect


def test_results_and_rooms_show_thumbnails(open_console, world, server):
    image_url = world["image"]["url"]
    server.api("POST", "/v1/chat/rooms", {"classId": world["classes"]["guitar"]["id"]}, token=world["student"]["token"])
    console = open_console(world["student"], language="en")
    page = console.page
    console.search("")
    result = page.locator("#results li", has_text="기타 왕초보 레슨")
    thumb = result.locator("img.thumb")
    assert thumb.get_attribute("src") == image_url + "/thumb"
    assert thumb.get_attribute("alt") == "", "the name beside it says what it shows"
    page.wait_for_function("() => [...document.querySelectorAll('#results img.thumb')].every(i => i.complete && i.naturalWidth === 96)")
    assert page.locator("#results li", has_text="아침 요가 소모임").locator(".thumb.empty").count() == 1, "a class without photos keeps the layout"

    page.click("[data-tab=chat]")
    room = page.locator("#rooms li", has_text="기타 왕초보 레슨")
    expect(room.locator("img.thumb")).to_have_attribute("src", image_url + "/thumb")
    page.wait_for_function("() => [...document.querySelectorAll('#rooms img.thumb')].every(i => i.complete && i.naturalWidth === 96)")
    rooms = server.api("GET", "/v1/chat/rooms", token=world["student"]["token"])["items"]
    guitar = next(r for r in rooms if r["class"]["id"] == world["classes"]["guitar"]["id"])
    assert guitar["class"]["imageVariants"] == {key: f"{image_url}/{key}" for key in ("thumb", "card", "full")}
    assert guitar["class"]["imageUrl"] == image_url
    console.screenshot("22-chat-rooms-with-photos")
