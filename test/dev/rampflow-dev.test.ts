import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { PROJECT_ROOT } from '../support/run';

function isListening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

describe('rampflow dev (npm start)', () => {
  it('serves Temporal and its Web UI, then stops everything on Ctrl-C', async () => {
    const port = await freePort();
    const uiPort = await freePort();
    const dbFile = join(mkdtempSync(join(tmpdir(), 'rampflow-dev-')), 'temporal.db');
    const child = spawn(
      process.execPath,
      [join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), 'dev', '--port', String(port), '--ui-port', String(uiPort), '--db-file', dbFile],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((done) => child.on('close', done));

    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`no "running" line in time:\n${output}`)), 60_000);
      child.stdout.on('data', () => {
        if (output.includes('press Ctrl-C to stop')) {
          clearTimeout(timer);
          ready();
        }
      });
    });
    expect(output).toContain(`Web UI http://127.0.0.1:${uiPort}`);
    const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(ui.status).toBe(200);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('stopped');
    // The dev server child is gone with it: nothing listens on its ports any more.
    expect(await isListening(port)).toBe(false);
    expect(await isListening(uiPort)).toBe(false);
  });
});
