// go-starter starts a rampflow customer journey the way a partner backend written in Go would: with
// the Temporal Go SDK, by workflow type name and task queue, with the journey's JSON input (see
// contract/rampflow.contract.json), then reads the journey's state with the journeyState query.
//
//	go run . -address 127.0.0.1:7233 -task-queue rampflow -input '{"customer":{...}}' -wait-stage AWAITING_KYC
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
	"os"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
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
	flag.Parse()

	state, err := run(*address, *namespace, *taskQueue, *input, *waitStage, *timeout)
	if state != nil {
		out, _ := json.MarshalIndent(state, "", "  ")
		fmt.Println(string(out))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-starter:", err)
		os.Exit(1)
	}
}

func run(address, namespace, taskQueue, input, waitStage string, timeout time.Duration) (map[string]any, error) {
	var request map[string]any
	if err := json.Unmarshal([]byte(input), &request); err != nil {
		return nil, fmt.Errorf("-input is not a JSON object: %w", err)
	}
	customer, _ := request["customer"].(map[string]any)
	externalID, _ := customer["externalId"].(string)
	if externalID == "" {
		return nil, errors.New("-input needs customer.externalId: the journey's workflow ID is customer/<externalId>")
	}

	c, err := client.Dial(client.Options{HostPort: address, Namespace: namespace})
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
