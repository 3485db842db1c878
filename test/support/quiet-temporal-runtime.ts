// Keep the SDK's per-worker INFO lines out of test output; warnings and errors still show.
import { DefaultLogger, Runtime } from '@temporalio/worker';

Runtime.install({ logger: new DefaultLogger('WARN') });
