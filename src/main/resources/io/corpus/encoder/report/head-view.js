// The head view: a sequence's tokens in two columns, lines weighted by the chosen heads' maps.
  // ---------------------------------------------------------------- head view
  function headView() {
    var sequences = data.sequences;
    if (!sequences.length) {
      hide('head-view', 'Head view: no sequence has attention maps (set output.attention.enabled).');
      return;
    }
    var seqSelect = document.getElementById('hv-sequence');
    var layerSelect = document.getElementById('hv-layer');
    var svg = document.getElementById('hv-lines');
    var thumbs = document.getElementById('hv-thumbs');
    var statsTable = document.getElementById('hv-stats');
    var state = { sequence: 0, layer: null, heads: [], focus: null, pinned: false };

    sequences.forEach(function (s, i) {
      seqSelect.appendChild(element('option', { value: String(i) },
        s.id + ' (' + s.length + ' tokens, ' + s.format + ')'));
    });
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
    function weightsOf(m) {
      if (!m.values) { m.values = floats(m.weights); }
      return m.values;
    }
    function headName(m) {
      return m.layer < 0 ? 'rollout' : m.head < 0 ? 'mean of heads' : 'head ' + m.head;
    }
    function colorOf(m) { return HEAD_COLORS[Math.max(0, m.head) % HEAD_COLORS.length]; }
    function tokenText(s, t) { return t < s.tokens.length ? readable(s.tokens[t]) : String(t); }

    function chooseSequence(i) {
      state.sequence = i;
      var s = sequences[i];
      clear(layerSelect);
      layersOf(s).forEach(function (l) {
        layerSelect.appendChild(element('option', { value: String(l) },
          l < 0 ? 'rollout' : String(l)));
      });
      chooseLayer(layersOf(s)[0]);
    }
    function chooseLayer(layer) {
      state.layer = layer;
      layerSelect.value = String(layer);
      var maps = mapsOf(sequences[state.sequence], layer);
      state.heads = [maps[0].head];
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
    chooseSequence(0);
  }

  // WordPiece, SentencePiece and byte-level BPE pieces, as a reader would write them.
  function readable(token) {
    return String(token).replace(/^\u2581/, ' ').replace(/^\u0120/, ' ').replace(/\u010a/g, '\\n');
  }
