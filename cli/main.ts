/**
 * The `rampflow` command line. Each subcommand lives in its own file under cli/ and registers itself
 * here; this file only wires them together and turns any error into one clear line and exit code 1.
 */
import { Command, CommanderError } from 'commander';
import { registerApiCommand } from './api';
import { registerClusterCommand } from './cluster';
import { registerDevCommand } from './dev';
import { registerWorkerCommand } from './worker';
import { registerSandboxCommand } from './sandbox';
import { registerWebhooksCommand } from './webhooks';
import { registerJourneyCommand } from './journey';
import { registerDepositCommand } from './deposit';
import { registerEventsCommand } from './events';
import { registerContractCommand } from './contract';
import { registerPartnerApiCommand } from './partner-api';
import { registerPartnerEventsCommand } from './partner-events';
import { registerPayoutCommand } from './payout';
import { registerCodecServerCommand } from './codec-server';
import { registerVersionsCommand } from './versions';
import { registerStatusCommand } from './status';
import { registerProbeCommand } from './probe';

export function buildProgram(): Command {
  const program = new Command('rampflow')
    .description('Durable Temporal workflows for the partner ramp service.')
    .showHelpAfterError()
    .exitOverride();
  registerDevCommand(program);
  registerClusterCommand(program);
  registerWorkerCommand(program);
  registerSandboxCommand(program);
  registerApiCommand(program);
  registerWebhooksCommand(program);
  registerJourneyCommand(program);
  registerDepositCommand(program);
  registerEventsCommand(program);
  registerContractCommand(program);
  registerPartnerApiCommand(program);
  registerPartnerEventsCommand(program);
  registerPayoutCommand(program);
  registerCodecServerCommand(program);
  registerVersionsCommand(program);
  registerStatusCommand(program);
  registerProbeCommand(program);
  return program;
}

/** Runs the command line; bin/rampflow.cjs calls it, so importing this file runs nothing. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed help or its own message.
      process.exitCode = error.exitCode;
      return;
    }
    process.stderr.write(`rampflow: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

// The built image runs this file itself (`node dist/cli/main.js`, see the Dockerfile).
if (require.main === module) void runCli(process.argv);
