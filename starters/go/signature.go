// The signature check of push mode (docs/bot-protocol.md, "Signatures"), and `go run . selftest`, which runs it on
// the documented test vector.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sync"
)

const window = 300 // seconds: how far a request's timestamp may be from our clock

var (
	wellFormed   = regexp.MustCompile(`^\d{1,12}\n[0-9a-f]{32}$`) // a timestamp, a newline, a request id
	seen, before = map[string]bool{}, map[string]bool{}           // the request ids accepted: this period, the last
	since        int64                                            // when this period (at least 2 windows) began
	mu           sync.Mutex                                       // one request at a time checks and records its id
)

// verify says whether a request is the service's, once: signed with the secret (over the timestamp, request id,
// method, path as sent and the raw body bytes, compared in constant time), recent, and its id not seen before.
func verify(secret string, h http.Header, method, target string, body []byte, now int64) bool {
	timestamp, id, stamp := h.Get("X-Sorry-Arena-Timestamp"), h.Get("X-Sorry-Arena-Request-Id"), int64(0)
	fmt.Sscan(timestamp, &stamp)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%s\n%s\n%s\n%s\n%s", timestamp, id, method, target, body)
	expected := fmt.Sprintf("v2=%x", mac.Sum(nil))
	mu.Lock()
	defer mu.Unlock()
	if now-since > 2*window { // a new period: the ids of two periods ago have timestamps too old to pass anyway
		seen, before, since = map[string]bool{}, seen, now
	}
	ok := wellFormed.MatchString(timestamp+"\n"+id) && now-stamp <= window && stamp-now <= window &&
		!seen[id] && !before[id] && hmac.Equal([]byte(h.Get("X-Sorry-Arena-Signature")), []byte(expected))
	if ok {
		seen[id] = true
	}
	return ok
}

// selftest checks verify on the documented test vector, then that the same request again is refused (a replay).
func selftest() {
	h := http.Header{"X-Sorry-Arena-Timestamp": {"1700000000"},
		"X-Sorry-Arena-Request-Id": {"0123456789abcdef0123456789abcdef"},
		"X-Sorry-Arena-Signature":  {"v2=e40190da32b910d7be912846796a2f13cc7c1cc0c9248f4fab0da0df738297b7"}}
	body := []byte(`{"type":"info","nonce":"8f14e45fceea167a"}`)
	once := verify("s3cret", h, "POST", "/bot/info", body, 1700000000)
	if !once || verify("s3cret", h, "POST", "/bot/info", body, 1700000000) {
		fmt.Println("selftest FAILED: the signature check is wrong")
		os.Exit(1)
	}
	fmt.Println("selftest passed: the documented signature checks")
}
