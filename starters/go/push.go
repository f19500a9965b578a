// Push mode: the service POSTs JSON to {base}/info, /start, /move and /end (docs/bot-protocol.md); any base path.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"path"
	"time"
)

// push serves the bot at address until the program ends; with a secret, only requests it signed are answered.
func push(address, secret string) {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var request Request
		status, answer, route := 200, any(struct{}{}), path.Base(r.URL.Path)
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		switch { // checked in this order: the signature before anything is read from the body
		case err != nil:
			status, answer = 413, "requests are limited to 1 MiB"
		case secret != "" && !verify(secret, r.Header, r.Method, r.RequestURI, body, time.Now().Unix()):
			status, answer = 401, "bad, stale or replayed signature"
		case json.Unmarshal(body, &request) != nil || route == "move" && len(request.Actions) == 0:
			status, answer = 400, "not a JSON request (or a move without actions)"
		case route == "info": // the nonce back proves the URL reaches this bot; protocols: the versions it speaks
			answer = map[string]any{"nonce": request.Nonce, "name": "go-starter", "games": []string{"board", "card"},
				"protocols": []int{2}}
		case route == "move":
			answer = map[string]string{"action": choose(request)}
		case route != "start" && route != "end":
			status, answer = 404, "unknown route: expected info, start, move or end"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(answer) // (Go adds the Content-Length, and keeps the connection open)
	})
	listener, err := net.Listen("tcp", address)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("go-starter (board, card) serving at http://%s -- register e.g. http://%[1]s/bot\n", listener.Addr())
	if secret == "" {
		log.Print("warning: no --secret: request signatures are NOT checked")
	}
	log.Fatal(http.Serve(listener, nil))
}
