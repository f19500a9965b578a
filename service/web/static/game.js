// The game viewer: steps through a game by fetching one step's fragment at a time (/games/<id>/at/<ply>), and
// for a game still in play appends the new moves as they come (/games/<id>/steps?after=<ply>).
(function () {
  "use strict";
  var viewer = document.getElementById("viewer");
  if (!viewer) return;
  var stage = document.getElementById("stage");
  var range = document.getElementById("step-range");
  var rows = document.querySelector("#steps tbody");
  var playButton = viewer.querySelector('[data-go="play"]');
  var lang = viewer.dataset.lang;
  var plies = Number(viewer.dataset.plies);
  var current = Number(viewer.dataset.ply);
  var finished = viewer.dataset.status === "over";
  var cache = new Map();
  var wanted = 0;
  var playing = null;

  function stepUrl(ply) {
    return viewer.dataset.stepUrl.replace("PLY", String(ply)) + "?lang=" + encodeURIComponent(lang);
  }

  function mark(ply) {
    var old = rows.querySelector("tr.current");
    if (old) old.classList.remove("current");
    var row = rows.querySelector('tr[data-ply="' + ply + '"]');
    if (row) {
      row.classList.add("current");
      var box = row.closest(".moves-scroll");
      if (box) box.scrollTop = row.offsetTop - box.clientHeight / 2;
    }
  }

  function fetchStep(ply) {
    if (cache.has(ply)) return Promise.resolve(cache.get(ply));
    return fetch(stepUrl(ply), { headers: { Accept: "text/html" } }).then(function (response) {
      return response.text().then(function (body) {
        if (!response.ok) {
          var page = new DOMParser().parseFromString(body, "text/html");
          var message = page.querySelector(".message");
          throw new Error(message ? message.textContent : "HTTP " + response.status);
        }
        if (finished) cache.set(ply, body); // a finished game's steps never change
        return body;
      });
    });
  }

  function show(ply) {
    ply = Math.max(0, Math.min(plies, ply));
    var ticket = ++wanted;
    viewer.setAttribute("aria-busy", "true");
    return fetchStep(ply)
      .then(function (html) {
        if (ticket !== wanted) return;
        stage.innerHTML = html;
        current = ply;
        viewer.dataset.ply = String(ply);
        range.value = String(ply);
        mark(ply);
        var url = new URL(window.location.href);
        url.searchParams.set("step", String(ply));
        window.history.replaceState(null, "", url);
      })
      .catch(function (error) {
        if (ticket === wanted) stage.innerHTML = '<p class="error">' + String(error.message) + "</p>";
      })
      .finally(function () {
        if (ticket === wanted) viewer.removeAttribute("aria-busy");
      });
  }

  function stop() {
    if (playing !== null) window.clearInterval(playing);
    playing = null;
    playButton.textContent = viewer.dataset.playText;
  }

  function play() {
    if (playing !== null) return stop();
    if (current >= plies) show(0);
    playButton.textContent = viewer.dataset.pauseText;
    playing = window.setInterval(function () {
      if (current >= plies) return stop();
      show(current + 1);
    }, 700);
  }

  var moves = {
    first: function () { return 0; },
    previous: function () { return current - 1; },
    next: function () { return current + 1; },
    last: function () { return plies; },
  };

  viewer.querySelector(".controls").addEventListener("click", function (event) {
    var button = event.target.closest("button[data-go]");
    if (!button) return;
    var go = button.dataset.go;
    if (go === "play") return play();
    stop();
    show(moves[go]());
  });

  range.addEventListener("input", function () {
    stop();
    show(Number(range.value));
  });

  rows.addEventListener("click", function (event) {
    var row = event.target.closest("tr[data-ply]");
    if (!row) return;
    event.preventDefault();
    stop();
    show(Number(row.dataset.ply));
  });

  document.addEventListener("keydown", function (event) {
    if (event.target instanceof HTMLInputElement || event.altKey || event.ctrlKey || event.metaKey) return;
    var keys = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
    if (!(event.key in keys)) return;
    event.preventDefault();
    stop();
    show(moves[keys[event.key]]());
  });

  mark(current);

  // A game in play: poll for new moves; follow them when the last step is shown; reload once it is over (the
  // finished game shows everything, hands included).
  function poll() {
    var url = viewer.dataset.rowsUrl + "?after=" + plies + "&lang=" + encodeURIComponent(lang);
    fetch(url, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (response) {
        if (!response.ok) return;
        var status = response.headers.get("X-Game-Status");
        var ply = Number(response.headers.get("X-Game-Ply"));
        return response.text().then(function (html) {
          if (status === "over") {
            var reload = new URL(window.location.href);
            reload.searchParams.set("step", String(current === plies ? ply : current));
            window.location.replace(reload);
            return;
          }
          if (ply > plies) {
            var following = current === plies;
            rows.insertAdjacentHTML("beforeend", html);
            plies = ply;
            viewer.dataset.plies = String(ply);
            range.max = String(ply);
            if (following) show(ply);
          }
        });
      })
      .catch(function () {})
      .finally(function () {
        if (!finished) window.setTimeout(poll, 2000);
      });
  }
  if (!finished) window.setTimeout(poll, 2000);
})();
