// Pull mode: long-poll the bot's inbox, GET /api/v1/decisions, and answer each decision in it with
// POST /api/v1/games/{id}/actions (docs/bots.md, "The pull protocol").
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"
)

// pull plays the bot's games through the service at api until the program ends.
func pull(api, token string) {
	fmt.Printf("go-starter playing at %s (pull mode) -- Ctrl-C to stop\n", api)
	answered := map[int]int{} // game id -> the next ply to answer: the inbox may list an answered one for a moment
	for {
		var inbox struct{ Decisions []Request }
		if err := call("GET", api+"/api/v1/decisions?wait=30", token, "", &inbox); err != nil {
			log.Printf("%v; retrying in 1 s", err)
			time.Sleep(time.Second)
			continue
		}
		fresh := 0
		for _, found := range inbox.Decisions {
			if found.Ply < answered[found.GameID] {
				continue
			}
			fresh++
			answered[found.GameID] = found.Ply + 1
			move, _ := json.Marshal(map[string]any{"action": choose(found), "expected_ply": found.Ply})
			url := fmt.Sprintf("%s/api/v1/games/%d/actions", api, found.GameID)
			if err := call("POST", url, token, string(move), new(any)); err != nil {
				log.Printf("game %d ply %d: %v", found.GameID, found.Ply, err) // too late, or not offered
			}
		}
		if fresh == 0 && len(inbox.Decisions) > 0 {
			time.Sleep(250 * time.Millisecond) // every one listed is answered: the service moves on in a moment
		}
	}
}

// call sends one request to the service with the bot's token; a 200's JSON answer goes to out.
func call(method, url, token, body string, out any) error {
	request, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	request.Header = http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}
	response, err := (&http.Client{Timeout: 45 * time.Second}).Do(request) // a long poll lasts up to 30 s
	if err != nil {
		return err
	}
	defer response.Body.Close()
	var refusal struct{ Message string } // the service's errors say {"code", "status", "message"}
	if response.StatusCode == 401 {
		log.Fatal("the service refused the token (401): give the bot's token, shown when it was registered")
	} else if response.StatusCode != 200 {
		json.NewDecoder(response.Body).Decode(&refusal)
		return fmt.Errorf("%s %s: %s %s", method, url, response.Status, refusal.Message)
	}
	return json.NewDecoder(response.Body).Decode(out)
}
