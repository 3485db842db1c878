import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingOptionalPackages, platformOf } from '../../dev/complete-lockfile';
import { PROJECT_ROOT } from '../support/run';

describe('package-lock.json', () => {
  it('names every optional platform package, so npm ci accepts it (run `npm run deps:lock` if this fails)', () => {
    const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8'));
    expect([...missingOptionalPackages(lock).keys()]).toEqual([]);
  });

  it('reads the platform from a native package name', () => {
    expect(platformOf('@rollup/rollup-linux-x64-musl')).toEqual({ os: ['linux'], cpu: ['x64'], libc: ['musl'] });
    expect(platformOf('@swc/core-linux-arm-gnueabihf')).toEqual({ os: ['linux'], cpu: ['arm'], libc: ['glibc'] });
    expect(platformOf('@swc/core-win32-ia32-msvc')).toEqual({ os: ['win32'], cpu: ['ia32'] });
    expect(platformOf('@rollup/rollup-android-arm-eabi')).toEqual({ os: ['android'], cpu: ['arm'] });
    expect(platformOf('left-pad')).toBeUndefined();
  });
});
