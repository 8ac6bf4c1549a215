"""Fixtures of the console's browser test: the real classtoday binary on a free loopback port over a temporary data
folder, a stand-in tile server on loopback that the console's street map draws from, a small JSON client for setting up
data through the API, Debian's Chromium driven by Playwright (in Korean or English, at a phone's or a desktop's size),
and axe-core (from axe-playwright-python) to check each page's accessibility.

Started by scripts/browser-test, which sets CLASSTODAY_BINARY, CHROMIUM and SCREENSHOT_DIR.
"""

import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
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
    """The real server, started and stopped as a process; restartable on the same port and data folder. `tile_url` is
    its `console.tileUrl` (empty: the plain map)."""

    def __init__(self, tile_url):
        self.work = Path(tempfile.mkdtemp(prefix="classtoday-browser-"))
        self.data = self.work / "data"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, CLASSTODAY_BCRYPT_COST="4", CLASSTODAY_AUTH_RATE_LIMIT="0", CLASSTODAY_LOG_LEVEL="warning",
                        CLASSTODAY_CONSOLE_TILE_URL=tile_url)
        self.process = None
        self.log = open(self.work / "server.log", "ab")

    def common_flags(self):
        return ["--data-dir", str(self.data)]

    def start(self):
        self.process = subprocess.Popen(
            [BINARY, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--rate-limit", "0", *self.common_flags()],
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

    def has_route(self, path):
        """Whether the server's OpenAPI document has `path` (routes other branches add appear here once merged)."""
        return path in self.api("GET", "/openapi.json")["paths"]

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


def tile_png(z, x, y):
    """A 256 x 256 stand-in map tile: a pale ground with "streets" every 64 px, placed by the tile's column and row so
    that neighbouring tiles differ and a pan shows."""
    ground, street, edge = (236, 232, 223), (255, 255, 255), (200, 196, 186)
    offset = (x * 17 + y * 29 + z * 7) % 64
    rows = []
    for row in range(256):
        if row % 64 == offset:
            line = bytes(street) * 256
        else:
            line = b"".join(bytes(street if column % 64 == offset else edge if column % 128 == 0 else ground) for column in range(256))
        rows.append(b"\x00" + line)
    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
    header = struct.pack(">IIBBBBB", 256, 256, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b"")


class TileServer:
    """A stand-in for OpenStreetMap's tile server on a free loopback port: `/{z}/{x}/{y}.png` answers a PNG tile, and
    every request is recorded with its Referer, so that a test can tell what the console asked for and what it sent."""

    def __init__(self):
        self.requests = []
        self.lock = threading.Lock()
        tiles = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                match = re.fullmatch(r"/(\d+)/(\d+)/(\d+)\.png", self.path)
                with owner.lock:
                    owner.requests.append({"path": self.path, "referer": self.headers.get("Referer")})
                if not match:
                    self.send_error(404)
                    return
                key = tuple(int(part) for part in match.groups())
                if key not in tiles:
                    tiles[key] = tile_png(*key)
                body = tiles[key]
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "max-age=3600")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.http.server_address[1]}"
        self.template = self.origin + "/{z}/{x}/{y}.png"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()

    def seen(self):
        with self.lock:
            return list(self.requests)

    def close(self):
        self.http.shutdown()
        self.http.server_close()


SILLIM = (37.4842, 126.9297)
CITY_HALL = (37.5663, 126.9779)
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
def tiles():
    stand_in = TileServer()
    yield stand_in
    stand_in.close()


@pytest.fixture(scope="session")
def server(tiles):
    """The server every test uses, its street map drawn from the stand-in tile server."""
    started = Server(tiles.template)
    started.start()
    yield started
    started.close()


@pytest.fixture(scope="session")
def world(server):
    """The people and classes every test uses: a teacher with classes around Sillim station (one with an image, one
    named like an XSS attack, one far away in Busan) and around Seoul City Hall (three about 50 m apart, whose markers
    overlap until the map is zoomed in, and three about 2 km away), a student, and an operator."""
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
    lat, lon = CITY_HALL
    for key, name, north, east in [("coding", "시청 코딩 스터디", 0.0003, 0.0002), ("english", "시청 영어 회화", 0.0006, 0.0005),
                                   ("photo", "시청 사진 교실", 0.0001, 0.0007), ("painting", "서소문 수채화", -0.012, -0.016),
                                   ("baduk", "광화문 바둑", 0.02, 0.002), ("pilates", "을지로 필라테스", -0.005, 0.025)]:
        classes[key] = new_class(server, teacher, name, lat + north, lon + east, keywordLocation="중구")
    return {"teacher": teacher, "student": student, "operator": operator, "classes": classes, "image": image}


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield launched
        launched.close()


