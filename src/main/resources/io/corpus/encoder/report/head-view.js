// The head view: a sequence's tokens in two columns, lines weighted by the chosen heads' maps.
  // ---------------------------------------------------------------- head view
  function headView() {
    var sequences = data.sequences;
    if (!sequences.length) {
      hide('head-view', 'Head view: no sequence has attention maps (set output.attention.enabled).');
      return null;
    }
    var listeners = [];
    var measureSelect = document.getElementById('hv-measure');
    var measures = [];
    sequences.forEach(function (s) {
      if (measures.indexOf(s.measure) < 0) { measures.push(s.measure); }
    });
    measures.forEach(function (m) {
      measureSelect.appendChild(element('option', { value: m }, m));
    });
    document.getElementById('hv-measure-label').style.display = measures.length > 1 ? '' : 'none';
    var seqSelect = document.getElementById('hv-sequence');
    var layerSelect = document.getElementById('hv-layer');
    var svg = document.getElementById('hv-lines');
    var thumbs = document.getElementById('hv-thumbs');
    var statsTable = document.getElementById('hv-stats');
    var state = { sequence: 0, layer: null, heads: [], focus: null, pinned: false };

    sequences.forEach(function (s, i) {
      seqSelect.appendChild(element('option', { value: String(i), 'data-measure': s.measure },
        s.id + ' (' + s.length + ' tokens, ' + s.format + ')'));
    });
    function showSequences(measure) {
      Array.prototype.forEach.call(seqSelect.options, function (o) {
        o.hidden = o.dataset.measure !== measure;
        o.disabled = o.hidden;
      });
    }
    function layersOf(s) {
      var seen = [];
      s.maps.forEach(function (m) { if (seen.indexOf(m.layer) < 0) { seen.push(m.layer); } });
      return seen.sort(function (a, b) {   // layers in order, the rollout (-1) last
        return (a < 0 ? 1e9 : a) - (b < 0 ? 1e9 : b);
      });
    }
    function mapsOf(s, layer) {
      return s.maps.filter(function (m) { return m.layer === layer; });
    }
    // A norm-based map's values are α times a norm, not in [0, 1]: drawn relative to the largest
    // value of the sequence's maps (the rollout, of the weights, as it is).
    function weightsOf(m, s) {
      if (!m.values) {
        m.values = floats(m.weights);
        s = s || sequences[state.sequence];
        if (s.measure === 'norms' && m.layer >= 0) {
          if (s.largest === undefined) {
            s.largest = 0;
            s.maps.forEach(function (other) {
              if (other.layer < 0) { return; }
              floats(other.weights).forEach(function (v) { s.largest = Math.max(s.largest, v); });
            });
          }
          var scale = s.largest > 0 ? 1 / s.largest : 1;
          m.values = m.values.map(function (v) { return v * scale; });
        }
      }
      return m.values;
    }
    function headName(m) {
      return m.layer < 0 ? 'rollout' : m.head < 0 ? 'mean of heads' : 'head ' + m.head;
    }
    function colorOf(m) { return HEAD_COLORS[Math.max(0, m.head) % HEAD_COLORS.length]; }
    function tokenText(s, t) { return t < s.tokens.length ? readable(s.tokens[t]) : String(t); }

    function chooseSequence(i, layer, head) {
      state.sequence = i;
      var s = sequences[i];
      seqSelect.value = String(i);
      measureSelect.value = s.measure;
      showSequences(s.measure);
      clear(layerSelect);
      layersOf(s).forEach(function (l) {
        layerSelect.appendChild(element('option', { value: String(l) },
          l < 0 ? 'rollout' : String(l)));
      });
      chooseLayer(layer !== undefined && layersOf(s).indexOf(layer) >= 0 ? layer
        : layersOf(s)[0], head);
      listeners.forEach(function (f) { f(i); });
    }
    function chooseLayer(layer, head) {
      state.layer = layer;
      layerSelect.value = String(layer);
      var maps = mapsOf(sequences[state.sequence], layer);
      var chosen = maps.filter(function (m) { return m.head === head; });
      state.heads = [(chosen.length ? chosen[0] : maps[0]).head];
      state.focus = null;
      state.pinned = false;
      drawThumbs();
      drawLines();
    }
    function drawThumbs() {
      clear(thumbs);
      mapsOf(sequences[state.sequence], state.layer).forEach(function (m) {
        var box = element('div', { 'class': 'thumb', 'data-head': String(m.head),
          style: '--head:' + colorOf(m) });
        var canvas = element('canvas', { width: String(m.n), height: String(m.n) });
        var context = canvas.getContext('2d');
        var image = context.createImageData(m.n, m.n);
        var w = weightsOf(m);
        for (var p = 0; p < m.n * m.n; p++) {
          var v = Math.sqrt(Math.min(1, w[p]));   // square root: small weights stay visible
          image.data[4 * p] = Math.round(255 - 225 * v);
          image.data[4 * p + 1] = Math.round(255 - 175 * v);
          image.data[4 * p + 2] = Math.round(255 - 75 * v);
          image.data[4 * p + 3] = 255;
        }
        context.putImageData(image, 0, 0);
        box.appendChild(canvas);
        box.appendChild(element('div', {}, headName(m)));
        box.addEventListener('click', function (event) {
          var at = state.heads.indexOf(m.head);
          if (event.shiftKey || event.ctrlKey || event.metaKey) {
            if (at >= 0 && state.heads.length > 1) { state.heads.splice(at, 1); }
            else if (at < 0) { state.heads.push(m.head); }
          } else {
            state.heads = [m.head];
          }
          drawThumbs();
          drawLines();
        });
        if (state.heads.indexOf(m.head) >= 0) { box.classList.add('on'); }
        thumbs.appendChild(box);
      });
      drawStats();
    }
    function drawStats() {
      clear(statsTable);
      if (state.layer < 0 || !data.stats.heads.length) { return; }
      var header = element('tr');
      header.appendChild(element('th', {}, 'head'));
      data.stats.columns.forEach(function (c) { header.appendChild(element('th', {}, c)); });
      header.appendChild(element('th', {}, 'labels'));
      statsTable.appendChild(header);
      data.stats.heads.forEach(function (h) {
        if (h.layer !== state.layer || state.heads.indexOf(h.head) < 0) { return; }
        var row = element('tr', { 'data-head': String(h.head) });
        row.appendChild(element('td', {}, String(h.head)));
        h.means.forEach(function (v) { row.appendChild(element('td', {}, fixed(v, 3))); });
        row.appendChild(element('td', {}, h.labels.join(', ')));
        statsTable.appendChild(row);
      });
    }
    function drawLines() {
      var s = sequences[state.sequence];
      var maps = mapsOf(s, state.layer).filter(function (m) {
        return state.heads.indexOf(m.head) >= 0;
      });
      var n = maps[0].n;
      var rowHeight = 17, top = 14, left = 150, right = 370, width = 520;
      clear(svg);
      svg.setAttribute('width', String(width));
      svg.setAttribute('height', String(top * 2 + n * rowHeight));
      svg.dataset.layer = String(state.layer);
      svg.dataset.heads = state.heads.join(',');
      var y = function (t) { return top + t * rowHeight + rowHeight / 2; };
      var lines = element('svg:g', { 'class': 'lines' });
      maps.forEach(function (m) {
        var w = weightsOf(m);
        for (var q = 0; q < n; q++) {
          for (var k = 0; k < n; k++) {
            var v = w[q * n + k];
            if (v < MIN_WEIGHT) { continue; }
            lines.appendChild(element('svg:line', { x1: String(left + 6), y1: String(y(q)),
              x2: String(right - 6), y2: String(y(k)), stroke: colorOf(m),
              'stroke-opacity': String(v), 'data-head': String(m.head), 'data-q': String(q),
              'data-k': String(k), 'data-w': String(v) }));
          }
        }
      });
      svg.appendChild(lines);
      for (var t = 0; t < n; t++) {
        [['q', left, 'end'], ['k', right, 'start']].forEach(function (side) {
          var label = element('svg:text', { x: String(side[1]), y: String(y(t)),
            'text-anchor': side[2], 'class': 'token ' + side[0], 'data-side': side[0],
            'data-t': String(t) }, tokenText(s, t));
          label.addEventListener('mouseenter', function () {
            if (!state.pinned) { focus(side[0], Number(label.dataset.t)); }
          });
          label.addEventListener('mouseleave', function () {
            if (!state.pinned) { focus(null, 0); }
          });
          label.addEventListener('click', function () {
            var same = state.focus && state.focus.side === side[0]
              && state.focus.t === Number(label.dataset.t);
            state.pinned = !(state.pinned && same);
            focus(state.pinned ? side[0] : null, Number(label.dataset.t));
          });
          svg.appendChild(label);
        });
      }
      document.getElementById('hv-note').textContent = (n < s.length
        ? 'the first ' + n + ' of ' + s.length + ' tokens; ' : '')
        + (s.measure === 'norms' && state.layer >= 0 ? 'norm-based maps, drawn relative to '
          + 'the largest value of the sequence; ' : '')
        + (s.format === 'top-k' && state.layer >= 0 ? 'top-k maps: only the k largest weights '
          + 'of each query were written' : 'weights below ' + MIN_WEIGHT + ' not drawn');
      if (state.focus) { focus(state.focus.side, state.focus.t); }
    }
    function focus(side, t) {
      state.focus = side ? { side: side, t: t } : null;
      svg.dataset.focus = side ? side + t : '';
      var attribute = side === 'q' ? 'data-q' : 'data-k';
      Array.prototype.forEach.call(svg.querySelectorAll('line'), function (line) {
        line.style.display = !side || line.getAttribute(attribute) === String(t) ? '' : 'none';
      });
      Array.prototype.forEach.call(svg.querySelectorAll('text'), function (label) {
        label.classList.toggle('on', !!side && label.dataset.side === side
          && label.dataset.t === String(t));
      });
    }
    seqSelect.addEventListener('change', function () { chooseSequence(Number(seqSelect.value)); });
    layerSelect.addEventListener('change', function () { chooseLayer(Number(layerSelect.value)); });
    // The other measure of the same sequence, at the same layer and head, where it was written.
    measureSelect.addEventListener('change', function () {
      var now = sequences[state.sequence];
      var same = -1, first = -1;
      sequences.forEach(function (s, i) {
        if (s.measure !== measureSelect.value) { return; }
        if (first < 0) { first = i; }
        if (s.id === now.id && same < 0) { same = i; }
      });
      chooseSequence(same >= 0 ? same : first, state.layer, state.heads[0]);
    });
    chooseSequence(0);
    return {
      sequences: sequences,
      current: function () { return state.sequence; },
      show: function (i, layer, head) { chooseSequence(i, layer, head); },
      onSequence: function (f) { listeners.push(f); },
      weightsOf: weightsOf,
      layersOf: layersOf,
      mapsOf: mapsOf
    };
  }

  // WordPiece, SentencePiece and byte-level BPE pieces, as a reader would write them.
  function readable(token) {
    return String(token).replace(/^\u2581/, ' ').replace(/^\u0120/, ' ').replace(/\u010a/g, '\\n');
  }
