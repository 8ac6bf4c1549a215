"""The web console at /console in a real browser (Debian's Chromium, headless, driven by Playwright): sign-in,
search and a class's detail, a chat message seen live by a second browser context (and again after the server
restarts), a report acted on by an operator with the audit log showing it, and a class named like an XSS attack
shown as text. Each page is saved as a screenshot under docs/console-screenshots/."""

import re

from playwright.sync_api import expect

from conftest import XSS_NAME


def result_names(page):
    return page.locator("#results .name").all_text_contents()


def result_distances(page):
    meters = []
    for text in page.locator("#results .distance").all_text_contents():
        number, unit = text.split()
        meters.append(float(number) * (1000 if unit == "km" else 1))
    return meters


def test_sign_in_shows_the_users_sections(open_console, world):
    console = open_console()
    page = console.page
    assert page.locator("[data-tab=chat]").is_hidden()
    console.screenshot("01-signed-out")
    console.sign_in(world["student"])
    assert page.locator("[data-tab=chat]").is_visible()
    assert page.locator("[data-tab=moderate]").is_hidden(), "a user who is not an operator sees no Moderate tab"
    assert page.evaluate("document.cookie") == "", "the token is not kept in a cookie"
    assert page.evaluate("sessionStorage.getItem('classtoday.token')") is not None

    page.click("#sign-out")
    page.wait_for_selector("#sign-in", state="visible")
    assert page.evaluate("sessionStorage.getItem('classtoday.token')") is None

    page.fill("#sign-in input[name=email]", world["student"]["email"])
    page.fill("#sign-in input[name=password]", "wrong-password")
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector("#notice.error")
    assert "Sign-in" in page.locator("#notice").text_content()
    console.errors = [e for e in console.errors if "401" not in e]


def test_search_lists_the_nearest_first_and_opens_a_class(open_console, world, server):
    console = open_console(world["student"])
    page = console.page
    page.select_option("#search select[name=radius]", "5000")
    page.click("#search button[type=submit]")
    page.wait_for_selector("#result-count:has-text('within 5.0 km')")
    names = result_names(page)
    assert "해운대 서핑 강습" not in names, "Busan is not within 5 km of Sillim"
    assert {"기타 왕초보 레슨", "아침 요가 소모임", "중학 수학 과외"} <= set(names)
    distances = result_distances(page)
    assert distances == sorted(distances) and len(distances) == len(names), "nearest first, each with its distance"
    assert page.locator("#map .map-dot").count() == len(names), "one dot on the map per result"
    console.screenshot("02-explore")

    # Filters: a subject, then a highest price.
    page.select_option("#search select[name=subjects]", "math")
    console.search("")
    expect(page.locator("#results .name")).to_have_text(["중학 수학 과외"])
    page.select_option("#search select[name=subjects]", "")
    page.fill("#search input[name=maxPrice]", "16000")
    console.search("")
    expect(page.locator("#results .name")).to_have_text(["아침 요가 소모임"])
    page.fill("#search input[name=maxPrice]", "")

    # The map's view as a bounding box: the same nearby classes, Busan still out of it.
    page.click("#search-view")
    page.wait_for_selector("#result-count:has-text(\"in the map's view\")")
    expect(page.locator("#results .name")).to_have_count(len(names))
    assert set(result_names(page)) == set(names)

    console.search("기타")
    expect(page.locator("#results .name")).to_have_text(["기타 왕초보 레슨"])

    console.open_class("기타", "기타 왕초보 레슨")
    detail = page.locator("#class-detail")
    assert detail.locator("h2").text_content() == "기타 왕초보 레슨"
    assert "20,000 KRW per hour" in detail.text_content()
    assert "기타선생" in detail.text_content()
    image = detail.locator(".images img")
    assert image.count() == 1
    # The list shows the card variant (fits 800 x 800, never upscaled), decoded by the browser; the link opens full.
    assert image.get_attribute("src") == world["image"]["url"] + "/card"
    assert detail.locator(".images a").get_attribute("href") == world["image"]["url"] + "/full"
    page.wait_for_function("() => document.querySelector('#class-detail .images img').naturalWidth === 96")
    console.screenshot("03-class-detail")

    # A click on the map searches around the clicked point: the centre moves.
    page.fill("#search input[name=q]", "")
    before = page.input_value("#search input[name=lat]")
    page.locator("#map").click(position={"x": 20, "y": 20})
    page.wait_for_function(f"() => document.querySelector('#search input[name=lat]').value !== '{before}'")
    assert float(page.input_value("#search input[name=lat]")) > float(before), "the top of the map is north"


