// Verification never asks for an integration contract's Functions (operations, sync, webhook,
// exchange, refresh), and a contract call never counts as exercising a Function.
import { parseManifest } from '@platform/schema/manifest';
import { describe, expect, it } from 'vitest';
import type { ExerciseWay } from '../../src/functions/invoker.ts';
import { contractFunctions, verificationOf } from '../../src/verification/verification.ts';

const fnLines = (names: string[]) =>
  names.map((n) => `  - { name: ${n}, entrypoint: functions/${n}.ts, access: system }`).join('\n');

const { manifest, errors } = parseManifest(`schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
${fnLines(['findContact', 'syncAll', 'hook', 'exchange', 'refresh', 'report'])}
provides:
  integration:
    name: crm
    title: CRM
    authorization:
      type: oauth2
      authorizationUrl: https://crm.example.com/authorize
      clientId: client
      exchange: exchange
      refresh: refresh
    capabilities:
      - { name: contacts.read, description: Read. }
    operations:
      - name: contacts.find
        description: Find.
        capability: contacts.read
        function: findContact
        fake: {}
    sync: { function: syncAll, schedule: "0 * * * *" }
    webhook: { function: hook }
`);

describe('verification of a provider app', () => {
  it('leaves every contract Function out and lists the others', () => {
    expect(errors).toEqual([]);
    expect([...contractFunctions(manifest!)].sort()).toEqual([
      'exchange',
      'findContact',
      'hook',
      'refresh',
      'syncAll',
    ]);
    const ran = new Map<string, Set<ExerciseWay>>([['report', new Set(['direct'])]]);
    const listed = verificationOf(manifest!, {
      exercised: (name) => ran.get(name) ?? new Set(),
    });
    expect(listed).toEqual([
      { name: 'report', accepts: ['direct', 'browser'], ran: ['direct'], exercised: true },
    ]);
  });
});
