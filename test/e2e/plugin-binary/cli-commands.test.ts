// ../cli-commands.test.ts again, against the plugin as one executable (`make plugin-binary` writes it to
// .stepwise/bin/sea; `make e2e` builds it first) instead of the shim that runs the sources: the
// same tests for the binary people download. STEPWISE_PLUGIN_DIR, when set, names another build.
import { join } from 'node:path';
import { REPO_ROOT } from '../../cluster/state.ts';

process.env.STEPWISE_PLUGIN_DIR ??= join(REPO_ROOT, '.stepwise', 'bin', 'sea');
// After the variable is set: support/plugin.ts reads it when it is first imported.
await import('../cli-commands.test.ts');
