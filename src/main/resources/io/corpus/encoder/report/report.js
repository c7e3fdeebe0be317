// The report's three views, drawn from the JSON in #report-data (see ReportData.java): the head
// view (SVG lines between a sequence's tokens), the corpus map (a canvas of the pooled vectors in
// 2-D) and the neighbours (tables). No library, no network. Arrays of numbers arrive as base64 of
// little-endian float32 / int32. body[data-ready] is set to the milliseconds since navigation
// when everything is drawn; body[data-errors] counts errors.
(function () {
  'use strict';
  var body = document.body;
  window.addEventListener('error', function () {
    body.dataset.errors = String(Number(body.dataset.errors) + 1);
  }, true);
  window.addEventListener('load', function () {
    var images = Array.prototype.slice.call(document.images);
    var loaded = images.filter(function (i) { return i.complete && i.naturalWidth > 0; });
    body.dataset.images = loaded.length + '/' + images.length;
  });

  var SVG = 'http://www.w3.org/2000/svg';
  // Lines lighter than this are not drawn: invisible, and they would only slow the page.
  var MIN_WEIGHT = 0.001;
  var HEAD_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf',
    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#393b79', '#637939', '#843c39', '#7b4173',
    '#3182bd', '#e6550d'];
  var CATEGORY_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948',
    '#b07aa1', '#ff9da7', '#9c755f', '#17becf', '#1f77b4', '#d62728', '#2ca02c', '#9467bd',
    '#8c564b', '#e377c2', '#bcbd22', '#393b79', '#637939', '#843c39'];
  var OTHER_COLOR = '#bbbbbb';

  var data = JSON.parse(document.getElementById('report-data').textContent);

  function buffer(b64) {
    var s = atob(b64);
    var bytes = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) { bytes[i] = s.charCodeAt(i); }
    return bytes.buffer;
  }
  function floats(b64) { return new Float32Array(buffer(b64)); }
  function ints(b64) { return new Int32Array(buffer(b64)); }

  function element(tag, attributes, text) {
    var e = tag.indexOf('svg:') === 0 ? document.createElementNS(SVG, tag.substring(4))
      : document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (k) { e.setAttribute(k, attributes[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function clear(e) { while (e.firstChild) { e.removeChild(e.firstChild); } }
  function hide(section, why) {
    var s = document.getElementById(section);
    clear(s);
    s.appendChild(element('p', { 'class': 'note' }, why));
  }
  function fixed(v, digits) { return Number(v).toFixed(digits); }

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

  // ---------------------------------------------------------------- corpus map
  var map = data.map;
  var selectRow = function () {};   // set by neighbours(): shows a row's neighbours

  function corpusMap() {
    if (!map) {
      hide('corpus-map', 'Corpus map: no pooled vectors (output.pooling = none, or '
        + 'output.report.map-points = 0).');
      return null;
    }
    var n = map.ids.length;
    var x = floats(map.x), y = floats(map.y);
    var canvas = document.getElementById('map-canvas');
    var tip = document.getElementById('map-tip');
    var ratio = window.devicePixelRatio || 1;
    var width = 800, height = 520;
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    canvas.dataset.points = String(n);
    var context = canvas.getContext('2d');

    // colours: the 20 most frequent values of the colour column, the rest grey
    var counts = {};
    map.colors.forEach(function (c) { if (c !== null) { counts[c] = (counts[c] || 0) + 1; } });
    var values = Object.keys(counts).sort(function (a, b) {
      return counts[b] - counts[a] || (a < b ? -1 : 1);
    });
    var colorOf = {};
    values.slice(0, CATEGORY_COLORS.length).forEach(function (v, i) {
      colorOf[v] = CATEGORY_COLORS[i];
    });
    var pointColor = map.colors.map(function (c) {
      return c !== null && colorOf[c] ? colorOf[c] : (map.colorColumn ? OTHER_COLOR : '#4e79a7');
    });
    var legend = document.getElementById('map-legend');
    values.slice(0, CATEGORY_COLORS.length).forEach(function (v) {
      var item = element('span', { 'data-value': v });
      item.appendChild(element('span', { 'class': 'swatch', style: 'background:' + colorOf[v] }));
      item.appendChild(document.createTextNode(v + ' (' + counts[v] + ')'));
      legend.appendChild(item);
    });
    document.getElementById('map-note').textContent = n + ' of ' + map.rows + ' rows'
      + (n < map.rows ? ' (a uniform sample by id hash)' : '') + ', their pooled vectors '
      + 'projected on their first two principal components (Spark ML PCA)'
      + (map.colorColumn ? ', coloured by ' + map.colorColumn : '')
      + '. Scroll to zoom, drag to pan, double-click to reset; click a point for its neighbours.';

    var minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (var i = 0; i < n; i++) {
      minX = Math.min(minX, x[i]); maxX = Math.max(maxX, x[i]);
      minY = Math.min(minY, y[i]); maxY = Math.max(maxY, y[i]);
    }
    var view = {};
    function reset() {
      var margin = 20;
      view.scale = Math.min((width - 2 * margin) / Math.max(maxX - minX, 1e-9),
        (height - 2 * margin) / Math.max(maxY - minY, 1e-9));
      view.tx = width / 2 - view.scale * (minX + maxX) / 2;
      view.ty = height / 2 + view.scale * (minY + maxY) / 2;
    }
    function sx(i) { return view.tx + view.scale * x[i]; }
    function sy(i) { return view.ty - view.scale * y[i]; }
    var highlighted = { row: -1, near: [] };
    function draw() {
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, width, height);
      context.globalAlpha = 0.75;
      var radius = n > 5000 ? 2 : 3;
      for (var i = 0; i < n; i++) {
        context.fillStyle = pointColor[i];
        context.fillRect(sx(i) - radius, sy(i) - radius, 2 * radius, 2 * radius);
      }
      context.globalAlpha = 1;
      context.strokeStyle = '#000';
      highlighted.near.forEach(function (j) {
        context.beginPath(); context.arc(sx(j), sy(j), 5, 0, 2 * Math.PI); context.stroke();
      });
      if (highlighted.row >= 0) {
        context.lineWidth = 2.5;
        context.strokeStyle = '#d00';
        context.beginPath();
        context.arc(sx(highlighted.row), sy(highlighted.row), 7, 0, 2 * Math.PI);
        context.stroke();
        context.lineWidth = 1;
      }
    }
    function nearest(px, py) {
      var best = -1, bestDistance = 64;   // within 8 pixels
      for (var i = 0; i < n; i++) {
        var dx = sx(i) - px, dy = sy(i) - py, d = dx * dx + dy * dy;
        if (d < bestDistance) { best = i; bestDistance = d; }
      }
      return best;
    }
    var drag = null;
    canvas.addEventListener('mousedown', function (e) {
      drag = { x: e.offsetX, y: e.offsetY, moved: false };
    });
    window.addEventListener('mouseup', function () { setTimeout(function () { drag = null; }); });
    canvas.addEventListener('mousemove', function (e) {
      if (drag && e.buttons) {
        view.tx += e.offsetX - drag.x;
        view.ty += e.offsetY - drag.y;
        drag.moved = drag.moved || Math.abs(e.offsetX - drag.x) + Math.abs(e.offsetY - drag.y) > 0;
        drag.x = e.offsetX;
        drag.y = e.offsetY;
        tip.style.display = 'none';
        draw();
        return;
      }
      var i = nearest(e.offsetX, e.offsetY);
      if (i < 0) { tip.style.display = 'none'; return; }
      clear(tip);
      tip.appendChild(element('b', {}, map.ids[i]));
      if (map.colors[i] !== null && map.colorColumn) {
        tip.appendChild(document.createTextNode(' · ' + map.colors[i]));
      }
      tip.appendChild(element('div', {}, map.texts[i]));
      tip.style.left = (e.offsetX + 12) + 'px';
      tip.style.top = (e.offsetY + 12) + 'px';
      tip.style.display = 'block';
      tip.dataset.row = String(i);
    });
    canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
    canvas.addEventListener('click', function (e) {
      if (drag && drag.moved) { return; }
      var i = nearest(e.offsetX, e.offsetY);
      if (i >= 0) { selectRow(i); }
    });
    canvas.addEventListener('wheel', function (e) {
      e.preventDefault();
      var factor = Math.exp(-e.deltaY * 0.0015);
      view.tx = e.offsetX - (e.offsetX - view.tx) * factor;
      view.ty = e.offsetY - (e.offsetY - view.ty) * factor;
      view.scale *= factor;
      draw();
    }, { passive: false });
    canvas.addEventListener('dblclick', function () { reset(); draw(); });
    reset();
    draw();
    return {
      highlight: function (row, near) { highlighted = { row: row, near: near }; draw(); },
      // where point i is drawn, in CSS pixels from the canvas's top left corner
      position: function (i) { return [sx(i), sy(i)]; }
    };
  }

  // ---------------------------------------------------------------- neighbours
  function neighbours(mapView) {
    if (!map) {
      hide('neighbours', 'Neighbours: no pooled vectors to compare.');
      return;
    }
    var k = map.k;
    var near = ints(map.neighbours), scores = floats(map.scores);
    var search = document.getElementById('nb-search');
    var matches = document.getElementById('nb-matches');
    var table = document.getElementById('nb-table');
    var lowerTexts = map.texts.map(function (t) { return t.toLowerCase(); });
    var lowerIds = map.ids.map(function (t) { return String(t).toLowerCase(); });

    function row(cells, attributes) {
      var tr = element('tr', attributes);
      cells.forEach(function (c) {
        tr.appendChild(element('td', c[1] ? { 'class': c[1] } : {}, c[0]));
      });
      return tr;
    }
    function show(i) {
      clear(table);
      table.dataset.row = map.ids[i];
      var header = element('tr');
      ['rank', 'id', 'cosine', map.colorColumn || '', 'text'].forEach(function (h) {
        header.appendChild(element('th', {}, h));
      });
      table.appendChild(header);
      table.appendChild(row([['—'], [map.ids[i]], ['1'], [map.colors[i] || ''],
        [map.texts[i], 'text']], { 'class': 'self' }));
      var list = [];
      for (var r = 0; r < k; r++) {
        var j = near[i * k + r];
        if (j < 0) { break; }
        list.push(j);
        table.appendChild(row([[String(r + 1)], [map.ids[j]], [fixed(scores[i * k + r], 4)],
          [map.colors[j] || ''], [map.texts[j], 'text']],
        { 'data-id': map.ids[j], 'data-score': String(scores[i * k + r]) }));
      }
      if (mapView) { mapView.highlight(i, list); }
    }
    selectRow = function (i) { search.value = map.ids[i]; clear(matches); show(i); };
    search.addEventListener('input', function () {
      var q = search.value.trim();
      clear(matches);
      if (!q) { clear(table); return; }
      var exact = map.ids.indexOf(q);
      if (exact < 0) { exact = lowerIds.indexOf(q.toLowerCase()); }
      var found = [];
      var lower = q.toLowerCase();
      for (var i = 0; i < map.ids.length && found.length < 20; i++) {
        if (i !== exact && (lowerTexts[i].indexOf(lower) >= 0 || lowerIds[i].indexOf(lower) >= 0)) {
          found.push(i);
        }
      }
      var chosen = exact >= 0 ? exact : found.length ? found[0] : -1;
      if (chosen < 0) {
        clear(table);
        matches.textContent = 'No id or text on the map contains "' + q + '".';
        return;
      }
      if (found.length) {
        matches.appendChild(document.createTextNode('Also: '));
        found.filter(function (i) { return i !== chosen; }).forEach(function (i) {
          var b = element('button', { type: 'button' }, map.ids[i]);
          b.addEventListener('click', function () { selectRow(i); });
          matches.appendChild(b);
        });
      }
      show(chosen);
    });

    var first = ints(map.duplicates.first), second = ints(map.duplicates.second);
    var cosine = floats(map.duplicates.cosine);
    document.getElementById('dup-note').textContent = map.duplicateCount + ' pairs of rows on '
      + 'the map at cosine ' + map.duplicatesAbove + ' or more'
      + (first.length < map.duplicateCount ? ', the ' + first.length + ' closest listed' : '')
      + '.';
    var duplicates = document.getElementById('dup-table');
    if (first.length) {
      var header = element('tr');
      ['cosine', 'id', 'text', 'id', 'text'].forEach(function (h) {
        header.appendChild(element('th', {}, h));
      });
      duplicates.appendChild(header);
    }
    for (var p = 0; p < first.length; p++) {
      duplicates.appendChild(row([[fixed(cosine[p], 4)], [map.ids[first[p]]],
        [map.texts[first[p]], 'text'], [map.ids[second[p]]], [map.texts[second[p]], 'text']]));
    }
  }

  headView();
  var mapView = corpusMap();
  neighbours(mapView);
  window.report = { data: data, map: mapView };   // for a notebook's or a test's script
  body.dataset.ready = String(Math.round(performance.now()));
})();
