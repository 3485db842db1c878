/**
 * The worker's place in a Worker Deployment (docs/deploying/versioning.md): the deployment's name
 * from the environment and a build ID derived from the workflow bundle itself, so two builds of the
 * same code share a version and any change to workflows/ gets a new one.
 */
import { createHash } from 'node:crypto';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerDeploymentOptions } from '@temporalio/worker';

/** The inline source map webpack appends: it names the folder the bundle was built in. */
const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=[^\n]*\s*$/;

/**
 * A build ID from the bundle's code: the first 20 hex digits (80 bits) of the SHA-256 of everything
 * but the source map, so the same sources bundled in two folders (a laptop, the image) share an ID.
 */
export function buildIdOfBundle(code: string | Buffer): string {
  return createHash('sha256').update(withoutSourceMap(code)).digest('hex').slice(0, 20);
}

/** The bundle's code alone: what runs, and what a kept release bundle needs (a fifth of the size). */
export function withoutSourceMap(code: string | Buffer): string {
  return (typeof code === 'string' ? code : code.toString('utf8')).replace(SOURCE_MAP_COMMENT, '');
}

/**
 * A versioned worker's options. Workflows say their own behaviour (workflows/versioning-behaviours.ts);
 * PINNED is the default so a workflow type added without deciding stays on the code it started with.
 */
export function workerDeploymentOptions(version: WorkerDeploymentVersion): WorkerDeploymentOptions {
  return { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' };
}

/** The form the server, the CLI and the `TemporalWorkerDeploymentVersion` search attribute use. */
export function versionString(version: WorkerDeploymentVersion): string {
  return `${version.deploymentName}:${version.buildId}`;
}
