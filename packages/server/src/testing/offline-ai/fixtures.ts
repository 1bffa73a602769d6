import { isJsonObject, type JsonValue } from '@platform/errors';

/**
 * One pinned answer of the offline AI: when a prompt matches `match`, text calls answer `text`
 * and `generateObject` answers `object`. `match` is a substring, or a regular expression
 * written `/source/flags`.
 */
export interface AiFixture {
  readonly match: string;
  readonly text?: string | undefined;
  readonly object?: JsonValue | undefined;
}

const REGEX = /^\/(.+)\/([a-z]*)$/s;

/** True when `prompt` matches the fixture's `match`. */
export function fixtureMatches(fixture: AiFixture, prompt: string): boolean {
  const regex = REGEX.exec(fixture.match);
  if (regex) return new RegExp(regex[1] ?? '', regex[2]).test(prompt);
  return prompt.includes(fixture.match);
}

/**
 * Reads the parsed content of a fixtures file (`ai-fixtures.yaml`: a list of `{ match, text }`
 * or `{ match, object }`). Throws an `Error` naming the entry that is wrong.
 */
export function parseAiFixtures(value: unknown): AiFixture[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value))
    throw new Error('the file must hold a list of { match, text | object }');
  return value.map((entry: unknown, index) => {
    if (!isJsonObject(entry as JsonValue)) throw new Error(`entry ${index + 1} is not a mapping`);
    const e = entry as Record<string, JsonValue>;
    if (typeof e.match !== 'string' || e.match === '') {
      throw new Error(`entry ${index + 1} needs a non-empty string "match"`);
    }
    const regex = REGEX.exec(e.match);
    if (regex) {
      try {
        new RegExp(regex[1] ?? '', regex[2]);
      } catch {
        throw new Error(`entry ${index + 1}: ${e.match} is not a valid regular expression`);
      }
    }
    if (e.text !== undefined && typeof e.text !== 'string') {
      throw new Error(`entry ${index + 1}: "text" must be a string`);
    }
    if (e.text === undefined && e.object === undefined) {
      throw new Error(`entry ${index + 1} needs "text" or "object"`);
    }
    const extra = Object.keys(e).filter((k) => !['match', 'text', 'object'].includes(k));
    if (extra.length > 0)
      throw new Error(`entry ${index + 1} has unknown keys: ${extra.join(', ')}`);
    return { match: e.match, text: e.text as string | undefined, object: e.object };
  });
}
