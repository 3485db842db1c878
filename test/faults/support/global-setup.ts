/**
 * vitest globalSetup of the `faults` project: one bundle of rampflow's workflows for the whole run,
 * reached through `inject('workflowBundlePath')`. Unlike the `temporal` project it starts no dev
 * server: each fault case starts, stops and restarts its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { WORKFLOW_BUNDLE_PATHS } from '../../../workers/worker';

declare module 'vitest' {
  export interface ProvidedContext {
    workflowBundlePath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'rampflow-faults-'));
  const bundle = await bundleWorkflowCode({
    ...WORKFLOW_BUNDLE_PATHS,
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('workflowBundlePath', bundlePath);
  return () => rmSync(dir, { recursive: true, force: true });
}
