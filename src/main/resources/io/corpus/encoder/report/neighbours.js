// The neighbours of a searched or clicked row, the near-duplicate pairs; then the views drawn.
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
    document.getElementById('dup-note').textContent = map.duplicateCount
      + (map.duplicateCount === 1 ? ' pair' : ' pairs') + ' of rows on '
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
