// ../dashboard.test.ts again, against the plugin as one executable (`make plugin-binary` writes it
// to .stepwise/bin/sea; `make e2e` builds it first): the page's script and style are the ones
// embedded at build time, not bundled from the sources at start. STEPWISE_PLUGIN_DIR, when set,
// names another build.
import { join } from 'node:path';
import { REPO_ROOT } from '../../cluster/state.ts';

process.env.STEPWISE_PLUGIN_DIR ??= join(REPO_ROOT, '.stepwise', 'bin', 'sea');
// After the variable is set: support/plugin.ts reads it when it is first imported.
await import('../dashboard.test.ts');
