/** The container's memory limit, which the worker compares with its budget (WORKER_MEMORY_MB): the cgroup's, else none. */
import { describe, expect, it } from 'vitest';
import { cgroupMemoryLimitBytes } from '../../workers/service-metrics';

const files = (contents: Record<string, string>) => (path: string) => {
  if (path in contents) return contents[path]!;
  throw new Error(`ENOENT: ${path}`);
};

describe("the container's memory limit", () => {
  it('is the cgroup v2 limit, else the v1 limit', () => {
    expect(cgroupMemoryLimitBytes(files({ '/sys/fs/cgroup/memory.max': '1073741824\n' }))).toBe(1_073_741_824);
    expect(cgroupMemoryLimitBytes(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '536870912\n' }))).toBe(
      536_870_912,
    );
  });
  it('is none when the cgroup says unlimited or there is no cgroup', () => {
    expect(cgroupMemoryLimitBytes(files({ '/sys/fs/cgroup/memory.max': 'max\n' }))).toBeUndefined();
    expect(
      cgroupMemoryLimitBytes(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' })),
    ).toBeUndefined();
    expect(cgroupMemoryLimitBytes(files({}))).toBeUndefined();
  });
});
