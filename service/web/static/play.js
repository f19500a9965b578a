// The play page: an account (its token kept in localStorage), a challenge against bots (POST /api/v1/challenges),
// then the game, followed through its event stream with the token (stream.js): the seat's board or table (the
// /play/games/<id>/seat fragment, drawn from the engine's view of the token's own seat), the legal actions as
// buttons (GET /api/v1/games/<id>/actions, in the page's language) and the one clicked sent
// (POST /api/v1/games/<id>/actions). Nothing here asks for another seat.
(function () {
  "use strict";
  var root = document.getElementById("play");
  if (!root) return;
  var KEY = "sorry-arena-token";
  var NAME_KEY = "sorry-arena-name";
  var lang = root.dataset.lang;
  var problem = document.getElementById("problem");

  function token() {
    return window.localStorage.getItem(KEY);
  }

  function say(message) {
    problem.textContent = root.dataset.error + " " + message;
    problem.hidden = false;
  }

  function api(method, path, body) {
    var headers = { Accept: "application/json", "Accept-Language": lang };
    if (token()) headers.Authorization = "Bearer " + token();
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(path, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (response) {
      return response.text().then(function (text) {
        var data = null;
        try {
          data = text ? JSON.parse(text) : null;
        } catch (error) {
          data = null;
        }
        if (!response.ok) {
          var failure = new Error((data && data.message) || "HTTP " + response.status);
          failure.status = response.status;
          throw failure;
        }
        return data;
      });
    });
  }

  // --- the setup: account, game, opponents, seat ------------------------------------------------------------
  function setup() {
    var setupPanel = document.getElementById("setup");
    var signedIn = document.getElementById("signed-in");
    var gameSelect = document.getElementById("game");
    var seatSelect = document.getElementById("seat");
    var slots = Array.prototype.slice.call(root.querySelectorAll("select.opponent"));

    function showAccount() {
      var has = Boolean(token());
      document.getElementById("new-account").hidden = has;
      document.getElementById("use-token").hidden = has;
      signedIn.hidden = !has;
      setupPanel.hidden = !has;
      if (has) {
        signedIn.querySelector(".who").textContent = root.dataset.signedIn.replace(
          "NAME",
          window.localStorage.getItem(NAME_KEY) || "?"
        );
        loadOpponents();
      }
    }

    function chosen() {
      return slots
        .map(function (slot) {
          return Number(slot.value);
        })
        .filter(function (id) {
          return id > 0;
        });
    }

    function fillSeats() {
      var count = chosen().length + 1;
      var kept = Math.min(Number(seatSelect.value || 0), count - 1);
      seatSelect.innerHTML = "";
      for (var seat = 0; seat < count; seat++) {
        var option = document.createElement("option");
        option.value = String(seat);
        option.textContent = root.dataset.seatLabel.replace("N", String(seat + 1));
        seatSelect.appendChild(option);
      }
      seatSelect.value = String(kept);
    }

    function showGameFields() {
      var board = gameSelect.value === "board";
      root.querySelectorAll(".board-only").forEach(function (field) {
        field.hidden = !board;
      });
      root.querySelectorAll(".card-only").forEach(function (field) {
        field.hidden = board;
      });
    }

    var asking = 0;

    function loadOpponents() {
      showGameFields();
      var ticket = ++asking;
      root.dataset.loading = "true"; // until the latest list is in (a test waits for it)
      api("GET", "/api/v1/challenges/opponents?game=" + encodeURIComponent(gameSelect.value))
        .then(function (found) {
          if (ticket !== asking) return;
          delete root.dataset.loading;
          document.getElementById("no-bots").hidden = found.bots.length > 0;
          slots.forEach(function (slot, index) {
            slot.innerHTML = "";
            if (index > 0) {
              var none = document.createElement("option");
              none.value = "0";
              none.textContent = root.dataset.nobody;
              slot.appendChild(none);
            }
            found.bots.forEach(function (bot) {
              var option = document.createElement("option");
              option.value = String(bot.id);
              var mode = bot.mode === "push" ? root.dataset.modePush : root.dataset.modePull;
              option.textContent = bot.name + " (" + mode + (bot.yours ? ", " + root.dataset.mine : "") + ")";
              slot.appendChild(option);
            });
            slot.value = index === 0 && found.bots.length ? String(found.bots[0].id) : "0";
          });
          fillSeats();
        })
        .catch(function (error) {
          if (ticket === asking) delete root.dataset.loading;
          if (error.status === 401) {
            window.localStorage.removeItem(KEY);
            showAccount();
          }
          say(error.message);
        });
    }

    document.getElementById("new-account").addEventListener("submit", function (event) {
      event.preventDefault();
      var name = document.getElementById("account-name").value;
      api("POST", "/api/v1/players", { name: name })
        .then(function (made) {
          window.localStorage.setItem(KEY, made.token);
          window.localStorage.setItem(NAME_KEY, made.name);
          problem.hidden = true;
          showAccount();
        })
        .catch(function (error) {
          say(error.message);
        });
    });
    document.getElementById("use-token").addEventListener("submit", function (event) {
      event.preventDefault();
      var given = document.getElementById("account-token").value.trim();
      if (!given) return;
      window.localStorage.setItem(KEY, given);
      window.localStorage.removeItem(NAME_KEY);
      problem.hidden = true;
      showAccount();
    });
    document.getElementById("forget").addEventListener("click", function () {
      window.localStorage.removeItem(KEY);
      window.localStorage.removeItem(NAME_KEY);
      showAccount();
    });
    gameSelect.addEventListener("change", loadOpponents);
    slots.forEach(function (slot) {
      slot.addEventListener("change", fillSeats);
    });
    document.getElementById("challenge-form").addEventListener("submit", function (event) {
      event.preventDefault();
      var game = gameSelect.value;
      var settings = { turn_cap: Number(document.getElementById("turn-cap").value) };
      if (game === "board") {
        settings.variant = document.getElementById("variant").value;
      } else {
        settings.pawns = Number(document.getElementById("pawns").value);
        settings.longer_game = document.getElementById("longer").checked;
      }
      var body = {
        game: game,
        settings: settings,
        bot_ids: chosen(),
        seat: Number(seatSelect.value),
        move_timeout_ms: Math.round(Number(document.getElementById("move-seconds").value) * 1000),
      };
      document.getElementById("start").disabled = true;
      api("POST", "/api/v1/challenges", body)
        .then(function (made) {
          window.location.href = root.dataset.playUrl.replace("ID", String(made.id)) + "?lang=" + lang;
        })
        .catch(function (error) {
          document.getElementById("start").disabled = false;
          say(error.message);
        });
    });
    showAccount();
  }

  // --- the game: the seat's view, the actions as buttons ----------------------------------------------------
  // The page follows the game's event stream with the person's token (stream.js), so it carries the seat's own
  // events and the public ones, never another seat's. Each event (a bot's move, the person's own, the fallback
  // move of a passed deadline) asks for the seat's actions (GET .../actions, answered at once) and, when the game
  // moved, draws the seat and its buttons again; the "end" event ends the page's game. Should the stream fail (a
  // 429: the account's slots all taken; an old browser), the page long-polls its actions instead
  // (GET .../actions?wait=), and tries the stream again after RETRY_STREAM_MS.
  function game() {
    var RETRY_STREAM_MS = 30000;
    var challengeId = root.dataset.challenge;
    var status = document.getElementById("status");
    var seatView = document.getElementById("seat-view");
    var actions = document.getElementById("actions");
    var yourTurn = document.getElementById("your-turn");
    var waiting = document.getElementById("waiting");
    var finished = document.getElementById("finished");
    var gameId = null;
    var stopped = false;
    var drawn = null; // the status and ply ("active 12") whose seat and buttons are on the page
    var stream = null;
    var asking = null;
    var askAgain = false;
    var whenSent = null; // the long polls' loop waits for the person's click here

    if (!token()) {
      document.getElementById("no-token").hidden = false;
      status.hidden = true;
      return;
    }

    function pause(ms) {
      return new Promise(function (resolve) {
        window.setTimeout(resolve, ms);
      });
    }

    function waitForGame() {
      return api("GET", "/api/v1/challenges/" + challengeId).then(function (found) {
        if (found.game_id !== null) return found;
        if (found.status === "cancelled") throw new Error(found.status);
        return pause(300).then(waitForGame);
      });
    }

    function showSeat() {
      var url = root.dataset.seatUrl.replace("ID", String(gameId)) + "?lang=" + encodeURIComponent(lang);
      return fetch(url, { headers: { Accept: "text/html", Authorization: "Bearer " + token() } }).then(
        function (response) {
          return response.text().then(function (html) {
            if (!response.ok) throw new Error("HTTP " + response.status);
            seatView.innerHTML = html;
          });
        }
      );
    }

    // The person's click went (ok) or did not: then the buttons are drawn again.
    function sent(ok) {
      if (!ok) drawn = null;
      if (whenSent) {
        var done = whenSent;
        whenSent = null;
        done();
      } else if (!ok) {
        refresh();
      }
    }

    function showActions(offered) {
      actions.innerHTML = "";
      yourTurn.hidden = !offered.your_decision;
      waiting.hidden = offered.your_decision || offered.status !== "active";
      yourTurn.querySelector(".deadline").textContent = offered.deadline
        ? root.dataset.deadline.replace("TIME", new Date(offered.deadline).toLocaleTimeString(lang))
        : "";
      if (!offered.your_decision) return;
      offered.actions.forEach(function (action) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "action";
        button.dataset.action = action.id;
        button.textContent = action.text;
        button.addEventListener("click", function () {
          actions.querySelectorAll("button").forEach(function (other) {
            other.disabled = true;
          });
          api("POST", "/api/v1/games/" + gameId + "/actions", { action: action.id, expected_ply: offered.ply })
            .then(function () {
              sent(true);
            })
            .catch(function (error) {
              if (error.status !== 409) say(error.message); // 409: the game moved on (a deadline passed)
              sent(false);
            });
        });
        actions.appendChild(button);
      });
    }

    // Draw what the seat is offered (the seat again only when the game moved, started or ended).
    function draw(offered) {
      var shown = offered.status + " " + offered.ply;
      if (shown === drawn) return Promise.resolve();
      return showSeat().then(function () {
        if (offered.status === "over" || offered.status === "cancelled") return end(offered.status);
        drawn = shown;
        showActions(offered);
      });
    }

    function end(state) {
      stopped = true;
      if (stream) stream.close();
      actions.innerHTML = "";
      yourTurn.hidden = true;
      waiting.hidden = true;
      var text = finished.querySelector(".over-text");
      text.textContent = state === "cancelled" ? text.dataset.cancelled : text.dataset.over;
      document.getElementById("replay").href = root.dataset.replayUrl.replace("ID", String(gameId));
      finished.hidden = false;
      document.getElementById("leave").hidden = true;
      root.dataset.over = state;
    }

    // On each event of the stream: the seat's actions now (one request at a time; events meanwhile ask again).
    function refresh() {
      if (stopped) return;
      if (asking) {
        askAgain = true;
        return;
      }
      asking = api("GET", "/api/v1/games/" + gameId + "/actions")
        .then(draw)
        .catch(function (error) {
          say(error.message);
        })
        .finally(function () {
          asking = null;
          if (askAgain) {
            askAgain = false;
            refresh();
          }
        });
    }

    function follow() {
      if (!root.dataset.live) root.dataset.live = "connecting"; // else "poll" or "stream" stays until it answers
      stream = window.SorryArenaStream.follow("/api/v1/games/" + gameId + "/events/stream", {
        headers: function () {
          return { Authorization: "Bearer " + token(), "Accept-Language": lang };
        },
        onOpen: function () {
          root.dataset.live = "stream";
        },
        onEvent: refresh,
        onFail: function () {
          stream = null;
          if (!stopped) poll(Date.now() + RETRY_STREAM_MS);
        },
      });
    }

    // Without the stream: long polls of the seat's actions, a click awaited at each decision.
    function poll(retryAt) {
      root.dataset.live = "poll";
      if (stopped) return;
      if (Date.now() >= retryAt) return follow();
      api("GET", "/api/v1/games/" + gameId + "/actions?wait=25")
        .then(function (offered) {
          return draw(offered).then(function () {
            if (stopped || !offered.your_decision) return;
            return new Promise(function (resolve) {
              whenSent = resolve;
            });
          });
        })
        .then(
          function () {
            poll(retryAt);
          },
          function (error) {
            if (error.status !== 429) say(error.message);
            return pause(error.status === 429 ? 1000 : 2000).then(function () {
              poll(retryAt);
            });
          }
        );
    }

    document.getElementById("leave").addEventListener("click", function () {
      api("POST", "/api/v1/tournaments/" + challengeId + "/cancel").catch(function (error) {
        say(error.message);
      });
    });

    waitForGame()
      .then(function (found) {
        gameId = found.game_id;
        root.dataset.game = String(gameId);
        status.hidden = true;
        follow();
      })
      .catch(function (error) {
        status.hidden = true;
        end("cancelled");
        say(error.message);
      });
  }

  if (root.dataset.mode === "setup") setup();
  else game();
})();
