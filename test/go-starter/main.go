// go-starter starts a rampflow customer journey the way a partner backend written in Go would: with
// the Temporal Go SDK, by workflow type name and task queue, with the journey's JSON input (see
// contract/rampflow.contract.json), then reads the journey's state with the journeyState query.
//
//	go run . -address 127.0.0.1:7233 -task-queue rampflow -input '{"customer":{...}}' -wait-stage AWAITING_KYC \
//	  -codec-endpoint http://127.0.0.1:8234 -codec-auth "Bearer $CODEC_SERVER_TOKEN"
//
// rampflow's workers encrypt every payload (README, "Customer data in Temporal"); a backend in another
// language reads them through rampflow's codec server, with its SDK's remote payload codec. (The
// workers also read plain input, so starting a journey needs no codec; reading its state does.)
//
// It prints the last state it read as JSON and exits 0 once the journey is at -wait-stage (or at once
// when none is given); 1 with the reason otherwise.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// The parts of the contract this program relies on (contract/rampflow.contract.json).
const (
	journeyWorkflowType = "customerJourney"
	journeyStateQuery   = "journeyState"
)

func journeyWorkflowID(externalID string) string { return "customer/" + externalID }

func main() {
	address := flag.String("address", "127.0.0.1:7233", "host:port of the Temporal frontend")
	namespace := flag.String("namespace", "default", "Temporal namespace")
	taskQueue := flag.String("task-queue", "rampflow", "the task queue rampflow's workers poll")
	input := flag.String("input", "", "the journey's start input as JSON")
	waitStage := flag.String("wait-stage", "", "query until the journey reports this stage")
	timeout := flag.Duration("timeout", 60*time.Second, "how long to wait for -wait-stage")
	codecEndpoint := flag.String("codec-endpoint", "", "rampflow's codec server, e.g. http://127.0.0.1:8234")
	codecAuth := flag.String("codec-auth", "", "the Authorization header for the codec server, e.g. \"Bearer <token>\"")
	flag.Parse()

	state, err := run(*address, *namespace, *taskQueue, *input, *waitStage, *timeout, dataConverter(*codecEndpoint, *codecAuth))
	if state != nil {
		out, _ := json.MarshalIndent(state, "", "  ")
		fmt.Println(string(out))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-starter:", err)
		os.Exit(1)
	}
}

// dataConverter encodes and decodes payloads through the codec server, when one is given.
func dataConverter(endpoint, authorization string) converter.DataConverter {
	if endpoint == "" {
		return converter.GetDefaultDataConverter()
	}
	codec := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{
		Endpoint: endpoint,
		ModifyRequest: func(request *http.Request) error {
			request.Header.Set("Authorization", authorization)
			return nil
		},
	})
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), codec)
}

func run(address, namespace, taskQueue, input, waitStage string, timeout time.Duration, dataConverter converter.DataConverter) (map[string]any, error) {
	var request map[string]any
	if err := json.Unmarshal([]byte(input), &request); err != nil {
		return nil, fmt.Errorf("-input is not a JSON object: %w", err)
	}
	customer, _ := request["customer"].(map[string]any)
	externalID, _ := customer["externalId"].(string)
	if externalID == "" {
		return nil, errors.New("-input needs customer.externalId: the journey's workflow ID is customer/<externalId>")
	}

	c, err := client.Dial(client.Options{HostPort: address, Namespace: namespace, DataConverter: dataConverter})
	if err != nil {
		return nil, fmt.Errorf("connecting to Temporal at %s: %w", address, err)
	}
	defer c.Close()

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        journeyWorkflowID(externalID),
		TaskQueue: taskQueue,
		// A signup retried by the partner finds the journey already running; an ended one is not restarted.
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, journeyWorkflowType, request)
	if err != nil {
		return nil, fmt.Errorf("starting the journey: %w", err)
	}

	var state map[string]any
	for {
		value, err := c.QueryWorkflow(ctx, run.GetID(), "", journeyStateQuery)
		if err == nil {
			state = nil
			if err := value.Get(&state); err != nil {
				return nil, fmt.Errorf("reading the journey's state: %w", err)
			}
			if waitStage == "" || state["stage"] == waitStage {
				return state, nil
			}
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return state, fmt.Errorf("querying the journey: %w", err)
			}
			return state, fmt.Errorf("the journey did not reach %s within %s", waitStage, timeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
