import { z } from 'zod';
import { contextRoutes } from '../routes.ts';
import { jsonObject, row, select } from './common.ts';
import { defineRoute } from './define.ts';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** Equality filters: `{ column: value }`; `null` means IS NULL. */
export const whereSchema = z.record(z.string().min(1), scalar);

const tableErrors = ['TABLE_NOT_FOUND', 'PERMISSION_DENIED'] as const;

/** `data.table(name).list({ where, limit, select })`. Rows come back ordered by `id`. */
export const dataList = defineRoute('dataList', contextRoutes.dataList, {
  summary: 'List rows of a table with equality filters, a limit and a column selection.',
  request: z.strictObject({
    where: whereSchema.optional(),
    limit: z.int().min(1).max(1000).optional(),
    select: select.optional(),
  }),
  response: z.strictObject({ rows: z.array(row) }),
  errors: tableErrors,
});

/** `data.table(name).getById(id, { select })`: `row` is `null` when no visible row has the id. */
export const dataGetById = defineRoute('dataGetById', contextRoutes.dataGetById, {
  summary: 'Read one row by primary key.',
  request: z.strictObject({ id: z.union([z.string(), z.number()]), select: select.optional() }),
  response: z.strictObject({ row: row.nullable() }),
  errors: tableErrors,
});

/** `data.table(name).create(row)`: answers the row as stored (defaults and `id` filled in). */
export const dataCreate = defineRoute('dataCreate', contextRoutes.dataCreate, {
  summary: 'Insert one row and return it.',
  request: z.strictObject({ row: jsonObject }),
  response: z.strictObject({ row }),
  errors: [...tableErrors, 'DATA_CONSTRAINT_VIOLATION', 'AUTH_REQUIRED'],
});

/** `data.table(name).updateById(id, patch)`: `ROW_NOT_FOUND` when no visible row has the id. */
export const dataUpdateById = defineRoute('dataUpdateById', contextRoutes.dataUpdateById, {
  summary: 'Patch one row by primary key and return it.',
  request: z.strictObject({ id: z.union([z.string(), z.number()]), patch: jsonObject }),
  response: z.strictObject({ row }),
  errors: [...tableErrors, 'ROW_NOT_FOUND', 'DATA_CONSTRAINT_VIOLATION', 'AUTH_REQUIRED'],
});

/** The options of `data.search(name, options)` as sent (the SDK checks spec 2.5 first). */
export const searchOptionsSchema = z.strictObject({
  mode: z.enum(['fullText', 'vector', 'hybrid']),
  query: z.string().optional(),
  vector: z.array(z.number()).optional(),
  model: z.string().optional(),
  where: whereSchema.optional(),
  limit: z.int().optional(),
});

const rankOrNull = z.number().nullable();

/** One search hit: the declared selected columns and the ranking evidence of spec 2.5. */
export const searchHitSchema = z.strictObject({
  record: jsonObject,
  fullTextScore: rankOrNull,
  fullTextRank: rankOrNull,
  vectorDistance: rankOrNull,
  vectorSimilarity: rankOrNull,
  vectorRank: rankOrNull,
  fusionScore: rankOrNull,
});

/** `data.search(name, options)` (SDK 2.4.0). */
export const dataSearch = defineRoute('dataSearch', contextRoutes.dataSearch, {
  summary: 'Run a named search declared under data.search in platform.yaml.',
  request: searchOptionsSchema,
  response: z.strictObject({ hits: z.array(searchHitSchema) }),
  errors: [
    'SEARCH_NOT_DECLARED',
    'SEARCH_INPUT_INVALID',
    'SEARCH_MODEL_MISMATCH',
    'SEARCH_DIMENSION_MISMATCH',
    'SEARCH_RESULT_TOO_LARGE',
    'SEARCH_UNAVAILABLE',
  ],
});
