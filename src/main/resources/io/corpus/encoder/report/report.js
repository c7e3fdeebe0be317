// The report's three views, drawn from the JSON in #report-data (see ReportData.java): the head
// view (SVG lines between a sequence's tokens), the corpus map (a canvas of the pooled vectors in
// 2-D) and the neighbours (tables). No library, no network. Arrays of numbers arrive as base64 of
// little-endian float32 / int32. body[data-ready] is set to the milliseconds since navigation
// when everything is drawn; body[data-errors] counts errors.
// The page's script is this file then head-view.js, corpus-map.js, neighbours.js and analytics.js
// (the model view, the statistics by group, head importance, the comparison), inside one
// function (ReportPage joins them): the views' functions are declared there and called here.
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

  var map = data.map;
  var selectRow = function () {};   // set by neighbours(): shows a row's neighbours

  var heads = headView();
  modelView(heads);
  statisticsView();
  importanceView();
  compareView();
  var mapView = corpusMap();
  neighbours(mapView);
  window.report = { data: data, map: mapView, heads: heads };   // for a notebook's or a test's script
  body.dataset.ready = String(Math.round(performance.now()));
