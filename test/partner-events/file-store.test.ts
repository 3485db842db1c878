/**
 * The embedded file store: the shared contract, then what only a file log has to get right: a torn
 * last line (a crash mid-append), one writer at a time, readers before any writer, a damaged log.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE, LOG_FILE, openFilePartnerEventStore } from '../../partner-events/file-store';
import { PartnerEventWriterLockedError } from '../../partner-events/file-writer-lock';
import { customerEvents, customerStream } from '../support/partner-events';
import { testPayloadKeys } from '../support/temporal';
import { describeStoreContract, payloadKeys, readAll, type StoreSite } from './store-contract';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function newFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'rampflow-partner-events-'));
  folders.push(folder);
  return join(folder, 'events');
}

function fileSite(dir = newFolder()): StoreSite {
  return {
    open: (role, keys = payloadKeys('k1')) => openFilePartnerEventStore({ dir, payloadKeys: keys, role }),
    // One writer per folder: concurrent appends share it.
    async concurrentWriters(count, keys) {
      const writer = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
      return Array.from({ length: count }, () => writer);
    },
    async bytesAtRest() {
      return Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));
    },
  };
}

describeStoreContract('file store', async () => fileSite());

describe('the file store', () => {
  const keys = payloadKeys('k1');

  it('ignores a torn last line, cuts it off when the writer opens, and loses nothing before it', async () => {
    const dir = newFolder();
    const writer = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    const events = customerEvents('torn', 3);
    await writer.append(customerStream('torn'), events.slice(0, 2));
    await writer.close();
    const log = join(dir, LOG_FILE);
    const intact = statSync(log).size;
    // A crash in the middle of the next append: half a line, no newline.
    appendFileSync(log, '{"position":3,"id":"evt_torn","stream":"customer/torn","seq');

    const reader = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'reader' });
    expect((await readAll(reader, 10)).events.map((event) => event.id)).toEqual(
      events.slice(0, 2).map((event) => event.id),
    );

    const reopened = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    expect(statSync(log).size).toBe(intact);
    await reopened.append(customerStream('torn'), events);
    expect((await readAll(reader, 10)).events.map((event) => event.id)).toEqual(events.map((event) => event.id));
    expect(readFileSync(log, 'utf8').endsWith('\n')).toBe(true);
    await reopened.close();
    await reader.close();
  });

  it('treats a damaged last complete line as torn, and a damaged line before others as an error', async () => {
    const dir = newFolder();
    const writer = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    await writer.append(customerStream('dmg'), customerEvents('dmg', 2));
    await writer.close();
    const log = join(dir, LOG_FILE);
    const good = readFileSync(log);
    // What a crash can leave on some file systems: the length grew, the bytes did not arrive.
    appendFileSync(log, Buffer.concat([Buffer.alloc(40), Buffer.from('\n')]));
    const repaired = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    expect(readFileSync(log)).toEqual(good);
    await repaired.close();

    const lines = good.toString('utf8').split('\n');
    writeFileSync(log, [lines[0], 'not an event', lines[1], ''].join('\n'));
    await expect(openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' })).rejects.toThrow(
      /damaged line at byte \d+, with events after it/,
    );
    const reader = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'reader' });
    await expect(reader.after(undefined, 10)).rejects.toThrow(/damaged line/);
    await reader.close();
  });

  it('refuses a second writer, saying who holds the log, and lets the next writer in once the first closes', async () => {
    const dir = newFolder();
    const first = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    const second = openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    await expect(second).rejects.toBeInstanceOf(PartnerEventWriterLockedError);
    await expect(second).rejects.toThrow(
      new RegExp(`process ${process.pid} on .*one writer at a time.*PARTNER_EVENTS_DATABASE_URL`),
    );
    await first.close();
    const next = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    await next.close();
  });

  it('takes over the lock of a writer that died', async () => {
    const dir = newFolder();
    const writer = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    await writer.append(customerStream('crash'), customerEvents('crash', 1));
    await writer.close();
    // A process that has exited: its pid is free, as after a worker's crash.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: Number(gone.stdout), host: hostname(), token: 'dead' }));
    const next = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    expect((await next.after(undefined, 10)).events).toHaveLength(1);
    await next.close();
  });

  it('takes over the lock of a writer that exited but is not reaped yet (a zombie), as after a kill in a container', async () => {
    const dir = newFolder();
    await (await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' })).close();
    // sh starts a child that exits a second later, then becomes `sleep`, which never waits for it: the
    // child stays a zombie, answering signal 0, while the sleep lasts. (A child that exited at once
    // could be reaped by sh itself before the exec, on a loaded machine: then there is no zombie.)
    const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(
        await new Promise<string>((done) =>
          parent.stdout.once('data', (chunk: Buffer) => done(chunk.toString('utf8').trim())),
        ),
      );
      const isZombie = () => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
      for (let waited = 0; !isZombie(); waited += 10) {
        expect(waited, 'the child to exit').toBeLessThan(5_000);
        await new Promise((done) => setTimeout(done, 10));
      }
      expect(() => process.kill(zombie, 0)).not.toThrow();
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: zombie, host: hostname(), token: 'zombie' }));
      const next = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
      await next.close();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('works across processes: a writer in a child, a reader here; a writer killed mid-life leaves the log to the next', async () => {
    const dir = newFolder();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(__dirname, 'support', 'append-in-child.ts'), dir, 'child', '3'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    let output = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    await new Promise<void>((ready, failed) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('appended') && ready());
      void exited.then(() => failed(new Error(`the child writer exited: ${output}`)));
    });
    const runKeys = testPayloadKeys();
    const reader = await openFilePartnerEventStore({ dir, payloadKeys: runKeys, role: 'reader' });
    expect((await reader.after(undefined, 10)).events.map((event) => event.sequence)).toEqual([1, 2, 3]);
    await expect(openFilePartnerEventStore({ dir, payloadKeys: runKeys, role: 'writer' })).rejects.toThrow(
      `process ${child.pid} on `,
    );

    child.kill('SIGKILL');
    await exited;
    const writer = await openFilePartnerEventStore({ dir, payloadKeys: runKeys, role: 'writer' });
    await writer.append(customerStream('child'), customerEvents('child', 1, { from: 4 }));
    expect((await reader.stream(customerStream('child'), 0, 10)).map((event) => event.sequence)).toEqual([1, 2, 3, 4]);
    await writer.close();
    await reader.close();
  });

  it("takes over a copied folder's lock, whose live holder writes to the original folder, and still guards the original", async () => {
    const original = newFolder();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(__dirname, 'support', 'append-in-child.ts'), original, 'copied', '2'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    try {
      let output = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      await new Promise<void>((ready, failed) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('appended') && ready());
        void exited.then(() => failed(new Error(`the child writer exited: ${output}`)));
      });
      // As `cp -r .data` of a running stack does: the copy carries the live writer's lock.
      const copy = newFolder();
      cpSync(original, copy, { recursive: true });
      expect(JSON.parse(readFileSync(join(copy, LOCK_FILE), 'utf8'))).toMatchObject({ pid: child.pid });

      const runKeys = testPayloadKeys();
      const writer = await openFilePartnerEventStore({ dir: copy, payloadKeys: runKeys, role: 'writer' });
      expect((await writer.after(undefined, 10)).events).toHaveLength(2);
      expect(JSON.parse(readFileSync(join(copy, LOCK_FILE), 'utf8'))).toMatchObject({
        pid: process.pid,
        folder: realpathSync(copy),
      });
      await writer.close();

      // The original's writer is alive and writes there: its folder stays its own, and the refusal says which folder.
      await expect(openFilePartnerEventStore({ dir: original, payloadKeys: runKeys, role: 'writer' })).rejects.toThrow(
        `partner events in ${original} are already being written by process ${child.pid} on ${hostname()}, writing to ${realpathSync(original)}`,
      );
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });

  it('answers a reader with nothing before any writer created the folder, and keeps the folder private', async () => {
    const dir = newFolder();
    const reader = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'reader' });
    expect(await reader.after(undefined, 10)).toEqual({ events: [], next: '0' });
    expect(await reader.stream(customerStream('x'), 0, 10)).toEqual([]);
    expect(await reader.disabledEndpoints()).toEqual([]);
    const writer = await openFilePartnerEventStore({ dir, payloadKeys: keys, role: 'writer' });
    await writer.append(customerStream('x'), customerEvents('x', 1));
    expect((await reader.after(undefined, 10)).events).toHaveLength(1);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, LOG_FILE)).mode & 0o777).toBe(0o600);
    await writer.close();
    await reader.close();
  });
});
