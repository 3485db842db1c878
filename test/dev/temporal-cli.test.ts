import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEMPORAL_CLI_VERSION } from '../../dev/temporal-cli';
import { runScript } from '../support/run';

/** A stand-in `temporal` that only answers --version, to exercise the look-up rules. */
function fakeTemporal(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-temporal-'));
  const path = join(dir, 'temporal');
  writeFileSync(path, `#!/bin/sh\necho "temporal version ${version} (Server 0, UI 0)"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** An environment in which neither a project build nor a PATH binary can be found. */
function bareEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    HOME: process.env.HOME,
    PATH: dirname(process.execPath),
    RAMPFLOW_TOOLS_DIR: mkdtempSync(join(tmpdir(), 'empty-tools-')),
    ...extra,
  };
}

describe('npm run setup:temporal', () => {
  it('uses TEMPORAL_CLI when it is set and runs', async () => {
    const fake = fakeTemporal('9.9.9');
    const result = await runScript('dev/install-temporal-cli.ts', [], { env: bareEnv({ TEMPORAL_CLI: fake }) });
    expect(result.stdout).toContain(`ready (TEMPORAL_CLI): ${fake}`);
    expect(result.code).toBe(0);
  });

  it('fails clearly when TEMPORAL_CLI points at something that does not run', async () => {
    const result = await runScript('dev/install-temporal-cli.ts', [], {
      env: bareEnv({ TEMPORAL_CLI: '/nonexistent/temporal' }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('TEMPORAL_CLI=/nonexistent/temporal does not run');
  });

  it('uses a temporal on PATH only when its version is the pinned one', async () => {
    const right = fakeTemporal(TEMPORAL_CLI_VERSION);
    const env = bareEnv();
    const accepted = await runScript('dev/install-temporal-cli.ts', [], {
      env: { ...env, PATH: `${dirname(right)}:${env.PATH}` },
    });
    expect(accepted.stdout).toContain(`ready (PATH): ${right}`);

    // A wrong version on PATH is passed over; with no Go either, the script says how to get one.
    const wrong = fakeTemporal('1.0.0');
    const refused = await runScript('dev/install-temporal-cli.ts', [], {
      env: { ...env, PATH: `${dirname(wrong)}:${env.PATH}` },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Go is not available to build it');
    expect(refused.stderr).toContain('set TEMPORAL_CLI');
  });

  it('only warns about a missing Go with --if-possible (as npm ci runs it), so installing the library needs no Go', async () => {
    const result = await runScript('dev/install-temporal-cli.ts', ['--if-possible'], { env: bareEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('skipped: Temporal CLI');
    expect(result.stdout).toContain('Go is not available to build it');
  });

  it('does not rebuild a CLI that is already there', async () => {
    // The test command runs setup:temporal before vitest, so the pinned CLI exists by now.
    const result = await runScript('dev/install-temporal-cli.ts', []);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`Temporal CLI ${TEMPORAL_CLI_VERSION.replace(/\./g, '\\.')} ready`));
    expect(result.stdout).not.toContain('building');
  });
});
