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
- the study player: its engine (study.js) makes the same schedules as the Swift engine for every
  scenario of Tests/Fixtures/study-schedules.json; two blocks studied in listen-and-repeat at
  0.75x play the clips and silences the schedule says; space pauses and starts again, the down
  arrow goes to the next group; at 360x800 with touch, a double tap starts, a swipe left goes to
  the next phrase and a swipe up to the next group, and every control is at least 44 px;
- the preview page paints from its first response (no stylesheet or script to wait for), and
  reads without JavaScript on a phone: phrases, translations, a player per phrase, no dead controls;
and saves screenshots at 360 px and 1280 px.
"""

import argparse
import gzip
import json
import os
import re
import signal
import sys
import time
import urllib.parse
import urllib.request

import feedparser
import html5lib
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

failures = []


def contrast(first, second):
    """The WCAG contrast ratio of two CSS rgb()/rgba() colours."""
    def luminance(colour):
        channels = [int(v) / 255 for v in re.findall(r"[\d.]+", colour)[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    light, dark = sorted([luminance(first), luminance(second)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


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


def browser(javascript=True):
    options = webdriver.ChromeOptions()
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--hide-scrollbars",
                 # A microphone that plays a tone, allowed without asking: to record yourself.
                 "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]:
        options.add_argument(flag)
    # The console's messages, to check that the page logs no warning of its own.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


# The page's review scheduler on the reference's rating histories: how many reviews, how many differ.
REVIEW_VECTORS = """
const vectors = arguments[0];
let reviews = 0, differ = 0;
for (const history of vectors.histories) {
  const scheduler = new LoopStudy.Scheduler(history);
  let card = {state: 1, step: 0, stability: null, difficulty: null, due: 0, lastReview: null};
  for (const r of history.reviews) {
    card = scheduler.review(card, r.rating, r.at * 1000);
    reviews++;
    if (card.state !== r.state || card.step !== r.step || Math.abs(card.due / 1000 - r.due) >= 60 ||
        Math.abs(card.stability - r.stability) > 1e-6 || Math.abs(card.difficulty - r.difficulty) > 1e-6) differ++;
  }
}
return [reviews, differ];
"""

RUN_SCENARIO = """
const [vectors] = arguments;
const results = [];
for (const scenario of vectors.scenarios) {
  let session, now = 0, stepStart = 0;
  const outputs = [];
  try {
    session = new LoopStudy.Session(JSON.parse(JSON.stringify(vectors.groups)), Object.assign({}, scenario.settings), scenario.selection.slice());
  } catch (error) { results.push({error: String(error.message || error)}); continue; }
  for (const action of scenario.actions) {
    if (action.next) {
      const step = session.nextStep(now);
      if (!step) { outputs.push(null); continue; }
      outputs.push(step.silence !== undefined ? {silence: step.silence} : {play: step.play, speed: step.speed, duration: step.duration});
      stepStart = now;
      now += step.silence !== undefined ? step.silence : step.duration;
    } else {
      const when = Math.min(stepStart + action.at, now);
      const reaction = session.handle({event: action.event, group: action.group}, when);
      outputs.push({reaction: reaction});
      if (reaction === "interrupt" || reaction === "pause") now = when;
    }
  }
  session.stop(now);
  const study = Object.keys(session.study).map(Number).sort((a, b) => a - b)
    .map(phrase => ({phrase: phrase, repetitions: session.study[phrase].repetitions, time: session.study[phrase].time}));
  results.push({expected: outputs, study: study});
}
return results;
"""


def study_player(driver, args, vectors_path):
    """The loop page's study player: its engine agrees with the Swift engine's schedules, and the
    page plays what the engine says, driven by mouse, keys and touch."""
    vectors = json.load(open(vectors_path))

    def wait_for(condition, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            value = driver.execute_script(condition)
            if value:
                return value
            time.sleep(0.1)
        return None

    driver.get(args.sample)
    check(driver.execute_script("return typeof LoopStudy") == "object", "the study engine (player.js) did not load on the preview page")
    results = driver.execute_script(RUN_SCENARIO, vectors)
    agreed = 0
    for scenario, result in zip(vectors["scenarios"], results):
        if result.get("error"):
            check(False, f"study engine, {scenario['name']}: {result['error']}")
            continue
        ok = result["expected"] == scenario["expected"] and result["study"] == scenario["study"]
        if not ok:
            first = next((i for i, (a, b) in enumerate(zip(result["expected"], scenario["expected"])) if a != b), None)
            detail = f"at action {first}: page {result['expected'][first]}, Swift {scenario['expected'][first]}" if first is not None else f"study {result['study']} against {scenario['study']}"
            check(False, f"study engine, {scenario['name']}: the page's schedule differs from the Swift engine's, {detail}")
        agreed += ok
    check(agreed == len(vectors["scenarios"]) and agreed >= 20, f"study engine: {agreed} of {len(vectors['scenarios'])} schedules agree")
    # The review scheduler: the reference FSRS's next dates, stabilities and difficulties.
    reviewed = driver.execute_script(REVIEW_VECTORS, json.load(open(args.review_vectors)))
    check(reviewed[0] >= 1500 and reviewed[1] == 0, f"review scheduler: {reviewed[1]} of {reviewed[0]} reviews differ from the reference's")

    # The page, on a desktop: two blocks, listen and repeat at 0.75x, started with the button.
    durations = driver.execute_script("""
        return [...document.querySelectorAll('li[data-group]')].map(li => [Number(li.id.replace('phrase-', '')), Number(li.dataset.group),
                 li.dataset.duration ? Number(li.dataset.duration) : null]);""")
    by_group = {}
    for number, group, duration in durations:
        if duration is not None:
            by_group.setdefault(group, []).append((number, duration))
    groups = sorted(by_group)
    check(len(groups) >= 3, f"the sample's groups with audio: {groups}")
    check(driver.find_element(By.ID, "study").is_displayed(), "the study player is not shown")
    # Opening the page fetches no clip (a phone's data plan): clips come as they are studied.
    # (With nothing kept from the visits before, so that a clip fetched would show.)
    driver.execute_async_script("const done = arguments[0]; caches.keys().then(keys => Promise.all(keys.map(k => caches.delete(k)))).then(() => done(), () => done());")
    driver.get(args.sample)
    check(wait_for("return window.loopPlayer.workerReady || null", 20), "the page's service worker did not start")
    time.sleep(0.5)
    fetched = driver.execute_script("return [window.loopPlayer.keptClips || 0, performance.getEntriesByType('resource').map(e => e.name).filter(n => /\\/\\d+\\.flac$/.test(n))]")
    check(fetched == [0, []], f"opening the page fetched clips (kept, fetched): {fetched[0]}, {fetched[1][:5]}")
    # One element speaks to a screen reader: the announcements, not the whole study box.
    live = driver.execute_script("return [...document.querySelectorAll('#study [aria-live]')].map(e => e.className)")
    check(live == ["announce hidden-label"], f"live regions in the study box: {live}")
    # Unselected blocks and the study box's edge stand out from the panel (WCAG: 3:1).
    colours = driver.execute_script("""
        const panel = getComputedStyle(document.getElementById('study')).backgroundColor;
        return [panel, getComputedStyle(document.querySelector('#study button[data-block]')).borderTopColor,
                getComputedStyle(document.querySelector('#study .pad')).borderTopColor];""")
    for colour in colours[1:]:
        ratio = contrast(colour, colours[0])
        check(ratio >= 3, f"an edge of {colour} on {colours[0]} is {ratio:.2f}:1 (WCAG asks 3:1)")
    labels = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#study button[data-event$=Group]")]
    check(labels == ["‹ Group", "Group ›"], f"the group buttons say what they do: {labels}")
    blocks = driver.find_elements(By.CSS_SELECTOR, "#study button[data-block]")
    check(len(blocks) == len(groups), f"{len(blocks)} blocks for {len(groups)} groups")
    chosen = [groups[0], groups[2]]
    for group in chosen:
        blocks[group].click()
    pressed = [block.get_attribute("aria-pressed") for block in blocks]
    check([i for i, value in enumerate(pressed) if value == "true"] == chosen, f"blocks selected: {pressed}")
    Select(driver.find_element(By.NAME, "mode")).select_by_value("listen-and-repeat")
    Select(driver.find_element(By.NAME, "speed")).select_by_value("0.75")
    driver.find_element(By.CSS_SELECTOR, "#study button[data-action=start]").click()

    def expected_group(group, speed=0.75, gap=1.0):
        phrases = by_group[group]
        scaled = [round(duration / speed) for _, duration in phrases]
        return [{"play": [number for number, _ in phrases], "speed": speed, "duration": sum(scaled)}, {"silence": int(sum(scaled) * gap)}]

    steps = wait_for("return window.loopPlayer.steps.length >= 3 ? window.loopPlayer.steps : null", seconds=40)
    check(steps is not None, "the player did not get to its third step")
    if steps:
        check(steps[:3] == expected_group(chosen[0]) + expected_group(chosen[1])[:1],
              f"listen and repeat at 0.75x over groups {chosen}: {steps[:3]}")
        clips = driver.execute_script("return window.loopPlayer.clips")
        first = [clip["phrase"] for clip in clips[:len(by_group[chosen[0]])]]
        check(first == [number for number, _ in by_group[chosen[0]]] and all(clip["rate"] == 0.75 for clip in clips),
              f"clips played: {clips[:8]}")
    # What is studied is in view beside the controls: the group's phrases in the study box, the
    # clip playing marked alone (listen and repeat plays them one after another), and the same
    # phrase marked in the page.
    marked = []
    for _ in range(60):
        now = driver.execute_script("""
            const box = [...document.querySelectorAll('#study .now li.playing')].map(li => Number(li.dataset.phrase));
            const page = [...document.querySelectorAll('ol.phrases li.playing')].map(li => Number(li.id.replace('phrase-', '')));
            const shown = document.querySelector('#study .now li.playing');
            const r = shown && shown.getBoundingClientRect();
            return [box, page, !!r && r.top >= 0 && r.bottom <= innerHeight];""")
        check(len(now[0]) <= 1 and now[0] == now[1], f"phrases marked playing: in the study box {now[0]}, in the page {now[1]}")
        if now[0]:
            check(now[2], "the phrase playing is not in view")
            if not marked or marked[-1] != now[0][0]:
                marked.append(now[0][0])
        time.sleep(0.1)
    check(len(marked) >= 2, f"listen and repeat: the mark did not follow the clips playing ({marked})")
    # The first group studied through: the page asks how well the learner knew it; easy on a
    # new group is FSRS's w3, 8.2956 days of stability, next review in 8 days.
    question = wait_for("const box = document.querySelector('#study .rate'); return box && !box.hidden ? box.textContent : null", 10)
    check(question and f"How well did you know group {chosen[0] + 1}?" in question, f"the rating asked: {question!r}")
    driver.find_element(By.CSS_SELECTOR, "#study .rate button[data-rating='4']").click()
    rated = driver.execute_script(f"return window.loopPlayer.reviewCards[{chosen[0] + 1}]")
    check(rated and rated["state"] == 2 and abs(rated["stability"] - 8.2956) < 1e-6 and
          abs(rated["due"] - rated["lastReview"] - 8 * 86400000) < 1000, f"easy on a new group: {rated}")
    due = driver.execute_script(f"return [document.querySelectorAll('#study button[data-block]')[{chosen[0]}].dataset.due, document.querySelector('#study .due').textContent]")
    check(due[0] == "later" and "in 8 days" in due[1], f"the rated group's next review: {due}")
    check(driver.find_element(By.CSS_SELECTOR, "#study .rate").get_attribute("hidden") is not None, "the rating stays asked")
    driver.save_screenshot(os.path.join(args.screenshots, "study-1280.png"))
    body = driver.find_element(By.TAG_NAME, "body")

    def state():
        return driver.execute_script("return [window.loopPlayer.display(), window.loopPlayer.sessions, window.loopPlayer.steps.length]")

    def blur():
        driver.execute_script("document.activeElement && document.activeElement.blur()")

    # A setting changed while studying applies from the step under way, in the same session.
    before = state()
    Select(driver.find_element(By.NAME, "repeats")).select_by_value("2")
    after = state()
    check(after[1] == before[1] == 1 and after[0]["group"] == before[0]["group"] and after[0]["repeats"] == 2,
          f"repeats 2 while studying: {before} then {after}")
    blur()
    # Keys: space pauses; a setting changed while paused leaves it paused; space starts again (from
    # the step under way), ↓ goes to the next group.
    body.send_keys(Keys.SPACE)
    check(wait_for("return document.querySelector('#study .status').textContent.includes('paused')", 5), "space did not pause")
    count = driver.execute_script("return window.loopPlayer.steps.length")
    Select(driver.find_element(By.NAME, "speed")).select_by_value("1")
    time.sleep(1)
    paused = state()
    check(paused[0]["phase"] == "paused" and paused[2] == count and paused[1] == 1 and paused[0]["speed"] == 1,
          f"speed 1x while paused: {paused}")
    Select(driver.find_element(By.NAME, "speed")).select_by_value("0.75")
    blur()
    body.send_keys(Keys.SPACE)
    check(wait_for(f"return window.loopPlayer.steps.length > {count}", 5), "space did not start again")
    count = driver.execute_script("return window.loopPlayer.steps.length")
    body.send_keys(Keys.ARROW_DOWN)
    after = wait_for(f"return window.loopPlayer.steps.length > {count} ? window.loopPlayer.steps[{count}] : null", 5)
    check(after is not None and after.get("play") in ([n for n, _ in by_group[g]] for g in chosen), f"↓ played {after}")
    # The mouse: a double click on → is two clicks of it, not a pause; space after a click on a
    # button pauses rather than pressing it again.
    forward = driver.find_element(By.CSS_SELECTOR, "#study button[data-event=nextPhrase]")
    ActionChains(driver).double_click(forward).perform()
    time.sleep(0.3)
    check(state()[0]["phase"] != "paused", "a double click on → paused the study")
    forward.click()
    count = driver.execute_script("return window.loopPlayer.steps.length")
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    check(wait_for("return window.loopPlayer.display().phase === 'paused'", 5), "space after a click on → did not pause")
    # The terminal's keys: m the mode, + the speed, 1-9 a group, shift+1-9 adds one, ? the keys.
    blur()
    mode = driver.execute_script("return document.querySelector('[name=mode]').value")
    body.send_keys("m")
    check(driver.execute_script("return [document.querySelector('[name=mode]').value, window.loopPlayer.display().mode]") ==
          ["repeat-with-me" if mode == "listen-and-repeat" else "listen-and-repeat"] * 2, "m did not switch the mode")
    body.send_keys("m")
    body.send_keys("+")
    # (As in the terminal, a step of 0.1 and a speed in tenths: 0.75 + 0.1 is 0.9.)
    faster = driver.execute_script("return [document.querySelector('[name=speed]').value, window.loopPlayer.display().speed]")
    check(faster == ["0.9", 0.9], f"+ did not raise the speed from 0.75 to 0.9: {faster}")
    body.send_keys("1")
    body.send_keys(Keys.SHIFT + "3" + Keys.SHIFT)
    check(state()[0]["selection"] == [0, 2], f"1 then shift+3 select groups 1 and 3: {state()[0]}")
    body.send_keys("?")
    check(driver.find_element(By.CSS_SELECTOR, "#study .keys").is_displayed(), "? did not show the keys")
    check(state()[0]["phase"] == "paused", "the keys changed the study but unpaused it")

    # The selection, the settings and the place survive a reload.
    driver.get(args.sample)
    kept = driver.execute_script("""return [[...document.querySelectorAll('#study button[data-block]')].map(b => b.getAttribute('aria-pressed') === 'true'),
        ...['mode', 'repeats', 'speed'].map(n => document.querySelector('[name=' + n + ']').value),
        document.querySelector('#study .status').textContent]""")
    check([i for i, on in enumerate(kept[0]) if on] == [0, 2] and kept[1:4] == [mode, "2", "0.9"] and "Start goes on at group" in kept[4],
          f"after a reload: {kept}")
    check(driver.find_element(By.CSS_SELECTOR, "link[rel=icon]").get_attribute("href").endswith("/icon.svg"), "the page names no icon")
    warnings = [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("WARNING", "SEVERE")]
    check(not warnings, f"the page logged: {warnings[:3]}")

    # Progress: kept in the browser, shown again after a reload, exported as JSON.
    driver.get(args.sample)
    progress = driver.find_element(By.CSS_SELECTOR, "#study .progress").text
    check("repetitions" in progress and "session" in progress, f"progress after a reload: {progress!r}")
    studied = driver.find_elements(By.CSS_SELECTOR, "li p.studied")
    check(len(studied) >= len(by_group[chosen[0]]), f"phrases marked as studied after a reload: {len(studied)}")
    driver.find_element(By.CSS_SELECTOR, "#study button[data-action=export]").click()
    exported = wait_for("return window.loopPlayer.exported || null", 5)
    check(exported is not None and exported.get("format") == "looplearn-progress" and exported["loops"][0]["id"] == args.sample_id,
          f"exported progress: {str(exported)[:200]}")
    if exported:
        kept_sessions = exported["loops"][0]["sessions"]
        check(len(kept_sessions) == 1 and all(session["phrases"] for session in kept_sessions),
              f"one sitting, its settings changed, is one session with the phrases heard: {[len(s['phrases']) for s in kept_sessions]}")
        reviews = kept_sessions[0].get("reviews") or []
        check(any(r["group"] == chosen[0] + 1 and r["rating"] == 4 and r["texts"] for r in reviews),
              f"the exported reviews: {reviews}")
        if args.reviews_out:
            with open(args.reviews_out, "w") as out:
                json.dump(driver.execute_script("return window.loopPlayer.reviewCards"), out)
    if exported and args.progress_out:
        with open(args.progress_out, "w") as out:
            json.dump(exported, out)

    # Record yourself: the model plays, the (fake) microphone records, then the model and the
    # reading play; the reading is kept in the browser, and plays again after a reload.
    driver.find_element(By.CSS_SELECTOR, "#study button[data-action=record]").click()
    played = wait_for("return window.loopPlayer.playedTakes || null", 30)
    recorded = driver.execute_script("return window.loopPlayer.recorded || null")
    check(played == 1 and recorded and recorded["bytes"] > 1000, f"record yourself: recorded {recorded}, played back {played} (status {driver.find_element(By.CSS_SELECTOR, '#study .status').text!r})")
    clips = driver.execute_script("return window.loopPlayer.clips.slice(-2)")
    check(clips and clips[0].get("phrase") == recorded["phrase"] and clips[1].get("take") == recorded["phrase"] if recorded else False,
          f"the model, then the reading: {clips}")
    driver.get(args.sample)
    # "Model, then mine" while studying: the study pauses, and the model plays at the study's speed.
    driver.find_element(By.CSS_SELECTOR, "#study button[data-action=start]").click()
    check(wait_for("return window.loopPlayer.steps.length >= 1", 5), "the study did not start")
    driver.find_element(By.CSS_SELECTOR, "#study button[data-action=mine]").click()
    again = wait_for("return window.loopPlayer.playedTakes || null", 20)
    check(again == 1, f"after a reload, the reading kept in the browser did not play: {again}")
    aside = driver.execute_script("return [window.loopPlayer.display().phase, window.loopPlayer.clips.slice(-2)]")
    check(aside[0] == "paused" and aside[1][0].get("rate") == 0.9, f"model, then mine, while studying at 0.9x: {aside}")
    # The two recordings drawn one above the other, each with its pitch found in its voiced frames.
    compared = wait_for("return window.loopPlayer.compared || null", 10)
    shown = driver.execute_script("var c = document.querySelector('#study canvas.compare'); return c && !c.hidden && c.getBoundingClientRect().height")
    check(compared and len(compared) == 2 and all(v > 5 for v in compared) and shown,
          f"model, then mine: the waveforms and pitch drawn ({compared}, canvas height {shown})")
    driver.execute_script("document.querySelector('#study canvas.compare').scrollIntoView()")
    driver.save_screenshot(os.path.join(args.screenshots, "model-then-mine-1280.png"))
    script = fetch(args.sample.rsplit("/", 1)[0] + "/player.js")[2]
    sent = len(gzip.compress(script))
    check(sent < 12 * 1024, f"the player's script is {sent} bytes gzipped, as a phone gets it ({len(script)} bytes; goal: under 12 KB)")

    # A phone: touch at 360x800, repeat with me; a double tap starts, a swipe left goes to the next phrase.
    driver.set_window_size(360, 800)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    driver.get(args.sample)
    # (A phone of its own: nothing kept from the desktop's study.)
    driver.execute_script("localStorage.removeItem('looplearn-study:' + document.getElementById('study').dataset.loop)")
    driver.get(args.sample)
    # A 360x800 phone's screen, less its browser's bars: the Start button on the first screen.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 720, "deviceScaleFactor": 2, "mobile": True})
    driver.get(args.sample)
    bottom = driver.execute_script("return [document.querySelector('#study button[data-action=start]').getBoundingClientRect().bottom, innerHeight, scrollY]")
    check(bottom[0] <= bottom[1] and bottom[2] == 0, f"on a 360x800 phone the Start button is below the first screen: {bottom}")
    controls = driver.execute_script("return [...document.querySelectorAll('#study .controls button')].map(b => [Math.round(b.getBoundingClientRect().top), b.offsetHeight])")
    check(len({top for top, _ in controls}) == 1 and all(height <= 48 for _, height in controls),
          f"on a phone the controls wrap (top, height of each): {controls}")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    pad = driver.find_element(By.CSS_SELECTOR, "#study .pad")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", pad)
    # The study area's status line: a part of it with no control on it.
    status = driver.find_element(By.CSS_SELECTOR, "#study .status")
    box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, r.width];", status)
    x, y = box[0], box[1]

    def touch(points):
        for kind, px, py in points:
            driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": px, "y": py}]})

    # Each phrase twice (without the swipe, the first phrase would come again), at 0.75x.
    Select(driver.find_element(By.NAME, "repeats")).select_by_visible_text("2")
    Select(driver.find_element(By.NAME, "speed")).select_by_value("0.75")
    # (Those shown: the rating buttons wait, hidden, for a group studied through.)
    sizes = driver.execute_script("return [...document.querySelectorAll('#study button, #study select')].filter(e => e.offsetParent).map(e => [e.offsetWidth, e.offsetHeight])")
    check(len(sizes) >= 15, f"the study box's controls at 360 px wide: {len(sizes)}")
    check(all(w >= 44 and h >= 44 for w, h in sizes), f"touch targets under 44 px at 360 px wide: {sizes}")
    touch([("touchStart", x, y), ("touchEnd", x, y)])
    time.sleep(0.1)
    touch([("touchStart", x, y), ("touchEnd", x, y)])
    started = wait_for("return window.loopPlayer.steps.length >= 1 ? window.loopPlayer.steps[0] : null", 5)
    first_group = groups[0]
    check(started == {"play": [by_group[first_group][0][0]], "speed": 0.75, "duration": round(by_group[first_group][0][1] / 0.75)},
          f"a double tap starts repeat with me on the first phrase: {started}")
    count = driver.execute_script("return window.loopPlayer.steps.length")
    # (The first clip played after the swipe: a silence of the phrase before may come first.)
    first_play = "return window.loopPlayer.steps.slice({count}).find(step => step.play) || null"
    touch([("touchStart", x + 100, y), ("touchMove", x - 20, y), ("touchEnd", x - 100, y)])
    swiped = wait_for(first_play.format(count=count), 5)
    state = driver.execute_script("return [document.querySelector('#study .status').textContent, window.loopPlayer.steps, window.loopPlayer.clips]")
    check(swiped is not None and swiped.get("play") == [by_group[first_group][1][0]], f"a swipe left plays the next phrase: {swiped} ({state})")
    count = driver.execute_script("return window.loopPlayer.steps.length")
    touch([("touchStart", x, y), ("touchMove", x, y - 30), ("touchMove", x, y - 70), ("touchEnd", x, y - 70)])
    up = wait_for(first_play.format(count=count), 5)
    check(up is not None and up.get("play") == [by_group[groups[1]][0][0]], f"a swipe up plays the next group's first phrase: {up}")
    driver.save_screenshot(os.path.join(args.screenshots, "study-360.png"))
    warnings = [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("WARNING", "SEVERE")]
    check(not warnings, f"touch: the page logged {warnings[:3]}")
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    driver.set_window_size(1280, 900)


def first_paint(driver, args):
    """The preview page's first paint on the network profiles of Chromium's DevTools, printed
    (a figure, not a check: the machine and its load set it as much as the page). Chromium adds
    the profile's latency to every response, so no page paints before one latency: the page
    paints from its first response (its stylesheet is in it), and the figure is printed beside
    that floor. Checked: nothing the page asks for blocks its first paint."""
    driver.set_window_size(360, 800)
    for name, latency, throughput in [("Slow 3G", 2000, 50_000), ("Slow 4G, once Fast 3G", 563, 180_000), ("Fast 4G", 165, 1_012_500)]:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        # (The first visit registers the page's service worker, whose fetches are not throttled.)
        driver.execute_cdp_cmd("Network.setBypassServiceWorker", {"bypass": True})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                               {"offline": False, "latency": latency, "downloadThroughput": throughput, "uploadThroughput": throughput})
        driver.get(args.sample + "?paint=" + "".join(c for c in name if c.isalnum()))
        paint = driver.execute_script("const e = performance.getEntriesByName('first-contentful-paint')[0]; return e ? e.startTime : null")
        sent = driver.execute_script("const e = performance.getEntriesByType('navigation')[0]; return [e.encodedBodySize, e.decodedBodySize]")
        print(f"pages: the preview page's first paint on {name} ({latency} ms a response, {throughput * 8 // 1000} kbit/s): "
              f"{paint:.0f} ms, {paint - latency:.0f} ms after the first response could arrive ({sent[0]:,} bytes sent for {sent[1]:,})" if paint else
              f"pages: no first paint measured on {name}", file=sys.stderr)
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    driver.execute_cdp_cmd("Network.setBypassServiceWorker", {"bypass": False})
    # One round trip: no stylesheet, script or font to wait for before painting, and the
    # inline stylesheet applies (the page's CSP allows it by its hash).
    blocking = driver.execute_script("""return [...document.querySelectorAll('link[rel~="stylesheet"], head script:not([defer]):not([async])')]
                                        .map(e => e.outerHTML)""")
    check(blocking == [], f"the preview page waits for more than itself to paint: {blocking}")
    accent = driver.execute_script("return getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
    check(accent == "#0b57b0", f"the preview page's inline stylesheet does not apply (its CSP hash?): --accent is {accent!r}")
    size = len(urllib.request.urlopen(args.sample).read())
    check(size < 14_000, f"the preview page is {size} bytes: more than a first round trip of TCP carries (14 KB)")


def without_javascript(args, phrases):
    """The sample's page in a browser that runs no script, on a phone: every phrase and its
    translation readable, a player per phrase whose clip the server serves, the install line,
    and none of the controls that need a script (the study player, the copy button)."""
    driver = browser(javascript=False)
    try:
        driver.set_window_size(360, 780)
        driver.get(args.sample)
        texts = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "p.text") if element.is_displayed()]
        check(texts == [phrase["text"] for phrase in phrases], f"without JavaScript: the phrases shown are {texts}")
        translations = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "p.translation") if element.is_displayed()]
        check(translations == [phrase["translation"] for phrase in phrases if phrase.get("translation")],
              f"without JavaScript: the translations shown are {translations}")
        players = [element for element in driver.find_elements(By.CSS_SELECTOR, "audio[controls]") if element.is_displayed()]
        check(len(players) == len(phrases), f"without JavaScript: {len(players)} players shown for {len(phrases)} phrases")
        for player in players[:1] + players[-1:]:
            response = urllib.request.urlopen(player.get_attribute("src"))
            check(response.status == 200 and response.headers.get("Content-Type", "").startswith("audio/") and len(response.read()) > 1000,
                  f"without JavaScript: {player.get_attribute('src')} does not serve its clip")
        check(driver.find_element(By.ID, "install-line").is_displayed(), "without JavaScript: the install line is not shown")
        for selector in ["#study", "button[data-copy]"]:
            shown = [element for element in driver.find_elements(By.CSS_SELECTOR, selector) if element.is_displayed()]
            check(not shown, f"without JavaScript: {selector} is shown, and does nothing")
        main = driver.find_element(By.TAG_NAME, "main").rect
        check(main["x"] >= 0 and main["x"] + main["width"] <= 360, f"without JavaScript: the page is wider than the phone: {main}")
        font = driver.find_element(By.TAG_NAME, "body").value_of_css_property("font-family")
        check(font.startswith("system-ui"), f"without JavaScript: the page is not styled (its font is {font!r})")
        driver.save_screenshot(os.path.join(args.screenshots, "preview-nojs-360.png"))
    finally:
        driver.quit()


def offline(driver, args):
    """Once opened, a loop's page studies without the network: the server is stopped, and the
    page, its player and its clips come from what the service worker kept."""
    driver.set_window_size(1280, 900)
    driver.get(args.sample)
    keep = driver.find_element(By.CSS_SELECTOR, "#study button[data-action=keep]")
    check(re.search(r"up to \d", keep.text) is not None, f"the offline button does not say how much it keeps: {keep.text!r}")
    keep.click()
    ready = None
    for _ in range(100):
        ready = driver.execute_script("return window.loopPlayer && window.loopPlayer.offline")
        if ready is not None:
            break
        time.sleep(0.1)
    check(ready is True, f"the page did not make itself ready for offline study: {ready}")
    os.kill(args.server_pid, signal.SIGTERM)
    time.sleep(1)
    try:
        urllib.request.urlopen(args.sample, timeout=2)
        check(False, "the server still answers after it was stopped")
    except Exception:
        pass
    driver.get(args.sample)
    check(driver.title.startswith("Au café"), f"offline, the page did not load from what was kept: {driver.title!r}")
    check(driver.execute_script("return typeof LoopStudy") == "object", "offline, the player did not load")
    clips = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const urls = [...document.querySelectorAll('li[data-duration] audio')].map(a => a.getAttribute('src'));
        Promise.all(urls.map(u => fetch(u).then(r => r.ok ? r.arrayBuffer().then(b => b.byteLength) : 0, () => 0))).then(done);""")
    check(clips and all(size > 1000 for size in clips), f"offline, the clips: {clips}")
    driver.find_element(By.CSS_SELECTOR, "#study button[data-action=start]").click()
    played = None
    for _ in range(50):
        played = driver.execute_script("return window.loopPlayer.clips.length ? document.querySelector('#study .status').textContent : null")
        if played:
            break
        time.sleep(0.1)
    check(played is not None and "listening" in played, f"offline, studying did not start: {played!r}")
    driver.save_screenshot(os.path.join(args.screenshots, "offline-1280.png"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--sample", required=True, help="the sample loop's preview link")
    parser.add_argument("--hostile", required=True, help="the hostile loop's preview link")
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--vectors", required=True, help="the study engine's schedules (Tests/Fixtures/study-schedules.json)")
    parser.add_argument("--progress-out", help="where to write the progress the page exports")
    parser.add_argument("--review-vectors", required=True, help="the review scheduler's vectors (Tests/Fixtures/review-vectors.json)")
    parser.add_argument("--reviews-out", help="where to write the review schedule the page computed")
    parser.add_argument("--server-pid", type=int, required=True, help="the server, stopped at the end to study offline")
    args = parser.parse_args()
    server = args.server.rstrip("/")
    os.makedirs(args.screenshots, exist_ok=True)

    sample_id = args.sample.rsplit("/", 1)[1]
    hostile_id = args.hostile.rsplit("/", 1)[1]
    sample = json.loads(fetch(f"{server}/api/loops/{sample_id}")[2])
    args.sample_id = sample["loop"]["id"]
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
        # First, before the page's service worker keeps anything (it is not throttled).
        first_paint(driver, args)
        driver.set_window_size(1280, 900)
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
        # (Lazy pictures load as they come into view.)
        driver.execute_script("document.querySelectorAll('img.picture').forEach(i => i.loading = 'eager')")
        time.sleep(0.5)
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
        # A phrase its author fixed after recording it is marked with what it was recorded as,
        # as `loop show` marks it.
        marks = driver.execute_script("""return [...document.querySelectorAll('li p.recorded')].map(p =>
            [p.closest('li').querySelector('.text').textContent, p.textContent])""")
        check(marks == [["Non, merci !", "recorded as “Non, merci.”"]], f"phrases marked as recorded for an earlier text: {marks}")
        # A HEAD of the page answers as its GET.
        head = urllib.request.urlopen(urllib.request.Request(args.sample, method="HEAD"))
        check(head.status == 200 and head.read() == b"", f"HEAD of the preview page: {head.status}")
        driver.save_screenshot(os.path.join(args.screenshots, "preview-1280.png"))

        study_player(driver, args, vectors_path=args.vectors)

        # The keyboard reaches the search box, the links and every player.
        driver.get(args.sample)
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
        check(scripts == [server + "/copy.js", server + "/player.js"], f"scripts on the hostile page: {scripts}")
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
        without_javascript(args, phrases)
        offline(driver, args)
    finally:
        driver.quit()

    if failures:
        print(f"pages: {len(failures)} checks failed", file=sys.stderr)
        sys.exit(1)
    print(f"pages: every check passed; screenshots in {args.screenshots}", file=sys.stderr)


if __name__ == "__main__":
    main()
