// The fault cases make activities fail on purpose, hundreds of times: keep the SDK's warning per
// failed attempt out of the output; errors still show.
import { DefaultLogger, Runtime } from '@temporalio/worker';

Runtime.install({ logger: new DefaultLogger('ERROR') });
