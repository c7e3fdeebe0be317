// The corpus map: the pooled vectors on a canvas, coloured, with zoom, pan and hover.
  // ---------------------------------------------------------------- corpus map

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
