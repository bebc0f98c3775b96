// Certificates for a throwaway control plane, made with Debian's openssl. EC P-256 keys: they
// take milliseconds to generate, where RSA would add about a second to every start.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface KeyPair {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface Pki {
  readonly dir: string;
  readonly caFile: string;
  readonly caKeyFile: string;
  /** Serving certificate of kube-apiserver (loopback and in-cluster names). */
  readonly apiserver: KeyPair;
  /** Client certificates; `admin` is in `system:masters`. */
  readonly admin: KeyPair;
  readonly controllerManager: KeyPair;
  readonly scheduler: KeyPair;
  /** Signs and verifies service-account tokens (apiserver and controller-manager). */
  readonly serviceAccountKeyFile: string;
}

const OPENSSL_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
authorityKeyIdentifier = keyid
subjectAltName = IP:127.0.0.1,DNS:localhost,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
[client]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
`;

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export async function createPki(dir: string): Promise<Pki> {
  await mkdir(dir, { recursive: true });
  const config = join(dir, 'openssl.cnf');
  await writeFile(config, OPENSSL_CONFIG);
  const caFile = join(dir, 'ca.crt');
  const caKeyFile = join(dir, 'ca.key');
  await openssl(
    ['req', '-x509', '-config', config, '-extensions', 'ca', ...EC_KEY].concat([
      '-keyout',
      caKeyFile,
      '-out',
      caFile,
      '-days',
      '3650',
      '-subj',
      '/CN=stepwise-test-ca',
    ]),
  );

  const issue = async (name: string, subject: string, profile: 'server' | 'client') => {
    const pair = { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
    await openssl(
      ['req', '-x509', '-config', config, '-extensions', profile, ...EC_KEY]
        .concat(['-keyout', pair.keyFile, '-out', pair.certFile, '-days', '365', '-subj', subject])
        .concat(['-CA', caFile, '-CAkey', caKeyFile]),
    );
    return pair;
  };
  const serviceAccountKeyFile = join(dir, 'sa.key');
  const [apiserver, admin, controllerManager, scheduler] = await Promise.all([
    issue('apiserver', '/CN=kube-apiserver', 'server'),
    issue('admin', '/O=system:masters/CN=stepwise-admin', 'client'),
    // The default RBAC bootstrap policy already binds these two user names.
    issue('kube-controller-manager', '/CN=system:kube-controller-manager', 'client'),
    issue('kube-scheduler', '/CN=system:kube-scheduler', 'client'),
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', serviceAccountKeyFile]),
  ]);
  return {
    dir,
    caFile,
    caKeyFile,
    apiserver,
    admin,
    controllerManager,
    scheduler,
    serviceAccountKeyFile,
  };
}

/**
 * A client certificate for a person, signed by the cluster's CA in `pkiDir`: the API server
 * authenticates it as user `name` in `groups` (the subject's CN and O).
 */
/** `fileStem` names the pair's files: callers running at once must each pass their own. */
export async function issueUserCertificate(
  pkiDir: string,
  name: string,
  groups: readonly string[],
  fileStem: string,
): Promise<KeyPair> {
  const pair = {
    certFile: join(pkiDir, `${fileStem}.crt`),
    keyFile: join(pkiDir, `${fileStem}.key`),
  };
  const subject = [...groups.map((g) => `/O=${g}`), `/CN=${name}`].join('');
  await openssl(
    ['req', '-x509', '-config', join(pkiDir, 'openssl.cnf'), '-extensions', 'client', ...EC_KEY]
      .concat(['-keyout', pair.keyFile, '-out', pair.certFile, '-days', '1', '-subj', subject])
      .concat(['-CA', join(pkiDir, 'ca.crt'), '-CAkey', join(pkiDir, 'ca.key')]),
  );
  return pair;
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim() || String(err)}`, { cause: err });
  }
}
