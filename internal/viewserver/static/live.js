// Pages follow the files: the server says when its fingerprint of the
// workspace changes, and the page fetches itself again and swaps its main
// part in place. Without JavaScript every page still reads whole.
(function () {
  "use strict";
  if (!window.EventSource || !window.fetch) return;
  var body = document.body;
  var live = document.getElementById("live");
  var updates = 0;
  function connect() {
    var es = new EventSource("/live?fp=" + encodeURIComponent(body.dataset.fp || ""));
    es.onopen = function () { if (live) { live.classList.add("on"); live.textContent = "live · read-only"; } };
    es.onerror = function () { if (live) { live.classList.remove("on"); live.textContent = "read-only (not live)"; } };
    es.addEventListener("change", function () {
      fetch(location.href, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.text(); })
        .then(function (text) {
          var doc = new DOMParser().parseFromString(text, "text/html");
          var fresh = doc.getElementById("main");
          var old = document.getElementById("main");
          if (fresh && old) old.replaceWith(fresh);
          body.dataset.fp = doc.body.dataset.fp || "";
          updates++;
          body.dataset.updates = String(updates);
        })
        .catch(function () { /* the next change tries again */ });
    });
  }
  connect();
})();
