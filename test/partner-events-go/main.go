// A partner backend in Go, for test/partner-events/go-verify.test.ts: an HTTP endpoint that verifies
// each partner event with the Standard Webhooks Go library, as the README's "Telling your backend"
// shows, answers 204 (verified) or 401, and prints one JSON line per delivery. It prints its URL
// first and stops when its standard input closes.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

type result struct {
	Verified bool   `json:"verified"`
	Error    string `json:"error,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Sequence int    `json:"sequence,omitempty"`
}

func main() {
	secret := flag.String("secret", "", "the whsec_ secret to verify with")
	flag.Parse()
	wh, err := standardwebhooks.NewWebhook(*secret)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad secret:", err)
		os.Exit(2)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /events", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
		if err != nil {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		if err := wh.Verify(body, r.Header); err != nil {
			_ = out.Encode(result{Verified: false, Error: err.Error()})
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var event struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Sequence int    `json:"sequence"`
		}
		if err := json.Unmarshal(body, &event); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_ = out.Encode(result{Verified: true, ID: event.ID, Type: event.Type, Sequence: event.Sequence})
		w.WriteHeader(http.StatusNoContent)
	})
	go func() { _ = http.Serve(listener, mux) }()
	fmt.Printf("http://%s/events\n", listener.Addr().String())
	// Runs until the test closes standard input.
	_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
}
