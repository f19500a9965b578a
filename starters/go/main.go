// A SORRY! bot for the sorry-arena service in Go, standard library only (docs/bots.md, "Starters side by side").
// The files mirror the Python reference client's (clients/): this one holds your strategy and the command line,
// push.go serves the bot, pull.go polls the service for it, signature.go checks the service's signatures.
//
//	go run . --push [--host 127.0.0.1] [--port 8001] [--secret S]   the service calls the bot (docs/bot-protocol.md)
//	go run . --pull [--url http://127.0.0.1:8000] [--token T]       the bot polls the service with its token
//	go run . selftest   checks the signature code against the test vector of docs/bot-protocol.md
//
// --secret and --token default to $SORRY_ARENA_SECRET and $SORRY_ARENA_TOKEN, --url to $SORRY_ARENA_API.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"regexp"
	"strings"
)

// Request is what the bot decides on, the same in both modes: the push protocol's move request
// (docs/bot-protocol.md; its JSON keys are matched without case).
type Request struct {
	GameID    int `json:"game_id"`
	Seat, Ply int
	View      map[string]any   // what your seat sees; View["decision"]["kind"] says what is asked
	Actions   []map[string]any // the legal actions: an "id" and what each does
	Nonce     string           // (an info request's, which the bot sends back)
}

// choose is your strategy: it returns the id of one of the offered actions.
func choose(request Request) string {
	return fmt.Sprint(request.Actions[0]["id"]) // the first legal action: replace it with something smarter
}

func main() {
	pushing := flag.Bool("push", false, "serve the bot over HTTP: the service calls it")
	pulling := flag.Bool("pull", false, "poll the service with the bot's token")
	host := flag.String("host", "127.0.0.1", "push: the address to listen on")
	port := flag.String("port", "8001", "push: the port to listen on (0: any free port)")
	secret := flag.String("secret", os.Getenv("SORRY_ARENA_SECRET"), "push: the bot's secret (default "+
		"$SORRY_ARENA_SECRET)")
	token := flag.String("token", os.Getenv("SORRY_ARENA_TOKEN"), "pull: the bot's token (default $SORRY_ARENA_TOKEN)")
	api := flag.String("url", os.Getenv("SORRY_ARENA_API"), "pull: the service's base URL (default $SORRY_ARENA_API, "+
		"else http://127.0.0.1:8000)")
	flag.Lookup("secret").DefValue, flag.Lookup("token").DefValue = "", "" // --help shows neither
	flag.Parse()
	switch {
	case flag.NArg() == 1 && flag.Arg(0) == "selftest":
		selftest()
	case *pushing == *pulling || flag.NArg() > 0:
		log.Fatal("give --push, --pull or selftest: --help lists the flags")
	case *pushing:
		push(net.JoinHostPort(*host, *port), *secret)
	case *token == "":
		log.Fatal("--pull needs the bot's token: --token or $SORRY_ARENA_TOKEN (shown when the bot was registered)")
	case *api == "":
		pull("http://127.0.0.1:8000", *token)
	case !regexp.MustCompile(`^https?://[\w.:\[\]-]+/?$`).MatchString(*api):
		log.Fatalf("--url must be the service's http(s)://host[:port], not %q", *api)
	default:
		pull(strings.TrimSuffix(*api, "/"), *token)
	}
}
