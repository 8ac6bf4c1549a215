"""Fixtures of the console's browser test: the real classtoday binary on a free loopback port over a temporary data
folder, a small JSON client for setting up data through the API, and Debian's Chromium driven by Playwright.

Started by scripts/browser-test, which sets CLASSTODAY_BINARY, CHROMIUM and SCREENSHOT_DIR.
"""

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("CLASSTODAY_BINARY", str(ROOT / ".build/debug/classtoday"))
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "docs/console-screenshots"))
PASSWORD = "browser-password"


class ApiError(Exception):
    """An error answer of the API, with its status and problem document."""

    def __init__(self, status, problem):
        super().__init__(f"{status}: {problem}")
        self.status = status
        self.problem = problem


class Server:
    """The real server, started and stopped as a process; restartable on the same port and data folder."""

    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="classtoday-browser-"))
        self.data = self.work / "data"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, CLASSTODAY_BCRYPT_COST="4", CLASSTODAY_AUTH_RATE_LIMIT="0", CLASSTODAY_LOG_LEVEL="warning")
        self.process = None
        self.log = open(self.work / "server.log", "ab")

    def common_flags(self):
        return ["--data-dir", str(self.data), "--migrations-dir", str(ROOT / "Migrations")]

    def start(self):
        self.process = subprocess.Popen(
            [BINARY, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--rate-limit", "0",
             "--banned-words", str(ROOT / "config/banned-words.txt"), *self.common_flags()],
            env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}; see {self.work / 'server.log'}")
            try:
                with urllib.request.urlopen(f"{self.base}/health", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not answer /health within 30 s")

    def stop(self):
        """SIGTERM, and a clean exit required; a server still running 30 s later is killed and its log shown."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            self.process = None
            log = (self.work / "server.log").read_text(errors="replace")
            raise AssertionError(f"the server did not exit within 30 s of SIGTERM; the end of its log:\n{log[-4000:]}") from None
        self.process = None
        assert code == 0, f"the server exited with {code} after SIGTERM"

    def restart(self):
        self.stop()
        self.start()

    def grant_operator(self, email):
        """What an operator does on the server's machine: `classtoday admin grant EMAIL` on the same data folder."""
        subprocess.run([BINARY, "admin", "grant", email, *self.common_flags()], env=self.env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)

    def api(self, method, path, body=None, token=None, raw=None, content_type=None):
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if raw is not None:
            data = raw
            headers["Content-Type"] = content_type
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, error.read().decode(errors="replace")) from None

    def signup(self, email, nickname):
        answer = self.api("POST", "/v1/auth/signup", {"email": email, "password": PASSWORD, "nickname": nickname})
        return {"email": email, "nickname": nickname, "token": answer["token"], "id": answer["user"]["id"]}

    def close(self):
        try:
            self.stop()
        finally:
            self.log.close()
            if os.environ.get("KEEP_BROWSER_TEST_DATA") != "1":
                shutil.rmtree(self.work, ignore_errors=True)


def png(width, height, rgb):
    """A small solid-colour PNG, made here so that the test needs no image files."""
    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


SILLIM = (37.4842, 126.9297)
XSS_NAME = "<img src=x onerror=alert(1)>"


def new_class(server, owner, name, lat, lon, **fields):
    body = {
        "type": "sell", "name": name, "description": f"{name}: 신림역 근처, 초보 환영", "days": ["sat"], "time": "10:00-12:00",
        "location": {"lat": lat, "lon": lon}, "keywordLocation": "관악구", "price": 20000, "priceUnit": "perHour",
        "subjects": ["hobby"], "targets": ["all"],
    }
    body.update(fields)
    return server.api("POST", "/v1/classes", body, token=owner["token"])


@pytest.fixture(scope="session")
def server():
    started = Server()
    started.start()
    yield started
    started.close()


@pytest.fixture(scope="session")
def world(server):
    """The people and classes every test uses: a teacher with classes around Sillim station (one with an image, one
    named like an XSS attack, one far away in Busan), a student, and an operator."""
    teacher = server.signup("teacher@example.com", "기타선생")
    student = server.signup("student@example.com", "학생")
    operator = server.signup("operator@example.com", "운영자")
    server.grant_operator(operator["email"])
    image = server.api("POST", "/v1/images", raw=png(96, 64, (31, 111, 92)), content_type="image/png", token=teacher["token"])
    lat, lon = SILLIM
    classes = {
        "guitar": new_class(server, teacher, "기타 왕초보 레슨", lat + 0.001, lon + 0.001, imageIds=[image["id"]]),
        "yoga": new_class(server, teacher, "아침 요가 소모임", lat + 0.009, lon - 0.004, subjects=["hobby"], price=15000),
        "math": new_class(server, teacher, "중학 수학 과외", lat - 0.018, lon + 0.012, subjects=["math"], targets=["junior"],
                          price=30000, priceUnit="perClass"),
        "xss": new_class(server, teacher, XSS_NAME, lat - 0.004, lon - 0.006,
                         description="<script>alert(2)</script> <b>bold?</b>"),
        "busan": new_class(server, teacher, "해운대 서핑 강습", 35.1587, 129.1604, keywordLocation="해운대구"),
    }
    return {"teacher": teacher, "student": student, "operator": operator, "classes": classes, "image": image}


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield launched
        launched.close()


class ConsolePage:
    """One browser context on the console, recording dialogs and console errors (a CSP violation is one)."""

    def __init__(self, browser, server):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.dialogs = []
        self.errors = []
        self.page.on("dialog", self._dialog)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(f"{server.base}/console")
        self.page.wait_for_selector("#result-count:not(:empty)")

    def _console(self, message):
        if message.type != "error":
            return
        # The console asks /v1/admin/audit whether the user is an operator; a 403 is the expected "no".
        if "/v1/admin/audit" in message.location.get("url", "") and "403" in message.text:
            return
        self.errors.append(f"{message.text} ({message.location.get('url', '')})")

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def sign_in(self, user):
        page = self.page
        page.fill("#sign-in input[name=email]", user["email"])
        page.fill("#sign-in input[name=password]", PASSWORD)
        page.click("#sign-in button[type=submit]")
        page.wait_for_selector(f"#who:text-is('{user['nickname']}')")
        page.wait_for_selector("#chat-state[data-state=live]", state="attached")

    def search(self, keyword):
        """Searches around the form's point with a keyword (empty: every class)."""
        self.page.fill("#search input[name=q]", keyword)
        self.page.click("#search button[type=submit]")

    def open_class(self, keyword, name):
        """Finds a class by keyword and opens its detail."""
        self.search(keyword)
        self.page.click(f"#results button:has-text('{name}')")
        self.page.locator("#class-detail h2").filter(has_text=name).wait_for()

    def screenshot(self, name):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    def close(self):
        self.context.close()


@pytest.fixture
def open_console(browser, server):
    """Opens console pages in fresh browser contexts (separate session storage: separate users), signed in as `user`
    when given, and closes them after the test, failing it if any page fired a dialog or logged an error."""
    pages = []

    def opener(user=None):
        console = ConsolePage(browser, server)
        pages.append(console)
        if user:
            console.sign_in(user)
        return console

    yield opener
    for console in pages:
        dialogs, errors = console.dialogs, console.errors
        console.close()
        assert dialogs == [], f"dialogs fired: {dialogs}"
        assert errors == [], f"console errors: {errors}"
