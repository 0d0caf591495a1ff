// The idsync console's own script (htmx does the rest): copy buttons, keeping open <details>
// open when a live region is swapped, and the live indicator of the page's event stream.
(function () {
  'use strict';

  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    var text = source.value !== undefined ? source.value : source.textContent;
    var done = function () {
      button.classList.add('copied');
      button.setAttribute('data-copied', 'true');
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {
        source.select();
        document.execCommand('copy');
        done();
      });
    } else {
      source.select();
      document.execCommand('copy');
      done();
    }
  });

  // A live region is replaced when it refreshes: what was open stays open.
  var open = [];
  document.addEventListener('htmx:before:swap', function (event) {
    var target = event.detail && event.detail.ctx && event.detail.ctx.target;
    if (!target || !target.querySelectorAll) return;
    open = Array.prototype.map.call(target.querySelectorAll('details[open][id]'), function (d) {
      return d.id;
    });
  });
  // The live message list keeps its newest rows only, so that a busy twin (a fleet) leaves the page responsive.
  var MAX_ROWS = 500;
  document.addEventListener('htmx:after:swap', function () {
    open.forEach(function (id) {
      var d = document.getElementById(id);
      if (d) d.open = true;
    });
    open = [];
    var rows = document.getElementById('message-rows');
    while (rows && rows.children.length > MAX_ROWS) rows.removeChild(rows.lastElementChild);
  });

  document.addEventListener('htmx:sse:after:connection', function () {
    document.body.classList.add('live-on');
    document.body.classList.remove('live-off');
  });
  ['htmx:sse:close', 'htmx:sse:error'].forEach(function (name) {
    document.addEventListener(name, function () {
      document.body.classList.remove('live-on');
      document.body.classList.add('live-off');
    });
  });
})();
