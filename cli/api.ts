/**
 * `rampflow api <METHOD> <PATH[?QUERY]> [--data <json>|@file] [--debug]`: signs and sends one
 * request to the ramp service and prints the JSON response.
 *
 * The path and query are sent exactly as typed (percent-encode them yourself), and a --data body is
 * sent as the exact bytes given, after checking it is JSON: what you type is what gets signed.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isOlderGenerationPath } from '../ramp/assumptions';
import { loadAssumptionsFile } from '../ramp/assumptions-file';
import { RampClient } from '../ramp/client';
import { readRampEnvironment } from '../ramp/environment';
import type { RequestBody } from '../ramp/http-client';
import { splitRequestTarget } from '../ramp/signing';

interface ApiCommandOptions {
  data?: string;
  debug?: boolean;
}

/** Characters allowed verbatim in a request target (RFC 3986 pchar, `/`, `?`, and `%` escapes). */
const REQUEST_TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;

function readBody(data: string): RequestBody {
  const bytes = data.startsWith('@') ? readFileSync(data.slice(1)) : Buffer.from(data, 'utf8');
  try {
    JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new Error(`--data is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { bytes, contentType: 'application/json', hashed: true };
}

async function runApi(methodArgument: string, target: string, options: ApiCommandOptions): Promise<void> {
  const method = methodArgument.toUpperCase();
  if (method !== 'GET' && method !== 'POST')
    throw new Error(`METHOD must be GET or POST (the service uses no other), got ${methodArgument}`);
  if (!REQUEST_TARGET.test(target))
    throw new Error('PATH must start with / and contain only URL characters; percent-encode anything else');
  if (method === 'GET' && options.data !== undefined) throw new Error('--data is for POST requests');

  const environment = readRampEnvironment(process.env);
  if (!environment.ok) throw new Error(environment.problems.join('\n'));

  const client = new RampClient({
    baseUrl: environment.value.RAMP_BASE_URL,
    apiKey: environment.value.RAMP_API_KEY,
    apiSecret: environment.value.RAMP_API_SECRET,
    assumptions: loadAssumptionsFile(environment.value.RAMP_ASSUMPTIONS_FILE),
    onCanonicalString: options.debug
      ? (canonical) => process.stderr.write(`--- canonical string ---\n${canonical}\n------------------------\n`)
      : undefined,
  });
  try {
    const { path, query } = splitRequestTarget(target);
    const response = await client.http.send({
      method,
      path,
      query,
      body: options.data === undefined ? undefined : readBody(options.data),
      generation: isOlderGenerationPath(client.http.assumptions, path) ? 'legacy' : 'envelope',
    });
    process.stdout.write(`${JSON.stringify(response.body, null, 2)}\n`);
  } finally {
    await client.close();
  }
}

export function registerApiCommand(program: Command): void {
  program
    .command('api')
    .description(
      'sign and send one request to the ramp service (RAMP_BASE_URL, RAMP_API_KEY, RAMP_API_SECRET) and print the JSON response',
    )
    .argument('<method>', 'GET or POST')
    .argument('<path>', 'the path with an optional raw query, e.g. "/customer/list?pageNum=1&pageSize=10"')
    .option('--data <json|@file>', 'JSON body for a POST, inline or read from a file, sent byte for byte')
    .option('--debug', "print each attempt's canonical string to stderr (never the secret)")
    .action(runApi);
}
