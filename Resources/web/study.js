// The study engine of the loop page's player: the same state machine as the terminal's
// (Sources/LoopStudy/StudySession.swift), step for step. The player asks nextStep(now) for what
// to render (a clip to play or a silence to leave) whenever the previous step has been
// rendered, and passes the learner's events to handle(event, now), whose reaction says whether
// to cut the current step short. Times are microseconds. Tests/Fixtures/study-schedules.json,
// made by the Swift engine, is what Scripts/check-pages checks this file against.
"use strict";
(function (global) {
  var SPEEDS = [0.5, 1.5];
  var END_TOLERANCE = 20000;

  function StudyError(message) { this.message = message; }

  // Swift's rounded(): to the nearest, halves away from zero.
  function round(x) { return x < 0 ? -Math.round(-x) : Math.round(x); }

  function Session(groups, settings, selection) {
    var playable = [];
    for (var g = 0; g < groups.length; g++) if (groups[g].some(hasAudio)) playable.push(g);
    if (!playable.length) throw new StudyError("no phrase of this loop has audio yet");
    selection = selection || [];
    selection.forEach(function (group) {
      if (group < 0 || group >= groups.length) throw new StudyError("there is no group " + (group + 1));
    });
    var chosen = selection.length ? selection.filter(function (g) { return playable.indexOf(g) >= 0; }) : playable.slice();
    if (!chosen.length) throw new StudyError("the selected groups have no audio yet");
    this.settings = {
      mode: settings.mode || "repeat-with-me",
      repeats: settings.repeats === undefined ? 1 : settings.repeats,
      gapFactor: settings.gapFactor === undefined ? 1 : settings.gapFactor,
      fixedPause: settings.fixedPause === undefined ? 300000 : settings.fixedPause,
      speed: settings.speed === undefined ? 1 : settings.speed,
      rounds: settings.rounds === undefined ? null : settings.rounds
    };
    if (this.settings.repeats < 1) throw new StudyError("repeats must be at least 1");
    if (this.settings.gapFactor < 0) throw new StudyError("the gap factor cannot be negative");
    if (this.settings.speed < SPEEDS[0] || this.settings.speed > SPEEDS[1]) throw new StudyError("the speed must be between 0.5 and 1.5");
    this.groups = groups;
    this.selection = unique(chosen);
    this.study = {};
    // The groups studied through (every repeat of every phrase with audio), first finished first.
    this.studiedGroups = [];
    this.position = 0;
    this.phraseIndex = 0;
    this.repetition = 0;
    this.phase = "play";
    this.round = 0;
    this.paused = false;
    this.step = null;
  }

  function hasAudio(phrase) { return phrase.duration !== null && phrase.duration !== undefined; }
  function unique(list) {
    return list.filter(function (x, i) { return list.indexOf(x) === i; }).sort(function (a, b) { return a - b; });
  }

  Session.prototype.playablePhrases = function (group) { return this.groups[group].filter(hasAudio); };
  Session.prototype.isPlayable = function (group) {
    return group >= 0 && group < this.groups.length && this.groups[group].some(hasAudio);
  };
  Session.prototype.scaled = function (duration) { return round(duration / this.settings.speed); };
  Session.prototype.length = function (phrase) { return this.scaled(phrase.duration || 0); };

  // What to render next, now that the previous step is done; null when there is nothing to
  // play (paused, or the session is over). A step: {play: [numbers], speed, duration} or
  // {silence: duration}.
  Session.prototype.nextStep = function (now) {
    var done = this.step;
    if (done && !done.credited) {
      this.settle(now, true);
      if (done.gap) this.advanceAfterGap(this.playablePhrases(this.selection[this.position]).length);
    }
    if (this.paused || this.phase === "finished") return null;
    var self = this, phrases = this.playablePhrases(this.selection[this.position]);
    var phrase, duration, gap;
    if (this.settings.mode === "repeat-with-me") {
      phrase = phrases[this.phraseIndex];
      if (this.phase === "play") {
        this.phase = "gap";
        duration = this.length(phrase);
        this.step = { start: now, parts: [{ phrase: phrase.number, time: duration }], gap: false, credited: false };
        return { play: [phrase.number], speed: this.settings.speed, duration: duration };
      }
      gap = Math.trunc(this.length(phrase) * this.settings.gapFactor) + this.settings.fixedPause;
      this.step = { start: now, parts: [{ phrase: phrase.number, time: gap }], gap: true, credited: false };
      return { silence: gap };
    }
    duration = phrases.reduce(function (sum, p) { return sum + self.length(p); }, 0);
    if (this.phase === "play") {
      this.phase = "gap";
      this.step = { start: now, parts: phrases.map(function (p) { return { phrase: p.number, time: self.length(p) }; }), gap: false, credited: false };
      return { play: phrases.map(function (p) { return p.number; }), speed: this.settings.speed, duration: duration };
    }
    gap = Math.trunc(duration * this.settings.gapFactor);
    this.step = {
      start: now, gap: true, credited: false,
      parts: phrases.map(function (p) { return { phrase: p.number, time: Math.trunc(self.length(p) * self.settings.gapFactor) }; })
    };
    return { silence: gap };
  };

  Session.prototype.advanceAfterGap = function (count) {
    this.phase = "play";
    this.repetition += 1;
    if (this.repetition < this.settings.repeats) return;
    this.repetition = 0;
    if (this.settings.mode === "repeat-with-me") {
      this.phraseIndex += 1;
      if (this.phraseIndex < count) return;
    }
    var done = this.selection[this.position];
    if (this.studiedGroups.indexOf(done) < 0) this.studiedGroups.push(done);
    this.phraseIndex = 0;
    this.position += 1;
    if (this.position === this.selection.length) {
      this.position = 0;
      this.round += 1;
      if (this.settings.rounds !== null && this.round >= this.settings.rounds) this.phase = "finished";
    }
  };

  // Applies the learner's event ({event: "nextPhrase"}, {event: "toggle", group: 2}, ...); the
  // reaction says what the player must do now: "carryOn", "interrupt", "pause" or "resume".
  Session.prototype.handle = function (event, now) {
    var count;
    switch (event.event) {
    case "playPause":
      this.paused = !this.paused;
      if (this.paused) { this.restartCurrent(now); return "pause"; }
      return "resume";
    case "nextPhrase":
      if (this.settings.mode !== "repeat-with-me") return this.handle({ event: "nextGroup" }, now);
      count = this.playablePhrases(this.selection[this.position]).length;
      if (this.phraseIndex + 1 < count) this.phraseIndex += 1; else { this.moveGroup(1); this.phraseIndex = 0; }
      return this.restarted(now);
    case "previousPhrase":
      if (this.settings.mode !== "repeat-with-me") return this.handle({ event: "previousGroup" }, now);
      if (this.phraseIndex > 0) {
        this.phraseIndex -= 1;
      } else {
        this.moveGroup(-1);
        this.phraseIndex = this.playablePhrases(this.selection[this.position]).length - 1;
      }
      return this.restarted(now);
    case "nextGroup":
      this.moveGroup(1);
      this.phraseIndex = 0;
      return this.restarted(now);
    case "previousGroup":
      this.moveGroup(-1);
      this.phraseIndex = 0;
      return this.restarted(now);
    case "select":
      if (!this.isPlayable(event.group)) return "carryOn";
      this.selection = [event.group];
      this.position = 0;
      this.phraseIndex = 0;
      return this.restarted(now);
    case "toggle": {
      if (!this.isPlayable(event.group)) return "carryOn";
      var current = this.selection[this.position], group = event.group;
      if (this.selection.indexOf(group) >= 0) {
        if (this.selection.length <= 1) return "carryOn";
        this.selection = this.selection.filter(function (g) { return g !== group; });
        if (group === current) {
          this.position = Math.min(this.position, this.selection.length - 1);
          this.phraseIndex = 0;
          return this.restarted(now);
        }
      } else {
        this.selection = this.selection.concat([group]).sort(function (a, b) { return a - b; });
      }
      this.position = Math.max(this.selection.indexOf(current), 0);
      return "carryOn";
    }
    case "selectAll": {
      var before = this.selection[this.position], self = this;
      this.selection = this.groups.map(function (_, g) { return g; }).filter(function (g) { return self.isPlayable(g); });
      this.position = Math.max(this.selection.indexOf(before), 0);
      return "carryOn";
    }
    case "switchMode":
      this.settings.mode = this.settings.mode === "repeat-with-me" ? "listen-and-repeat" : "repeat-with-me";
      this.phraseIndex = 0;
      return this.restarted(now);
    case "faster":
    case "slower": {
      var step = event.event === "faster" ? 0.1 : -0.1;
      this.settings.speed = Math.min(Math.max(round((this.settings.speed + step) * 10) / 10, SPEEDS[0]), SPEEDS[1]);
      return "carryOn";
    }
    }
    return "carryOn";
  };

  // Before the first step: starts at `group` (one of the selection) and, repeating with me, at
  // phrase `number` (the page's place, kept across a reload). The Swift engine has no such
  // call: a terminal session starts at its first group.
  Session.prototype.startAt = function (group, number) {
    var at = this.selection.indexOf(group);
    if (this.step || at < 0) return;
    this.position = at;
    var index = this.playablePhrases(group).map(function (p) { return p.number; }).indexOf(number);
    this.phraseIndex = this.settings.mode === "repeat-with-me" && index >= 0 ? index : 0;
  };

  // Moves among the selected groups; with one selected, to the next group of the loop.
  Session.prototype.moveGroup = function (offset) {
    var n = this.selection.length;
    if (n > 1) { this.position = (this.position + offset + n) % n; return; }
    var self = this;
    var playable = this.groups.map(function (_, g) { return g; }).filter(function (g) { return self.isPlayable(g); });
    var index = Math.max(playable.indexOf(this.selection[0]), 0);
    this.selection = [playable[(index + offset + playable.length) % playable.length]];
    this.position = 0;
  };

  Session.prototype.restartCurrent = function (now) {
    this.settle(now, false);
    this.step = null;
    this.phase = "play";
    this.repetition = 0;
  };

  Session.prototype.restarted = function (now) {
    this.restartCurrent(now);
    return this.paused ? "carryOn" : "interrupt";
  };

  // Ends the session at `now`: the step under way counts as far as it got.
  Session.prototype.stop = function (now) {
    this.settle(now, false);
    this.step = null;
    this.phase = "finished";
  };

  // Credits the step under way: whole when it completed, else the part of it before `now`.
  Session.prototype.settle = function (now, completed) {
    var current = this.step;
    if (!current || current.credited) return;
    current.credited = true;
    var total = current.parts.reduce(function (sum, part) { return sum + part.time; }, 0);
    var elapsed = completed ? total : Math.min(Math.max(0, now - current.start), total);
    for (var i = 0; i < current.parts.length; i++) {
      var part = current.parts[i], time;
      if (!current.gap) {
        time = Math.min(part.time, elapsed);
        elapsed -= time;
      } else {
        time = total > 0 ? round(part.time * elapsed / total) : 0;
      }
      var heard = !current.gap && time >= part.time - END_TOLERANCE;
      if (time > 0 || heard) {
        var record = this.study[part.phrase] || (this.study[part.phrase] = { repetitions: 0, time: 0 });
        record.repetitions += heard ? 1 : 0;
        record.time += time;
      }
    }
  };

  // What to show now: the group (0-based) and phrase under way, and the phase.
  Session.prototype.display = function () {
    var phase;
    if (this.phase === "finished") phase = "finished";
    else if (this.paused) phase = "paused";
    else if (this.step && this.step.gap) phase = this.settings.mode === "repeat-with-me" ? "speak along" : "repeat aloud";
    else phase = "listening";
    var phrases = this.playablePhrases(this.selection[this.position]);
    var cursor = this.settings.mode === "repeat-with-me" ? phrases[Math.min(this.phraseIndex, phrases.length - 1)].number : null;
    var shown = this.step ? (this.step.parts.length === 1 ? this.step.parts[0].phrase : null) : cursor;
    var group = this.selection[this.position];
    if (this.step) {
      var first = this.step.parts[0].phrase;
      for (var g = 0; g < this.groups.length; g++) {
        if (this.groups[g].some(function (p) { return p.number === first; })) { group = g; break; }
      }
    }
    return { group: group, selection: this.selection.slice(), phrase: shown, phase: phase, mode: this.settings.mode,
             speed: this.settings.speed, repeats: this.settings.repeats,
             repetition: Math.min(this.repetition, this.settings.repeats - 1) + 1, round: this.round + 1 };
  };

  // The review schedule: FSRS 6 as the terminal's (Sources/LoopStudy/ReviewScheduling.swift) and
  // the reference implementation (the `fsrs` package, 6.3.2, without fuzz) compute it; checked
  // against Tests/Fixtures/review-vectors.json by Scripts/check-pages. A card: {state: 1
  // learning, 2 review, 3 relearning; step; stability; difficulty; due, lastReview (ms)}.
  var W = [0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614,
           0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542];
  var DAY = 86400000, DECAY = -W[20], FACTOR = Math.pow(0.9, 1 / DECAY) - 1;
  function Scheduler(options) {
    options = options || {};
    this.retention = options.desiredRetention || 0.9;
    this.learningSteps = options.learningSteps || [600];
    this.relearningSteps = options.relearningSteps || [600];
  }
  function clampDifficulty(d) { return Math.min(Math.max(d, 1), 10); }
  function initialDifficulty(rating) { return W[4] - Math.exp(W[5] * (rating - 1)) + 1; }
  // Python's round(): halves to even.
  function roundHalfEven(x) {
    var r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }
  Scheduler.prototype.interval = function (stability) {
    var days = roundHalfEven(stability / FACTOR * (Math.pow(this.retention, 1 / DECAY) - 1));
    return Math.min(Math.max(days, 1), 36500);
  };
  Scheduler.prototype.recall = function (card, at) {
    var elapsed = Math.max(0, Math.floor((at - card.lastReview) / DAY));
    return Math.pow(1 + FACTOR * elapsed / card.stability, DECAY);
  };
  Scheduler.prototype.review = function (card, rating, at) {
    card = { state: card.state, step: card.step, stability: card.stability, difficulty: card.difficulty,
             due: card.due, lastReview: card.lastReview };
    var sameDay = card.lastReview !== null && Math.floor((at - card.lastReview) / DAY) < 1;
    var self = this, interval;
    function shortTerm(s) {
      var increase = Math.exp(W[17] * (rating - 3 + W[18])) * Math.pow(s, -W[19]);
      if (rating > 1) increase = Math.max(increase, 1);
      return Math.max(s * increase, 0.001);
    }
    function longTerm() {
      var d = card.difficulty, s = card.stability, r = self.recall(card, at), next;
      if (rating === 1) {
        next = Math.min(W[11] * Math.pow(d, -W[12]) * (Math.pow(s + 1, W[13]) - 1) * Math.exp((1 - r) * W[14]),
                        s / Math.exp(W[17] * W[18]));
      } else {
        next = s * (1 + Math.exp(W[8]) * (11 - d) * Math.pow(s, -W[9]) * (Math.exp((1 - r) * W[10]) - 1) *
                    (rating === 2 ? W[15] : 1) * (rating === 4 ? W[16] : 1));
      }
      return Math.max(next, 0.001);
    }
    function nextDifficulty(d) {
      var damped = d + (10 - d) * -(W[6] * (rating - 3)) / 9;
      return clampDifficulty(W[7] * initialDifficulty(4) + (1 - W[7]) * damped);
    }
    function graduate() { card.state = 2; card.step = null; return self.interval(card.stability) * DAY; }
    if (card.state === 2) {
      card.stability = sameDay ? shortTerm(card.stability) : longTerm();
      card.difficulty = nextDifficulty(card.difficulty);
      if (rating === 1 && this.relearningSteps.length) {
        card.state = 3;
        card.step = 0;
        interval = this.relearningSteps[0] * 1000;
      } else {
        interval = this.interval(card.stability) * DAY;
      }
    } else {
      var steps = card.state === 1 ? this.learningSteps : this.relearningSteps, step = card.step || 0;
      if (card.stability === null) {
        card.stability = Math.max(W[rating - 1], 0.001);
        card.difficulty = clampDifficulty(initialDifficulty(rating));
      } else {
        card.stability = sameDay ? shortTerm(card.stability) : longTerm();
        card.difficulty = nextDifficulty(card.difficulty);
      }
      if (!steps.length || (step >= steps.length && rating > 1)) interval = graduate();
      else if (rating === 1) { card.step = 0; interval = steps[0] * 1000; }
      else if (rating === 2) interval = (step === 0 ? (steps.length === 1 ? steps[0] * 1.5 : (steps[0] + steps[1]) / 2) : steps[step]) * 1000;
      else if (rating === 3 && step + 1 < steps.length) { card.step = step + 1; interval = steps[step + 1] * 1000; }
      else interval = graduate();
    }
    card.due = at + interval;
    card.lastReview = at;
    return card;
  };
  // The card a group's reviews give ([{rating, at (ms)}], any order), or null for none.
  Scheduler.prototype.replay = function (reviews) {
    var self = this, sorted = reviews.slice().sort(function (a, b) { return a.at - b.at; });
    if (!sorted.length) return null;
    var card = { state: 1, step: 0, stability: null, difficulty: null, due: sorted[0].at, lastReview: null };
    sorted.forEach(function (r) { card = self.review(card, r.rating, r.at); });
    return card;
  };

  global.LoopStudy = { Session: Session, StudyError: StudyError, Scheduler: Scheduler };
})(typeof window !== "undefined" ? window : globalThis);
