/**
 * `npm run deps:lock`: run after changing dependencies.
 *
 * Native packages (@swc/core, rollup, ...) list one optional package per platform. When the registry
 * in use does not hold the other platforms' packages, npm leaves them out of package-lock.json, and
 * `npm ci` then refuses the lock as out of sync. This adds an entry for each missing one, with the
 * os/cpu/libc its name encodes, so `npm ci` knows it is for another platform and skips it without
 * fetching. Entries npm wrote itself are never touched.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

interface LockEntry {
  version?: string;
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
}

interface Lockfile {
  packages: Record<string, LockEntry>;
}

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'openharmony', 'netbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'];

/** The platform a package name like `@rollup/rollup-linux-x64-musl` is built for, or undefined. */
export function platformOf(name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> | undefined {
  const parts = name.split('/').pop()!.split('-');
  const osAt = parts.findIndex((part) => OS.includes(part));
  if (osAt === -1) return undefined;
  const cpu = parts[osAt + 1];
  if (cpu === undefined || !CPU.includes(cpu)) return undefined;
  const abi = parts.slice(osAt + 2).join('-');
  const libc = abi.startsWith('musl') ? ['musl'] : abi.startsWith('gnu') ? ['glibc'] : undefined;
  return { os: [parts[osAt]!], cpu: [cpu], ...(libc ? { libc } : {}) };
}

/** The optional platform packages the lock names but does not contain. */
export function missingOptionalPackages(lock: Lockfile): Map<string, LockEntry> {
  const missing = new Map<string, LockEntry>();
  for (const entry of Object.values(lock.packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const key = `node_modules/${name}`;
      if (lock.packages[key] || missing.has(key)) continue;
      const platform = platformOf(name);
      if (platform) missing.set(key, { version, optional: true, ...platform });
    }
  }
  return missing;
}

function main(): void {
  const path = join(resolve(__dirname, '..'), 'package-lock.json');
  const lock = JSON.parse(readFileSync(path, 'utf8')) as Lockfile;
  const missing = missingOptionalPackages(lock);
  for (const [key, entry] of missing) lock.packages[key] = entry;
  // npm keeps the packages in key order; keep that so later npm runs make small diffs.
  lock.packages = Object.fromEntries(
    Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
  );
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(`[deps:lock] added ${missing.size} optional platform entries to package-lock.json\n`);
}

if (require.main === module) main();
