// The loop page's "Model, then mine", drawn: the model above, the learner's reading below,
// each decoded by the browser: its waveform, and its pitch in semitones from that voice's
// middle (the dots). Loaded by player.js the first time it is needed.
(function () {
  "use strict";
  window.loopCompare = function (canvas, clip, blob, log) {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    var context = new Context();
    Promise.all([fetch(clip).then(function (r) { return r.arrayBuffer(); }), blob.arrayBuffer()]).then(function (data) {
      return Promise.all(data.map(function (d) { return context.decodeAudioData(d); }));
    }).then(function (decoded) {
      var g = canvas.getContext("2d"), w = canvas.width, h = canvas.height / 2;
      canvas.hidden = false;
      g.clearRect(0, 0, w, 2 * h);
      log.compared = decoded.map(function (audio, row) {
        var s = audio.getChannelData(0), top = row * h, step = s.length / w, x, i, low, high;
        g.fillStyle = row ? "#b55" : "#358";
        for (x = 0; x < w; x++) {
          for (low = 0, high = 0, i = Math.floor(x * step); i < (x + 1) * step; i++) { low = Math.min(low, s[i]); high = Math.max(high, s[i]); }
          g.fillRect(x, top + h / 2 - high * h / 2, 1, Math.max(1, (high - low) * h / 2));
        }
        var pitch = contour(s, audio.sampleRate), voiced = pitch.filter(Boolean).sort(function (a, b) { return a - b; });
        g.fillStyle = "#111";
        g.fillText(row ? "you" : "model", 4, top + 12);
        pitch.forEach(function (f, k) { if (f) g.fillRect(k * w / pitch.length, top + h / 2 - Math.log2(f / voiced[voiced.length >> 1]) * h / 2, 3, 3); });
        return voiced.length;
      });
      context.close();
    }).catch(function () { canvas.hidden = true; });
  };
  // Pitch every 20 ms (60-400 Hz) by autocorrelation of the signal at a quarter of its rate; 0 unvoiced.
  function contour(samples, rate) {
    var s = [], i, out = [];
    for (i = 0; i + 4 <= samples.length; i += 4) s.push((samples[i] + samples[i + 1] + samples[i + 2] + samples[i + 3]) / 4);
    rate /= 4;
    for (var start = 0, size = Math.round(rate / 25); start + size < s.length; start += Math.round(rate / 50)) {
      var energy = 0, best = 0, lag = 0;
      for (i = 0; i < size; i++) energy += s[start + i] * s[start + i];
      for (var l = Math.floor(rate / 400); l <= rate / 60; l++) {
        for (var c = 0, j = 0; j + l < size; j++) c += s[start + j] * s[start + j + l];
        if (c > best) { best = c; lag = l; }
      }
      out.push(energy > 1e-4 && best > 0.5 * energy ? rate / lag : 0);
    }
    return out;
  }
})();