CONSOLE_FILES = ROOT / "Sources/ClassTodayServer/Resources/console"
LOCALES = {"ko": "ko-KR", "en": "en-US"}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
AXE = Axe()
AXE_CHECKS = []


def strings(language):
    """The console's string table for `language` (i18n-ko.js or i18n-en.js), read as the page reads it."""
    text = (CONSOLE_FILES / f"i18n-{language}.js").read_text()
    return {key: json.loads(f'"{value}"') for key, value in re.findall(r'^\s*"([^"]+)": "((?:[^"\\]|\\.)*)",?$', text, re.M)}


def say(language, key, **params):
    """The console's string `key` in `language` with its placeholders filled, as i18n.js's t() writes it."""
    return re.sub(r"\{(\w+)\}", lambda m: str(params.get(m.group(1), m.group(0))), strings(language)[key])


class ConsolePage:
    """One browser context on the console, in `language` (the browser's locale; the console starts in it) at a
    desktop's or, `phone`, a 390 x 844 phone's size, recording dialogs and console errors (a CSP violation is one)."""

    def __init__(self, browser, server, language="ko", phone=False, hash=""):
        self.language = language
        self.phone = phone
        self.context = browser.new_context(locale=LOCALES[language], **(PHONE if phone else DESKTOP))
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.dialogs = []
        self.errors = []
        self.page.on("dialog", self._dialog)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(f"{server.base}/console{hash}")
        self.page.wait_for_selector("#result-count:not(:empty)", state="attached")

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

    def say(self, key, **params):
        """The page's string `key` in this page's language."""
        return say(self.language, key, **params)

    def sign_in(self, user):
        """Signs in through the header's link and the labelled sign-in form."""
        page = self.page
        page.click("#signed-out [data-tab=sign-in]")
        form = page.locator("#sign-in")
        form.get_by_label(self.say("field.email")).fill(user["email"])
        form.get_by_label(self.say("field.password"), exact=True).fill(PASSWORD)
        page.click("#sign-in button[type=submit]")
        page.wait_for_selector(f"#who:text-is('{user['nickname']}')")
        page.wait_for_selector("#chat-state[data-state=live]", state="attached")
        # The console ends a sign-in by showing Explore, after its chat is live: a page opened before then was
        # replaced by Explore under the test (the operator's #moderate, once in CI).
        page.wait_for_url(re.compile(r"#explore$"))

    def search(self, keyword):
        """Searches around the form's point with a keyword (empty: every class)."""
        self.page.fill("#search input[name=q]", keyword)
        self.page.click("#search button[type=submit]")

    def open_filters(self):
        """Unfolds the filters (folded away on a phone)."""
        if not self.page.locator("#filters").evaluate("details => details.open"):
            self.page.click("#filters summary")

    def open_class(self, keyword, name):
        """Finds a class by keyword and opens its detail."""
        self.search(keyword)
        self.page.click(f"#results button:has-text('{name}')")
        self.page.locator("#class-detail h3").filter(has_text=name).wait_for()

    def go(self, hash):
        """Shows the page the hash names (#sign-up, #chat, ...)."""
        self.page.evaluate(f"location.hash = {json.dumps(hash)}")

    def screenshot(self, name, full_page=True):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)

    def audit(self, label):
        """Runs axe-core on the page as it is now and fails on any serious or critical violation."""
        results = AXE.run(self.page)
        violations = results.response["violations"]
        AXE_CHECKS.append((f"{label} ({self.language}, {'phone' if self.phone else 'desktop'})", violations))
        severe = [v for v in violations if v["impact"] in ("serious", "critical")]
        assert severe == [], f"axe on {label}: " + "; ".join(
            f"{v['id']} ({v['impact']}): {[node['target'] for node in v['nodes']][:5]}" for v in severe)

    def close(self):
        self.context.close()


def pytest_terminal_summary(terminalreporter):
    """A line per page axe checked, with the rules of any minor or moderate findings (serious ones fail the test)."""
    if not AXE_CHECKS:
        return
    terminalreporter.section("axe-core")
    for label, violations in AXE_CHECKS:
        found = ", ".join(f"{v['id']} ({v['impact']})" for v in violations) or "no violations"
        terminalreporter.write_line(f"{label}: {found}")


@pytest.fixture
def open_console(browser, server):
    """Opens console pages in fresh browser contexts (separate session storage: separate users), in `language` at a
    desktop's or a phone's size, signed in as `user` when given, and closes them after the test, failing it if any page
    fired a dialog or logged an error."""
    pages = []

    def opener(user=None, language="ko", phone=False, hash="", on=None):
        console = ConsolePage(browser, on or server, language=language, phone=phone, hash=hash)
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
