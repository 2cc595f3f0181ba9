// The loop page's study player: the loop's groups as blocks to select, the two modes with the
// terminal's settings, and the engine of study.js deciding what plays and what is left silent.
// Keys: space starts and pauses, ← → the previous or next phrase, ↑ ↓ (and Page Up, Page Down)
// the previous or next group. On a touch screen: double tap starts and stops, swipe left or
// right for the next or previous phrase, up or down for the next or previous group. The page
// works without it: each phrase keeps its own player.
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
    '<div class="pad" aria-live="polite"><p class="status"></p><div class="controls">' +
    '<button type="button" data-event="previousGroup" aria-label="Previous group">⇞</button>' +
    '<button type="button" data-event="previousPhrase" aria-label="Previous phrase">←</button>' +
    '<button type="button" data-action="start">Start</button>' +
    '<button type="button" data-event="nextPhrase" aria-label="Next phrase">→</button>' +
    '<button type="button" data-event="nextGroup" aria-label="Next group">⇟</button></div>' +
    '<p class="hint">Space starts and pauses, ← → phrase, ↑ ↓ group; on a phone, double tap here to start or stop, ' +
    "swipe left or right for the phrase, up or down for the group.</p></div>" +
    '<div class="mine"><button type="button" data-action="record">Record myself</button> ' +
    '<button type="button" data-action="mine">Model, then mine</button></div>' +
    '<p class="progress"></p><p><button type="button" data-action="export">Export my progress</button></p>';
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
  var loopId = root.getAttribute("data-loop");
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
    if (sessions.indexOf(current) < 0) sessions.push(current);
    try { localStorage.setItem(progressKey, JSON.stringify(sessions)); } catch (error) { /* full or refused: kept for this visit */ }
    showProgress();
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
    progressLine.textContent = sessions.length
      ? "Your progress (kept in this browser): " + total + " repetitions in " + Math.round(seconds / 60) + " min over " + sessions.length +
        " session" + (sessions.length === 1 ? "" : "s") + ", last on " + last.slice(0, 10) + "."
      : "Your progress is kept in this browser once you study.";
  }
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
  var selected = [];
  var session = null, timer = null, queue = [], playing = false;
  // What was rendered, step by step (the tests read it): the engine's steps, and each clip as it
  // started with its rate.
  var log = { steps: [], clips: [] };
  window.loopPlayer = log;

  function now() { return Math.round(performance.now() * 1000); }

  function showBlocks() {
    blocks.forEach(function (block) {
      var group = Number(block.getAttribute("data-block"));
      var on = session ? session.selection.indexOf(group) >= 0 : selected.indexOf(group) >= 0;
      block.setAttribute("aria-pressed", on ? "true" : "false");
    });
  }

  function show() {
    showBlocks();
    document.querySelectorAll("li.playing").forEach(function (item) { item.classList.remove("playing"); });
    if (!session) { status.textContent = "Select blocks, then start (space, or double tap)."; start.textContent = "Start"; return; }
    var shown = session.display();
    start.textContent = shown.phase === "paused" || shown.phase === "finished" ? "Start" : "Pause";
    var phrase = phrases.filter(function (p) { return p.number === shown.phrase; })[0];
    if (phrase) phrase.item.classList.add("playing");
    status.textContent = "Group " + (shown.group + 1) + (shown.phrase ? ", phrase " + shown.phrase : "") + " · " + shown.phase +
      " · " + (shown.mode === "repeat-with-me" ? "repeat with me" : "listen and repeat") + " · " + shown.speed + "×";
  }

  function settings() {
    return { mode: form.mode.value, repeats: Number(form.repeats.value), gapFactor: Number(form.gap.value), speed: Number(form.speed.value) };
  }

  function stopSound() {
    clearTimeout(timer);
    timer = null;
    queue = [];
    playing = false;
    audio.pause();
  }

  // Renders steps one after another until the engine has none (paused or over).
  function next() {
    stopSound();
    var step = session.nextStep(now());
    saveProgress();
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
      current = { startedAt: new Date().toISOString(), phrases: [] };
    } catch (error) {
      status.textContent = error.message;
      return;
    }
    next();
  }

  function event(name, group) {
    if (!session) {
      if (name === "playPause") begin();
      return;
    }
    if (name === "playPause" && session.display().phase === "finished") { begin(); return; }
    var reaction = session.handle({ event: name, group: group }, now());
    if (reaction === "interrupt" || reaction === "resume") next();
    else if (reaction === "pause") { stopSound(); saveProgress(); show(); }
    else show();
  }

  blocks.forEach(function (block) {
    block.addEventListener("click", function () {
      var group = Number(block.getAttribute("data-block"));
      if (session) { event("toggle", group); return; }
      var at = selected.indexOf(group);
      if (at >= 0) selected.splice(at, 1); else selected.push(group);
      showBlocks();
    });
  });
  // A setting changed while studying starts the session again with it.
  Object.keys(form).forEach(function (key) {
    form[key].addEventListener("change", function () {
      if (!session) return;
      selected = session.selection.slice();
      stopSound();
      begin();
    });
  });
  start.addEventListener("click", function () { event("playPause"); });

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
  function playOnce(src, rate) {
    return new Promise(function (resolve) {
      var player = new Audio(src);
      player.playbackRate = rate || 1;
      player.onended = function () { resolve(true); };
      player.onerror = function () { resolve(false); };
      var started = player.play();
      if (started && started.catch) started.catch(function () { resolve(false); });
    });
  }
  function modelThenMine(phrase) {
    return keptTake(phrase.number).then(function (blob) {
      if (!blob) { status.textContent = "No reading of phrase " + phrase.number + " yet: record yourself first."; return; }
      status.textContent = "Phrase " + phrase.number + ": the model, then you.";
      log.clips.push({ phrase: phrase.number, rate: 1 });
      return playOnce(phrase.clip, 1).then(function () {
        var url = URL.createObjectURL(blob);
        log.clips.push({ take: phrase.number, bytes: blob.size });
        return playOnce(url, 1).then(function (played) { URL.revokeObjectURL(url); log.playedTakes = (log.playedTakes || 0) + (played ? 1 : 0); });
      });
    });
  }
  function recordMyself() {
    var phrase = currentPhrase();
    if (session && session.display().phase !== "paused") event("playPause");
    if (!navigator.mediaDevices || !window.MediaRecorder) { status.textContent = "This browser cannot record."; return; }
    status.textContent = "Phrase " + phrase.number + ": listen…";
    playOnce(phrase.clip, 1).then(function () {
      return navigator.mediaDevices.getUserMedia({ audio: true });
    }).then(function (stream) {
      var chunks = [], recorder = new MediaRecorder(stream);
      recorder.ondataavailable = function (e) { if (e.data.size) chunks.push(e.data); };
      var stopped = new Promise(function (resolve) { recorder.onstop = resolve; });
      recorder.start();
      status.textContent = "Phrase " + phrase.number + ": your turn (recording)…";
      setTimeout(function () { recorder.stop(); }, phrase.duration * 1.5 / 1000 + 500);
      return stopped.then(function () {
        stream.getTracks().forEach(function (track) { track.stop(); });
        var blob = new Blob(chunks, { type: recorder.mimeType || "audio/webm" });
        log.recorded = { phrase: phrase.number, bytes: blob.size };
        return keepTake(phrase.number, blob);
      });
    }).then(function () { return modelThenMine(phrase); }, function (error) {
      status.textContent = "Recording did not start: " + (error && error.name === "NotAllowedError" ? "the microphone was not allowed." : String(error && error.message || error));
    });
  }
  root.querySelector("button[data-action=record]").addEventListener("click", recordMyself);
  root.querySelector("button[data-action=mine]").addEventListener("click", function () { modelThenMine(currentPhrase()); });
  root.querySelector("button[data-action=export]").addEventListener("click", exportProgress);
  // Leaving the page: what was heard so far counts.
  window.addEventListener("pagehide", function () { if (session) { session.stop(now()); saveProgress(); } });
  root.querySelectorAll("button[data-event]").forEach(function (button) {
    button.addEventListener("click", function () { event(button.getAttribute("data-event")); });
  });

  document.addEventListener("keydown", function (key) {
    if (key.altKey || key.ctrlKey || key.metaKey) return;
    var target = key.target && key.target.tagName;
    if (target === "INPUT" || target === "SELECT" || target === "TEXTAREA" || target === "BUTTON" && key.key === " ") return;
    var name = { " ": "playPause", ArrowRight: "nextPhrase", ArrowLeft: "previousPhrase", ArrowDown: "nextGroup", ArrowUp: "previousGroup",
                 PageDown: "nextGroup", PageUp: "previousGroup" }[key.key];
    if (!name) return;
    key.preventDefault();
    event(name);
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
    if (Math.max(Math.abs(dx), Math.abs(dy)) > 40) {
      e.preventDefault();
      if (Math.abs(dx) > Math.abs(dy)) event(dx < 0 ? "nextPhrase" : "previousPhrase");
      else event(dy < 0 ? "nextGroup" : "previousGroup");
      return;
    }
    var at = Date.now();
    if (at - lastTap < 350) { e.preventDefault(); lastTap = 0; event("playPause"); } else lastTap = at;
  });
  // A mouse's double click; a double tap's own (a browser may make one of it) is not another.
  area.addEventListener("dblclick", function () { if (Date.now() - lastTouch > 1000) event("playPause"); });
  show();
  showProgress();

  // Offline: the service worker keeps what the page fetches; the page fetches its clips whole
  // once (the players ask for ranges, which are not kept), so that studying goes on without a
  // network once the page has been opened.
  if ("serviceWorker" in navigator && window.caches) {
    navigator.serviceWorker.register("/sw.js").then(function () { return navigator.serviceWorker.ready; }).then(function () {
      var urls = phrases.map(function (p) { return p.clip; }).concat([location.pathname, "/player.js", "/style.css", "/copy.js"]);
      return Promise.all(urls.map(function (url) {
        return caches.match(url).then(function (kept) { return kept || fetch(url).then(function (r) { return r.ok; }); });
      }));
    }).then(function () { log.offline = true; }, function () { log.offline = false; });
  }
})();
