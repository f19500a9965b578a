// The game viewer: steps through a game by fetching one step's fragment at a time (/games/<id>/at/<ply>), and
// for a game still in play appends the new moves as they come (/games/<id>/steps?after=<ply>).
//
// A bot's owner may sign in with the account's token while the game runs: the token is kept in this tab's
// sessionStorage and sent as "Authorization: Bearer" with every fragment the viewer fetches, and the server then
// shows the fault details and debug text of that owner's seats (the X-Owner-Seats header names them).
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
  var TOKEN_KEY = "sorry-arena-owner-token";
  var signIn = document.getElementById("owner-sign-in");

  function ownerToken() {
    if (finished) return null; // a finished game shows everything to everyone
    try {
      return window.sessionStorage.getItem(TOKEN_KEY);
    } catch (error) {
      return null;
    }
  }

  function headers() {
    var sent = { Accept: "text/html" };
    var token = ownerToken();
    if (token) sent.Authorization = "Bearer " + token;
    return sent;
  }

  function problem(response, body) {
    var page = new DOMParser().parseFromString(body, "text/html");
    var message = page.querySelector(".message");
    return new Error(message ? message.textContent : "HTTP " + response.status);
  }

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
    return fetch(stepUrl(ply), { headers: headers() }).then(function (response) {
      return response.text().then(function (body) {
        if (!response.ok) throw problem(response, body);
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
    var after = plies;
    var url = viewer.dataset.rowsUrl + "?after=" + after + "&lang=" + encodeURIComponent(lang);
    fetch(url, { headers: headers(), cache: "no-store" })
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
          if (ply > plies && after === plies) {
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

  // The owner's sign-in: fetch every move row again with the token (the page itself came without it), then the
  // step shown.
  function status(text, failed) {
    var line = signIn.querySelector(".owner-status");
    line.textContent = text;
    line.classList.toggle("error", Boolean(failed));
  }

  function seatNames(seats) {
    return seats
      .map(function (seat) {
        var item = document.querySelector('ol.players li[data-seat="' + seat + '"]');
        return item ? item.textContent.split("·")[0].trim() : String(Number(seat) + 1);
      })
      .join(", ");
  }

  function signedIn(on) {
    signIn.querySelector(".sign-out").hidden = !on;
    signIn.querySelector("label").hidden = on;
    signIn.querySelector(".sign-in").hidden = on;
  }

  function refresh() {
    var url = viewer.dataset.rowsUrl + "?after=0&lang=" + encodeURIComponent(lang);
    return fetch(url, { headers: headers(), cache: "no-store" }).then(function (response) {
      return response.text().then(function (html) {
        if (!response.ok) throw problem(response, html);
        var seats = (response.headers.get("X-Owner-Seats") || "").split(",").filter(Boolean);
        rows.querySelectorAll('tr[data-ply]:not([data-ply="0"])').forEach(function (row) {
          row.remove();
        });
        rows.insertAdjacentHTML("beforeend", html);
        var ply = Number(response.headers.get("X-Game-Ply"));
        if (ply > plies) {
          plies = ply;
          viewer.dataset.plies = String(ply);
          range.max = String(ply);
        }
        cache.clear();
        signedIn(true);
        status(
          seats.length
            ? signIn.dataset.signedInText.replace("{seats}", seatNames(seats))
            : signIn.dataset.noSeatText
        );
        return show(current);
      });
    });
  }

  function forget() {
    try {
      window.sessionStorage.removeItem(TOKEN_KEY);
    } catch (error) {
      // no storage: nothing kept
    }
  }

  if (signIn && !finished) {
    signIn.hidden = false;
    signIn.addEventListener("submit", function (event) {
      event.preventDefault();
      var field = document.getElementById("owner-token");
      var token = field.value.trim();
      if (!token) return;
      try {
        window.sessionStorage.setItem(TOKEN_KEY, token);
      } catch (error) {
        status(String(error.message), true);
        return;
      }
      field.value = "";
      refresh().catch(function (error) {
        forget();
        signedIn(false);
        status(String(error.message), true);
      });
    });
    signIn.querySelector(".sign-out").addEventListener("click", function () {
      forget();
      window.location.reload();
    });
    if (ownerToken()) {
      refresh().catch(function (error) {
        forget();
        signedIn(false);
        status(String(error.message), true);
      });
    }
  }
})();