def test_a_chat_message_is_seen_live_in_a_second_browser_and_after_a_restart(open_console, world, server):
    student = open_console(world["student"])
    teacher = open_console(world["teacher"])

    # The student opens a room from the class's detail.
    page = student.page
    student.open_class("요가", "아침 요가 소모임")
    page.click("#class-detail button:has-text('Chat with the writer')")
    page.wait_for_selector("#room-title:has-text('아침 요가 소모임')")
    assert page.locator("[data-tab=chat].active").count() == 1

    # The teacher sees the new room with its unread count once the student writes.
    page.fill("#composer input[name=text]", "안녕하세요, 토요일 수업 자리 있나요?")
    page.click("#composer button[type=submit]")
    page.wait_for_selector("#messages .message.mine .receipt:text-is('sent')")
    other = teacher.page
    other.click("[data-tab=chat]")
    room = other.locator("#rooms li", has_text="아침 요가 소모임")
    room.locator(".unread:text-is('1')").wait_for()
    room.locator("button").click()
    other.wait_for_selector("#messages .message.theirs:has-text('토요일 수업 자리 있나요?')")

    # The student's message shows as read once the teacher has it on screen; the teacher's typing shows live.
    page.wait_for_selector("#messages .message.mine .receipt:text-is('read')")
    other.type("#composer input[name=text]", "네")
    page.wait_for_selector("#typing:has-text('기타선생 is typing')")

    # A reply travels live to the other context, over the WebSocket (no reload).
    other.fill("#composer input[name=text]", "네, 두 자리 남았어요 <b>환영</b>")
    other.click("#composer button[type=submit]")
    page.wait_for_selector("#messages .message.theirs:has-text('두 자리 남았어요 <b>환영</b>')")
    assert page.locator("#messages b").count() == 0, "message text is shown as text"
    student.screenshot("04-chat-student")
    teacher.screenshot("05-chat-teacher")

    # The server restarts; both pages reconnect by themselves and sync what was written meanwhile.
    server.restart()
    room_id = page.locator("#rooms li.selected button").get_attribute("data-room-id")
    server.api("POST", f"/v1/chat/rooms/{room_id}/messages", {"clientId": "after-restart", "text": "재시작 후 메시지"},
               token=world["teacher"]["token"])
    page.wait_for_selector("#chat-state[data-state=live]", state="attached", timeout=20_000)
    page.wait_for_selector("#messages .message.theirs:has-text('재시작 후 메시지')", timeout=20_000)
    page.fill("#composer input[name=text]", "다시 연결됐어요")
    page.click("#composer button[type=submit]")
    other.wait_for_selector("#messages .message:has-text('다시 연결됐어요')", timeout=20_000)
    texts = page.locator("#messages .message .text").all_text_contents()
    assert len(texts) == len(set(texts)), f"no message shown twice: {texts}"
    seqs = [int(s) for s in page.locator("#messages .message").evaluate_all("items => items.map(i => i.dataset.seq)")]
    assert seqs == sorted(seqs)
    for console in (student, teacher):
        # The browser logs each refused reconnection attempt while the server is down.
        console.errors = [e for e in console.errors if "WebSocket connection" not in e]


