// The analyses beside the head view: the model view (every layer and head of a sequence as
// thumbnails), the statistics per group of stats-by, the heads' importance, and the comparison of
// two runs (jobs/report --compare). Grids are tables: layers are rows, heads columns.

  // A cell's colour: white to dark blue over [0, 1]; a difference from blue through white to red.
  function sequential(f) {
    f = Math.max(0, Math.min(1, f));
    return 'rgb(' + Math.round(255 - 225 * f) + ',' + Math.round(255 - 175 * f) + ','
      + Math.round(255 - 75 * f) + ')';
  }
  function diverging(f) {   // f in [-1, 1]
    f = Math.max(-1, Math.min(1, f));
    var a = Math.abs(f);
    return f < 0 ? 'rgb(' + Math.round(255 - 200 * a) + ',' + Math.round(255 - 130 * a) + ',255)'
      : 'rgb(255,' + Math.round(255 - 200 * a) + ',' + Math.round(255 - 200 * a) + ')';
  }
  // Draws a layers × heads grid of value(layer, head) into a table; NaN cells stay empty.
  function grid(table, layers, heads, value, digits, centred) {
    clear(table);
    var min = Infinity, max = -Infinity;
    for (var l = 0; l < layers; l++) {
      for (var h = 0; h < heads; h++) {
        var v = value(l, h);
        if (!isNaN(v)) { min = Math.min(min, v); max = Math.max(max, v); }
      }
    }
    var reach = Math.max(Math.abs(min), Math.abs(max));
    var header = element('tr');
    header.appendChild(element('th'));
    for (var c = 0; c < heads; c++) { header.appendChild(element('th', {}, 'head ' + c)); }
    table.appendChild(header);
    for (var layer = 0; layer < layers; layer++) {
      var row = element('tr', { 'data-layer': String(layer) });
      row.appendChild(element('th', {}, 'layer ' + layer));
      for (var head = 0; head < heads; head++) {
        var x = value(layer, head);
        var cell = element('td', { 'data-head': String(head) }, isNaN(x) ? '' : fixed(x, digits));
        if (!isNaN(x)) {
          var f = centred ? (reach > 0 ? x / reach : 0) : (max > min ? (x - min) / (max - min) : 0);
          cell.style.background = centred ? diverging(f) : sequential(f);
          if (!centred && f > 0.55) { cell.style.color = '#fff'; }
          cell.dataset.value = String(x);
        }
        row.appendChild(cell);
      }
      table.appendChild(row);
    }
  }

  // ---------------------------------------------------------------- model view
  function modelView(heads) {
    var box = document.getElementById('mv-grid');
    if (!heads) {
      hide('model-view', 'Model view: no sequence has attention maps (set output.attention.enabled).');
      return;
    }
    function draw(i) {
      var s = heads.sequences[i];
      var layers = heads.layersOf(s).filter(function (l) { return l >= 0; });
      var columns = [];
      layers.forEach(function (l) {
        heads.mapsOf(s, l).forEach(function (m) {
          if (columns.indexOf(m.head) < 0) { columns.push(m.head); }
        });
      });
      columns.sort(function (a, b) { return a - b; });
      clear(box);
      box.dataset.sequence = s.id;
      box.dataset.measure = s.measure;
      box.style.gridTemplateColumns = 'auto repeat(' + columns.length + ', auto)';
      box.appendChild(element('div'));
      columns.forEach(function (h) {
        box.appendChild(element('div', {}, h < 0 ? 'mean' : 'head ' + h));
      });
      layers.forEach(function (l) {
        box.appendChild(element('div', {}, 'layer ' + l));
        columns.forEach(function (h) {
          var m = heads.mapsOf(s, l).filter(function (x) { return x.head === h; })[0];
          if (!m) { box.appendChild(element('div')); return; }
          var canvas = element('canvas', { width: String(m.n), height: String(m.n),
            'data-layer': String(l), 'data-head': String(h), title: 'layer ' + l + ', '
              + (h < 0 ? 'mean of heads' : 'head ' + h) });
          var context = canvas.getContext('2d');
          var image = context.createImageData(m.n, m.n);
          var w = heads.weightsOf(m, s);
          for (var p = 0; p < m.n * m.n; p++) {
            var v = Math.sqrt(Math.min(1, w[p]));
            image.data[4 * p] = Math.round(255 - 225 * v);
            image.data[4 * p + 1] = Math.round(255 - 175 * v);
            image.data[4 * p + 2] = Math.round(255 - 75 * v);
            image.data[4 * p + 3] = 255;
          }
          context.putImageData(image, 0, 0);
          canvas.addEventListener('click', function () {
            heads.show(i, l, h);
            document.getElementById('head-view').scrollIntoView();
          });
          box.appendChild(canvas);
        });
      });
    }
    heads.onSequence(function (i) {
      if (box.dataset.sequence !== heads.sequences[i].id
        || box.dataset.measure !== heads.sequences[i].measure) { draw(i); }
    });
    draw(heads.current());
  }

  // ---------------------------------------------------------------- statistics by group
  function statisticsView() {
    if (!data.stats.heads.length) {
      hide('statistics', 'Statistics: none were written (set output.attention.stats).');
      return;
    }
    var groupSelect = document.getElementById('st-group');
    var statSelect = document.getElementById('st-stat');
    var table = document.getElementById('st-grid');
    var choices = [{ label: 'every row', stats: data.stats }].concat(data.groups);
    choices.forEach(function (g, i) {
      groupSelect.appendChild(element('option', { value: String(i) }, g.label));
    });
    data.stats.columns.forEach(function (c, i) {
      statSelect.appendChild(element('option', { value: String(i) }, c));
    });
    function draw() {
      var chosen = choices[Number(groupSelect.value)].stats.heads;
      var s = Number(statSelect.value);
      var layers = 0, count = 0, values = {};
      chosen.forEach(function (h) {
        layers = Math.max(layers, h.layer + 1);
        count = Math.max(count, h.head + 1);
        values[h.layer + ',' + h.head] = h.means[s];
      });
      grid(table, layers, count, function (l, h) {
        var v = values[l + ',' + h];
        return v === undefined ? NaN : v;
      }, 3, false);
      table.dataset.group = choices[Number(groupSelect.value)].label;
      table.dataset.stat = data.stats.columns[s];
    }
    groupSelect.addEventListener('change', draw);
    statSelect.addEventListener('change', draw);
    draw();
  }

  // ---------------------------------------------------------------- head importance
  function importanceView() {
    var im = data.importance;
    if (!im) {
      hide('importance', 'Head importance: not measured (set output.attention.importance).');
      return;
    }
    var values = floats(im.values);
    document.getElementById('im-note').textContent = 'Mean over ' + im.rows + ' rows of 1 − '
      + 'cos(pooled, pooled with the head removed from its layer). Darker matters more.';
    grid(document.getElementById('im-grid'), im.layers, im.heads, function (l, h) {
      return values[l * im.heads + h];
    }, 4, false);
  }

  // ---------------------------------------------------------------- comparison of two runs
  function compareView() {
    var c = data.compare;
    if (!c) {
      hide('compare', 'Compare: run jobs/report --config FILE --compare OTHER_OUTPUT to see '
        + 'this run beside another of the same rows.');
      return;
    }
    document.getElementById('cmp-note').textContent = 'This run less ' + c.other + ': red where '
      + 'this run is larger. ' + c.rows + ' rows are in both.';
    var what = document.getElementById('cmp-what');
    var grids = [];
    c.columns.forEach(function (column, i) {
      grids.push({ label: column, values: floats(c.statistics[i]) });
    });
    if (c.importance) { grids.push({ label: 'importance', values: floats(c.importance) }); }
    grids.forEach(function (g, i) {
      what.appendChild(element('option', { value: String(i) }, g.label));
    });
    var table = document.getElementById('cmp-grid');
    function draw() {
      if (!grids.length) { return; }
      var g = grids[Number(what.value)];
      table.dataset.what = g.label;
      grid(table, c.layers, c.heads, function (l, h) { return g.values[l * c.heads + h]; }, 4,
        true);
    }
    what.addEventListener('change', draw);
    draw();
    // the histogram: one bar per bin of cosines from c.low to 1
    var svg = document.getElementById('cmp-histogram');
    var width = 520, height = 160, bottom = 20, bins = c.histogram.length;
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(height + bottom));
    var most = Math.max.apply(null, c.histogram.concat([1]));
    c.histogram.forEach(function (count, b) {
      var h = height * count / most;
      svg.appendChild(element('svg:rect', { x: String(b * width / bins + 1),
        y: String(height - h), width: String(width / bins - 2), height: String(h),
        fill: '#4e79a7', 'data-count': String(count) },
        undefined)).appendChild(element('svg:title', {}, count + ' rows with cosine in ['
          + fixed(c.low + b * (1 - c.low) / bins, 3) + ', '
          + fixed(c.low + (b + 1) * (1 - c.low) / bins, 3) + ')'));
    });
    [0, bins / 2, bins].forEach(function (b) {
      svg.appendChild(element('svg:text', { x: String(Math.min(width - 30, b * width / bins)),
        y: String(height + 14), 'font-size': '11' }, fixed(c.low + b * (1 - c.low) / bins, 3)));
    });
    var moved = document.getElementById('cmp-moved');
    var header = element('tr');
    ['id', 'cosine', 'text'].forEach(function (t) { header.appendChild(element('th', {}, t)); });
    moved.appendChild(header);
    c.moved.forEach(function (m) {
      var row = element('tr', { 'data-id': m.id });
      row.appendChild(element('td', {}, m.id));
      row.appendChild(element('td', {}, fixed(m.cosine, 6)));
      row.appendChild(element('td', { 'class': 'text', title: m.text }, m.text));
      moved.appendChild(row);
    });
  }
