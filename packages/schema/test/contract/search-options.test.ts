import { limits } from '@platform/schema';
import { describe, expect, it } from 'vitest';
import {
  checkSearchOptions,
  declarationsSchema,
  type SearchSummary,
} from '../../src/contract/index.ts';

const model = 'embed@1';
const searches: Record<string, SearchSummary> = {
  both: { fullText: true, model, dimensions: 3, filters: ['teamId'] },
  text: { fullText: true, model: null, dimensions: null, filters: [] },
  vectors: { fullText: false, model, dimensions: 3, filters: [] },
};
const check = (name: string, options: unknown) => checkSearchOptions(name, searches, options);
const failure = (name: string, options: unknown) => {
  try {
    check(name, options);
  } catch (error) {
    return error as { name: string; code: string; details: Record<string, unknown> };
  }
  throw new Error('expected the options to be refused');
};

describe('checkSearchOptions (spec 2.5)', () => {
  it('returns the options normalised: query trimmed, limit defaulted, vector copied', () => {
    expect(check('text', { mode: 'fullText', query: '  tea  ' })).toEqual({
      mode: 'fullText',
      query: 'tea',
      limit: limits.search.limitDefault,
    });
    const vector = [1, 0, 0];
    const checked = check('both', {
      mode: 'hybrid',
      query: 'x',
      vector,
      model,
      where: { teamId: null },
      limit: limits.search.limitMax,
    });
    expect(checked).toEqual({
      mode: 'hybrid',
      query: 'x',
      vector,
      model,
      where: { teamId: null },
      limit: limits.search.limitMax,
    });
    expect(checked.vector).not.toBe(vector);
  });

  it('accepts the boundaries: limit 1 and 50, a query of exactly the maximum after trimming', () => {
    const query = ` ${'q'.repeat(limits.search.queryMaxLength)} `;
    expect(check('text', { mode: 'fullText', query, limit: limits.search.limitMin }).limit).toBe(1);
    expect(check('text', { mode: 'fullText', query: 'a', limit: 50 }).limit).toBe(50);
  });

  it('refuses a mode the declaration does not enable on `mode`, before any model check', () => {
    for (const options of [
      { mode: 'vector', vector: [1, 0, 0], model },
      { mode: 'vector', vector: [1, 0, 0] },
      { mode: 'vector', vector: [1, 0, 0], model: 'other@1' },
      { mode: 'hybrid', query: 'a', vector: [1, 0, 0], model },
    ]) {
      expect(failure('text', options)).toMatchObject({
        name: 'PlatformError',
        code: 'SEARCH_INPUT_INVALID',
        details: { field: 'mode', mode: options.mode },
      });
    }
    expect(failure('vectors', { mode: 'fullText', query: 'a' })).toMatchObject({
      code: 'SEARCH_INPUT_INVALID',
      details: { field: 'mode', mode: 'fullText' },
    });
  });

  it('computes the norm in float32, as pgvector does', () => {
    // 1e-30 squared is 1e-60: nonzero in float64, zero in float32.
    expect(failure('vectors', { mode: 'vector', vector: [1e-30, 0, 0], model })).toMatchObject({
      code: 'SEARCH_INPUT_INVALID',
      details: { field: 'vector' },
    });
    expect(check('vectors', { mode: 'vector', vector: [1e-19, 0, 0], model }).vector).toEqual([
      1e-19, 0, 0,
    ]);
  });

  it('names the code of each remaining rule', () => {
    expect(failure('constructor', { mode: 'fullText', query: 'a' }).code).toBe(
      'SEARCH_NOT_DECLARED',
    );
    expect(failure('both', { mode: 'vector', vector: [1, 0, 0], model: 'Embed@1' })).toMatchObject({
      code: 'SEARCH_MODEL_MISMATCH',
      details: { model: 'Embed@1', declared: model },
    });
    expect(failure('both', { mode: 'vector', vector: [1, 0], model })).toMatchObject({
      code: 'SEARCH_DIMENSION_MISMATCH',
      details: { length: 2, declared: 3 },
    });
    expect(failure('both', { mode: 'fullText', query: 'a', where: { owner: 1 } })).toMatchObject({
      code: 'SEARCH_INPUT_INVALID',
      details: { field: 'where', column: 'owner', filters: ['teamId'] },
    });
    expect(failure('both', [])).toMatchObject({ code: 'SEARCH_INPUT_INVALID' });
  });
});

describe('declared.searches', () => {
  it('reads a summary without fullText (an older broker) as declaring full text', () => {
    const parsed = declarationsSchema.parse({
      secrets: [],
      emailAliases: [],
      searches: { docs: { model: null, dimensions: null, filters: [] } },
    });
    expect(parsed.searches.docs).toEqual({
      fullText: true,
      model: null,
      dimensions: null,
      filters: [],
    });
  });

  it('requires model and dimensions together', () => {
    const result = declarationsSchema.safeParse({
      secrets: [],
      emailAliases: [],
      searches: { docs: { fullText: true, model: 'm', dimensions: null, filters: [] } },
    });
    expect(result.success).toBe(false);
  });
});