def test_a_reported_class_is_hidden_by_an_operator_with_the_audit_log_showing_it(open_console, world, server):
    target = world["classes"]["math"]
    reporter = open_console(world["student"])
    page = reporter.page
    reporter.open_class("수학", "중학 수학 과외")
    page.select_option("#class-detail select[name=reason]", "fraud")
    page.fill("#class-detail input[name=detail]", "선입금만 요구합니다")
    page.click("#class-detail button:has-text('Report')")
    page.wait_for_selector("#class-detail .report:has-text('Reported.')")

    operator = open_console(world["operator"])
    desk = operator.page
    desk.click("[data-tab=moderate]")
    entry = desk.locator("#queue li", has_text="중학 수학 과외")
    entry.wait_for()
    assert re.search(r"\d+ (s|min)", entry.locator(".age").text_content()), "each report shows its age"
    entry.locator("button").click()
    case = desk.locator("#case")
    case.wait_for(state="visible")
    assert "선입금만 요구합니다" in case.text_content()
    assert case.locator(".reported-class h3").text_content() == "중학 수학 과외"
    assert "기타선생" in case.text_content(), "the writer answerable for the class"
    operator.screenshot("06-moderation-case")

    case.locator("input[name=reason]").fill("선입금 사기 의심")
    case.locator("button:text-is('Hide class')").click()
    row = desk.locator("#audit tbody tr", has_text="hideClass")
    row.wait_for()
    assert "선입금 사기 의심" in row.text_content()
    assert f"class {target['id']}" in row.text_content()
    assert world["operator"]["id"] in row.text_content()
    desk.wait_for_selector("#queue li:has-text('No open reports')")
    operator.screenshot("07-moderation-audit")

    # The class has left search for everyone else.
    page.click("#search button[type=submit]")
    page.wait_for_selector("#result-count:has-text('0 classes')")
    listed = server.api("GET", f"/v1/classes?q=%EC%88%98%ED%95%99")
    assert [item["id"] for item in listed["items"]] == []


def test_a_class_named_like_markup_shows_as_text(open_console, world, server):
    console = open_console(world["student"])
    page = console.page
    console.search("")
    entry = page.locator("#results li", has_text=XSS_NAME)
    entry.wait_for()
    assert entry.locator(".name").text_content() == XSS_NAME
    entry.locator("button").click()
    page.locator("#class-detail h2").wait_for()
    assert page.locator("#class-detail h2").text_content() == XSS_NAME
    assert "<script>alert(2)</script>" in page.locator("#class-detail .description").text_content()
    assert page.locator("img[src='x']").count() == 0, "no element was made from the name"
    assert page.locator("#class-detail script, #class-detail b").count() == 0
    page.wait_for_timeout(500)
    assert console.dialogs == [], "no alert fired"
    console.screenshot("08-xss-as-text")


def test_a_reported_message_is_removed_by_an_operator_and_changes_live_in_the_room(open_console, world, server):
    student, teacher = world["student"], world["teacher"]
    room = server.api("POST", "/v1/chat/rooms", {"classId": world["classes"]["guitar"]["id"]}, token=student["token"])
    server.api("POST", f"/v1/chat/rooms/{room['id']}/messages", {"clientId": "pay-first", "text": "계좌로 먼저 입금해 주세요"},
               token=teacher["token"])

    reporter = open_console(student)
    page = reporter.page
    page.click("[data-tab=chat]")
    page.click(f"#rooms button[data-room-id='{room['id']}']")
    message = page.locator("#messages .message.theirs", has_text="계좌로 먼저 입금해 주세요")
    message.locator("button.report-message").click()
    message.locator("select[name=reason]").select_option("offPlatformPayment")
    message.locator("button:text-is('Report')").click()
    message.locator(".report:has-text('Reported.')").wait_for()

    operator = open_console(world["operator"])
    desk = operator.page
    desk.click("[data-tab=moderate]")
    desk.locator("#queue li", has_text="계좌로 먼저 입금해 주세요").locator("button").click()
    case = desk.locator("#case")
    assert case.locator(".messages .message.reported").text_content().endswith("계좌로 먼저 입금해 주세요"), \
        "the reported message is marked among the messages around it"
    case.locator("input[name=reason]").fill("외부 결제 유도")
    case.locator("button:text-is('Remove message')").click()
    desk.locator("#audit tbody tr", has_text="removeMessage").wait_for()
    operator.screenshot("09-moderation-message-removed")

    # The reporter's open room shows the message as removed without a reload (the socket's "removed" frame).
    page.wait_for_selector("#messages .message.removed")
    assert "계좌로 먼저 입금해 주세요" not in page.locator("#chat").text_content(), "gone from the room and its preview"
    reporter.screenshot("10-chat-message-removed")
