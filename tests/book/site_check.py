"""What the book's browser test checks on each page, as functions a broken copy can be fed to.

A page passes when Chromium, opening it from ``file://``, logs no console error; every link
into the site and every image resolves to a file the site holds; every image has loaded
(``naturalWidth > 0``); and the language switch points to a page that exists.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = os.environ.get("CTXLAB_CHROMIUM", "/usr/bin/chromium")
DRIVER = os.environ.get("CTXLAB_CHROMEDRIVER", "/usr/bin/chromedriver")
# As root (CI) Chromium refuses its own sandbox, hence --no-sandbox; the network flags keep it
# from calling home on a machine with no network, which would log console errors.
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-quic", "--window-size=1280,1000",
         "--allow-file-access-from-files")
PAGE_FACTS = """
return {
  links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
  images: Array.from(document.images).map(i => [i.src, i.complete && i.naturalWidth > 0]),
  twin: (document.getElementById('twin-link') || {}).href || null,
};
"""


def browser(user_data: Path) -> webdriver.Chrome:
    """Headless Chromium from the system's packages, driven by its chromedriver."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={user_data}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(DRIVER))


def local(url: str) -> Path | None:
    """The file a ``file://`` address names (None for any other address)."""
    parts = urlsplit(url)
    return Path(unquote(parts.path)) if parts.scheme == "file" else None


def problems(driver: webdriver.Chrome, page: Path, site: Path) -> list[str]:
    """What is wrong with one page of ``site``, as opened in ``driver``."""
    driver.get(page.as_uri())
    facts = driver.execute_script(PAGE_FACTS)
    found = [f"console: {e['message']}" for e in driver.get_log("browser")
             if e["level"] == "SEVERE"]
    for url in facts["links"]:
        target = local(url)
        if target is not None and not target.exists():
            found.append(f"broken link: {url}")
        elif target is not None and site.resolve() not in target.resolve().parents:
            found.append(f"link out of the site: {url}")
    for src, loaded in facts["images"]:
        if not loaded:
            found.append(f"image not loaded: {src}")
    twin = local(facts["twin"]) if facts["twin"] else None
    if twin is None or not twin.exists():
        found.append(f"no twin page: {facts['twin']}")
    return found
