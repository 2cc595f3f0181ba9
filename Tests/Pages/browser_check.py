"""The Loop Library's pages in a real browser: headless Chromium driven by Selenium.

Run by Scripts/check-pages, which starts `loop serve` and publishes the sample loop and a loop
of hostile text (Tests/Pages/hostile.txt). Checks, against what the API says of the same loops:
- the front page lists both, with Featured and Hot sections; search ignores case and accents;
- the sample's preview page shows every phrase and translation, with `lang` attributes, an
  install line naming its link, and a playable clip per phrase whose duration is the clip's;
- the hostile loop's text is shown as text: no script of it runs, no element or attribute of
  it exists, the CSP header forbids inline scripts;
- every page parses as HTML5 without an error (html5lib, strict), the feed as Atom (feedparser);
- the pages fit a 360 px screen without sideways scrolling, and the keyboard reaches the links,
  the search box and every player;
and saves screenshots at 360 px and 1280 px.
"""

import argparse
import json
import os
import sys
import time
import urllib.parse
import urllib.request

import feedparser
import html5lib
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, file=sys.stderr)


def fetch(url):
    with urllib.request.urlopen(url) as response:
        return response.status, dict(response.headers), response.read()


def html5_errors(body, url):
    parser = html5lib.HTMLParser(strict=True)
    try:
        parser.parse(body)
    except Exception as error:  # html5lib raises ParseError at the first error in strict mode
        return f"{url}: not valid HTML5 ({error})"
    return None


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--hide-scrollbars"]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--sample", required=True, help="the sample loop's preview link")
    parser.add_argument("--hostile", required=True, help="the hostile loop's preview link")
    parser.add_argument("--screenshots", required=True)
    args = parser.parse_args()
    server = args.server.rstrip("/")
    os.makedirs(args.screenshots, exist_ok=True)

    sample_id = args.sample.rsplit("/", 1)[1]
    hostile_id = args.hostile.rsplit("/", 1)[1]
    sample = json.loads(fetch(f"{server}/api/loops/{sample_id}")[2])
    hostile = json.loads(fetch(f"{server}/api/loops/{hostile_id}")[2])
    phrases = [phrase for group in sample["groups"] for phrase in group]

    # Headers and markup, as served.
    pages = ["/", f"/{sample_id}", f"/{hostile_id}", "/?q=CAFE", "/?tag=travel", "/@" + urllib.parse.quote(sample["loop"]["author"] or sample["loop"]["authorFingerprint"]), "/no-such-loop"]
    for path in pages:
        try:
            status, headers, body = fetch(server + path)
        except urllib.error.HTTPError as error:
            status, headers, body = error.code, dict(error.headers), error.read()
        check(status == (404 if path == "/no-such-loop" else 200), f"{path}: status {status}")
        policy = headers.get("Content-Security-Policy", "")
        check("script-src 'self'" in policy and "unsafe-inline" not in policy, f"{path}: no CSP forbidding inline scripts: {policy!r}")
        check(headers.get("Content-Type", "").startswith("text/html"), f"{path}: content type {headers.get('Content-Type')}")
        error = html5_errors(body, path)
        check(error is None, error or "")

    # The feed: Atom, an entry per loop linking to its preview page.
    status, headers, body = fetch(server + "/feed.atom")
    feed = feedparser.parse(body)
    check(not feed.bozo, f"/feed.atom does not parse: {feed.get('bozo_exception')}")
    check(feed.version == "atom10", f"/feed.atom is {feed.version!r}, not Atom 1.0")
    links = {entry.link for entry in feed.entries}
    check(links == {args.sample, args.hostile}, f"/feed.atom links {links}")
    check(all(entry.get("id") and entry.get("updated") and entry.get("title") and entry.get("author") for entry in feed.entries),
          "/feed.atom: an entry lacks its id, updated, title or author")
    check(any(entry.title == hostile["loop"]["title"] for entry in feed.entries), "/feed.atom: the hostile title is not kept as text")

    driver = browser()
    try:
        # The front page.
        driver.set_window_size(1280, 900)
        driver.get(server + "/")
        titles = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "li.card h3 a")]
        check(sample["loop"]["title"] in titles, f"front page: the sample is not listed: {titles}")
        sections = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "main h2")]
        check(sections[:3] == ["Featured", "Hot this week", "Latest"], f"front page sections: {sections}")
        driver.save_screenshot(os.path.join(args.screenshots, "front-1280.png"))
        driver.find_element(By.ID, "q").send_keys("CAFÉ" + Keys.ENTER)
        time.sleep(0.3)
        found = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "li.card h3 a")]
        check(found == [sample["loop"]["title"]], f"search 'CAFÉ' from the form: {found}")

        # The sample's preview page: every phrase, playable.
        driver.get(args.sample)
        check(driver.title.startswith(sample["loop"]["title"]), f"preview title: {driver.title!r}")
        texts = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "p.text")]
        check(texts == [phrase["text"] for phrase in phrases], f"preview phrases: {texts}")
        translations = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "p.translation")]
        check(translations == [phrase["translation"] for phrase in phrases if phrase.get("translation")], f"preview translations: {translations}")
        languages = {element.get_attribute("lang") for element in driver.find_elements(By.CSS_SELECTOR, "p.text")}
        check(languages == {sample["loop"]["language"]}, f"lang attributes of the phrases: {languages}")
        install = driver.find_element(By.ID, "install-line").text
        check(install == "loop import " + args.sample, f"install line: {install!r}")
        check(driver.find_element(By.CSS_SELECTOR, "button[data-copy]").is_displayed(), "the copy button is not shown (copy.js did not run)")
        og = driver.find_element(By.CSS_SELECTOR, 'meta[property="og:title"]').get_attribute("content")
        check(og == sample["loop"]["title"], f"og:title {og!r}")
        # Its pictures: the loop's (96x64) and each group's (320x200), loaded (the CSP lets them in).
        pictures = driver.execute_script(
            "return [...document.querySelectorAll('img.picture')].map(i => [i.complete, i.naturalWidth, i.naturalHeight]);")
        check(pictures == [[True, 96, 64]] + [[True, 320, 200]] * len(sample["groups"]), f"preview pictures (loaded, with their sizes): {pictures}")
        players = driver.find_elements(By.TAG_NAME, "audio")
        check(len(players) == len(phrases), f"{len(players)} players for {len(phrases)} phrases")
        for number in [1, len(phrases)]:
            clip = phrases[number - 1]["clip"]
            expected = clip["end"] - clip["start"]
            result = driver.execute_async_script("""
                const [index, done] = arguments;
                const audio = document.querySelectorAll("audio")[index];
                audio.addEventListener("error", () => done({error: String(audio.error && audio.error.code)}));
                audio.play().then(() => setTimeout(() => done({duration: audio.duration, time: audio.currentTime, paused: audio.paused}), 600),
                                  (error) => done({error: String(error)}));
            """, number - 1)
            check("error" not in result, f"phrase {number} does not play: {result}")
            if "error" not in result:
                check(abs(result["duration"] - expected) < 0.03, f"phrase {number}: the player reports {result['duration']:.3f} s, the clip is {expected:.3f} s")
                check(result["time"] > 0.1, f"phrase {number}: playback did not advance ({result})")
        driver.save_screenshot(os.path.join(args.screenshots, "preview-1280.png"))

        # The keyboard reaches the search box, the links and every player.
        driver.find_element(By.TAG_NAME, "body").click()
        reached = []
        for _ in range(120):
            driver.switch_to.active_element.send_keys(Keys.TAB)
            element = driver.switch_to.active_element
            reached.append(element.tag_name.lower())
        check("input" in reached and "a" in reached, f"the keyboard does not reach the search box and links: {set(reached)}")
        check(reached.count("audio") >= min(len(phrases), 9), f"the keyboard reaches {reached.count('audio')} of {len(phrases)} players")

        # The hostile loop: all of its text shown, none of it run or made into markup.
        driver.get(args.hostile)
        injected = driver.execute_script("return window.__xss === undefined ? null : String(window.__xss)")
        check(injected is None, f"hostile text ran as script: window.__xss = {injected!r}")
        scripts = [element.get_attribute("src") for element in driver.find_elements(By.TAG_NAME, "script")]
        check(scripts == [server + "/copy.js"], f"scripts on the hostile page: {scripts}")
        for selector in ["main img", "main b", "main h1 ~ h1", "[onmouseover]", "[onclick]", "[onerror]", 'a[href^="javascript:"]', "main a:not([href^='/'])"]:
            check(not driver.find_elements(By.CSS_SELECTOR, selector), f"hostile page: an element {selector} was made from its text")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        check(heading == hostile["loop"]["title"].strip(), f"hostile title shown as {heading!r}")
        hostile_phrases = [phrase for group in hostile["groups"] for phrase in group]
        texts = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "p.text")]
        check(texts == [phrase["text"] for phrase in hostile_phrases], f"hostile phrases shown as {texts}")
        translations = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "p.translation")]
        check(translations == [phrase["translation"].strip() for phrase in hostile_phrases], f"hostile translations shown as {translations}")
        tags = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "p.tags a")]
        check(sorted(tags) == sorted(hostile["loop"]["tags"]), f"hostile tags shown as {tags}")
        driver.save_screenshot(os.path.join(args.screenshots, "hostile-1280.png"))

        # A phone's width: no sideways scrolling.
        driver.set_window_size(360, 780)
        for name, url in [("front", server + "/"), ("preview", args.sample), ("hostile", args.hostile)]:
            driver.get(url)
            width = driver.execute_script("return document.documentElement.scrollWidth")
            viewport = driver.execute_script("return window.innerWidth")
            check(width <= viewport, f"{name} at 360 px scrolls sideways: {width} px wide in {viewport}")
            driver.save_screenshot(os.path.join(args.screenshots, f"{name}-360.png"))
    finally:
        driver.quit()

    if failures:
        print(f"pages: {len(failures)} checks failed", file=sys.stderr)
        sys.exit(1)
    print(f"pages: every check passed; screenshots in {args.screenshots}", file=sys.stderr)


if __name__ == "__main__":
    main()
