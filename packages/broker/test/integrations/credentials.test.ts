// Credential values as a person enters them: every required field, nothing undeclared, one line
// of at most 4096 characters; sealed values open only for their own connection and key.
import { isPlatformError } from '@platform/errors';
import { parseManifest } from '@platform/schema/manifest';
import { describe, expect, it } from 'vitest';
import { CredentialCipher } from '../../src/integrations/credential-cipher.ts';
import {
  CREDENTIAL_VALUE_MAX_LENGTH,
  checkCredentialValues,
} from '../../src/integrations/credential-values.ts';

const contract = parseManifest(`schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
provides:
  integration:
    name: crm
    title: CRM
    credentials:
      - { name: CRM_API_KEY, label: API key }
      - { name: CRM_REGION, label: Region, secret: false, optional: true }
    capabilities:
      - { name: contacts.read, description: Read. }
`).manifest!.provides!.integration!;

const refusal = (entered: Record<string, unknown>) => {
  try {
    checkCredentialValues(contract, entered);
  } catch (error) {
    if (isPlatformError(error))
      return { code: error.code, field: error.details?.field, message: error.message };
    throw error;
  }
  return undefined;
};

describe('credential values', () => {
  it('keep the declared values, leaving empty optional ones out', () => {
    expect(checkCredentialValues(contract, { CRM_API_KEY: 'k', CRM_REGION: '' })).toEqual({
      CRM_API_KEY: 'k',
    });
  });

  it('refuse a missing required value, an undeclared field, a control character and a long value, naming the field only', () => {
    expect(refusal({})).toMatchObject({ code: 'INVALID_INPUT', field: 'CRM_API_KEY' });
    expect(refusal({ CRM_API_KEY: 'k', OTHER: 'x' })).toMatchObject({ field: 'OTHER' });
    const tab = refusal({ CRM_API_KEY: 'se\tcret' });
    expect(tab).toMatchObject({ field: 'CRM_API_KEY' });
    expect(tab?.message).not.toContain('se\tcret');
    expect(refusal({ CRM_API_KEY: 'k'.repeat(CREDENTIAL_VALUE_MAX_LENGTH) })).toBeUndefined();
    expect(refusal({ CRM_API_KEY: 'k'.repeat(CREDENTIAL_VALUE_MAX_LENGTH + 1) })).toMatchObject({
      field: 'CRM_API_KEY',
    });
  });

  it('open only for the connection and the key they were sealed with', () => {
    const cipher = CredentialCipher.ephemeral();
    const sealed = cipher.seal('con_a', { CRM_API_KEY: 'sk_1' });
    expect(sealed).not.toContain('sk_1');
    expect(cipher.open('con_a', sealed)).toEqual({ CRM_API_KEY: 'sk_1' });
    expect(() => cipher.open('con_b', sealed)).toThrow();
    expect(() => CredentialCipher.ephemeral().open('con_a', sealed)).toThrow();
    expect(cipher.webhookSecret('con_a')).toBe(cipher.webhookSecret('con_a'));
    expect(cipher.webhookSecret('con_a')).not.toBe(cipher.webhookSecret('con_b'));
  });
});
