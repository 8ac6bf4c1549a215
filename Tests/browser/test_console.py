"""The web console at /console in a real browser (Debian's Chromium, headless, driven by Playwright), in Korean (the
browser's language here): sign-in, search and a class's detail, a chat message seen live by a second browser context
(and again after the server restarts), a report acted on by an operator with the audit log showing it, and a class named
like an XSS attack shown as text. Each page is saved as a screenshot under docs/console-screenshots/ and checked with
axe-core."""

import re

from playwright.sync_api import expect

from conftest import XSS_NAME


def result_names(page):
    return page.locator("#results .name").all_text_contents()


def result_distances(page):
    return [float(meters) for meters in page.locator("#results .distance").evaluate_all("items => items.map(i => i.dataset.meters)")]


def marked_ids(page):
    """The class ids the map's markers stand for, a cluster standing for several."""
    return page.locator("#map .marker").evaluate_all("markers => markers.flatMap(m => m.dataset.classIds.split(' '))")


def test_sign_in_shows_the_users_sections(open_console, world):
    console = open_console()
    page = console.page
    assert page.locator("[data-tab=chat]").is_hidden()
    console.screenshot("01-signed-out")
    console.audit("explore, signed out")
    console.sign_in(world["student"])
    assert page.locator("[data-tab=chat]").is_visible()
    assert page.locator("[data-tab=moderate]").is_hidden(), "a user who is not an operator sees no Moderate tab"
    assert page.evaluate("document.cookie") == "", "the token is not kept in a cookie"
    assert page.evaluate("sessionStorage.getItem('classtoday.token')") is not None

    page.click("#sign-out")
    page.wait_for_selector("#signed-out", state="visible")
    assert page.evaluate("sessionStorage.getItem('classtoday.token')") is None

    page.click("#signed-out [data-tab=sign-in]")
    form = page.locator("#sign-in")
    form.get_by_label(console.say("field.email")).fill(world["student"]["email"])
    form.get_by_label(console.say("field.password"), exact=True).fill("wrong-password")
    page.click("#sign-in button[type=submit]")
    expect(page.locator("#sign-in .form-status[data-kind=error]")).to_have_text(console.say("signIn.wrong"))
    console.audit("sign-in, wrong password")
    console.errors = [e for e in console.errors if "401" not in e]


def test_search_lists_the_nearest_first_and_opens_a_class(open_console, world, server):
    console = open_console(world["student"])
    page = console.page
    page.select_option("#search select[name=radius]", "5000")
    page.click("#search button[type=submit]")
    page.wait_for_selector("#result-count:has-text('5km 이내, 가까운 순')")
    names = result_names(page)
    assert "해운대 서핑 강습" not in names, "Busan is not within 5 km of Sillim"
    assert {"기타 왕초보 레슨", "아침 요가 소모임", "중학 수학 과외"} <= set(names)
    distances = result_distances(page)
    assert distances == sorted(distances) and len(distances) == len(names), "nearest first, each with its distance"
    assert sorted(marked_ids(page)) == sorted(page.locator("#results li").evaluate_all("items => items.map(i => i.dataset.classId)")), \
        "every result on the map, once"
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
    console.search("")
    expect(page.locator("#results .name")).to_have_count(len(names))
    page.click("#search-view")
    page.wait_for_selector(f"#result-count:has-text(\"{console.say('explore.inView')}\")")
    assert "해운대 서핑 강습" not in result_names(page)
    assert {"기타 왕초보 레슨", "아침 요가 소모임", "중학 수학 과외"} <= set(result_names(page))

    console.search("기타")
    expect(page.locator("#results .name")).to_have_text(["기타 왕초보 레슨"])

    console.open_class("기타", "기타 왕초보 레슨")
    detail = page.locator("#class-detail")
    assert detail.locator("h3").text_content() == "기타 왕초보 레슨"
    assert "시간당 ₩20,000" in detail.text_content(), "the price for Korean readers"
    assert "기타선생" in detail.text_content()
    image = detail.locator(".images img")
    assert image.count() == 1
    # The detail shows the card variant (fits 800 x 800, never upscaled), decoded by the browser; the link opens full.
    assert image.get_attribute("src") == world["image"]["url"] + "/card"
    assert detail.locator(".images a").get_attribute("href") == world["image"]["url"] + "/full"
    page.wait_for_function("() => document.querySelector('#class-detail .images img').naturalWidth === 96")
    console.screenshot("03-class-detail")
    console.audit("a class's detail")

    # A click on the map (not a drag) searches around the clicked point: the centre moves.
    page.locator("#class-detail .close").click()
    page.fill("#search input[name=q]", "")
    before = page.input_value("#search input[name=lat]")
    page.locator("#map").click(position={"x": 40, "y": 40})
    page.wait_for_function(f"() => document.querySelector('#search input[name=lat]').value !== '{before}'")
    assert float(page.input_value("#search input[name=lat]")) > float(before), "the top of the map is north"


