// What a build says it is: the source fallback, the stamp the bundlers embed, and the one
// licence the repository, package.json and the image label name.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildInfo, SOURCE_VERSION, versionText } from '../../../src/api/index.ts';
import { revision, sourceDateEpoch, stampDefine, stampOf } from '../../../image/stamp.ts';
import { REPO_ROOT } from '../../cluster/state.ts';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
};

describe('the build stamp', () => {
  it("run from source: package.json's version, commit and date unknown", () => {
    assert.equal(SOURCE_VERSION, pkg.version, 'src/api/version.ts follows package.json');
    assert.deepEqual(buildInfo(), {
      version: pkg.version,
      revision: 'unknown',
      buildDate: 'unknown',
    });
  });

  it('dates the build by SOURCE_DATE_EPOCH, never the clock, and refuses a bad one', () => {
    assert.equal(sourceDateEpoch({ SOURCE_DATE_EPOCH: '1700000000' }), 1_700_000_000);
    assert.deepEqual(stampOf('1.2.3', 'abc123-dirty', 1_700_000_000), {
      version: '1.2.3',
      revision: 'abc123-dirty',
      buildDate: '2023-11-14T22:13:20Z',
    });
    for (const bad of ['', 'yesterday', '-5', '1.5']) {
      assert.throws(() => sourceDateEpoch({ SOURCE_DATE_EPOCH: bad }), /SOURCE_DATE_EPOCH must/);
    }
  });

  it('takes the commit from STEPWISE_REVISION where there is no .git (the Dockerfile)', () => {
    assert.equal(revision({ STEPWISE_REVISION: '0123abc' }), '0123abc');
    assert.match(revision({}), /^[0-9a-f]{40}(-dirty)?$/);
  });

  it('is handed to esbuild as the object literal version.ts reads', () => {
    const stamp = stampOf('1.2.3', 'abc', 0);
    assert.deepEqual(JSON.parse(stampDefine(stamp).STEPWISE_BUILD ?? ''), stamp);
  });

  it('prints version, commit and build date, then the runtime when given', () => {
    const info = stampOf('1.2.3', 'abc', 0);
    assert.equal(
      versionText('stepwise-controller', info, { node: 'v24.0.0', platform: 'linux/x64' }),
      'stepwise-controller v1.2.3\n' +
        '  Commit: abc\n' +
        '  Build date: 1970-01-01T00:00:00Z\n' +
        '  Node: v24.0.0\n' +
        '  Platform: linux/x64',
    );
    assert.equal(versionText('x', info).split('\n').length, 3);
  });
});

describe('the licence', () => {
  it('LICENSE is the Apache License 2.0, word for word, as package.json says', () => {
    const text = readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8');
    assert.equal(pkg.license, 'Apache-2.0');
    assert.match(text, /^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    assert.match(text, /END OF TERMS AND CONDITIONS/);
    // apache.org's LICENSE-2.0.txt, byte for byte.
    assert.equal(
      createHash('sha256').update(text).digest('hex'),
      'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30',
    );
  });
});
