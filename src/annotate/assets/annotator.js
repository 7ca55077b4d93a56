// parcels annotate: the page view's script (the only script the view's CSP lets run).
//
// Reads the page's data from the constant PARCELS the server puts before this script (in the same
// nonce'd element, so the page cannot shadow it, as it could an element id), draws a toolbar (in a shadow root, so
// the page's styles cannot reach it), and lets the person select blocks (click, arrow keys, Tab)
// and label them (the label's key, or a click on the legend). Every change is POSTed at once;
// the server saves it and answers the page's labels, which recolour the view. Changes are sent
// one after another, in the order they were made.
//
// State for tests and tools is mirrored on <html>: data-parcels-current (block id),
// data-parcels-saved (changes saved), data-parcels-filter (0/1), data-parcels-error.
(function () {
  'use strict';

  function start() {
    var D = PARCELS;
    var root = document.documentElement;
    var n = D.blocks.length;
    var labels = D.blocks.map(function (b) { return b.label; });
    var mixed = D.blocks.map(function (b) { return b.mixed; });
    var byName = {}, byKey = {};
    D.labels.forEach(function (l) { byName[l.name] = l; byKey[l.key] = l; });
    var filter = /[?&]unlabelled=1\b/.test(location.search);
    var current = -1, saved = 0, pending = 0, queue = Promise.resolve();

    // Every element of a block: a block with several leaves has several wrappers.
    var parts = [];
    for (var i = 0; i < n; i++) parts.push([]);
    Array.prototype.forEach.call(document.querySelectorAll('.parcels-block[data-block]'), function (el) {
      var id = +el.getAttribute('data-block');
      if (id >= 0 && id < n) parts[id].push(el);
    });
    var badges = {};
    Array.prototype.forEach.call(document.querySelectorAll('.parcels-badge[data-badge]'), function (el) {
      badges[el.getAttribute('data-badge')] = el;
    });

    // Command keys; a scheme key of the same character wins (the help line shows what is left).
    var commands = {
      ArrowDown: 'next', ArrowRight: 'next', ArrowUp: 'prev', ArrowLeft: 'prev',
      Backspace: 'clear', Delete: 'clear', ']': 'nextPage', '[': 'prevPage', 'u': 'filter'
    };

    // --- toolbar -----------------------------------------------------------------------------
    // A custom element under <html>, its style reset inline with !important: the page's style
    // sheets cannot hide it, and a transformed <body> cannot move it.
    var host = document.createElement('parcels-toolbar');
    host.id = 'parcels-toolbar';
    host.setAttribute('style', 'all:initial !important;display:block !important');
    var shadow = host.attachShadow({ mode: 'open' });
    var style = document.createElement('style');
    style.textContent = D.style || '';
    shadow.appendChild(style);
    var bar = el('div', 'pt');
    shadow.appendChild(bar);

    function el(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined) e.textContent = text;
      return e;
    }
    function kbd(k) { return el('kbd', '', k); }
    function pageUrl(i) { return '/page/' + i + (filter ? '?unlabelled=1' : ''); }

    var row1 = el('div', 'row');
    var prevLink = el('a', '', '◀ previous'), nextLink = el('a', '', 'next page ▶'), listLink = el('a', '', 'page list');
    listLink.href = '/';
    var title = el('span', 'grow');
    title.textContent = 'page ' + (D.page + 1) + ' of ' + D.pages + ': ' + D.name;
    title.title = 'labels saved to ' + D.file;
    var counts = el('span');
    var filterButton = el('button', '', 'unlabelled only');
    var status = el('span', 'status');
    [prevLink, title, counts, filterButton, status, nextLink, listLink].forEach(function (e) { row1.appendChild(e); });
    var row2 = el('div', 'row');
    var info = el('span', 'grow');
    row2.appendChild(info);
    var legend = el('div', 'row legend');
    D.labels.forEach(function (l) {
      var b = el('button');
      b.style.background = l.color;
      b.title = l.description;
      b.setAttribute('data-label', l.name);
      b.appendChild(kbd(l.key));
      b.appendChild(document.createTextNode(' ' + l.name));
      b.addEventListener('click', function () { assign(l.name); });
      legend.appendChild(b);
    });
    var clearButton = el('button', '', 'clear');
    clearButton.style.background = '#f8f9fa';
    clearButton.addEventListener('click', function () { assign(null); });
    legend.appendChild(clearButton);
    var help = el('div', 'row help');
    help.textContent = helpText();
    [row1, row2, legend, help].forEach(function (e) { bar.appendChild(e); });
    root.appendChild(host);

    function helpText() {
      var groups = { next: [], prev: [], clear: [], nextPage: [], prevPage: [], filter: [] };
      Object.keys(commands).forEach(function (k) { if (!byKey[k]) groups[commands[k]].push(k.replace('Arrow', '')); });
      return 'click a block, or ' + groups.next.concat(['Tab']).join('/') + ' next, ' +
        groups.prev.concat(['Shift+Tab']).join('/') + ' previous · a label\'s key labels it and moves on · ' +
        groups.clear.join('/') + ' clears · ' + (groups.filter.length ? groups.filter.join('/') + ' ' : '') +
        'toggles unlabelled only · ' + groups.prevPage.concat(groups.nextPage).join(' ') + ' previous/next page';
    }

    // --- drawing -----------------------------------------------------------------------------
    function paint(id) {
      var l = labels[id] && byName[labels[id]];
      parts[id].forEach(function (e) {
        e.style.background = l ? l.color : D.unlabelled;
        e.classList.toggle('parcels-labelled', !!l);
        e.classList.toggle('parcels-unlabelled', !l);
        e.classList.toggle('parcels-mixed', !!mixed[id]);
      });
      var badge = badges[id];
      if (badge) badge.textContent = l ? id + ' ' + l.key : String(id);
    }

    function refresh() {
      var done = labels.filter(function (l) { return l; }).length;
      counts.textContent = done + ' / ' + n + ' blocks labelled';
      filterButton.classList.toggle('on', filter);
      filterButton.textContent = filter ? 'unlabelled only: on' : 'unlabelled only: off';
      if (document.body) document.body.classList.toggle('parcels-filter', filter);
      root.setAttribute('data-parcels-filter', filter ? '1' : '0');
      root.setAttribute('data-parcels-current', String(current));
      root.setAttribute('data-parcels-saved', String(saved));
      prevLink.href = D.page > 0 ? pageUrl(D.page - 1) : '';
      nextLink.href = D.page + 1 < D.pages ? pageUrl(D.page + 1) : '';
      prevLink.style.visibility = D.page > 0 ? 'visible' : 'hidden';
      nextLink.style.visibility = D.page + 1 < D.pages ? 'visible' : 'hidden';
      if (current < 0) {
        info.textContent = 'no block selected';
      } else {
        var l = labels[current];
        info.textContent = 'block ' + current + (l ? ' [' + l + (mixed[current] ? ', mixed' : '') + ']' : ' [unlabelled]') +
          ': ' + (D.texts[current] || '(no text)');
      }
      Array.prototype.forEach.call(legend.querySelectorAll('button[data-label]'), function (b) {
        b.classList.toggle('on', current >= 0 && b.getAttribute('data-label') === labels[current]);
      });
    }

    function say(text, bad) {
      status.textContent = text;
      status.classList.toggle('bad', !!bad);
      if (bad) root.setAttribute('data-parcels-error', text); else root.removeAttribute('data-parcels-error');
    }

    // --- selection ---------------------------------------------------------------------------
    function select(id) {
      if (current >= 0) parts[current].forEach(function (e) { e.classList.remove('parcels-current'); });
      current = id;
      parts[id].forEach(function (e) { e.classList.add('parcels-current'); });
      var first = parts[id][0];
      if (first && first.getClientRects().length) first.scrollIntoView({ block: 'center', inline: 'nearest' });
      refresh();
    }

    function step(dir) {
      var i = current < 0 ? (dir > 0 ? 0 : n - 1) : current + dir;
      while (i >= 0 && i < n && filter && labels[i]) i += dir;
      if (i >= 0 && i < n) {
        select(i);
        return true;
      }
      say(dir > 0 ? (filter ? 'no unlabelled block below: ] for the next page' : 'last block: ] for the next page')
        : (filter ? 'no unlabelled block above' : 'first block'));
      return false;
    }

    // --- changes -----------------------------------------------------------------------------
    function assign(name) {
      if (current < 0) { say('select a block first (click it, or press an arrow key)', true); return; }
      var id = current, before = labels[id];
      labels[id] = name;
      paint(id);
      refresh();
      say('saving…');
      pending += 1;
      queue = queue.then(function () { return send(id, name, before); });
      if (name) step(1);
    }

    function send(id, name, before) {
      return fetch('/api/label', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Parcels-Token': D.token },
        body: JSON.stringify({ page: D.page, block: id, label: name })
      }).then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
          pending -= 1;
          // The server's labels are the truth, but while later changes are on their way they
          // would undo those changes on screen: take them with the last answer.
          if (pending === 0) {
            body.blocks.forEach(function (b, i) {
              if (i < n) { labels[i] = b.label; mixed[i] = b.mixed; paint(i); }
            });
          }
          saved += 1;
          say('saved (' + body.labelled + ' / ' + body.total + ')');
          refresh();
        });
      }).catch(function (e) {
        pending = Math.max(0, pending - 1);
        labels[id] = before;
        paint(id);
        refresh();
        say('NOT SAVED: ' + e.message, true);
      });
    }

    function go(i) {
      if (i < 0) return;
      // Leave only when every change is saved.
      queue.then(function () { location.href = i < D.pages ? pageUrl(i) : '/'; });
    }

    // --- input -------------------------------------------------------------------------------
    document.addEventListener('keydown', function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      var key = e.key;
      var label = byKey[key] || (key.length === 1 && byKey[key.toLowerCase()]);
      var command = key === 'Tab' ? (e.shiftKey ? 'prev' : 'next') : (!label && commands[key]);
      if (label) assign(label.name);
      else if (command === 'next') step(1);
      else if (command === 'prev') step(-1);
      else if (command === 'clear') assign(null);
      else if (command === 'nextPage') go(D.page + 1);
      else if (command === 'prevPage') go(D.page - 1);
      else if (command === 'filter') { filter = !filter; refresh(); say(filter ? 'showing unlabelled blocks only' : 'showing all blocks'); }
      else return;
      e.preventDefault();
      e.stopPropagation();
    }, true);

    filterButton.addEventListener('click', function () { filter = !filter; refresh(); });

    // Clicks select blocks; they never follow the page's links or submit its forms.
    function swallow(e) {
      if (e.target === host) return;
      e.preventDefault();
      e.stopPropagation();
    }
    document.addEventListener('click', function (e) {
      if (e.target === host) return;
      swallow(e);
      var b = e.target.closest && e.target.closest('.parcels-block[data-block]');
      if (b) select(+b.getAttribute('data-block'));
    }, true);
    document.addEventListener('auxclick', swallow, true);
    document.addEventListener('submit', swallow, true);

    for (var j = 0; j < n; j++) paint(j);
    refresh();
    root.setAttribute('data-parcels-ready', '1');
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
