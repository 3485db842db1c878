/**
 * vitest globalSetup of the `cluster` project (`npm run test:cluster`): one Temporal server on
 * PostgreSQL for the journey suites that run on it, reached like the dev server of the `temporal`
 * project through `inject('temporalAddress')`, and one bundle of rampflow's workflows (the fault
 * suite's setup). The fault cases in test/cluster/ start clusters of their own, which they break.
 */
import type { TestProject } from 'vitest/node';
import setupBundle from '../../faults/support/global-setup';
import { startTemporaryCluster } from '../../../dev/temporary-cluster';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [removeBundle, cluster] = await Promise.all([setupBundle(project), startTemporaryCluster()]);
  project.provide('temporalAddress', cluster.address);
  return async () => {
    await cluster.close();
    removeBundle();
  };
}
