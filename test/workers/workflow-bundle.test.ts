/**
 * Which workflow bundle a worker runs (workers/workflow-bundle.ts) and the build ID it gets from it
 * (workers/versioning.ts): the prebuilt one, never a bundle made at start in production, and a fresh
 * bundle in development when the prebuilt one is older than the workflow sources; and that the bundle
 * holds no zod.
 */
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIdOfBundle } from '../../workers/versioning';
import { newestFileUnder, resolveWorkflowBundle } from '../../workers/workflow-bundle';

const CODE = 'exports.importWorkflows = function () {};\n';
const sourceMap = (folder: string) =>
  `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify({ version: 3, sources: [`${folder}/workflows/index.ts`] })).toString('base64')}`;

function prebuilt(content: string, modified?: Date): string {
  const path = join(mkdtempSync(join(tmpdir(), 'rampflow-prebuilt-')), 'workflow-bundle.js');
  writeFileSync(path, content);
  if (modified) utimesSync(path, modified, modified);
  return path;
}

describe('the build ID of a workflow bundle', () => {
  it('is the same for the same code bundled in two folders, and changes with any change of code', () => {
    const here = buildIdOfBundle(`${CODE}${sourceMap('/home/dev/rampflow')}`);
    expect(here).toMatch(/^[0-9a-f]{20}$/);
    expect(buildIdOfBundle(`${CODE}${sourceMap('/app')}`)).toBe(here);
    expect(buildIdOfBundle(`${CODE.replace('{}', '{ }')}${sourceMap('/app')}`)).not.toBe(here);
  });
});

describe('the bundle a worker runs', () => {
  it('is the prebuilt one, with the build ID of its code', async () => {
    const content = `${CODE}${sourceMap('/app')}`;
    const path = prebuilt(content);
    expect(await resolveWorkflowBundle({ production: false, prebuiltPath: path })).toEqual({
      codePath: path,
      buildId: buildIdOfBundle(content),
      origin: 'prebuilt',
    });
  });

  it('in production, is the prebuilt one however old, and there must be one', async () => {
    const path = prebuilt(CODE, new Date('2001-01-01T00:00:00Z'));
    expect(await resolveWorkflowBundle({ production: true, prebuiltPath: path })).toMatchObject({
      codePath: path,
      origin: 'prebuilt',
    });
    await expect(
      resolveWorkflowBundle({ production: true, prebuiltPath: join(tmpdir(), 'no-such-bundle.js') }),
    ).rejects.toThrow(/no prebuilt workflow bundle at .*: run `npm run build`/);
  });

  it('named by WORKER_WORKFLOW_BUNDLE, must be there, in development too', async () => {
    const path = prebuilt(CODE);
    expect(await resolveWorkflowBundle({ production: false, prebuiltPath: path, named: true })).toMatchObject({
      codePath: path,
      origin: 'prebuilt',
    });
    const missing = join(tmpdir(), 'no-such-bundle.js');
    await expect(resolveWorkflowBundle({ production: false, prebuiltPath: missing, named: true })).rejects.toThrow(
      `WORKER_WORKFLOW_BUNDLE names no file: ${missing}`,
    );
  });

  it('in development, is bundled from the sources when the prebuilt one is older than workflows/', async () => {
    const path = prebuilt(CODE, new Date('2001-01-01T00:00:00Z'));
    const resolved = await resolveWorkflowBundle({ production: false, prebuiltPath: path });
    expect(resolved.origin).toBe('bundled: the prebuilt bundle is older than workflows/');
    expect(resolved.codePath).not.toBe(path);
    expect(resolved.buildId).toBe(buildIdOfBundle(readFileSync(resolved.codePath)));
    const code = readFileSync(resolved.codePath, 'utf8');
    expect(code).toContain('customerJourney');
    // Every workflow instantiates the bundle's modules for itself: zod there was 1.18 MiB of each cached
    // journey. Workflows check their inputs with generated code instead (workflows/common/checks.ts).
    expect(code.match(/^\/\*\*\*\/ "[^"]*node_modules\/zod\/[^"]*"/gm) ?? []).toEqual([]);
    expect(code).toMatch(/^\/\*\*\*\/ "\.\/workflows\/generated\/contract-checks\.js"/m);
  }, 180_000);

  it("sees a change in any workflow's own folder, not only at the top of workflows/", () => {
    const root = mkdtempSync(join(tmpdir(), 'rampflow-sources-'));
    mkdirSync(join(root, 'deposit', 'nested'), { recursive: true });
    const at = (file: string, when: string) => {
      writeFileSync(join(root, file), '');
      utimesSync(join(root, file), new Date(when), new Date(when));
    };
    at('index.ts', '2026-01-01T00:00:00Z');
    at('deposit/run.ts', '2026-03-01T00:00:00Z');
    at('deposit/nested/steps.ts', '2026-02-01T00:00:00Z');
    expect(newestFileUnder(root)).toBe(Date.parse('2026-03-01T00:00:00Z'));
  });
});
