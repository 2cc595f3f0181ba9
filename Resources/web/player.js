// The loop page's study player: the loop's groups as blocks to select, the two modes with the
// terminal's settings, and the engine of study.js deciding what plays and what is left silent.
// Keys, the terminal's: space starts and pauses, ← → the previous or next phrase, ↑ ↓ (and Page
// Up, Page Down) the previous or next group, 1-9 that group, shift+1-9 adds or removes one, a
// all groups, m the mode, + - the speed, t the translation, h hides the text, ? the keys. On a
// touch screen: double tap starts and stops, swipe left or right for the next or previous
// phrase, up or down for the next or previous group. The page works without it: each phrase
// keeps its own player. The selection, the settings and the place are kept in this browser.
"use strict";
(function () {
  var root = document.getElementById("study");
  if (!root || !window.LoopStudy) return;
  // Each phrase: its number (from its id, phrase-N), group, clip (its player's) and length.
  function number(item) { return Number(item.id.replace("phrase-", "")); }
  var phrases = Array.prototype.map.call(document.querySelectorAll("li[data-duration]"), function (item) {
    var player = item.querySelector("audio");
    return { number: number(item), group: Number(item.getAttribute("data-group")), text: item.querySelector(".text").textContent,
             duration: Number(item.getAttribute("data-duration")), clip: player && player.getAttribute("src"), item: item };
  });
  if (!phrases.length) return;
  var groupCount = Number(root.getAttribute("data-groups"));
  // The player's controls: made here, so that the page (kept by the server for every loop) stays
  // small and a reader without JavaScript meets no control that does nothing.
  var options = function (values, chosen) {
    return values.map(function (v) { return '<option value="' + v[0] + '"' + (v[0] === chosen ? " selected" : "") + ">" + v[1] + "</option>"; }).join("");
  };
  var blockButtons = "";
  for (var b = 0; b < groupCount; b++) blockButtons += '<button type="button" data-block="' + b + '" aria-pressed="false">' + (b + 1) + "</button>";
  root.innerHTML = '<h2 id="study-title">Study</h2>' +
    '<div class="blocks" role="group" aria-label="Groups to loop">' + blockButtons + "</div>" +
    '<div class="settings">' +
    '<label>Mode <select name="mode">' + options([["repeat-with-me", "Repeat with me"], ["listen-and-repeat", "Listen and repeat"]], "repeat-with-me") + "</select></label>" +
    '<label>Repeats <select name="repeats">' + options([["1", "1"], ["2", "2"], ["3", "3"], ["5", "5"]], "1") + "</select></label>" +
    '<label>Gap <select name="gap">' + options([["0.5", "0.5×"], ["1", "1×"], ["1.5", "1.5×"], ["2", "2×"]], "1") + "</select></label>" +
    '<label>Speed <select name="speed">' + options([["0.5", "0.5×"], ["0.75", "0.75×"], ["1", "1×"], ["1.25", "1.25×"], ["1.5", "1.5×"]], "1") + "</select></label>" +
    "</div>" +
    '<div class="pad"><p class="status"></p><ol class="now" hidden></ol>' +
    '<div class="rate" role="group" aria-labelledby="rate-question" hidden><p id="rate-question"></p>' +
    '<button type="button" data-rating="1">Again</button><button type="button" data-rating="2">Hard</button>' +
    '<button type="button" data-rating="3">Good</button><button type="button" data-rating="4">Easy</button></div>' +
    '<div class="controls">' +
    '<button type="button" data-event="previousGroup" aria-label="Previous group">‹ Group</button>' +
    '<button type="button" data-event="previousPhrase" aria-label="Previous phrase">←</button>' +
    '<button type="button" data-action="start">Start</button>' +
    '<button type="button" data-event="nextPhrase" aria-label="Next phrase">→</button>' +
    '<button type="button" data-event="nextGroup" aria-label="Next group">Group ›</button></div>' +
    '<p class="hint">Space starts and pauses, ← → phrase, ↑ ↓ group; on a phone, double tap here to start or stop, ' +
    "swipe left or right for the phrase, up or down for the group. <kbd>?</kbd> lists every key.</p>" +
    '<p class="keys" hidden>1-9 that group · shift+1-9 add or remove it · a all groups · m mode · + - speed · ' +
    "t translation · h hide the text · ? these keys</p></div>" +
    '<p class="announce hidden-label" aria-live="polite"></p>' +
    '<div class="mine"><button type="button" data-action="record">Record myself</button> ' +
    '<button type="button" data-action="mine">Model, then mine</button>' +
    '<canvas class="compare" width="640" height="180" hidden aria-label="The model above, your reading below: waveform and pitch"></canvas></div>' +
    '<p class="progress"></p><p class="due"></p><p><button type="button" data-action="export">Export my progress</button> ' +
    '<button type="button" data-action="keep">Keep for offline study (up to ' + root.getAttribute("data-bundle-size") + ")</button></p>";
  var groups = [];
  for (var g = 0; g < groupCount; g++) groups.push([]);
  document.querySelectorAll("li[data-group]").forEach(function (item) {
    var known = phrases.filter(function (p) { return p.item === item; })[0];
    groups[Number(item.getAttribute("data-group"))].push(known || { number: number(item), duration: null });
  });
  root.hidden = false;

  var blocks = Array.prototype.slice.call(root.querySelectorAll("button[data-block]"));
  var form = {
    mode: root.querySelector("[name=mode]"), repeats: root.querySelector("[name=repeats]"),
    gap: root.querySelector("[name=gap]"), speed: root.querySelector("[name=speed]")
  };
  var status = root.querySelector(".status");
  var progressLine = root.querySelector(".progress");
  var pad = root.querySelector(".pad"), nowList = root.querySelector(".now"), announcer = root.querySelector(".announce");
  var loopId = root.getAttribute("data-loop");
  // The selection, the settings and the place, kept in this browser across a reload.
  var placeKey = "looplearn-study:" + loopId;
  var kept = {};
  try { kept = JSON.parse(localStorage.getItem(placeKey)) || {}; } catch (error) { kept = {}; }
  function choose(select, value) {
    if (value === undefined || value === null) return;
    value = String(value);
    if (!Array.prototype.some.call(select.options, function (o) { return o.value === value; })) {
      var option = document.createElement("option");
      option.value = value;
      option.textContent = value + "×";
      select.appendChild(option);
    }
    select.value = value;
  }
  if (kept.settings) {
    choose(form.mode, kept.settings.mode);
    choose(form.repeats, kept.settings.repeats);
    choose(form.gap, kept.settings.gapFactor);
    choose(form.speed, kept.settings.speed);
  }
  function savePlace() {
    var shown = session && session.display();
    kept = { selected: session ? session.selection : selected, settings: settings(),
             group: shown ? shown.group : kept.group, phrase: shown ? shown.phrase : kept.phrase };
    try { localStorage.setItem(placeKey, JSON.stringify(kept)); } catch (error) { /* kept for this visit */ }
  }
  // The learner's progress, kept in this browser only: the study sessions of this loop, each with
  // what every phrase earned (repetitions heard to their end, seconds), as the terminal keeps them.
  var progressKey = "looplearn-progress:" + loopId;
  function loadProgress() {
    try { return JSON.parse(localStorage.getItem(progressKey)) || []; } catch (error) { return []; }
  }
  var sessions = loadProgress(), current = null;
  function saveProgress() {
    if (!session || !current) return;
    current.phrases = Object.keys(session.study).map(Number).sort(function (a, b) { return a - b; }).map(function (number) {
      var phrase = phrases.filter(function (p) { return p.number === number; })[0];
      return { number: number, text: phrase ? phrase.text : "", repetitions: session.study[number].repetitions,
               seconds: Math.round(session.study[number].time / 1000) / 1000 };
    });
    // (A session is kept once a phrase was heard in it: starting and stopping at once is none.)
    if (!current.phrases.length) return;
    if (sessions.indexOf(current) < 0) sessions.push(current);
    try { localStorage.setItem(progressKey, JSON.stringify(sessions)); } catch (error) { /* full or refused: kept for this visit */ }
    showProgress();
    showDue();
  }
  function showProgress() {
    var repetitions = {}, seconds = 0, total = 0, last = null;
    sessions.forEach(function (s) {
      s.phrases.forEach(function (p) { repetitions[p.number] = (repetitions[p.number] || 0) + p.repetitions; total += p.repetitions; seconds += p.seconds; });
      if (!last || s.startedAt > last) last = s.startedAt;
    });
    phrases.forEach(function (p) {
      var mark = p.item.querySelector(".studied");
      if (!repetitions[p.number]) { if (mark) mark.remove(); return; }
      if (!mark) {
        mark = document.createElement("p");
        mark.className = "studied";
        p.item.insertBefore(mark, p.item.querySelector(".text").nextSibling);
      }
      mark.textContent = "studied ×" + repetitions[p.number];
    });
    var time = seconds < 60 ? Math.round(seconds) + " s" : Math.round(seconds / 60) + " min";
    progressLine.textContent = sessions.length
      ? "Your progress (kept in this browser): " + total + " repetition" + (total === 1 ? "" : "s") + " in " + time + " over " +
        sessions.length + " session" + (sessions.length === 1 ? "" : "s") + ", last on " + last.slice(0, 10) + "."
      : "Your progress is kept in this browser once you study.";
  }
  // Reviews: each group studied through in a session, and how the learner rated it (null until
  // rated, which counts as good), found again by its number and its phrases' texts. The
  // schedule they give is study.js's FSRS, the terminal's.
  var rateBox = root.querySelector(".rate"), dueLine = root.querySelector(".due");
  var scheduler = new window.LoopStudy.Scheduler();
  function groupTexts(group) {
    return groups[group].map(function (p) {
      var phrase = phrases.filter(function (q) { return q.number === p.number; })[0];
      return phrase ? phrase.text : "";
    });
  }
  function noteStudiedGroups() {
    if (!session || !current) return;
    current.reviews = current.reviews || [];
    session.studiedGroups.forEach(function (group) {
      if (current.reviews.some(function (r) { return r.group === group + 1; })) return;
      current.reviews.push({ group: group + 1, texts: groupTexts(group), at: new Date().toISOString(), rating: null });
      rateBox.setAttribute("data-group", group);
      rateBox.querySelector("p").textContent = "How well did you know group " + (group + 1) + "?";
      rateBox.hidden = false;
    });
  }
  function card(group) {
    var texts = JSON.stringify(groupTexts(group)), reviews = [];
    sessions.concat(current && sessions.indexOf(current) < 0 ? [current] : []).forEach(function (s) {
      (s.reviews || []).forEach(function (r) {
        if (r.group === group + 1 && JSON.stringify(r.texts) === texts) reviews.push({ rating: r.rating || 3, at: Date.parse(r.at) });
      });
    });
    return scheduler.replay(reviews);
  }
  function when(due) {
    var days = Math.round((new Date(due).setHours(0, 0, 0, 0) - new Date().setHours(0, 0, 0, 0)) / 86400000);
    return days <= 0 ? "today" : days === 1 ? "tomorrow" : "in " + days + " days";
  }
  function showDue() {
    var due = [], later = [], fresh = [], cards = {};
    blocks.forEach(function (block) {
      var group = Number(block.getAttribute("data-block")), next = card(group);
      cards[group + 1] = next;
      var state = !next ? "new" : next.due <= new Date().setHours(24, 0, 0, 0) ? "due" : "later";
      block.setAttribute("data-due", state);
      block.title = state === "new" ? "not studied yet" : state === "due" ? "due for review today" : "next review " + when(next.due);
      if (state === "due") due.push(group + 1); else if (state === "later") later.push("group " + (group + 1) + " " + when(next.due));
      else fresh.push(group + 1);
    });
    log.reviewCards = cards;
    dueLine.textContent = due.length || later.length
      ? (due.length ? "Due today (in this browser): group" + (due.length > 1 ? "s " : " ") + due.join(", ") + ". " : "Nothing due today. ") +
        (later.length ? "Next: " + later.join(", ") + ". " : "") +
        (fresh.length ? "Not studied yet: group" + (fresh.length > 1 ? "s " : " ") + fresh.join(", ") + "." : "")
      : "";
  }
  rateBox.addEventListener("click", function (e) {
    var rating = e.target && Number(e.target.getAttribute("data-rating"));
    var group = Number(rateBox.getAttribute("data-group"));
    if (!rating || !current) return;
    (current.reviews || []).forEach(function (r) { if (r.group === group + 1) r.rating = rating; });
    rateBox.hidden = true;
    saveProgress();
    var next = card(group);
    announcer.textContent = "Group " + (group + 1) + ": " + e.target.textContent.toLowerCase() + (next ? ", next review " + when(next.due) : "");
    if (e.detail) e.target.blur();
  });
  function exportProgress() {
    var file = { format: "looplearn-progress", version: 1, loops: [{ id: loopId, sessions: sessions }] };
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([JSON.stringify(file, null, 1)], { type: "application/json" }));
    link.download = "progress-" + loopId.slice(0, 8) + ".json";
    document.body.appendChild(link);
    link.click();
    link.remove();
    window.loopPlayer.exported = file;
  }
  var start = root.querySelector("button[data-action=start]");
  var audio = new Audio();
  audio.preservesPitch = true;
  var selected = (kept.selected || []).filter(function (g) { return g >= 0 && g < groupCount; });
  var session = null, timer = null, queue = [], playing = false;
  // The clip playing now (listen and repeat plays a group's one after another), and whether
  // "model, then mine" has the status line.
  var sounding = null, aside = false, showTranslation = true, hideText = false, announced = "";
  // What was rendered, step by step (the tests read it): the engine's steps, and each clip as it
  // started with its rate.
  var log = { steps: [], clips: [], display: function () { return session ? session.display() : null; } };
  window.loopPlayer = log;

  function now() { return Math.round(performance.now() * 1000); }

  function showBlocks() {
    blocks.forEach(function (block) {
      var group = Number(block.getAttribute("data-block"));
      var on = session ? session.selection.indexOf(group) >= 0 : selected.indexOf(group) >= 0;
      block.setAttribute("aria-pressed", on ? "true" : "false");
    });
  }

  // The group under way in the study box, its phrase playing marked: what is studied is in
  // view beside the controls, wherever the page is scrolled.
  function showGroup(group, marked) {
    var html = "";
    groups[group].forEach(function (p) {
      var phrase = phrases.filter(function (q) { return q.number === p.number; })[0];
      if (!phrase) return;
      var item = phrase.item, text = item.querySelector(".text"), translation = item.querySelector(".translation");
      var words = hideText ? text.textContent.replace(/\S/g, "·") : text.textContent;
      html += '<li data-phrase="' + p.number + '"' + (p.number === marked ? ' class="playing"' : "") + '><span dir="auto"' +
        (text.lang ? ' lang="' + escaped(text.lang) + '"' : "") + ">" + escaped(words) + "</span>" +
        (translation && showTranslation && !hideText ? '<span class="translation" dir="auto">' + escaped(translation.textContent) + "</span>" : "") + "</li>";
    });
    nowList.innerHTML = html;
    nowList.hidden = false;
  }
  function escaped(text) {
    return text.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }

  function show() {
    showBlocks();
    document.querySelectorAll("li.playing").forEach(function (item) { item.classList.remove("playing"); });
    if (!session) {
      if (!aside) status.textContent = kept.group !== undefined && kept.group !== null ? "Start goes on at group " + (kept.group + 1) +
        (kept.phrase ? ", phrase " + kept.phrase : "") + "." : "Select blocks, then start (space, or double tap).";
      start.textContent = "Start";
      return;
    }
    var shown = session.display();
    start.textContent = shown.phase === "paused" || shown.phase === "finished" ? "Start" : "Pause";
    // The phrase playing: the cursor's, or in a whole group the clip sounding now.
    var marked = shown.phrase || (shown.phase === "listening" ? sounding : null);
    var phrase = phrases.filter(function (p) { return p.number === marked; })[0];
    if (phrase) phrase.item.classList.add("playing");
    showGroup(shown.group, marked);
    if (!aside) {
      status.textContent = "Group " + (shown.group + 1) + (marked ? ", phrase " + marked : "") + " · " + shown.phase +
        " · " + (shown.mode === "repeat-with-me" ? "repeat with me" : "listen and repeat") + " · " + shown.speed + "×";
    }
    // A screen reader hears what changed for the learner: the group, a pause, the end.
    var news = shown.phase === "paused" ? "Paused" : shown.phase === "finished" ? "Finished" : "Group " + (shown.group + 1);
    if (news !== announced) { announcer.textContent = news; announced = news; }
  }

  function settings() {
    return { mode: form.mode.value, repeats: Number(form.repeats.value), gapFactor: Number(form.gap.value), speed: Number(form.speed.value) };
  }

  function stopSound() {
    clearTimeout(timer);
    timer = null;
    queue = [];
    playing = false;
    sounding = null;
    audio.pause();
  }

  // Renders steps one after another until the engine has none (paused or over).
  function next() {
    stopSound();
    stopAside();
    var step = session.nextStep(now());
    noteStudiedGroups();
    saveProgress();
    savePlace();
    show();
    if (!step) return;
    log.steps.push(step);
    playing = true;
    if (step.silence !== undefined) {
      timer = setTimeout(next, step.silence / 1000);
      return;
    }
    queue = step.play.slice();
    playNext(step.speed);
  }

  function playNext(speed) {
    if (!queue.length) { next(); return; }
    var number = queue.shift();
    var phrase = phrases.filter(function (p) { return p.number === number; })[0];
    sounding = number;
    show();
    audio.src = phrase.clip;
    audio.playbackRate = speed;
    audio.defaultPlaybackRate = speed;
    log.clips.push({ phrase: number, rate: speed });
    audio.onended = function () { if (playing) playNext(speed); };
    var played = audio.play();
    // Where the browser refuses to play (no sound, no gesture yet), the clip's time still passes.
    if (played && played.catch) played.catch(function () { timer = setTimeout(function () { playNext(speed); }, phrase.duration / speed / 1000); });
  }

  function begin() {
    try {
      session = new window.LoopStudy.Session(groups, settings(), selected.slice());
      if (kept.group !== undefined && kept.group !== null) session.startAt(kept.group, kept.phrase);
      current = { startedAt: new Date().toISOString(), phrases: [] };
      log.sessions = (log.sessions || 0) + 1;
    } catch (error) {
      status.textContent = error.message;
      return;
    }
    keepForOffline(session.selection);
    next();
  }

  // Before the first start, the keys and blocks change the selection and settings to start with.
  function beforeStart(name, group) {
    if (name === "playPause") { begin(); return; }
    if (name === "select") selected = [group];
    else if (name === "toggle") {
      var at = selected.indexOf(group);
      if (at >= 0) selected.splice(at, 1); else selected.push(group);
    } else if (name === "selectAll") selected = [];
    else if (name === "switchMode") form.mode.value = form.mode.value === "repeat-with-me" ? "listen-and-repeat" : "repeat-with-me";
    else if (name === "faster" || name === "slower") {
      var speed = Math.round((Number(form.speed.value) + (name === "faster" ? 0.1 : -0.1)) * 10) / 10;
      choose(form.speed, Math.min(Math.max(speed, 0.5), 1.5));
    } else return;
    if (name === "select" || name === "toggle" || name === "selectAll") kept.group = kept.phrase = null;
    savePlace();
    show();
  }

  function event(name, group) {
    if (!session) { beforeStart(name, group); return; }
    if (name === "playPause" && session.display().phase === "finished") { begin(); return; }
    var reaction = session.handle({ event: name, group: group }, now());
    // The form shows what the keys changed (the mode, the speed).
    form.mode.value = session.settings.mode;
    choose(form.speed, session.settings.speed);
    savePlace();
    if (reaction === "interrupt" || reaction === "resume") next();
    else if (reaction === "pause") { stopSound(); saveProgress(); show(); }
    else show();
  }

  blocks.forEach(function (block) {
    block.addEventListener("click", function () { event("toggle", Number(block.getAttribute("data-block"))); });
  });
  // A setting changed while studying applies from the phrase under way, in the same session; a
  // paused session stays paused.
  Object.keys(form).forEach(function (key) {
    form[key].addEventListener("change", function () {
      if (session) {
        if (key === "mode") {
          if (session.settings.mode !== form.mode.value) { event("switchMode"); return; }
        } else {
          var chosen = settings();
          session.settings.repeats = chosen.repeats;
          session.settings.gapFactor = chosen.gapFactor;
          session.settings.speed = chosen.speed;
        }
        show();
      }
      savePlace();
    });
  });
  start.addEventListener("click", function () { event("playPause"); });
  // A button clicked with a mouse or a finger lets go of the focus: space then pauses, as it
  // does anywhere on the page, rather than pressing the button again.
  root.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("button");
    if (button && e.detail > 0) button.blur();
  });

  // Record yourself (shadowing): the phrase under way plays, then the microphone (asked for on
  // first use) records as long as the phrase and a half; the model plays again and then your
  // reading. The last reading of each phrase is kept in this browser (IndexedDB) and nowhere else.
  var database = null;
  function takes() {
    if (database) return database;
    database = new Promise(function (resolve, reject) {
      var opening = indexedDB.open("looplearn-takes", 1);
      opening.onupgradeneeded = function () { opening.result.createObjectStore("takes"); };
      opening.onsuccess = function () { resolve(opening.result); };
      opening.onerror = function () { reject(opening.error); };
    });
    return database;
  }
  function takeKey(number) { return loopId + ":" + number; }
  function keepTake(number, blob) {
    return takes().then(function (db) {
      return new Promise(function (resolve, reject) {
        var writing = db.transaction("takes", "readwrite");
        writing.objectStore("takes").put(blob, takeKey(number));
        writing.oncomplete = resolve;
        writing.onerror = function () { reject(writing.error); };
      });
    });
  }
  function keptTake(number) {
    return takes().then(function (db) {
      return new Promise(function (resolve) {
        var reading = db.transaction("takes").objectStore("takes").get(takeKey(number));
        reading.onsuccess = function () { resolve(reading.result || null); };
        reading.onerror = function () { resolve(null); };
      });
    });
  }
  function currentPhrase() {
    var shown = session ? session.display().phrase : null;
    var first = phrases.filter(function (p) { return selected.length === 0 || selected.indexOf(p.group) >= 0; })[0] || phrases[0];
    return phrases.filter(function (p) { return p.number === shown; })[0] || first;
  }
  // One sound at a time beside the study ("model, then mine", recording): the study pauses
  // first, and studying again stops it.
  var solo = null, asideRun = 0;
  function stopAside() {
    asideRun += 1;
    var player = solo;
    solo = null;
    if (player) { player.pause(); player.onended(); }
    aside = false;
    pad.classList.remove("recording");
  }
  // Pauses the study for a sound beside it; the number that names this run (a later one, or
  // studying again, ends it).
  function pauseStudy() {
    if (session && ["paused", "finished"].indexOf(session.display().phase) < 0) event("playPause");
    stopAside();
    aside = true;
    return asideRun;
  }
  function speed() { return session ? session.settings.speed : Number(form.speed.value); }
  function playOnce(src, rate) {
    return new Promise(function (resolve) {
      var player = new Audio(src);
      player.preservesPitch = true;
      player.playbackRate = rate || 1;
      solo = player;
      player.onended = function () { if (solo === player) solo = null; resolve(true); };
      player.onerror = function () { if (solo === player) solo = null; resolve(false); };
      var started = player.play();
      if (started && started.catch) started.catch(function () { resolve(false); });
    });
  }
  function modelThenMine(phrase) {
    var run = pauseStudy();
    return keptTake(phrase.number).then(function (blob) {
      if (run !== asideRun) return;
      if (!blob) { status.textContent = "No reading of phrase " + phrase.number + " yet: record yourself first."; return; }
      status.textContent = "Phrase " + phrase.number + ": the model, then you.";
      drawCompare(phrase.clip, blob);
      log.clips.push({ phrase: phrase.number, rate: speed() });
      return playOnce(phrase.clip, speed()).then(function () {
        if (run !== asideRun) return;
        var url = URL.createObjectURL(blob);
        log.clips.push({ take: phrase.number, bytes: blob.size });
        return playOnce(url, 1).then(function (played) {
          URL.revokeObjectURL(url);
          log.playedTakes = (log.playedTakes || 0) + (played ? 1 : 0);
          if (run === asideRun) status.textContent = "Phrase " + phrase.number + ": the model, then you. Space studies on.";
        });
      });
    });
  }
  // The model above, the reading below, drawn by compare.js, fetched the first time (the
  // player a phone loads stays small).
  function drawCompare(clip, blob) {
    var draw = function () { window.loopCompare(root.querySelector("canvas.compare"), clip, blob, log); };
    if (window.loopCompare) return draw();
    var tag = document.createElement("script");
    tag.src = "/compare.js";
    tag.onload = draw;
    document.head.appendChild(tag);
  }
  function recordMyself() {
    var phrase = currentPhrase();
    var run = pauseStudy();
    if (!navigator.mediaDevices || !window.MediaRecorder) { status.textContent = "This browser cannot record."; return; }
    status.textContent = "Phrase " + phrase.number + ": listen…";
    playOnce(phrase.clip, speed()).then(function () {
      if (run !== asideRun) throw new Error("stopped");
      return navigator.mediaDevices.getUserMedia({ audio: true });
    }).then(function (stream) {
      var chunks = [], recorder = new MediaRecorder(stream);
      recorder.ondataavailable = function (e) { if (e.data.size) chunks.push(e.data); };
      var stopped = new Promise(function (resolve) { recorder.onstop = resolve; });
      recorder.start();
      pad.classList.add("recording");
      status.textContent = "● Recording phrase " + phrase.number + ": your turn…";
      setTimeout(function () { recorder.stop(); }, phrase.duration / speed() * 1.5 / 1000 + 500);
      return stopped.then(function () {
        pad.classList.remove("recording");
        stream.getTracks().forEach(function (track) { track.stop(); });
        var blob = new Blob(chunks, { type: recorder.mimeType || "audio/webm" });
        log.recorded = { phrase: phrase.number, bytes: blob.size };
        return keepTake(phrase.number, blob);
      });
    }).then(function () { if (run === asideRun) return modelThenMine(phrase); }, function (error) {
      pad.classList.remove("recording");
      if (run !== asideRun) return;
      status.textContent = "Recording did not start: " + (error && error.name === "NotAllowedError" ? "the microphone was not allowed." : String(error && error.message || error));
    });
  }
  root.querySelector("button[data-action=record]").addEventListener("click", recordMyself);
  root.querySelector("button[data-action=mine]").addEventListener("click", function () { modelThenMine(currentPhrase()); });
  root.querySelector("button[data-action=export]").addEventListener("click", exportProgress);
  // Leaving the page: what was heard so far counts.
  window.addEventListener("pagehide", function () { if (session) { session.stop(now()); saveProgress(); savePlace(); } });
  root.querySelectorAll("button[data-event]").forEach(function (button) {
    button.addEventListener("click", function () { event(button.getAttribute("data-event")); });
  });

  document.addEventListener("keydown", function (key) {
    if (key.altKey || key.ctrlKey || key.metaKey) return;
    var target = key.target && key.target.tagName;
    if (target === "INPUT" || target === "SELECT" || target === "TEXTAREA" || target === "BUTTON" && (key.key === " " || key.key === "Enter")) return;
    var name = { " ": "playPause", ArrowRight: "nextPhrase", ArrowLeft: "previousPhrase", ArrowDown: "nextGroup", ArrowUp: "previousGroup",
                 PageDown: "nextGroup", PageUp: "previousGroup", m: "switchMode", "+": "faster", "=": "faster", "-": "slower",
                 a: "selectAll" }[key.key];
    var digit = /^Digit([1-9])$/.exec(key.code || "");
    var group = digit ? Number(digit[1]) - 1 : undefined;
    if (digit && group < groupCount) name = key.shiftKey ? "toggle" : "select";
    else if (digit) return;
    if (key.key === "t" || key.key === "h") {
      if (key.key === "t") showTranslation = !showTranslation; else hideText = !hideText;
      key.preventDefault();
      show();
      return;
    }
    if (key.key === "?") {
      var keys = root.querySelector(".keys");
      keys.hidden = !keys.hidden;
      key.preventDefault();
      return;
    }
    if (!name) return;
    key.preventDefault();
    event(name, group);
  });

  // Touch: a double tap, or a swipe, on the study area.
  var touch = null, lastTap = 0, lastTouch = 0;
  var area = root.querySelector(".pad");
  area.addEventListener("touchstart", function (e) {
    // A touch on a control is that control's.
    if (e.target.closest && e.target.closest("button, select, a, input")) { touch = null; return; }
    var t = e.changedTouches[0];
    touch = { x: t.clientX, y: t.clientY, at: Date.now() };
  }, { passive: true });
  area.addEventListener("touchend", function (e) {
    if (!touch) return;
    lastTouch = Date.now();
    var t = e.changedTouches[0], dx = t.clientX - touch.x, dy = t.clientY - touch.y;
    touch = null;
    // (A touch the browser took as a scroll cannot be cancelled: it is not asked to be.)
    if (Math.max(Math.abs(dx), Math.abs(dy)) > 40) {
      if (e.cancelable) e.preventDefault();
      if (Math.abs(dx) > Math.abs(dy)) event(dx < 0 ? "nextPhrase" : "previousPhrase");
      else event(dy < 0 ? "nextGroup" : "previousGroup");
      return;
    }
    var at = Date.now();
    if (at - lastTap < 350) { if (e.cancelable) e.preventDefault(); lastTap = 0; event("playPause"); } else lastTap = at;
  });
  // A mouse's double click; a double tap's own (a browser may make one of it) is not another,
  // nor a double click on a control (two clicks of →).
  area.addEventListener("dblclick", function (e) {
    if (e.target.closest && e.target.closest("button, select, a, input")) return;
    if (Date.now() - lastTouch > 1000) event("playPause");
  });
  show();
  showProgress();
  showDue();

  // Offline: the service worker keeps what the page fetches whole (a player asks for ranges,
  // which are not kept). Opening the page fetches no clip; starting to study keeps the clips
  // of the groups studied, and "Keep for offline study" the whole loop.
  var worker = "serviceWorker" in navigator && window.caches
    ? navigator.serviceWorker.register("/sw.js").then(function () { return navigator.serviceWorker.ready; }) : null;
  var keepButton = root.querySelector("button[data-action=keep]");
  keepButton.hidden = !worker;
  if (worker) worker.then(function () { log.workerReady = true; });
  function keepForOffline(selection) {
    if (!worker) return Promise.resolve(false);
    var urls = phrases.filter(function (p) { return !selection || selection.length === 0 || selection.indexOf(p.group) >= 0; })
      .map(function (p) { return p.clip; }).concat([location.pathname, "/player.js", "/style.css", "/copy.js"]);
    return worker.then(function () {
      log.keptClips = (log.keptClips || 0) + urls.length - 4;
      return Promise.all(urls.map(function (url) {
        return caches.match(url).then(function (kept) { return kept || fetch(url).then(function (r) { return r.ok; }); });
      }));
    }).then(function (answers) { return answers.every(Boolean); }, function () { return false; });
  }
  keepButton.addEventListener("click", function () {
    keepButton.disabled = true;
    keepButton.textContent = "Keeping…";
    keepForOffline(null).then(function (whole) {
      log.offline = whole;
      keepButton.textContent = whole ? "Kept for offline study" : "Could not keep it all: try again";
      keepButton.disabled = whole;
    });
  });
})();
