// Every id the broker mints comes from one function and one list of prefixes, and each kind keeps
// the form its stored ids already have.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type IdKind, idFormats, newId } from '../../src/kernel/ids.ts';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

// The forms ids were minted in before they had one home; stored ids keep them.
const stored: Record<IdKind, RegExp> = {
  request: /^req_[\w-]{16}$/,
  session: /^ses_[\w-]{22}$/,
  emailLink: /^lnk_[\w-]{16}$/,
  appToken: /^tok_[\w-]{12}$/,
  agentCredential: /^agent_[\w-]{12}$/,
  tokenRequest: /^tokreq_[\w-]{16}$/,
  agentRequest: /^agentreq_[\w-]{16}$/,
  accountCredential: /^acct_[\w-]{12}$/,
  accountRequest: /^acctreq_[\w-]{16}$/,
  onboardingRequest: /^onb_[\w-]{16}$/,
  accountDeletion: /^del_[\w-]{16}$/,
  connection: /^con_[\w-]{16}$/,
  binding: /^bnd_[\w-]{16}$/,
  integrationEvent: /^evt_[\w-]{16}$/,
  eventDelivery: /^dlv_[\w-]{16}$/,
  invocationToken: /^inv_[\w-]{32}$/,
  job: /^job_[0-9a-f]{32}$/,
  jobWorker: /^worker_[0-9a-f]{16}$/,
  file: /^file_[0-9a-f]{32}$/,
  inboundMail: /^inmail_[0-9a-f]{24}$/,
  push: /^push_[0-9a-f]{24}$/,
  deployment: /^dep_[\w-]{16}$/,
  email: /^email_[0-9a-f]{24}$/,
  backup: /^bak_[0-9a-f]{24}$/,
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('ids', () => {
  it('keep the form each kind was stored in, and differ from call to call', () => {
    expect(Object.keys(idFormats).sort()).toEqual(Object.keys(stored).sort());
    for (const kind of Object.keys(stored) as IdKind[]) {
      const [a, b] = [newId(kind), newId(kind)];
      expect(a).toMatch(stored[kind]);
      expect(b).not.toBe(a);
    }
  });

  it('have a prefix of their own per kind', () => {
    const prefixes = Object.values(idFormats).map((format) => format.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });

  it('are minted only through newId', () => {
    // `<prefix>_` followed by fresh random text written in place: the shape newId replaces.
    const minted = /_\$\{(randomSecret|randomBase64url|randomBytes|randomUUID)\(/;
    const offenders = sources(src)
      .filter((path) => !path.endsWith(join('kernel', 'ids.ts')))
      .filter((path) => minted.test(readFileSync(path, 'utf8')))
      .map((path) => relative(src, path));
    expect(offenders).toEqual([]);
  });
});
