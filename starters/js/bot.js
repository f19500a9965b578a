// A SORRY! bot for the sorry-arena service: Node 20, standard library only (docs/bots.md, "Starters side by side").
//   node bot.js --push [--host 127.0.0.1] [--port 8001] [--secret S]   the service calls the bot
//   node bot.js --pull [--url http://127.0.0.1:8000] [--token T]       the bot polls the service with its token
//   node bot.js selftest     checks the signature code against the test vector of docs/bot-protocol.md
const crypto = require('crypto');
const http = require('http');

// Your strategy. `request` is the same in both modes, the push protocol's move request: game_id, seat, ply,
// decision (what is asked), view (what your seat sees), actions (the legal ones), deadline_ms. Return an action id.
function choose(request) {
  return request.actions[0].id; // the first legal action: replace it with something smarter
}
// --- Configuration: the Python client's flags, and $SORRY_ARENA_SECRET, _TOKEN and _API for --secret, --token, --url.
const fail = (message, status = 2) => { console.error(`bot.js: ${message}`); process.exit(status); };
function options(argv, env) {
  const opts = { host: '127.0.0.1', port: '8001', secret: env.SORRY_ARENA_SECRET || '',
    token: env.SORRY_ARENA_TOKEN || '', url: env.SORRY_ARENA_API || 'http://127.0.0.1:8000' };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].slice(2);
    if (['--push', '--pull', 'selftest'].includes(argv[i]) && !opts.mode) opts.mode = argv[i].replace('--', '');
    else if (argv[i] === `--${name}` && Object.hasOwn(opts, name) && i + 1 < argv.length) opts[name] = argv[++i];
    else fail(`${argv[i]}: unknown, repeated or without its value (give --push, --pull or selftest, then flags)`);
  }
  if (!['push', 'pull', 'selftest'].includes(opts.mode)) fail('give --push, --pull or selftest');
  if (!/^\d{1,5}$/.test(opts.port) || +opts.port > 65535) fail(`--port must be from 0 to 65535, not ${opts.port}`);
  if (!/^https?:\/\/[^/?#@]+\/?$/.test(opts.url)) fail(`--url must be http(s)://host[:port], not ${opts.url}`);
  if (opts.mode === 'pull' && !opts.token) fail('--pull needs the bot\'s token: --token or $SORRY_ARENA_TOKEN');
  return { ...opts, url: opts.url.replace(/\/$/, '') };
}
// --- Signatures (docs/bot-protocol.md, "Signatures"): recent, made with the secret, each request id good once.
const WINDOW_S = 300, seen = new Map(); // seen: each request id accepted -> its timestamp, in the order accepted
function verified(secret, req, body, now = Date.now() / 1000) {
  const header = (name) => req.headers[`x-sorry-arena-${name}`] || '';
  const [timestamp, id, given] = [header('timestamp'), header('request-id'), Buffer.from(header('signature'))];
  if (!/^\d{1,12}$/.test(timestamp) || !/^[0-9a-f]{32}$/.test(id) || req.url.includes('\n')) return false;
  if (Math.abs(now - Number(timestamp)) > WINDOW_S) return false; // too old, or from the future
  const mac = crypto.createHmac('sha256', secret).update(`${timestamp}\n${id}\n${req.method}\n${req.url}\n`);
  const expected = Buffer.from('v2=' + mac.update(body).digest('hex')); // the raw bytes, never re-serialised JSON
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return false; // constant time
  for (const [old, stamp] of seen) { if (now - stamp <= WINDOW_S) break; seen.delete(old); } // forget the expired
  if (seen.has(id)) return false; // a replay
  seen.set(id, Number(timestamp));
  return true;
}
// --- Push mode: the service POSTs JSON to {base}/info, /start, /move and /end (docs/bot-protocol.md).
async function handle(opts, req) { // the answer's [HTTP status, JSON body] to one request of the service
  if (!(req.headers['content-length'] <= 1 << 20)) return [413, { error: 'give a Content-Length up to 1 MiB' }];
  let body = Buffer.alloc(0);
  for await (const chunk of req) body = Buffer.concat([body, chunk]); // (Node stops at the Content-Length)
  if (opts.secret && !verified(opts.secret, req, body)) return [401, { error: 'bad, stale or replayed signature' }];
  const request = (() => { try { return JSON.parse(body); } catch { return null; } })();
  if (!request || typeof request !== 'object' || Array.isArray(request)) return [400, { error: 'not a JSON object' }];
  const name = req.url.split('?')[0].replace(/\/+$/, '').split('/').pop(); // the route: the path's last part
  const games = ['board', 'card'];
  if (name === 'info') return [200, { nonce: request.nonce, name: 'js-starter', games, protocols: [2] }];
  if (name === 'start' || name === 'end') return [200, {}];
  if (name !== 'move') return [404, { error: `unknown route ${name}: expected info, start, move or end` }];
  try { return [200, { action: choose(request) }]; } catch (error) { return [500, { error: `choose(): ${error}` }]; }
}
function push(opts) {
  const server = http.createServer(async (req, res) => {
    const [status, payload] = await handle(opts, req);
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
  });
  server.keepAliveTimeout = 120000; // the service keeps one connection for a whole game
  server.on('error', (error) => fail(`cannot listen on ${opts.host}:${opts.port}: ${error.message}`, 1));
  server.listen(Number(opts.port), opts.host, () => {
    const url = `http://${opts.host}:${server.address().port}`;
    console.log(`js-starter (board, card) serving at ${url} -- register e.g. ${url}/bot`);
  });
  if (!opts.secret) console.error('warning: no --secret: request signatures are NOT checked');
}
// --- Pull mode: long-poll GET /api/v1/decisions, answer each with POST /api/v1/games/{id}/actions (docs/bots.md).
async function call(opts, method, path, payload) { // [HTTP status, the JSON answer or null]
  const headers = { Authorization: `Bearer ${opts.token}`, 'Content-Type': 'application/json' };
  const signal = AbortSignal.timeout(45000); // a long poll lasts up to 30 s
  const res = await fetch(opts.url + path, { method, headers, body: payload && JSON.stringify(payload), signal });
  return [res.status, await res.json().catch(() => null)];
}
async function play(opts, found, answered) { // one move; the next decision when the bot decides again at once
  const left = found.deadline ? Math.max(1, Date.parse(found.deadline) - Date.now()) : null; // ms to the deadline
  const request = { type: 'move', game_id: found.game_id, seat: found.seat, ply: found.ply,
    decision: found.decision.kind, view: found.view, actions: found.actions, deadline_ms: left };
  const move = { action: choose(request), expected_ply: found.ply };
  const [status, reply] = await call(opts, 'POST', `/api/v1/games/${found.game_id}/actions`, move);
  answered.set(found.game_id, found.ply);
  if (status !== 200) console.error(`game ${found.game_id} ply ${found.ply}: ${status} ${reply?.message}`);
  return status === 200 && reply.your_decision && reply.actions?.length ? { ...reply, seat: found.seat } : null;
}
async function pull(opts) {
  console.log(`js-starter playing at ${opts.url} (pull mode) -- Ctrl-C to stop`);
  const answered = new Map(); // game id -> the last ply answered: the inbox may list it again for a moment
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  for (;;) {
    try {
      const [status, inbox] = await call(opts, 'GET', '/api/v1/decisions?wait=30');
      if (status === 401) fail('the service refused the token (401): give the bot\'s token from its registration', 1);
      if (status !== 200 || !Array.isArray(inbox?.decisions)) throw new Error(`GET /decisions answered ${status}`);
      const fresh = inbox.decisions.filter((found) => (answered.get(found.game_id) ?? -1) < found.ply);
      for (let found of fresh) while (found) found = await play(opts, found, answered);
      if (!fresh.length && inbox.decisions.length) await pause(250); // all answered: the service moves on soon
    } catch (error) {
      console.error(`${error.cause?.message ?? error.message}; retrying in 1 s`);
      await pause(1000);
    }
  }
}
// --- Self-test: docs/bot-protocol.md's test vector through the server's own check; exit status 0 or 1.
function selftest() {
  const headers = { 'x-sorry-arena-timestamp': '1700000000', 'x-sorry-arena-request-id': '0123456789abcdef'.repeat(2),
    'x-sorry-arena-signature': 'v2=e40190da32b910d7be912846796a2f13cc7c1cc0c9248f4fab0da0df738297b7' };
  const body = '{"type":"info","nonce":"8f14e45fceea167a"}';
  const ok = verified('s3cret', { method: 'POST', url: '/bot/info', headers }, body, 1700000000);
  console.log(ok ? 'selftest passed: the documented signature checks' : 'selftest FAILED: the signature is wrong');
  process.exit(ok ? 0 : 1);
}
const opts = options(process.argv.slice(2), process.env);
({ push, pull, selftest })[opts.mode](opts);
