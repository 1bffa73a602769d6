import { describe, expect, it } from 'vitest';
import { BASE, expectOne, run } from './helpers.ts';

const search = (lines: string) =>
  `${BASE}data:\n  search:\n    - name: todos\n      table: todos\n${lines}`;

describe('secrets and email', () => {
  it('accepts secrets and aliases', async () => {
    const { errors } = await run(
      `${BASE}secrets: [API_KEY, WEBHOOK_SECRET_2]\nemail:\n  aliases:\n    - name: hello\n    - name: no-reply.team\n      displayName: Team\n`,
    );
    expect(errors).toEqual([]);
  });

  it('rejects a secret name that is not UPPER_SNAKE', async () => {
    await expectOne(
      `${BASE}secrets:\n  - API_KEY\n  - 👉apiKey\n`,
      'SECRET_NAME_INVALID',
      'secrets[1]',
    );
  });

  it('rejects a reserved secret name', async () => {
    await expectOne(
      `${BASE}secrets:\n  - 👉PLATFORM_TOKEN\n`,
      'SECRET_NAME_RESERVED',
      'secrets[0]',
    );
  });

  it('rejects a duplicate secret', async () => {
    await expectOne(
      `${BASE}secrets:\n  - API_KEY\n  - 👉API_KEY\n`,
      'SECRET_NAME_DUPLICATE',
      'secrets[1]',
    );
  });

  it('rejects an invalid email alias', async () => {
    await expectOne(
      `${BASE}email:\n  aliases:\n    - name: 👉Hello@example.com\n`,
      'EMAIL_ALIAS_INVALID',
      'email.aliases[0].name',
    );
  });

  it('rejects a duplicate email alias', async () => {
    await expectOne(
      `${BASE}email:\n  aliases:\n    - name: hello\n    - name: 👉hello\n`,
      'EMAIL_ALIAS_DUPLICATE',
      'email.aliases[1].name',
    );
  });

  it('rejects a non-system inbound email Function', async () => {
    await expectOne(
      `${BASE}email:\n  inbound:\n    function: 👉api\n`,
      'EMAIL_INBOUND_FUNCTION_NOT_SYSTEM',
      'email.inbound.function',
    );
  });
});

describe('data.search[]', () => {
  it('accepts full-text, vector and hybrid declarations', async () => {
    const { errors, warnings } = await run(
      search(
        '      select: [id, title]\n      fullText:\n        columns: [title]\n      vector:\n        column: embedding\n        dimensions: 3\n        model: m-1\n      filters: [done]\n',
      ),
    );
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('rejects a declaration with neither fullText nor vector', async () => {
    await expectOne(
      `${BASE}data:\n  search:\n    - 👉name: todos\n      table: todos\n      select: [id]\n`,
      'SEARCH_MODE_MISSING',
      'data.search[0]',
    );
  });

  it('rejects an invalid search name', async () => {
    await expectOne(
      `${BASE}data:\n  search:\n    - name: 👉'todo search'\n      table: todos\n      select: [id]\n      fullText: { columns: [title] }\n`,
      'SEARCH_NAME_INVALID',
      'data.search[0].name',
    );
  });

  it('rejects a duplicate search name', async () => {
    await expectOne(
      search(
        '      select: [id]\n      fullText: { columns: [title] }\n    - name: 👉todos\n      table: t\n      select: [id]\n      fullText: { columns: [title] }\n',
      ),
      'SEARCH_NAME_DUPLICATE',
      'data.search[1].name',
    );
  });

  it('rejects an invalid column name', async () => {
    await expectOne(
      search('      select: [id, 👉Title]\n      fullText: { columns: [title] }\n'),
      'SEARCH_COLUMN_INVALID',
      'data.search[0].select[1]',
    );
  });

  it('rejects a repeated column', async () => {
    await expectOne(
      search('      select: [id]\n      fullText: { columns: [title, 👉title] }\n'),
      'SEARCH_COLUMN_DUPLICATE',
      'data.search[0].fullText.columns[1]',
    );
  });

  it('rejects an unknown full-text language', async () => {
    const d = await expectOne(
      search('      select: [id]\n      fullText: { columns: [title], language: 👉englsh }\n'),
      'SEARCH_LANGUAGE_INVALID',
      'data.search[0].fullText.language',
    );
    expect(d.message).toContain('Did you mean "english"?');
  });

  it.each([
    ['0', 'VALUE_TOO_SMALL'],
    ['16001', 'VALUE_TOO_LARGE'],
  ] as const)('rejects %s vector dimensions', async (value, code) => {
    await expectOne(
      search(`      select: [id]\n      vector: { column: v, dimensions: 👉${value}, model: m }\n`),
      code,
      'data.search[0].vector.dimensions',
    );
  });

  it('rejects a vector column as a scalar filter', async () => {
    await expectOne(
      search(
        '      select: [id]\n      vector: { column: v, dimensions: 3, model: m }\n      filters: [done, 👉v]\n',
      ),
      'SEARCH_FILTER_IS_VECTOR',
      'data.search[0].filters[1]',
    );
  });

  it('warns when the vector column is selected', async () => {
    const d = await expectOne(
      search('      select: [id, 👉v]\n      vector: { column: v, dimensions: 3, model: m }\n'),
      'SEARCH_VECTOR_COLUMN_SELECTED',
      'data.search[0].select[1]',
    );
    expect(d.severity).toBe('warning');
  });

  it('rejects an empty select list', async () => {
    await expectOne(
      search('      select: 👉[]\n      fullText: { columns: [title] }\n'),
      'VALUE_TOO_SMALL',
      'data.search[0].select',
    );
  });
});
