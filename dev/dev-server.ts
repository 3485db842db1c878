/**
 * Starts the Temporal CLI's dev server for `npm start` and for the tests, and stops it cleanly.
 *
 * The server keeps its state in a SQLite file when given one (history survives a restart), registers
 * rampflow's search attributes, and has the server's call-home version check turned off: these
 * machines have no network beyond loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { RAMP_SEARCH_ATTRIBUTES } from '../observability/search-attributes';
import { INDEXED_VALUE_TYPES, searchAttributeProblems, type SearchAttributeSpec } from '../workers/namespace-check';
import { requireTemporalCli } from './temporal-cli';

export interface DevServerOptions {
  /** gRPC port of the frontend. */
  port: number;
  /** Web UI port; ignored when headless. */
  uiPort?: number;
  headless?: boolean;
  /** SQLite file for persistent state; in-memory when omitted. */
  dbFile?: string;
  namespace?: string;
  /** The Web UI's remote codec endpoint (a codec server), so it shows decrypted payloads. */
  uiCodecEndpoint?: string;
  /** Where the server's own log lines go; dropped when omitted. */
  onLog?: (line: string) => void;
  /** How long to wait for the frontend to answer. */
  readyTimeoutMs?: number;
  /** The search attributes to register: rampflow's (RAMP_SEARCH_ATTRIBUTES) unless a test wants a namespace without some. */
  searchAttributes?: readonly SearchAttributeSpec[];
}

export interface DevServer {
  address: string;
  uiUrl: string | undefined;
  namespace: string;
  /** Ends the server (SIGTERM, then SIGKILL after a grace period) and waits for it to exit. */
  stop(): Promise<void>;
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const cli = await requireTemporalCli();
  const namespace = options.namespace ?? 'default';
  const searchAttributes = options.searchAttributes ?? RAMP_SEARCH_ATTRIBUTES;
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
    // Updates and update-with-start (POST /journeys, signUp) are on by default in the server 1.29.1
    // the CLI embeds (frontend.enableExecuteMultiOperation): no value needed for them.
    '--dynamic-config-value',
    'frontend.enableServerVersionCheck=false',
    // Task queue priority (workflows/common/calls.ts: signups before bulk retries and
    // reconciliation on the service task queue) needs the new matcher; set, not left to the default.
    '--dynamic-config-value',
    'matching.useNewMatcher=true',
    ...searchAttributes.flatMap(({ name, type }) => ['--search-attribute', `${name}=${type}`]),
  ];
  if (options.headless) args.push('--headless');
  else if (options.uiPort !== undefined) args.push('--ui-port', String(options.uiPort));
  if (!options.headless && options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.dbFile) {
    mkdirSync(dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }

  const child = spawn(cli.path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) {
        if (!line.trim()) continue;
        output.push(line);
        if (output.length > 50) output.shift();
        options.onLog?.(line);
      }
    });
  }

  const address = `127.0.0.1:${options.port}`;
  const stop = () => stopChild(child, exited);
  try {
    await waitUntilServing(address, namespace, exited, options.readyTimeoutMs ?? 60_000);
    await registerMissingSearchAttributes(address, namespace, searchAttributes, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    const detail = output.slice(-10).join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}${detail ? `\n${detail}` : ''}`);
  }
  return {
    address,
    namespace,
    uiUrl: options.headless ? undefined : `http://127.0.0.1:${options.uiPort ?? options.port + 1000}`,
    stop,
  };
}

/** Polls the frontend until the namespace answers, the process dies, or the time runs out. */
async function waitUntilServing(
  address: string,
  namespace: string,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died: number | null | undefined;
  void exited.then((code) => {
    died = code;
  });
  for (;;) {
    if (died !== undefined) throw new Error(`the Temporal dev server exited during start-up (exit ${died})`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(
          `the Temporal dev server did not answer on ${address} within ${timeoutMs} ms: ${String(error)}`,
        );
      }
      await new Promise((wake) => setTimeout(wake, 250));
    }
  }
}

/**
 * `--search-attribute` registers attributes only when the server creates the namespace: a `--db-filename`
 * made before an attribute was added (RampStageSince) keeps the namespace without it, and every workflow
 * task that sets it fails. So the launcher adds what the namespace lacks, and waits until a visibility
 * query accepts it (the server's roles learn of it from a cache).
 */
async function registerMissingSearchAttributes(
  address: string,
  namespace: string,
  attributes: readonly SearchAttributeSpec[],
  timeoutMs: number,
): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    const { missing } = searchAttributeProblems({ ...(listed.customAttributes ?? {}) }, attributes);
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(({ name, type }) => [name, INDEXED_VALUE_TYPES[type]])),
    });
    const query = missing.map(({ name }) => `${name} IS NULL`).join(' AND ');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 });
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(
            `the dev server did not accept the search attributes ${missing.map(({ name }) => name).join(', ')} within ${timeoutMs} ms: ${String(error)}`,
          );
        await new Promise((wake) => setTimeout(wake, 250));
      }
    }
  } finally {
    await connection.close();
  }
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
}
