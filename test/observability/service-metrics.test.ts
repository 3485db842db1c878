/** The worker's memory limit for `rampflow_worker_memory_limit_bytes`: configured, else the cgroup's, else none. */
import { describe, expect, it } from 'vitest';
import { memoryLimitBytes } from '../../workers/service-metrics';

const files = (contents: Record<string, string>) => (path: string) => {
  if (path in contents) return contents[path]!;
  throw new Error(`ENOENT: ${path}`);
};

describe('the worker\'s memory limit', () => {
  it('is WORKER_MEMORY_LIMIT_BYTES when set', () => {
    expect(memoryLimitBytes(2_000_000_000, files({ '/sys/fs/cgroup/memory.max': '1000000000\n' }))).toBe(2_000_000_000);
  });
  it('is the cgroup v2 limit, else the v1 limit', () => {
    expect(memoryLimitBytes(undefined, files({ '/sys/fs/cgroup/memory.max': '1073741824\n' }))).toBe(1_073_741_824);
    expect(memoryLimitBytes(undefined, files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '536870912\n' }))).toBe(536_870_912);
  });
  it('is none when the cgroup says unlimited or there is no cgroup', () => {
    expect(memoryLimitBytes(undefined, files({ '/sys/fs/cgroup/memory.max': 'max\n' }))).toBeUndefined();
    expect(memoryLimitBytes(undefined, files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' }))).toBeUndefined();
    expect(memoryLimitBytes(undefined, files({}))).toBeUndefined();
  });
});
