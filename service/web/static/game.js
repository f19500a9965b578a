// The game viewer: steps through a game by fetching one step's fragment at a time (/games/<id>/at/<ply>), and
// for a game still in play appends the new moves as they come (/games/<id>/steps?after=<ply>), told of each by
// the game's event stream (stream.js).
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

  // A game in play follows its event stream (stream.js): without a token a spectator's (the public events), signed
  // in the owner's (headers() sends the token). An event of a move not shown yet fetches the move rows after the
  // last one shown (/steps?after=), and follows them when the last step is shown; the game's end reloads the page
  // (a finished game shows everything, hands included). The stream sends the events after the last one of the moves
  // drawn (data-since; then after the last one received), so the moves made since the page was drawn come with
  // them. Should it fail (a 429: too many streams; an old browser),
  // the rows are polled every POLL_MS instead, and the stream tried again after RETRY_STREAM_MS.
  var POLL_MS = 5000;
  var RETRY_STREAM_MS = 30000;
  var live = viewer.dataset.status === "open" || viewer.dataset.status === "active";
  var stream = null;
  var since = Number(viewer.dataset.since);
  var asking = null;
  var askAgain = false;

  function update() {
    if (asking) {
      askAgain = true;
      return asking;
    }
    var after = plies;
    var url = viewer.dataset.rowsUrl + "?after=" + after + "&lang=" + encodeURIComponent(lang);
    asking = fetch(url, { headers: headers(), cache: "no-store" })
      .then(function (response) {
        if (!response.ok) return;
        var status = response.headers.get("X-Game-Status");
        var ply = Number(response.headers.get("X-Game-Ply"));
        return response.text().then(function (html) {
          if (status === "over" || status === "cancelled") {
            live = false;
            if (stream) stream.close();
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
        asking = null;
        if (askAgain) {
          askAgain = false;
          update();
        }
      });
    return asking;
  }

  function follow() {
    if (!viewer.dataset.live) viewer.dataset.live = "connecting"; // else "poll" or "stream" stays until it answers
    stream = window.SorryArenaStream.follow(viewer.dataset.streamUrl, {
      since: since,
      headers: function () {
        var token = ownerToken();
        return token ? { Authorization: "Bearer " + token } : {};
      },
      onOpen: function () {
        viewer.dataset.live = "stream";
      },
      onEvent: function (type, data) {
        if (type === "event") since = Math.max(since, data.seq); // a stream opened again goes on from there
        if (type === "end" || (type === "event" && data.ply > plies)) update();
      },
      onFail: function () {
        stream = null;
        if (live) poll(Date.now() + RETRY_STREAM_MS);
      },
    });
  }

  function poll(retryAt) {
    viewer.dataset.live = "poll";
    window.setTimeout(function () {
      if (!live) return;
      if (Date.now() >= retryAt) return follow();
      update().finally(function () {
        poll(retryAt);
      });
    }, POLL_MS);
  }

  function followAgain() {
    if (!stream) return; // polling: the stream is tried again, with the token, soon
    stream.close();
    follow();
  }

  if (live) follow();

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
        followAgain(); // with the token now
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
