"""What the browser scripts share: `switchboard up` as a process on fixed loopback ports
(so that a restart keeps the page's origin), a small /v1 client, headless Chromium
through Selenium with chromedriver from Debian (Selenium never downloads a driver), the
terminal client in tmux, waiting for conditions, and the run's report."""

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class Failure(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Report:
    """Every check with what was seen; measurements; written as JSON at the end."""

    def __init__(self, path):
        self.path = path
        self.checks = []
        self.measures = {}
        self.skipped = []

    def check(self, name, ok, detail=""):
        self.checks.append({"check": name, "ok": bool(ok), "detail": str(detail)[:2000]})
        print(("PASS " if ok else "FAIL ") + name + (f": {detail}" if detail and not ok else ""), flush=True)
        if not ok:
            self.write()
            raise Failure(f"{name}: {detail}")

    def measure(self, name, value):
        self.measures[name] = value
        print(f"MEASURE {name} = {value}", flush=True)

    def skip(self, name, why):
        self.skipped.append({"check": name, "why": why})
        print(f"SKIP {name}: {why}", flush=True)

    def write(self):
        passed = sum(1 for c in self.checks if c["ok"])
        with open(self.path, "w") as f:
            json.dump({"checks": self.checks, "measures": self.measures, "skipped": self.skipped,
                       "passed": passed, "failed": len(self.checks) - passed}, f, indent=2, ensure_ascii=False)


class Up:
    """`switchboard up` with a config of its own, stopped and started again on the same ports."""

    def __init__(self, binary, folder, bots, metrics_token):
        self.binary = binary
        self.folder = folder
        self.server_port = free_port()
        self.runner_port = free_port()
        self.log_path = os.path.join(folder, "up.log")
        self.env = {"PATH": "/usr/bin:/bin", "HOME": os.path.join(folder, "home"),
                    "RUNNER_METRICS_TOKEN": metrics_token, "SWITCHBOARD_HOME": os.path.join(folder, "home")}
        self.config = os.path.join(folder, "config.yaml")
        with open(self.config, "w") as f:
            f.write(f"""log_level: info
server:
  listen: 127.0.0.1:{self.server_port}
  data: {folder}/data
  durability: normal
  rate_limits:
    enabled: false          # the 10,000-message conversation is sent in seconds
runner:
  listen: 127.0.0.1:{self.runner_port}
  bots: {bots}
  state: {folder}/data/bots
  metrics_token: ${{RUNNER_METRICS_TOKEN:-}}
""")
        self.process = None
        self.base = f"http://127.0.0.1:{self.server_port}"
        self.runner = f"http://127.0.0.1:{self.runner_port}"

    def add_admin(self, name, password):
        env = dict(self.env, SWITCHBOARD_NEW_PASSWORD=password)
        subprocess.run([self.binary, "user", "add", name, "--admin", "--data", f"{self.folder}/data"], env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def start(self):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen([self.binary, "up", "--config", self.config], env=self.env,
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        wait_for(lambda: self.healthy() or self.process.poll() is not None, "switchboard up listening", 120)
        if self.process.poll() is not None:
            raise Failure(f"switchboard up ended: {self.log()}")

    def healthy(self):
        for url in (self.base + "/healthz", self.runner + "/healthz"):
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    if r.status != 200:
                        return False
            except Exception:
                return False
        return True

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()


def wait_for(condition, what, timeout=45, interval=0.1):
    end = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < end:
        try:
            if condition():
                return
        except Exception as error:  # a page between renders
            last_error = error
        time.sleep(interval)
    raise Failure(f"still waiting for {what} after {timeout} s" + (f" (last error: {last_error})" if last_error else ""))


class Api:
    """/v1 over HTTP, as a second client of an account."""

    def __init__(self, base, token=None):
        self.base = base
        self.token = token

    def call(self, method, path, body=None, token=None, raw=None):
        headers = {}
        token = token or self.token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                return r.status, self.decode(r.read(), r.headers), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, self.decode(e.read(), e.headers), dict(e.headers)

    @staticmethod
    def decode(body, headers):
        if not body:
            return None
        if "json" not in headers.get("Content-Type", ""):
            return {"raw": body.decode(errors="replace")}
        return json.loads(body)

    def ok(self, method, path, body=None, token=None):
        status, answer, _ = self.call(method, path, body, token)
        if status >= 300:
            raise Failure(f"{method} {path} answered {status}: {answer}")
        return answer

    def login(self, username, password, device=None):
        body = {"username": username, "password": password}
        if device:
            body["device"] = device
        return self.ok("POST", "/v1/login", body)["token"]


class Browser:
    """A headless Chromium of its own (profile, window size), driven by chromedriver."""

    def __init__(self, name, folder, width, height):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={width},{height}", f"--user-data-dir={folder}/{name}-profile",
                         "--lang=en-US", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                         "--disable-backgrounding-occluded-windows", "--disable-features=Translate"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(CHROMEDRIVER, log_path=f"{folder}/{name}-chromedriver.log")
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(60)
        self.driver.set_script_timeout(60)
        self.name = name
        self.width = width
        if width < 500:
            # A window is at least 500 px wide: a phone's width is emulated, as devtools do.
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})

    def quit(self):
        try:
            self.driver.quit()
        except Exception:
            pass

    def get(self, url):
        self.driver.get(url)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def one(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def test(self, name, extra=""):
        return self.one(f'[data-test="{name}"]{extra}')

    def wait(self, what, condition, timeout=45):
        try:
            WebDriverWait(self.driver, timeout, poll_frequency=0.1,
                          ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)
                          ).until(lambda d: condition())
        except Exception as error:
            raise Failure(f"{self.name}: still waiting for {what} after {timeout} s ({type(error).__name__})")

    def read(self, reading, what="a reading of the page", timeout=45):
        """reading() once it gets through: read again while the page redraws what it reads
        (a stale element, a row not there yet), so a live list never fails a step."""
        result = []
        self.wait(what, lambda: result.append(reading()) or True, timeout)
        return result[-1]

    def wait_visible(self, selector, timeout=45):
        self.wait(f"{selector} shown", lambda: any(e.is_displayed() for e in self.all(selector)), timeout)
        return next(e for e in self.all(selector) if e.is_displayed())

    def type_into(self, name, text, clear=True):
        field = self.test(name)
        if clear:
            field.clear()
        field.send_keys(text)
        return field

    def insert_text(self, element, text):
        """Text as an input method commits it: chromedriver types only the BMP, so emoji come this way."""
        element.click()
        self.js("arguments[0].focus(); document.execCommand('insertText', false, arguments[1]);", element, text)

    def screenshot(self, folder, name):
        path = os.path.join(folder, f"{name}.png")
        self.driver.save_screenshot(path)
        return path

    def console_errors(self):
        try:
            return [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]
        except Exception:
            return []


class Tmux:
    """The terminal client in tmux: keys in, the screen out."""

    def __init__(self, name, command, folder):
        self.name = name
        self.socket = os.path.join(folder, "tmux.sock")
        subprocess.run(["tmux", "-S", self.socket, "new-session", "-d", "-s", name, "-x", "100", "-y", "30", command],
                       check=True, timeout=30)

    def keys(self, *keys, literal=False):
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name] + (["-l"] if literal else []) + list(keys),
                       check=True, timeout=30)

    def screen(self):
        return subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-t", self.name], check=True,
                              capture_output=True, text=True, timeout=30).stdout

    def wait(self, text, timeout=45):
        wait_for(lambda: text in self.screen(), f"the terminal to show {text!r}", timeout)

    def kill(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], timeout=30, stderr=subprocess.DEVNULL)


def have(program):
    return shutil.which(program) is not None
