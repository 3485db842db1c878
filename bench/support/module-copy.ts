/**
 * What each cached workflow's own copy of the bundle's modules costs. With the SDK's reusable V8
 * context (the default), the bundle is evaluated once, and every workflow then instantiates the
 * workflow modules (ours and what they import) in a module cache of its own, for as long as it is
 * cached. Measured as the SDK does it, without a server: the bundle run once in a V8 context whose
 * module cache is switched per workflow (the SDK's `__webpack_module_cache__` proxy), its
 * `importWorkflows()` called for COPIES workflows, each copy held, and the heap after two forced
 * collections compared with before, in a child process of its own (`--expose-gc`). A size in bytes,
 * which does not depend on the machine's speed.
 *
 * Run directly (`node --expose-gc --import tsx bench/support/module-copy.ts <bundle.js>`), it prints
 * the figure as JSON.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { writeWorkflowBundle } from '../../workers/workflow-bundle';

const COPIES = 40;

export interface ModuleCopy {
  /** Modules each workflow instantiates for itself. */
  modules: number;
  /** Their heap, per workflow. */
  kibPerWorkflow: number;
  /** Of those, zod's (0 when zod is not in the bundle). */
  zodModules: number;
}

/** Bundles workflows/index.ts as a worker does and measures its module copy in a child process. */
export async function measureModuleCopy(): Promise<ModuleCopy> {
  const bundlePath = join(mkdtempSync(join(tmpdir(), 'rampflow-module-copy-')), 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);
  const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', __filename, bundlePath], {
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1)!) as ModuleCopy;
}

function measureInThisProcess(bundlePath: string): ModuleCopy {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc');
  const shared = new Map<string | symbol, unknown>();
  let current: Map<string | symbol, unknown> | undefined;
  const context = vm.createContext({
    console,
    TextEncoder,
    TextDecoder,
    AbortController,
    URL,
    URLSearchParams,
    Headers,
    Response,
  });
  const moduleCache = new Proxy(
    {},
    {
      get: (_, key) => shared.get(key) ?? current?.get(key),
      set: (_, key, value) => {
        (current ?? shared).set(key, value);
        return true;
      },
    },
  );
  Object.defineProperty(context, '__webpack_module_cache__', { value: moduleCache });
  vm.runInContext(readFileSync(bundlePath, 'utf8'), context);
  const held: Map<string | symbol, unknown>[] = [];
  collect();
  collect();
  const before = process.memoryUsage().heapUsed;
  for (let copy = 0; copy < COPIES; copy++) {
    current = new Map();
    vm.runInContext('__TEMPORAL__.importWorkflows()', context);
    held.push(current);
    current = undefined;
  }
  collect();
  collect();
  const after = process.memoryUsage().heapUsed;
  const names = [...held[0]!.keys()].map(String);
  return {
    modules: names.length,
    kibPerWorkflow: (after - before) / COPIES / 1024,
    zodModules: names.filter((name) => name.includes('node_modules/zod/')).length,
  };
}

if (process.argv[1] === __filename) process.stdout.write(`${JSON.stringify(measureInThisProcess(process.argv[2]!))}\n`);
