import { PlatformError } from '@platform/errors';
import type { IntegrationContract } from '@platform/schema/manifest';

/** The longest credential value accepted, in characters (ours; docs/integrations.md). */
export const CREDENTIAL_VALUE_MAX_LENGTH = 4096;

// C0 controls and DEL: a credential is one line of text; a newline or NUL in it is a paste
// accident or an injection into the headers a provider Function builds from it.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const CONTROL = /[\u0000-\u001f\u007f]/;

const invalid = (message: string, field: string) =>
  new PlatformError({ code: 'INVALID_INPUT', message, details: { field } });

/**
 * The credential values a person entered for `contract`, checked field by field: every
 * declared field that is not `optional` has a value, no undeclared field is given, and each
 * value is one line of at most {@link CREDENTIAL_VALUE_MAX_LENGTH} characters. Empty optional
 * fields are left out. The messages name the field, never its value.
 */
export function checkCredentialValues(
  contract: IntegrationContract,
  entered: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const declared = new Map(contract.credentials.map((field) => [field.name, field]));
  for (const name of Object.keys(entered)) {
    if (!declared.has(name)) {
      throw invalid(`"${contract.name}" declares no credential named ${name}.`, name);
    }
  }
  const values: Record<string, string> = {};
  for (const field of contract.credentials) {
    const value = entered[field.name];
    if (value === undefined || value === '') {
      if (field.optional) continue;
      throw invalid(`${field.label} (${field.name}) is required.`, field.name);
    }
    if (typeof value !== 'string') {
      throw invalid(`${field.label} (${field.name}) must be text.`, field.name);
    }
    if (value.length > CREDENTIAL_VALUE_MAX_LENGTH) {
      throw invalid(
        `${field.label} (${field.name}) is longer than ${CREDENTIAL_VALUE_MAX_LENGTH} characters.`,
        field.name,
      );
    }
    if (CONTROL.test(value)) {
      throw invalid(
        `${field.label} (${field.name}) contains a control character (a line break, tab or NUL); enter it on one line.`,
        field.name,
      );
    }
    values[field.name] = value;
  }
  return values;
}