def test_a_chat_message_is_seen_live_in_a_second_browser_and_after_a_restart(open_console, world, server):
    student = open_console(world["student"])
    teacher = open_console(world["teacher"])

    # The student opens a room from the class's detail.
    page = student.page
    student.open_class("요가", "아침 요가 소모임")
    page.click("#class-detail [data-action=chat]")
    page.wait_for_selector("#room-title:has-text('아침 요가 소모임')")
    assert page.locator("[data-tab=chat].active").count() == 1

    # The teacher sees the new room with its unread count once the student writes.
    page.fill("#composer input[name=text]", "안녕하세요, 토요일 수업 자리 있나요?")
    page.click("#composer button[type=submit]")
    page.wait_for_selector("#messages .message.mine .receipt[data-status=sent]")
    assert page.locator("#messages .message.mine .receipt").first.text_content() == "보냄"
    other = teacher.page
    other.click("[data-tab=chat]")
    room = other.locator("#rooms li", has_text="아침 요가 소모임")
    expect(room.locator(".unread")).to_have_text(re.compile(r"^1\b"))
    room.locator("button").click()
    other.wait_for_selector("#messages .message.theirs:has-text('토요일 수업 자리 있나요?')")

    # The student's message shows as read once the teacher has it on screen; the teacher's typing shows live.
    page.wait_for_selector("#messages .message.mine .receipt[data-status=read]")
    assert page.locator("#messages .message.mine .receipt").first.text_content() == "읽음"
    other.type("#composer input[name=text]", "네")
    page.wait_for_selector(f"#typing:has-text('{student.say('chat.typing', name='기타선생')}')")

    # A reply travels live to the other context, over the WebSocket (no reload).
    other.fill("#composer input[name=text]", "네, 두 자리 남았어요 <b>환영</b>")
    other.click("#composer button[type=submit]")
    page.wait_for_selector("#messages .message.theirs:has-text('두 자리 남았어요 <b>환영</b>')")
    assert page.locator("#messages b").count() == 0, "message text is shown as text"
    student.screenshot("04-chat-student")
    teacher.screenshot("05-chat-teacher")
    student.audit("chat")

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
    page.click("#class-detail [data-action=report]")
    page.wait_for_selector("#class-detail .report .reported")

    operator = open_console(world["operator"])
    desk = operator.page
    desk.click("[data-tab=moderate]")
    entry = desk.locator("#queue li", has_text="중학 수학 과외")
    entry.wait_for()
    assert re.search(r"\d+\s?(초|분)", entry.locator(".age").text_content()), "each report shows its age"
    entry.locator("button").click()
    case = desk.locator("#case")
    case.wait_for(state="visible")
    assert "선입금만 요구합니다" in case.text_content()
    assert case.locator(".reported-class h4").text_content() == "중학 수학 과외"
    assert "기타선생" in case.text_content(), "the writer answerable for the class"
    operator.screenshot("06-moderation-case")
    operator.audit("a moderation case")

    case.locator("input[name=reason]").fill("선입금 사기 의심")
    case.locator("button[data-action=hideClass]").click()
    row = desk.locator("#audit tbody tr", has=desk.locator("td[data-action=hideClass]"))
    row.wait_for()
    assert "선입금 사기 의심" in row.text_content()
    assert f"수업 {target['id']}" in row.text_content()
    assert world["operator"]["id"] in row.text_content()
    desk.wait_for_selector("#queue li.empty")
    operator.screenshot("07-moderation-audit")
    operator.audit("the audit log")

    # The class has left search for everyone else.
    page.click("#search button[type=submit]")
    page.wait_for_selector(f"#result-count:has-text('{reporter.say('explore.count.other', count=0, more='')}')")
    listed = server.api("GET", "/v1/classes?q=%EC%88%98%ED%95%99")
    assert [item["id"] for item in listed["items"]] == []


def test_a_class_named_like_markup_shows_as_text(open_console, world, server):
    console = open_console(world["student"])
    page = console.page
    console.search("")
    entry = page.locator("#results li", has_text=XSS_NAME)
    entry.wait_for()
    assert entry.locator(".name").text_content() == XSS_NAME
    entry.locator("button").click()
    page.locator("#class-detail h3").wait_for()
    assert page.locator("#class-detail h3").text_content() == XSS_NAME
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
    message.locator("[data-action=report]").click()
    message.locator(".report .reported").wait_for()

    operator = open_console(world["operator"])
    desk = operator.page
    desk.click("[data-tab=moderate]")
    desk.locator("#queue li", has_text="계좌로 먼저 입금해 주세요").locator("button").click()
    case = desk.locator("#case")
    assert case.locator(".messages .message.reported").text_content().endswith("계좌로 먼저 입금해 주세요"), \
        "the reported message is marked among the messages around it"
    case.locator("input[name=reason]").fill("외부 결제 유도")
    case.locator("button[data-action=removeMessage]").click()
    desk.locator("#audit td[data-action=removeMessage]").first.wait_for()
    operator.screenshot("09-moderation-message-removed")

    # The reporter's open room shows the message as removed without a reload (the socket's "removed" frame).
    page.wait_for_selector("#messages .message.removed")
    assert "계좌로 먼저 입금해 주세요" not in page.locator("#chat").text_content(), "gone from the room and its preview"
    reporter.screenshot("10-chat-message-removed")
