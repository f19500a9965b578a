// A game's Server-Sent Events (GET /api/v1/games/<id>/events/stream) read with fetch() and a stream reader, since
// an EventSource cannot send the "Authorization: Bearer" header that the owner's view and the play page need.
// The game viewer (game.js) and the play page (play.js) follow their game with it instead of polling.
//
// window.SorryArenaStream.follow(url, options) opens the stream and returns { close() }. options:
//   since             the seq of the last event already known (default: none, every event from the first);
//   headers()         the request's headers (asked at each opening: a token signed in meanwhile goes with it);
//   onOpen()          the stream answered (200): events come as they happen;
//   onEvent(type, data)  each event ("event", "end"), its data parsed from JSON;
//   onFail(status)    the stream cannot be followed: its answer's status (429: too many streams; 401...), or 0 for
//                     a network error or a browser without streamed fetch(). Called once; nothing follows it.
// When the server closes the stream before its "end" event (a stream lives 5 minutes), it opens again after the
// last event received (?since=<its id>), once the server's "retry:" milliseconds have passed, as an EventSource
// would.
(function () {
  "use strict";
  var REOPEN_MS = 2000; // until the server's "retry:" says otherwise
  var supported =
    typeof window.fetch === "function" &&
    typeof window.ReadableStream === "function" &&
    typeof window.TextDecoder === "function" &&
    typeof window.AbortController === "function";

  // text/event-stream: lines; an empty line ends an event; "field: value" lines; ":" lines are comments; "retry:"
  // the milliseconds to wait before opening the stream again.
  function parser(dispatch, retry) {
    var rest = "";
    var type = "";
    var data = [];
    var id = null;
    return function (text) {
      var lines = (rest + text).split("\n");
      rest = lines.pop();
      lines.forEach(function (line) {
        if (line.charAt(line.length - 1) === "\r") line = line.slice(0, -1);
        if (line === "") {
          if (data.length) {
            var joined = data.join("\n");
            var parsed;
            try {
              parsed = JSON.parse(joined);
            } catch (error) {
              parsed = joined;
            }
            dispatch(type || "message", parsed, id);
          }
          type = "";
          data = [];
          id = null;
          return;
        }
        if (line.charAt(0) === ":") return;
        var colon = line.indexOf(":");
        var field = colon < 0 ? line : line.slice(0, colon);
        var value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.charAt(0) === " ") value = value.slice(1);
        if (field === "event") type = value;
        else if (field === "data") data.push(value);
        else if (field === "id") id = value;
        else if (field === "retry" && /^\d+$/.test(value)) retry(Number(value));
      });
    };
  }

  function follow(url, options) {
    var since = options.since === undefined ? null : String(options.since);
    var closed = false;
    var ended = false;
    var controller = null;
    var reopenMs = REOPEN_MS;

    function fail(status) {
      if (closed) return;
      closed = true;
      options.onFail(status);
    }

    function received(type, data, id) {
      if (id !== null && /^\d+$/.test(id)) since = id;
      if (type === "end") ended = true;
      options.onEvent(type, data);
    }

    function open() {
      if (closed) return;
      if (!supported) return fail(0);
      controller = new AbortController();
      var headers = Object.assign({ Accept: "text/event-stream" }, options.headers ? options.headers() : {});
      var target = since === null ? url : url + (url.indexOf("?") < 0 ? "?" : "&") + "since=" + since;
      fetch(target, { headers: headers, cache: "no-store", signal: controller.signal })
        .then(function (response) {
          if (!response.ok || !response.body) return fail(response.status);
          if (options.onOpen) options.onOpen();
          var reader = response.body.getReader();
          var decoder = new TextDecoder();
          var feed = parser(received, function (ms) {
            reopenMs = ms;
          });
          function pump() {
            return reader.read().then(function (chunk) {
              if (closed) return;
              if (chunk.done) {
                if (!ended) window.setTimeout(open, reopenMs); // its life is over, not the game
                return;
              }
              feed(decoder.decode(chunk.value, { stream: true }));
              return pump();
            });
          }
          return pump();
        })
        .catch(function () {
          fail(0);
        });
    }

    open();
    return {
      close: function () {
        closed = true;
        if (controller) controller.abort();
      },
    };
  }

  window.SorryArenaStream = { follow: follow };
})();
