/**
 * vitest globalSetup of the `temporal` project: one Temporal dev server (headless, in memory, on a
 * free port) for the whole run. Tests connect to it through `inject('temporalAddress')`.
 */
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../dev/dev-server';
import { freePort } from '../../dev/ports';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startDevServer({ port: await freePort(), headless: true });
  project.provide('temporalAddress', server.address);
  return () => server.stop();
}
