module rampflow.dev/partner-events-go

go 1.22

require github.com/standard-webhooks/standard-webhooks/libraries v0.0.1
