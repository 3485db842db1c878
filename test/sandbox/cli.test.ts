/**
 * `rampflow sandbox` as a user runs it: it listens, serves signed requests, logs one line per
 * request (method, path, outcome, latency) without the secret or the signature, and stops on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { SignedClient } from './support/signed-client';

const BIN = join(__dirname, '../../bin/rampflow.cjs');

describe('rampflow sandbox', () => {
  it('serves signed requests and logs one line per request, never a secret', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'sandbox', '--port', '0', '--partner', 'cli-key:cli-secret:with-colon'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const lines: string[] = [];
    const waiting: ((line: string) => void)[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      waiting.shift()?.(line);
    });
    const nextLine = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
    try {
      const listening = JSON.parse(await nextLine());
      expect(listening.msg).toBe('sandbox listening');
      const client = new SignedClient(listening.url, 'cli-key', 'cli-secret:with-colon');
      const answered = nextLine();
      expect((await client.get('/customer/list?pageNum=1')).json.status).toBe('SUCCESS');
      const logged = JSON.parse(await answered);
      expect(logged).toMatchObject({ method: 'GET', path: '/customer/list', statusCode: 200, outcome: 'SUCCESS' });
      expect(typeof logged.latencyMs).toBe('number');
      const rejected = nextLine();
      await new SignedClient(listening.url, 'cli-key', 'wrong').get('/balance');
      expect(JSON.parse(await rejected)).toMatchObject({ path: '/balance', statusCode: 422, outcome: 'UNAUTHORISED' });
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    const output = lines.join('\n');
    expect(output).toContain('sandbox stopped');
    expect(output).not.toContain('cli-secret');
    expect(output).not.toMatch(/[0-9a-f]{64}/);
  });

  it('refuses to start without a partner key pair', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--partner/);
  });
});
