// A tournament's page while it runs: polls its live part (/tournaments/<id>/live) with its ETag, so that an
// unchanged tournament costs a 304, and swaps in the new progress, standings, head-to-head and games.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) return;
  var etag = live.dataset.etag || null;

  function running() {
    var part = live.querySelector(".live");
    return part !== null && part.dataset.status !== "done";
  }

  function poll() {
    var headers = { Accept: "text/html" };
    if (etag) headers["If-None-Match"] = '"' + etag + '"';
    fetch(live.dataset.liveUrl, { headers: headers })
      .then(function (response) {
        if (response.status !== 200) return;
        var tag = response.headers.get("ETag");
        etag = tag ? tag.replace(/^W\//, "").replace(/"/g, "") : null;
        return response.text().then(function (html) {
          live.innerHTML = html;
        });
      })
      .catch(function () {})
      .finally(function () {
        if (running()) window.setTimeout(poll, 1500);
      });
  }

  if (running()) window.setTimeout(poll, 1500);
})();
