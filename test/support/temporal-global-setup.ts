/**
 * vitest globalSetup of the `temporal` project: one Temporal dev server (headless, in memory, on a
 * free port) and one bundle of rampflow's workflows for the whole run. Tests reach them through
 * `inject('temporalAddress')` and `inject('workflowBundlePath')`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../dev/dev-server';
import { freePort } from '../../dev/ports';
import { WORKFLOW_BUNDLE_PATHS } from '../../workers/worker';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'rampflow-tests-'));
  const [server, bundle] = await Promise.all([
    startDevServer({ port: await freePort(), headless: true }),
    bundleWorkflowCode({
      ...WORKFLOW_BUNDLE_PATHS,
      logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
    }),
  ]);
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
